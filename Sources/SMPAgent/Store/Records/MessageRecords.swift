import Foundation
import GRDB

/// What a stored outgoing message is, which decides how it is sent and what is reported.
enum SndMessageType: String, Codable, Sendable {
    /// Confirmation (ours, with connection info): sent with our DH key in the public header.
    case confirmation
    case hello
    /// A user message (A_MSG): SENT / MERR are reported for it.
    case message
    case receipt
    case queueContinue
    /// New ratchet keys (AgentRatchetKey), encrypted with the queue key only.
    case ratchetKey
    /// EREADY: the first message of a re-synchronized ratchet.
    case eReady
    /// Queue rotation messages (QADD, QKEY, QUSE, QTEST).
    case qAdd, qKey, qUse, qTest
}

enum SndMessageStatus: String, Codable, Sendable {
    case pending, sent, failed
}

/// An outgoing message, ratchet-encrypted when it was queued so retries resend the same bytes.
struct SndMessageRecord: AgentRecord {
    static let databaseTableName = "snd_messages"

    var connId: String
    var internalId: Int64
    var internalSndId: Int64
    var msgType: SndMessageType
    /// SHA-256 of the encoded agent message (the hash chain and receipts refer to it).
    var msgHash: Data
    /// The AgentMsgEnvelope to send; cleared once the relay accepted it.
    var envelope: Data?
    var status: SndMessageStatus
    var createdAt: Double
    /// The queue it must go to (QTEST: the new queue of a switch); nil = the connection's current queue.
    var sndQueueId: Int64? = nil
    /// A user message's envelope in its prepared form (`PreparedEnvelope`), used when `envelope`
    /// is nil; cleared once the relay accepted it.
    var prepared: Data? = nil
}

/// A received user message, kept until the layer above acknowledges it (and after, for dedup).
struct RcvMessageRecord: AgentRecord {
    static let databaseTableName = "rcv_messages"

    var connId: String
    var internalId: Int64
    var externalSndId: Int64
    var brokerId: Data
    var brokerTs: Int64
    var msgHash: Data
    var body: Data
    var integrity: String
    var pqEncryption: Bool
    var userAck: Bool
    /// The queue it arrived on, where its ACK goes.
    var rcvQueueId: Int64? = nil
}
