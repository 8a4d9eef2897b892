import SMPTransport

/// A connection's queues and ratchet state as the layer above shows them (simplexmq
/// `ConnectionStats`), returned by synchronizeRatchet and carried by RSYNC events.
public struct ConnectionStats: Sendable, Hashable {
    public var connAgentVersion: UInt16
    public var rcvQueuesInfo: [RcvQueueInfo]
    public var sndQueuesInfo: [SndQueueInfo]
    public var ratchetSyncState: RatchetSyncState
    /// Whether both agents can re-synchronize (agent version 3+).
    public var ratchetSyncSupported: Bool

    public init(connAgentVersion: UInt16, rcvQueuesInfo: [RcvQueueInfo], sndQueuesInfo: [SndQueueInfo],
                ratchetSyncState: RatchetSyncState, ratchetSyncSupported: Bool) {
        self.connAgentVersion = connAgentVersion
        self.rcvQueuesInfo = rcvQueuesInfo
        self.sndQueuesInfo = sndQueuesInfo
        self.ratchetSyncState = ratchetSyncState
        self.ratchetSyncSupported = ratchetSyncSupported
    }
}

/// One receiving queue of a connection (simplexmq `RcvQueueInfo`).
public struct RcvQueueInfo: Sendable, Hashable {
    public var rcvServer: String
    /// The reference's `QueueStatus` text: new, confirmed, secured, active.
    public var status: String
    public var rcvSwitchStatus: RcvSwitchStatus?
    public var canAbortSwitch: Bool
    public var subStatus: QueueSubscriptionStatus

    public init(rcvServer: String, status: String, rcvSwitchStatus: RcvSwitchStatus? = nil, subStatus: QueueSubscriptionStatus) {
        self.rcvServer = rcvServer
        self.status = status
        self.rcvSwitchStatus = rcvSwitchStatus
        self.canAbortSwitch = rcvSwitchStatus?.canAbort ?? false
        self.subStatus = subStatus
    }
}

/// Whether the queue is subscribed, as far as the agent knows (simplexmq `SubscriptionStatus`):
/// its relay connection exists and no resubscription is pending (`active`), a resubscription is
/// scheduled (`pending`), or there is no connection to its relay (`noSub`).
public enum QueueSubscriptionStatus: String, Sendable, Hashable {
    case active, pending, noSub
}

/// One sending queue of a connection (simplexmq `SndQueueInfo`).
public struct SndQueueInfo: Sendable, Hashable {
    public var sndServer: String
    public var status: String
    public var sndSwitchStatus: SndSwitchStatus?

    public init(sndServer: String, status: String, sndSwitchStatus: SndSwitchStatus? = nil) {
        self.sndServer = sndServer
        self.status = status
        self.sndSwitchStatus = sndSwitchStatus
    }
}

extension SMPAgent {
    // Names for the layer above, whose API has types of the same names (and where the module
    // name `SMPAgent` resolves to this actor).
    public typealias SyncState = RatchetSyncState
    public typealias CryptoError = AgentCryptoError
    public typealias Stats = ConnectionStats
    public typealias Phase = SwitchPhase
}
