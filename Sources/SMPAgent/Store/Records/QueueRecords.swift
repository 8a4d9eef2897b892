import Foundation
import GRDB

/// Status of a queue from its owner's side (simplexmq QueueStatus).
enum QueueStatus: String, Codable, Sendable {
    /// Created (receive) or known from a link (send), nothing exchanged yet.
    case new
    /// A confirmation arrived (receive) or was sent (send).
    case confirmed
    /// KEY/SKEY done: only the holder of the sender key can send.
    case secured
    /// HELLO (or the fast procedure's confirmation) went through: in use.
    case active
}

/// A queue we receive from: our recipient key, the server's DH secret, our per-queue e2e key.
struct RcvQueueRecord: AgentRecord, Equatable {
    static let databaseTableName = "rcv_queues"

    var rcvQueueId: Int64?
    var connId: String
    var server: String
    var rcvId: Data
    var sndId: Data
    /// PKCS#8 of the recipient's authorization key.
    var rcvPrivateKey: Data
    /// Secret agreed with the relay for its MSG encryption layer.
    var rcvDhSecret: Data
    /// Raw X25519 private key whose public half the link (or reply queue info) carries.
    var e2ePrivateKey: Data
    /// Per-queue crypto_box secret, known once the sender's confirmation arrived.
    var e2eDhSecret: Data?
    /// X.509 of the peer's sender key, held until we KEY the queue with it (standard procedure).
    var sndKey: Data?
    var sndSecure: Bool
    var status: QueueStatus
    var smpClientVersion: Int
    /// Queue rotation (m20261124_queue_rotation): the queue this one replaces while switching,
    /// and the old queue's `RcvSwitchStatus` (simplexmq text: switch_started, sending_qadd, ...).
    var primaryQueue = true
    var replaceRcvQueueId: Int64?
    var switchStatus: String?

    mutating func didInsert(_ inserted: InsertionSuccess) { rcvQueueId = inserted.rowID }
}

/// A queue we send to: our sender key and the per-queue e2e secret with its recipient.
struct SndQueueRecord: AgentRecord {
    static let databaseTableName = "snd_queues"

    var sndQueueId: Int64?
    var connId: String
    var server: String
    var sndId: Data
    /// PKCS#8 of our sender authorization key (SKEY/KEY installs its public half).
    var sndPrivateKey: Data
    /// Raw X25519 private key; its public half travels in the confirmation's header.
    var e2ePrivateKey: Data
    var e2eDhSecret: Data
    var sndSecure: Bool
    var status: QueueStatus
    var smpClientVersion: Int
    /// Queue rotation: the queue this one replaces, and the old queue's `SndSwitchStatus`
    /// (sending_qkey, sending_qtest).
    var primaryQueue = true
    var replaceSndQueueId: Int64?
    var switchStatus: String?

    mutating func didInsert(_ inserted: InsertionSuccess) { sndQueueId = inserted.rowID }
}
