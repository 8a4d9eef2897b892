import GRDB

/// Mentions in group items (simplex-chat `chat_item_mentions`, `chat_items.user_mention`): the
/// name used in the text and the member ID it names, whether or not that member is known here.
extension Database {
    /// Records an item's mentions (name -> member ID) and whether it mentions or replies to us.
    func setItemMentions(_ itemId: Int64, groupId: Int64, _ mentions: [String: String], userMention: Bool) throws {
        try cachedStatement(sql: "DELETE FROM chat_item_mentions WHERE chat_item_id = ?").execute(arguments: [itemId])
        for (name, memberId) in mentions.sorted(by: { $0.key < $1.key }) {
            try cachedStatement(sql: """
                INSERT INTO chat_item_mentions (group_id, member_id, chat_item_id, display_name) VALUES (?, ?, ?, ?)
                """).execute(arguments: [groupId, memberId, itemId, name])
        }
        try cachedStatement(sql: "UPDATE chat_items SET user_mention = ? WHERE chat_item_id = ?").execute(arguments: [userMention, itemId])
    }

    /// An item's mentions: name used -> member ID.
    func itemMentions(_ itemId: Int64) throws -> [String: String] {
        var out: [String: String] = [:]
        for r in try Row.fetchAll(cachedStatement(sql: "SELECT display_name, member_id FROM chat_item_mentions WHERE chat_item_id = ?"),
                                  arguments: [itemId]) {
            out[r["display_name"]] = r["member_id"]
        }
        return out
    }

    /// Unread items of a group's main chat that mention or reply to us.
    func unreadMentionsCount(groupId: Int64) throws -> Int {
        try Int.fetchOne(cachedStatement(sql: """
            SELECT count(*) FROM chat_items WHERE group_id = ? AND group_scope_group_member_id IS NULL AND user_mention = 1
              AND item_status_type = 'rcvNew'
            """), arguments: [groupId]) ?? 0
    }
}
