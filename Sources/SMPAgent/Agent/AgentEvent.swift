/// An event from the agent to the layer above, for one connection (simplexmq's ACommand events).
public struct AgentEvent: Sendable {
    public let connId: String
    public let kind: AgentEventKind
}

public enum AgentEventKind: Sendable {
    /// The joiner's confirmation arrived: show `connInfo`, then call allowConnection.
    case conf(confirmationId: String, connInfo: [UInt8])
    /// Someone used our contact address: acceptContact or rejectContact.
    case req(invitationId: String, connInfo: [UInt8])
    /// The initiator's information, on the joining side.
    case info(connInfo: [UInt8])
    /// The connection is established (both sides get it).
    case con(pqEncryption: Bool)
    /// A user message; acknowledge it with ackMessage to receive the next one.
    case msg(MsgMeta, body: [UInt8])
    /// A message we queued reached the peer's relay.
    case sent(msgId: Int64)
    /// A message we queued can never be delivered.
    case merr(msgId: Int64, AgentError)
    /// Delivery receipts for messages we sent.
    case rcvd([MsgReceipt])
    /// The peer drained its queue after it was full; sending resumed.
    case qcont
    /// Another client took over this connection's queue subscription.
    case end
    /// The relay of this connection's queue is unreachable / reachable again.
    case down(server: String)
    case up(server: String)
    /// The connection was deleted (its queues at the relays too, when they were reachable).
    case del
    /// The ratchet re-synchronization state changed (simplexmq RSYNC): a decryption error moved
    /// it to allowed/required (with the error), or a re-synchronization progressed.
    case rsync(RatchetSyncState, AgentCryptoError?, ConnectionStats)
    /// A queue switch progressed (simplexmq SWITCH): of our receiving queue (we started it) or of
    /// our sending queue (the peer did).
    case switchProgress(QueueDirection, SwitchPhase, ConnectionStats)
    /// An error that belongs to no call (a bad message, a failed background step).
    case err(AgentError)
}

/// Metadata of a received message: ids, time, and whether the hash chain and ids were intact.
public struct MsgMeta: Sendable, Equatable {
    public let integrity: MsgIntegrity
    /// The agent's id for this message; ackMessage takes it.
    public let agentMsgId: Int64
    /// The sender's sequential id (the hash chain's position).
    public let sndMsgId: Int64
    /// When the relay accepted it (seconds since the epoch).
    public let brokerTs: Int64
    public let pqEncryption: Bool
}

public enum MsgIntegrity: Sendable, Equatable {
    case ok
    case error(MsgErrorType)
}

/// What broke in the message sequence (simplexmq MsgErrorType).
public enum MsgErrorType: Sendable, Equatable {
    /// Messages from..to were never received (a gap).
    case skipped(from: Int64, to: Int64)
    /// The id went backwards or repeated.
    case badId(Int64)
    /// The previous-message hash does not match the last message we received.
    case badHash
}

public struct MsgReceipt: Sendable, Equatable {
    /// Our id of the message the receipt is for.
    public let agentMsgId: Int64
    /// Whether the peer's hash of the message matches ours.
    public let ok: Bool
    public let rcptInfo: [UInt8]
}
