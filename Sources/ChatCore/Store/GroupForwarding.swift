import Foundation
import GRDB

/// Queries for chat versions of members, the host's forwarding between members not yet connected
/// (x.grp.msg.forward), pending messages and per-member deliveries (simplex-chat Store/Groups.hs
/// `getForwardIntroducedMembers`, `createPendingGroupMessage`, `createGroupSndStatus`).
extension Database {
    /// The range a member's latest connection announced, nil while unknown.
    func memberChatVRange(groupMemberId: Int64) throws -> (min: Int, max: Int)? {
        guard let r = try Row.fetchOne(cachedStatement(sql: """
            SELECT peer_chat_min_version, peer_chat_max_version FROM connections
            WHERE group_member_id = ? AND peer_chat_max_version IS NOT NULL ORDER BY connection_id DESC LIMIT 1
            """), arguments: [groupMemberId]), let lo = r[0] as Int?, let hi = r[1] as Int? else { return nil }
        return (lo, hi)
    }

    /// Members in an introduction with this member that is not confirmed connected (either side).
    func unconfirmedIntroductionPeers(groupMemberId: Int64) throws -> [Int64] {
        try Int64.fetchAll(cachedStatement(sql: """
            SELECT DISTINCT CASE WHEN re_group_member_id = ?1 THEN to_group_member_id ELSE re_group_member_id END
            FROM group_member_intros
            WHERE (re_group_member_id = ?1 OR to_group_member_id = ?1) AND intro_status <> 'con'
            """), arguments: [groupMemberId])
    }

    /// x.grp.mem.con: the member of this group with `memberId` and `groupMemberId` are connected,
    /// whichever of the two was introduced to the other.
    func markIntroductionConnected(groupMemberId: Int64, groupId: Int64, memberId: String) throws {
        try cachedStatement(sql: """
            UPDATE group_member_intros SET intro_status = 'con'
            WHERE (re_group_member_id = ?1 AND to_group_member_id = (SELECT group_member_id FROM group_members WHERE group_id = ?2 AND member_id = ?3))
               OR (to_group_member_id = ?1 AND re_group_member_id = (SELECT group_member_id FROM group_members WHERE group_id = ?2 AND member_id = ?3))
            """).execute(arguments: [groupMemberId, groupId, memberId])
    }

    /// Current members without a ready connection: `(groupMemberId, category, invitedByGroupMemberId)`.
    func membersWithoutReadyConnection(groupId: Int64, currentStatuses: String) throws -> [(Int64, String, Int64?)] {
        try Row.fetchAll(cachedStatement(sql: """
            SELECT m.group_member_id, m.member_category, m.invited_by_group_member_id FROM group_members m
            WHERE m.group_id = ? AND m.member_category <> 'user' AND m.member_status IN \(currentStatuses)
              AND NOT EXISTS (SELECT 1 FROM connections c WHERE c.group_member_id = m.group_member_id AND c.conn_status = 'ready')
            """), arguments: [groupId]).map { ($0[0], $0[1], $0[2]) }
    }

    func insertPendingGroupMessage(groupMemberId: Int64, chatItemId: Int64?, body: Data, at now: Double) throws {
        try cachedStatement(sql: "INSERT INTO pending_group_messages (group_member_id, chat_item_id, body, created_at) VALUES (?, ?, ?, ?)")
            .execute(arguments: [groupMemberId, chatItemId, body, now])
    }

    /// A member's ready connection and role: `(agentConnId, memberRole)`.
    func readyMemberConnection(groupMemberId: Int64) throws -> (String, String)? {
        try Row.fetchOne(cachedStatement(sql: """
            SELECT c.agent_conn_id, m.member_role FROM connections c JOIN group_members m ON m.group_member_id = c.group_member_id
            WHERE c.group_member_id = ? AND c.conn_status = 'ready' ORDER BY c.connection_id DESC LIMIT 1
            """), arguments: [groupMemberId]).map { ($0[0], $0[1]) }
    }

    func groupMemberRole(groupMemberId: Int64) throws -> String? {
        try String.fetchOne(cachedStatement(sql: "SELECT member_role FROM group_members WHERE group_member_id = ?"), arguments: [groupMemberId])
    }

    /// Every agent connection of a member (to delete them when it leaves).
    func memberAgentConnIds(groupMemberId: Int64) throws -> [String] {
        try String.fetchAll(cachedStatement(sql: "SELECT agent_conn_id FROM connections WHERE group_member_id = ?"), arguments: [groupMemberId])
    }

    /// Which agent message carried a sent item to a member.
    func insertGroupItemDelivery(chatItemId: Int64, groupMemberId: Int64, agentConnId: String, agentMsgId: Int64, status: String) throws {
        try cachedStatement(sql: """
            INSERT OR REPLACE INTO group_item_deliveries (chat_item_id, group_member_id, agent_conn_id, agent_msg_id, delivery_status)
            VALUES (?, ?, ?, ?, ?)
            """).execute(arguments: [chatItemId, groupMemberId, agentConnId, agentMsgId, status])
    }
}
