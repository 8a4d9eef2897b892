/// A connection's queues and ratchet re-synchronization state as the API shows them (simplexmq
/// `ConnectionStats`, JSON by `defaultJSON`: absent optionals are omitted).
public struct ConnectionStats: Codable, Sendable, Hashable {
    public var connAgentVersion: Int
    public var rcvQueuesInfo: [RcvQueueInfo]
    public var sndQueuesInfo: [SndQueueInfo]
    public var ratchetSyncState: RatchetSyncState
    public var ratchetSyncSupported: Bool
    public var subStatus: SubscriptionStatus?

    public init(connAgentVersion: Int, rcvQueuesInfo: [RcvQueueInfo], sndQueuesInfo: [SndQueueInfo], ratchetSyncState: RatchetSyncState,
                ratchetSyncSupported: Bool, subStatus: SubscriptionStatus?) {
        self.connAgentVersion = connAgentVersion
        self.rcvQueuesInfo = rcvQueuesInfo
        self.sndQueuesInfo = sndQueuesInfo
        self.ratchetSyncState = ratchetSyncState
        self.ratchetSyncSupported = ratchetSyncSupported
        self.subStatus = subStatus
    }
}

/// simplexmq `RcvQueueInfo`; `status` is the QueueStatus text (new, confirmed, secured, active, disabled).
public struct RcvQueueInfo: Codable, Sendable, Hashable {
    public var rcvServer: String
    public var status: String
    public var rcvSwitchStatus: String?
    public var canAbortSwitch: Bool
    public var subStatus: SubscriptionStatus
}

/// simplexmq `SndQueueInfo`.
public struct SndQueueInfo: Codable, Sendable, Hashable {
    public var sndServer: String
    public var status: String
    public var sndSwitchStatus: String?
}

/// Payload of `contactSwitch` / `groupMemberSwitch` events (simplex-chat `SwitchProgress`).
public struct SwitchProgress: Codable, Sendable, Hashable {
    /// "rcv": our receiving queue (we switch it); "snd": our sending queue (the peer switches).
    public var queueDirection: String
    public var switchPhase: SwitchPhase
    public var connectionStats: ConnectionStats

    public init(queueDirection: String, switchPhase: SwitchPhase, connectionStats: ConnectionStats) {
        self.queueDirection = queueDirection
        self.switchPhase = switchPhase
        self.connectionStats = connectionStats
    }
}

/// Payload of `contactRatchetSync` / `groupMemberRatchetSync` events (simplex-chat `RatchetSyncProgress`).
public struct RatchetSyncProgress: Codable, Sendable, Hashable {
    public var ratchetSyncStatus: RatchetSyncState
    public var connectionStats: ConnectionStats

    public init(ratchetSyncStatus: RatchetSyncState, connectionStats: ConnectionStats) {
        self.ratchetSyncStatus = ratchetSyncStatus
        self.connectionStats = connectionStats
    }
}
