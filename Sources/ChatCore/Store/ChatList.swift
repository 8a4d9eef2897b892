import GRDB

/// The chat list (simplex-chat Store/Messages.hs `getChatPreviews`): each kind paged by last
/// activity, the caller merges them under one limit.
extension Database {
    /// Contacts shown in the chat list (active, or deleted by the user with their chat kept; not
    /// cleared), `(contactId, activity time)`. `bound`: a time and whether to page after it.
    func chatListContacts(userId: Int64, bound: (Double, Bool)?, search: String?, limit: Int) throws -> [(Int64, Double)] {
        var sql = """
            SELECT contact_id, coalesce(chat_ts, created_at) AS ts FROM contacts
            WHERE user_id = ? AND contact_status IN ('active', 'deletedByUser') AND chat_deleted = 0
            """
        var args: StatementArguments = [userId]
        if let (t, after) = bound {
            sql += after ? " AND coalesce(chat_ts, created_at) > ?" : " AND coalesce(chat_ts, created_at) < ?"
            _ = args.append(contentsOf: [t])
        }
        if let search {
            sql += " AND local_display_name LIKE ?"
            _ = args.append(contentsOf: ["%\(search)%"])
        }
        sql += " ORDER BY coalesce(chat_ts, created_at) " + (bound?.1 == true ? "ASC" : "DESC") + " LIMIT ?"
        _ = args.append(contentsOf: [limit])
        return try Row.fetchAll(cachedStatement(sql: sql), arguments: args).map { ($0[0], $0[1]) }
    }

    func chatListGroups(userId: Int64, bound: (Double, Bool)?, search: String?, limit: Int) throws -> [(Int64, Double)] {
        var sql = "SELECT group_id, coalesce(chat_ts, created_at) AS ts FROM groups WHERE user_id = ?"
        var args: StatementArguments = [userId]
        if let (t, after) = bound {
            sql += after ? " AND coalesce(chat_ts, created_at) > ?" : " AND coalesce(chat_ts, created_at) < ?"
            _ = args.append(contentsOf: [t])
        }
        if let search {
            sql += " AND local_display_name LIKE ?"
            _ = args.append(contentsOf: ["%\(search)%"])
        }
        sql += " ORDER BY coalesce(chat_ts, created_at) " + (bound?.1 == true ? "ASC" : "DESC") + " LIMIT ?"
        _ = args.append(contentsOf: [limit])
        return try Row.fetchAll(cachedStatement(sql: sql), arguments: args).map { ($0[0], $0[1]) }
    }

    func lastContactItemRow(_ contactId: Int64) throws -> Row? {
        try Row.fetchOne(cachedStatement(sql: "SELECT * FROM chat_items WHERE contact_id = ? ORDER BY chat_item_id DESC LIMIT 1"), arguments: [contactId])
    }

    /// The group's preview item: the last of its main chat (simplex-chat `findGroupChatPreviews_`
    /// leaves support chat items out).
    func lastGroupItemRow(_ groupId: Int64) throws -> Row? {
        try Row.fetchOne(cachedStatement(sql: """
            SELECT * FROM chat_items WHERE group_id = ? AND group_scope_group_member_id IS NULL ORDER BY chat_item_id DESC LIMIT 1
            """), arguments: [groupId])
    }

    /// Received items not read yet (status rcvNew).
    func contactUnreadCount(_ contactId: Int64) throws -> Int {
        try Int.fetchOne(cachedStatement(sql: "SELECT count(*) FROM chat_items WHERE contact_id = ? AND item_status_type = 'rcvNew'"), arguments: [contactId]) ?? 0
    }

    /// Unread items of a group's main chat: support chats keep their own counts (GroupSupportChat),
    /// as simplex-chat's group chat stats.
    func groupUnreadCount(_ groupId: Int64) throws -> Int {
        try Int.fetchOne(cachedStatement(sql: """
            SELECT count(*) FROM chat_items WHERE group_id = ? AND group_scope_group_member_id IS NULL AND item_status_type = 'rcvNew'
            """), arguments: [groupId]) ?? 0
    }

    /// Unread items of all the user's chats (the users list shows it per user).
    func userUnreadCount(_ userId: Int64) throws -> Int {
        try Int.fetchOne(cachedStatement(sql: "SELECT count(*) FROM chat_items WHERE user_id = ? AND item_status_type = 'rcvNew'"), arguments: [userId]) ?? 0
    }

    func contactRequestIds(userId: Int64) throws -> [Int64] {
        try Int64.fetchAll(cachedStatement(sql: "SELECT contact_request_id FROM contact_requests WHERE user_id = ?"), arguments: [userId])
    }

    /// Invitations we made and links we joined that have no contact yet.
    func pendingConnectionRows(userId: Int64) throws -> [Row] {
        try Row.fetchAll(cachedStatement(sql: """
            SELECT * FROM connections WHERE user_id = ? AND contact_id IS NULL AND group_member_id IS NULL AND conn_type = 'contact'
            """), arguments: [userId])
    }
}
