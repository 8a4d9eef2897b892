import Foundation
import GRDB

/// The connection's double ratchet: the X3DH private keys until the peer's keys arrive, then the
/// serialized ratchet, updated in the same transaction as the message it encrypted or decrypted.
struct RatchetRecord: AgentRecord {
    static let databaseTableName = "ratchets"

    var connId: String
    var x3dhPrivate: Data?
    var ratchetState: Data?
}
