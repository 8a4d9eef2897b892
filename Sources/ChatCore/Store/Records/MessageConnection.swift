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
    /// The connection an agent message came on: its ids, and the whole row only for a member's
    /// connection, whose handling reads many of its columns (read again as a `Row` for that).
    func messageConnection(agentConnId: String) throws -> (MessageConnection, memberRow: Row?)? {
        let sql = "SELECT * FROM connections WHERE agent_conn_id = ?"
        guard let c = try decodeFirst(sql, [agentConnId], { r in MessageConnection(row: r) }) else { return nil }
        guard c.groupMemberId != nil else { return (c, nil) }
        return (c, try Row.fetchOne(cachedStatement(sql: sql), arguments: [agentConnId]))
    }
}
