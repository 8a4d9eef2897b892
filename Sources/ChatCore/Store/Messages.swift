import Foundation
import GRDB
import SimplexStore

/// Chat items and their reactions (simplex-chat Store/Messages.hs), named for what they do.
/// Statuses, contents and deletion marks are stored as the API's JSON.
extension Database {
    /// An item's row, decoded in place (`decodeFirst`), with what else it has in the same
    /// statement: an item just stored or just delivered usually has no reactions, mentions or
    /// file, and its view then needs no query for them.
    func withChatItemRow<T>(_ itemId: Int64, _ decode: (StatementColumns, ItemRelations) throws -> T) throws -> T? {
        try decodeFirst("""
            SELECT ci.*,
              EXISTS (SELECT 1 FROM chat_item_reactions r WHERE r.chat_item_id = ci.chat_item_id) AS item_has_reactions,
              EXISTS (SELECT 1 FROM chat_item_mentions m WHERE m.chat_item_id = ci.chat_item_id) AS item_has_mentions,
              EXISTS (SELECT 1 FROM files f WHERE f.chat_item_id = ci.chat_item_id) AS item_has_file
            FROM chat_items ci WHERE ci.chat_item_id = ?
            """, [itemId]) { r in
            try decode(r, ItemRelations(reactions: r["item_has_reactions"], mentions: r["item_has_mentions"], file: r["item_has_file"]))
        }
    }

    /// An item of one contact's chat (nil when it belongs to another chat).
    func contactItemRow(_ itemId: Int64, contactId: Int64) throws -> Row? {
        try Row.fetchOne(cachedStatement(sql: "SELECT * FROM chat_items WHERE chat_item_id = ? AND contact_id = ?"), arguments: [itemId, contactId])
    }

    func setItemStatus(_ itemId: Int64, _ statusJSON: String, at now: Double) throws {
        try cachedStatement(sql: "UPDATE chat_items SET item_status = ?, updated_at = ? WHERE chat_item_id = ?").execute(arguments: [statusJSON, now, itemId])
    }

    func deleteChatItem(_ itemId: Int64) throws {
        try cachedStatement(sql: "DELETE FROM chat_items WHERE chat_item_id = ?").execute(arguments: [itemId])
    }

    func markItemDeleted(_ itemId: Int64, _ markJSON: String, at now: Double) throws {
        try cachedStatement(sql: "UPDATE chat_items SET item_deleted = ?, updated_at = ? WHERE chat_item_id = ?").execute(arguments: [markJSON, now, itemId])
    }

    /// An edit (ours or the peer's): new text and content, marked edited.
    func updateItemContent(_ itemId: Int64, text: String, contentJSON: String, live: Bool?, at now: Double) throws {
        if let live {
            try cachedStatement(sql: "UPDATE chat_items SET item_text = ?, item_content = ?, item_edited = 1, item_live = ?, updated_at = ? WHERE chat_item_id = ?")
                .execute(arguments: [text, contentJSON, live, now, itemId])
        } else {
            try cachedStatement(sql: "UPDATE chat_items SET item_text = ?, item_content = ?, item_edited = 1, updated_at = ? WHERE chat_item_id = ?")
                .execute(arguments: [text, contentJSON, now, itemId])
        }
    }

    /// A chat's unread received items (rcvNew) take status `read` (`/_read chat`). The literal
    /// type lets SQLite use the partial unread indexes, which hold rcvNew items only.
    func markNewItems(contactId: Int64? = nil, groupId: Int64? = nil, as read: String) throws {
        if let contactId {
            try cachedStatement(sql: """
                UPDATE chat_items SET item_status = ? WHERE contact_id = ? AND item_status_type = 'rcvNew'
                """).execute(arguments: [read, contactId])
        }
        if let groupId {
            try cachedStatement(sql: """
                UPDATE chat_items SET item_status = ? WHERE group_id = ? AND item_status_type = 'rcvNew'
                """).execute(arguments: [read, groupId])
        }
    }

    func hasReaction(_ itemId: Int64, _ reactionJSON: String, sent: Bool) throws -> Bool {
        try Bool.fetchOne(cachedStatement(sql: "SELECT 1 FROM chat_item_reactions WHERE chat_item_id = ? AND reaction = ? AND reaction_sent = ?"),
                          arguments: [itemId, reactionJSON, sent]) == true
    }

    func setReaction(_ itemId: Int64, _ reactionJSON: String, sent: Bool, add: Bool, at now: Double) throws {
        if add {
            try cachedStatement(sql: "INSERT OR IGNORE INTO chat_item_reactions (chat_item_id, reaction, reaction_sent, created_at) VALUES (?, ?, ?, ?)")
                .execute(arguments: [itemId, reactionJSON, sent, now])
        } else {
            try cachedStatement(sql: "DELETE FROM chat_item_reactions WHERE chat_item_id = ? AND reaction = ? AND reaction_sent = ?")
                .execute(arguments: [itemId, reactionJSON, sent])
        }
    }

    /// Reactions of an item grouped by emoji, in the order they were first added:
    /// `(reaction JSON, total, whether we reacted)`.
    func reactionCounts(_ itemId: Int64) throws -> [(String, Int, Bool)] {
        try Row.fetchAll(cachedStatement(sql: """
            SELECT reaction, count(*) AS total, max(reaction_sent) AS mine FROM chat_item_reactions
            WHERE chat_item_id = ? GROUP BY reaction ORDER BY min(reaction_id)
            """), arguments: [itemId]).map { ($0["reaction"], $0["total"], $0["mine"]) }
    }

    /// A page of a chat's items, oldest first: `contentTag` keeps one MsgContent type, `search`
    /// matches the text (LIKE, with its wildcards escaped).
    func chatItemRows(contactId: Int64? = nil, groupId: Int64? = nil, contentTag: String?, search: String?,
                      pagination: ChatPagination, scopeMemberGmId: Int64? = nil) throws -> [Row] {
        var sql = contactId != nil ? "SELECT * FROM chat_items WHERE contact_id = ?" : "SELECT * FROM chat_items WHERE group_id = ?"
        var args: StatementArguments = [contactId ?? groupId]
        if groupId != nil {
            // A support chat's items are never shown in the group's main chat (and the reverse).
            if let scopeMemberGmId {
                sql += " AND group_scope_group_member_id = ?"
                _ = args.append(contentsOf: [scopeMemberGmId])
            } else {
                sql += " AND group_scope_group_member_id IS NULL"
            }
        }
        if let contentTag {
            sql += " AND json_extract(item_content, '$.msgContent.type') = ?"
            _ = args.append(contentsOf: [contentTag])
        }
        if let search, !search.isEmpty {
            sql += " AND item_text LIKE ? ESCAPE '\\'"
            let escaped = search.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_")
            _ = args.append(contentsOf: ["%" + escaped + "%"])
        }
        switch pagination {
        case .last(let n), .initial(let n):
            return try Row.fetchAll(cachedStatement(sql: sql + " ORDER BY chat_item_id DESC LIMIT ?"), arguments: args + [n]).reversed()
        case .after(let id, let n):
            return try Row.fetchAll(cachedStatement(sql: sql + " AND chat_item_id > ? ORDER BY chat_item_id ASC LIMIT ?"), arguments: args + [id, n])
        case .before(let id, let n):
            return try Row.fetchAll(cachedStatement(sql: sql + " AND chat_item_id < ? ORDER BY chat_item_id DESC LIMIT ?"), arguments: args + [id, n]).reversed()
        case .around(let id, let n):
            let before: [Row] = try Row.fetchAll(cachedStatement(sql: sql + " AND chat_item_id < ? ORDER BY chat_item_id DESC LIMIT ?"),
                                                 arguments: args + [id, n / 2]).reversed()
            let after = try Row.fetchAll(cachedStatement(sql: sql + " AND chat_item_id >= ? ORDER BY chat_item_id ASC LIMIT ?"), arguments: args + [id, n - n / 2])
            return before + after
        }
    }
}

extension Database {
    /// The newest ready connection of a contact: where its messages go.
    func readyContactAgentConnId(_ contactId: Int64) throws -> String? {
        try String.fetchOne(cachedStatement(sql: """
            SELECT agent_conn_id FROM connections WHERE contact_id = ? AND conn_status = 'ready' ORDER BY connection_id DESC LIMIT 1
            """), arguments: [contactId])
    }

    func activeContactIds(userId: Int64) throws -> [Int64] {
        try Int64.fetchAll(cachedStatement(sql: "SELECT contact_id FROM contacts WHERE user_id = ? AND contact_status = 'active' ORDER BY contact_id"),
                           arguments: [userId])
    }

    /// A contact and its profile, with the user's global preferences (for merged preferences).
    func withContactRow<T>(_ contactId: Int64, _ decode: (StatementColumns) throws -> T) throws -> T? {
        try decodeFirst("""
            SELECT c.*, p.display_name, p.full_name, p.short_descr, p.image, p.contact_link, p.preferences, p.peer_type, p.local_alias,
              u.preferences AS user_global_preferences
            FROM contacts c JOIN contact_profiles p ON p.profile_id = c.profile_id JOIN users u ON u.user_id = c.user_id
            WHERE c.contact_id = ?
            """, [contactId], decode)
    }

    /// The contact's newest connection (its `activeConn`), decoded in place (`decodeFirst`).
    func withLatestContactConnectionRow<T>(_ contactId: Int64, _ decode: (StatementColumns) throws -> T) throws -> T? {
        try decodeFirst("SELECT * FROM connections WHERE contact_id = ? ORDER BY connection_id DESC LIMIT 1", [contactId], decode)
    }
}

/// Whether an item has rows in the tables its view reads besides its own (`withChatItemRow`);
/// `unknown` (all true) makes the view query each of them.
struct ItemRelations {
    var reactions: Bool
    var mentions: Bool
    var file: Bool

    static let unknown = ItemRelations(reactions: true, mentions: true, file: true)
}

/// A chat item to insert: every column a new item can have. Its chat (contact or group)
/// becomes the most recent, and a cleared contact chat visible again.
struct NewChatItem {
    var userId: Int64
    var contactId: Int64?
    var groupId: Int64?
    /// The sending member of a received group item.
    var memberGmId: Int64?
    var sent: Bool
    var itemTs: Double
    var text: String
    var contentJSON: String
    var statusJSON: String
    var sharedMsgId: String?
    var agentMsgId: Int64?
    var deletedJSON: String?
    var forwarded = false
    var live = false
    var ttl: Int?
    var deleteAt: Double?
    var quotedItemId: Int64?
    var quotedSharedMsgId: String?
    var quotedSent: Bool?
    var quotedSentAt: Double?
    var quotedContentJSON: String?
    var quotedMemberId: String?
    /// The member whose support chat holds the item (chat version 15 scopes); nil: the main chat.
    var scopeMemberGmId: Int64?
    /// Mentions in a group item's text: name used -> member ID (Store/Mentions.swift).
    var mentions: [String: String] = [:]
    /// The item mentions us or replies to one of our messages.
    var userMention = false
    /// The host that forwarded the message this item was made from (x.grp.msg.forward).
    var forwardedByGmId: Int64?
}

extension Database {
    func insertChatItem(_ i: NewChatItem, at now: Double) throws -> Int64 {
        try cachedStatement(sql: """
            INSERT INTO chat_items (user_id, contact_id, group_id, group_member_id, item_sent, item_ts, item_text, item_content, item_status,
              shared_msg_id, agent_msg_id, item_deleted, item_forwarded, item_live, timed_ttl, timed_delete_at, quoted_item_id,
              quoted_shared_msg_id, quoted_sent, quoted_sent_at, quoted_content, quoted_member_id, created_at, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [
                i.userId, i.contactId, i.groupId, i.memberGmId, i.sent, i.itemTs, i.text, i.contentJSON, i.statusJSON,
                i.sharedMsgId, i.agentMsgId, i.deletedJSON, i.forwarded, i.live, i.ttl, i.deleteAt, i.quotedItemId,
                i.quotedSharedMsgId, i.quotedSent, i.quotedSentAt, i.quotedContentJSON, i.quotedMemberId, now, now,
            ])
        let id = lastInsertedRowID
        if let scope = i.scopeMemberGmId { try setItemSupportScope(id, memberGmId: scope) }
        if let fwd = i.forwardedByGmId {
            try cachedStatement(sql: "UPDATE chat_items SET forwarded_by_group_member_id = ? WHERE chat_item_id = ?").execute(arguments: [fwd, id])
        }
        if let g = i.groupId, i.userMention || !i.mentions.isEmpty { try setItemMentions(id, groupId: g, i.mentions, userMention: i.userMention) }
        if let c = i.contactId { try contactChatUsed(c, at: now) }
        if let g = i.groupId { try cachedStatement(sql: "UPDATE groups SET chat_ts = ? WHERE group_id = ?").execute(arguments: [now, g]) }
        return id
    }

    /// We sent the contact something: it is no longer just a connection.
    func setContactUsed(_ contactId: Int64) throws {
        try cachedStatement(sql: "UPDATE contacts SET contact_used = 1 WHERE contact_id = ? AND contact_used = 0").execute(arguments: [contactId])
    }

    /// Whether this contact's chat already has a received item with this shared message id.
    func hasReceivedContactItem(_ contactId: Int64, sharedMsgId: String) throws -> Bool {
        try Bool.fetchOne(cachedStatement(sql: "SELECT 1 FROM chat_items WHERE contact_id = ? AND item_sent = 0 AND shared_msg_id = ?"),
                          arguments: [contactId, sharedMsgId]) == true
    }

    /// The item a received quote refers to: by shared id and direction.
    func contactItemId(_ contactId: Int64, sharedMsgId: String, sent: Bool) throws -> Int64? {
        try Int64.fetchOne(cachedStatement(sql: "SELECT chat_item_id FROM chat_items WHERE contact_id = ? AND shared_msg_id = ? AND item_sent = ?"),
                           arguments: [contactId, sharedMsgId, sent])
    }
}

extension Database {
    func hasMemberItem(_ groupId: Int64, memberGmId: Int64, sharedMsgId: String) throws -> Bool {
        try Bool.fetchOne(cachedStatement(sql: "SELECT 1 FROM chat_items WHERE group_id = ? AND group_member_id = ? AND shared_msg_id = ?"),
                          arguments: [groupId, memberGmId, sharedMsgId]) == true
    }

    func sentGroupItemId(_ groupId: Int64, sharedMsgId: String) throws -> Int64? {
        try Int64.fetchOne(cachedStatement(sql: "SELECT chat_item_id FROM chat_items WHERE group_id = ? AND item_sent = 1 AND shared_msg_id = ?"),
                           arguments: [groupId, sharedMsgId])
    }

    /// A member's item by the member's id (as quotes name the author) and the shared id.
    func memberGroupItemId(_ groupId: Int64, memberId: String, sharedMsgId: String) throws -> Int64? {
        try Int64.fetchOne(cachedStatement(sql: """
            SELECT ci.chat_item_id FROM chat_items ci JOIN group_members m ON m.group_member_id = ci.group_member_id
            WHERE ci.group_id = ? AND m.member_id = ? AND ci.shared_msg_id = ?
            """), arguments: [groupId, memberId, sharedMsgId])
    }
}

extension Database {
    /// Group invitation items (sent or received) of a direct chat.
    func groupInvitationItemRows(contactId: Int64) throws -> [Row] {
        try Row.fetchAll(cachedStatement(sql: """
            SELECT chat_item_id, item_content FROM chat_items
            WHERE contact_id = ? AND item_content_type IN ('rcvGroupInvitation', 'sndGroupInvitation')
            """), arguments: [contactId])
    }

    /// New content for an item that is not an edit (an invitation's status, for example).
    func setItemContent(_ itemId: Int64, contentJSON: String, at now: Double) throws {
        try cachedStatement(sql: "UPDATE chat_items SET item_content = ?, updated_at = ? WHERE chat_item_id = ?").execute(arguments: [contentJSON, now, itemId])
    }
}

extension Database {
    /// A delivery status of a sent item; with `keepDelivered`, an item already delivered
    /// (sndRcvd) keeps that status. Returns whether the item changed.
    func setSentItemStatus(_ itemId: Int64, _ statusJSON: String, keepDelivered: Bool, at now: Double) throws -> Bool {
        let sql = keepDelivered
            ? "UPDATE chat_items SET item_status = ?, updated_at = ? WHERE chat_item_id = ? AND item_status_type <> 'sndRcvd'"
            : "UPDATE chat_items SET item_status = ?, updated_at = ? WHERE chat_item_id = ?"
        try cachedStatement(sql: sql).execute(arguments: [statusJSON, now, itemId])
        return changesCount > 0
    }
}

extension Contact {
    /// The contact as `insertChatItem` of `item` in its chat leaves its row: the chat is the most
    /// recent (`chat_ts` is the item's creation time) and shown again. Saves reading the contact
    /// again for the item's event.
    func withNewItem(_ item: ChatItem) -> Contact {
        var c = self
        c.chatTs = item.meta.createdAt
        c.chatDeleted = false
        return c
    }
}

/// Contacts' items as one write transaction inserted them, and the store's write count after it
/// (issue 16): while no other write has followed, each row is exactly these values, so the
/// item's answer or event is made from them instead of reading the row back.
struct InsertedItems {
    let store: ObjectIdentifier
    let writeCount: Int
    let at: Double
    let items: [Int64: NewChatItem]
}

/// The row `insertChatItem(i, at: now)` writes for a contact's item (group items have mentions,
/// scopes and forwarding hosts written apart), as SQLite returns it: each value converted as GRDB
/// binds it, the columns the insert leaves out at their defaults. Read by name only.
struct InsertedItemColumns: ColumnReading {
    private let values: [String: DatabaseValue]

    init(_ i: NewChatItem, id: Int64, at now: Double) {
        values = [
            "chat_item_id": id.databaseValue, "user_id": i.userId.databaseValue, "contact_id": i.contactId.databaseValue,
            "group_id": DatabaseValue.null, "group_member_id": i.memberGmId.databaseValue, "item_sent": i.sent.databaseValue,
            "item_ts": i.itemTs.databaseValue, "item_text": i.text.databaseValue, "item_content": i.contentJSON.databaseValue,
            "item_status": i.statusJSON.databaseValue, "shared_msg_id": i.sharedMsgId.databaseValue, "agent_msg_id": i.agentMsgId.databaseValue,
            "item_edited": false.databaseValue, "item_deleted": i.deletedJSON.databaseValue, "item_forwarded": i.forwarded.databaseValue,
            "item_live": i.live.databaseValue, "timed_ttl": i.ttl.databaseValue, "timed_delete_at": i.deleteAt.databaseValue,
            "quoted_item_id": i.quotedItemId.databaseValue, "quoted_shared_msg_id": i.quotedSharedMsgId.databaseValue,
            "quoted_sent": i.quotedSent.databaseValue, "quoted_sent_at": i.quotedSentAt.databaseValue,
            "quoted_content": i.quotedContentJSON.databaseValue, "quoted_member_id": i.quotedMemberId.databaseValue,
            "created_at": now.databaseValue, "updated_at": now.databaseValue, "user_mention": false.databaseValue,
            "forwarded_by_group_member_id": DatabaseValue.null, "group_scope_tag": DatabaseValue.null,
            "group_scope_group_member_id": DatabaseValue.null,
        ]
    }

    /// Whether `insertChatItem` writes `i` in its row alone (a contact's item).
    static func covers(_ i: NewChatItem) -> Bool {
        i.contactId != nil && i.groupId == nil && i.scopeMemberGmId == nil && i.forwardedByGmId == nil && i.mentions.isEmpty && !i.userMention
    }

    subscript<Value: DatabaseValueConvertible>(_ columnName: String) -> Value {
        guard let v = values[columnName] else {
            guard let missing = Value.fromMissingColumn() else { fatalError("no column \(columnName) in an inserted item") }
            return missing
        }
        guard let value = Value.fromDatabaseValue(v) else { fatalError("could not read \(v) as \(Value.self) from column \(columnName)") }
        return value
    }

    subscript<Value: DatabaseValueConvertible>(_ index: Int) -> Value {
        fatalError("an inserted item's columns are read by name")
    }
}
