import GRDB

/// `/_read chat items`: marking listed received items read (simplex-chat Store/Messages.hs
/// `updateDirectChatItemsReadList`, `updateGroupChatItemsReadList`).
extension Database {
    /// The contact's listed items that were new are read.
    func readContactItems(contactId: Int64, _ itemIds: [Int64], from new: String, to read: String) throws {
        let update = try cachedStatement(sql: "UPDATE chat_items SET item_status = ? WHERE contact_id = ? AND chat_item_id = ? AND item_status = ?")
        for id in itemIds { try update.execute(arguments: [read, contactId, id, new]) }
    }

    /// The group's listed items that were new are read; for each one read, its sender and whether
    /// it mentions us (what the support chat counters lose). Items of any of the group's chats:
    /// as the release, the caller's scope is trusted.
    func readGroupItems(groupId: Int64, _ itemIds: [Int64], from new: String, to read: String) throws -> [(senderGmId: Int64?, mention: Bool)] {
        let find = try cachedStatement(sql: """
            SELECT group_member_id, user_mention FROM chat_items WHERE group_id = ? AND chat_item_id = ? AND item_status = ?
            """)
        let update = try cachedStatement(sql: "UPDATE chat_items SET item_status = ? WHERE chat_item_id = ?")
        var readItems: [(senderGmId: Int64?, mention: Bool)] = []
        for id in Set(itemIds) {
            guard let row = try Row.fetchOne(find, arguments: [groupId, id, new]) else { continue }
            try update.execute(arguments: [read, id])
            readItems.append((row["group_member_id"], (row["user_mention"] as Bool?) ?? false))
        }
        return readItems
    }
}
