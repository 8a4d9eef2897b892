import GRDB

/// Chat items of ratchet re-synchronization (simplex-chat Subscriber.hs `processErr`).
extension Database {
    /// The newest item of a contact's chat, or of a group's chat from one member.
    func lastChatItemRow(contactId: Int64) throws -> Row? {
        try Row.fetchOne(cachedStatement(sql: "SELECT * FROM chat_items WHERE contact_id = ? ORDER BY chat_item_id DESC LIMIT 1"), arguments: [contactId])
    }

    func lastMemberChatItemRow(groupId: Int64, memberGmId: Int64) throws -> Row? {
        try Row.fetchOne(cachedStatement(sql: """
            SELECT * FROM chat_items WHERE group_id = ? AND group_member_id = ? ORDER BY chat_item_id DESC LIMIT 1
            """), arguments: [groupId, memberGmId])
    }

    /// A decryption-error item counting more messages: new text and content, not an edit.
    func setItemTextAndContent(_ itemId: Int64, text: String, contentJSON: String, at now: Double) throws {
        try cachedStatement(sql: "UPDATE chat_items SET item_text = ?, item_content = ?, updated_at = ? WHERE chat_item_id = ?")
            .execute(arguments: [text, contentJSON, now, itemId])
    }
}
