import Foundation
import GRDB

/// A joiner's confirmation held for the initiator's allowConnection (the CONF event).
struct ConfirmationRecord: AgentRecord {
    static let databaseTableName = "confirmations"

    var confirmationId: String
    var connId: String
    /// X.509 of the joiner's sender key, when it asks us to KEY (standard procedure).
    var senderKey: Data?
    var e2eDhSecret: Data
    /// Encoded reply queue infos (SMPQueueInfo list).
    var replyQueues: Data
    var connInfo: Data
    var accepted: Bool
    var createdAt: Double
}

/// A request that arrived at a contact address (the REQ event), until accepted or rejected.
struct InvitationRecord: AgentRecord {
    static let databaseTableName = "invitations"

    var invitationId: String
    var contactConnId: String
    var connRequest: String
    var connInfo: Data
    var accepted: Bool
    var createdAt: Double
}
