import GRDB
import SimplexStore

/// What receiving a message needs of its connection's row, decoded while the row is the
/// statement's current one (a copied GRDB row lowercases every column name on each lookup).
struct MessageConnection {
    var agentConnId: String
    var userId: Int64
    var contactId: Int64?
    var groupMemberId: Int64?
    /// The peer's chat version range as last recorded (nil until its first message).
    var peerChatMinVersion: Int?
    var peerChatMaxVersion: Int?

    init(row r: some ColumnReading) {
        agentConnId = r["agent_conn_id"]
        userId = r["user_id"]
        contactId = r["contact_id"]
        groupMemberId = r["group_member_id"]
        peerChatMinVersion = r["peer_chat_min_version"]
        peerChatMaxVersion = r["peer_chat_max_version"]
    }
}

extension Database {
    /// The connection an agent message came on: its ids, and the whole row (copied) only for a
    /// member's connection, whose handling reads many of its columns.
    func messageConnection(agentConnId: String) throws -> (MessageConnection, memberRow: Row?)? {
        try decodeFirst("SELECT * FROM connections WHERE agent_conn_id = ?", [agentConnId]) { r in
            let c = MessageConnection(row: r)
            return (c, c.groupMemberId != nil ? r.copiedRow() : nil)
        }
    }
}
