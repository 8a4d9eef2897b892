import Foundation
import GRDB
import SMPAgent

/// Messages in groups (seed 003 for `#<groupId>` chats): one chat message, with one shared ID,
/// sent separately over each connected member's connection, and one chat item for it.
extension ChatController {
    /// The chat versions we announce (`v`). 3 is what joining through a group link needs
    /// (simplex-chat `groupFastLinkJoin`); 4 would ask hosts to forward messages between members
    /// who are still connecting (x.grp.msg.forward), which this core does not do.
    static let ourChatVRange = VersionRange(1...3)

    /// A chat message as sent: our version range, a shared ID, the event.
    func chatMessage(_ event: ChatMsgEvent, msgId: SharedMsgId? = SharedMsgId.random()) throws(ChatError) -> Data {
        do { return try ChatMessage(chatVRange: Self.ourChatVRange, msgId: msgId, event: event).encoded() } catch {
            throw .error(errorType: .commandError(message: "message: \(error)"))
        }
    }

    /// Stores a chat item that is not message content (group events, invitations, welcome).
    func insertItem(userId: Int64, contactId: Int64? = nil, groupId: Int64? = nil, memberGmId: Int64? = nil, sent: Bool,
                    content: CIContent, text: String, shared: String? = nil, status: CIStatus? = nil) throws(ChatError) -> Int64 {
        let contentJSON = try json(content)
        let statusJSON = try json(status ?? (sent ? .sndSent(sndProgress: .complete) : .rcvRead))
        let now = Self.now
        let item = NewChatItem(userId: userId, contactId: contactId, groupId: groupId, memberGmId: memberGmId, sent: sent, itemTs: now,
                               text: text, contentJSON: contentJSON, statusJSON: statusJSON, sharedMsgId: shared)
        return try store.write { db in try db.insertChatItem(item, at: now) }
    }

    func groupItem(_ groupId: Int64, _ itemId: Int64) throws(ChatError) -> AChatItem {
        AChatItem(chatInfo: .group(groupInfo: try groupInfo(groupId), groupChatScope: nil), chatItem: try chatItem(itemId))
    }

    /// The members a group message goes to: current members with a ready connection.
    func groupRecipients(_ groupId: Int64, excluding: Set<Int64> = []) throws(ChatError) -> [(gmId: Int64, agentConnId: String)] {
        let rows = try store.read { db in
            try Row.fetchAll(db.cachedStatement(sql: """
                SELECT m.group_member_id, c.agent_conn_id FROM group_members m
                JOIN connections c ON c.group_member_id = m.group_member_id
                WHERE m.group_id = ? AND m.member_category <> 'user' AND c.conn_status = 'ready' AND m.member_status IN \(Self.currentStatuses)
                ORDER BY m.group_member_id
                """), arguments: [groupId])
        }
        return rows.compactMap { r in
            let id: Int64 = r[0]
            return excluding.contains(id) ? nil : (id, r[1])
        }
    }

    /// Sends one event to every recipient; a member whose connection fails is skipped (its
    /// error is reported as an event), the others still get it. Returns what was sent where.
    @discardableResult
    func sendGroupEvent(_ groupId: Int64, _ event: ChatMsgEvent, excluding: Set<Int64> = [], msgId: SharedMsgId = SharedMsgId.random(),
                        itemId: Int64? = nil) async -> [(gmId: Int64, agentConnId: String, msgId: Int64)] {
        guard let body = try? chatMessage(event, msgId: msgId), let recipients = try? groupRecipients(groupId, excluding: excluding) else { return [] }
        // Members still connecting get it when their connection is ready (simplex-chat's
        // pending group messages), so nothing sent meanwhile is lost for them.
        try? store.write { db in
            try db.run("""
                INSERT INTO pending_group_messages (group_member_id, chat_item_id, body, created_at)
                SELECT m.group_member_id, ?, ?, ? FROM group_members m
                WHERE m.group_id = ? AND m.member_category <> 'user' AND m.member_status IN \(Self.currentStatuses)
                  AND NOT EXISTS (SELECT 1 FROM connections c WHERE c.group_member_id = m.group_member_id AND c.conn_status = 'ready')
                """, [itemId, body, Self.now, groupId])
        }
        var sent: [(Int64, String, Int64)] = []
        for (gmId, conn) in recipients {
            do {
                let id = try await sendToAgent(conn, body)
                sent.append((gmId, conn, id))
            } catch {
                emit(.chatError(chatError: error))
            }
        }
        return sent
    }

    /// What was sent to the group while this member's connection was not ready, in order.
    func sendPendingGroupMessages(_ groupMemberId: Int64, agentConnId: String) async throws(ChatError) {
        let rows = try store.read { db in
            try Row.fetchAll(db.cachedStatement(sql: "SELECT * FROM pending_group_messages WHERE group_member_id = ? ORDER BY pending_group_message_id"),
                             arguments: [groupMemberId])
        }
        let sndNew = try json(CIStatus.sndNew)
        for r in rows {
            let body: Data = r["body"]
            let id = try await sendToAgent(agentConnId, body)
            try store.write { db in
                if let itemId = r["chat_item_id"] as Int64? {
                    try db.run("""
                        INSERT OR REPLACE INTO group_item_deliveries (chat_item_id, group_member_id, agent_conn_id, agent_msg_id, delivery_status)
                        VALUES (?, ?, ?, ?, ?)
                        """, [itemId, groupMemberId, agentConnId, id, sndNew])
                }
                try db.run("DELETE FROM pending_group_messages WHERE pending_group_message_id = ?", [r["pending_group_message_id"] as Int64])
            }
            if r["chat_item_id"] as Int64? == nil { dropStatus(agentConnId, id) }
        }
    }

    /// One event to one member (introductions, handshake replies).
    func sendToMember(_ groupMemberId: Int64, _ event: ChatMsgEvent) async throws(ChatError) {
        guard let conn = try store.read({ db in
            try String.fetchOne(db.cachedStatement(sql: "SELECT agent_conn_id FROM connections WHERE group_member_id = ? AND conn_status = 'ready' ORDER BY connection_id DESC LIMIT 1"),
                                arguments: [groupMemberId])
        }) else { throw .error(errorType: .groupInternal(message: "member \(groupMemberId) has no ready connection")) }
        let id = try await sendToAgent(conn, try chatMessage(event))
        dropStatus(conn, id)
    }

    /// A message that makes no chat item: its delivery reports are not needed.
    func dropStatus(_ agentConnId: String, _ msgId: Int64) {
        earlyStatuses.removeValue(forKey: EarlyKey(agentConnId: agentConnId, msgId: msgId))
    }

    /// `/_send #<groupId> ...`: members with role author or above can send.
    func sendGroupMessages(_ ref: ChatRef, ttl: Int?, live: Bool, _ messages: [ComposedMessage]) async throws(ChatError) -> ChatResponse {
        guard ref.chatScope == nil else { throw .error(errorType: .commandError(message: "member support chats are not supported")) }
        guard !messages.isEmpty else { throw .error(errorType: .commandError(message: "no messages to send")) }
        let (user, g) = try groupContext(ref.chatId)
        try assertUserRole(g, .author)
        var items: [AChatItem] = []
        for m in messages {
            let itemId = try await sendGroupItem(user: user, g, content: m.msgContent, quotedItemId: m.quotedItemId, ttl: ttl, live: live, forwarded: false)
            items.append(try groupItem(g.groupId, itemId))
        }
        return .newChatItems(user: user, chatItems: items)
    }

    /// Stores the sent item, then sends x.msg.new to each member and records each delivery.
    func sendGroupItem(user: User, _ g: GroupInfo, content: MsgContent, quotedItemId: Int64?, ttl: Int?, live: Bool, forwarded: Bool) async throws(ChatError) -> Int64 {
        var quote: (row: Row, msg: QuotedMsg, authorMemberId: String?)?
        if let qid = quotedItemId {
            guard let r = try store.read({ db in
                try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM chat_items WHERE chat_item_id = ? AND group_id = ?"), arguments: [qid, g.groupId])
            }), let qContent = (try? ChatJSON.decode(CIContent.self, from: r["item_content"] as String))?.msgContent else {
                throw .errorStore(storeError: .chatItemNotFound(itemId: qid))
            }
            let sent: Bool = r["item_sent"]
            let author: String? = sent ? g.membership.memberId : try store.read { db in
                try String.fetchOne(db.cachedStatement(sql: "SELECT member_id FROM group_members WHERE group_member_id = ?"), arguments: [r["group_member_id"] as Int64?])
            }
            let shared = (r["shared_msg_id"] as String?).flatMap { SharedMsgId(base64url: $0) }
            let ref = MsgRef(msgId: shared, sentAt: Self.ts(r["item_ts"]), sent: sent, memberId: author.flatMap { MemberId(base64url: $0) })
            quote = (r, QuotedMsg(msgRef: ref, content: qContent), author)
        }
        let shared = SharedMsgId.random()
        let container = MsgContainer(content: content, ttl: ttl, live: live ? true : nil, quote: quote?.msg, forward: forwarded)
        let contentJSON = try json(CIContent.sndMsgContent(msgContent: content))
        let status = try json(CIStatus.sndNew)
        let quotedContent = try quote.map { q throws(ChatError) in try json(q.msg.content) }
        let now = Self.now
        var item = NewChatItem(userId: user.userId, groupId: g.groupId, sent: true, itemTs: now, text: content.text,
                               contentJSON: contentJSON, statusJSON: status, sharedMsgId: shared.base64url)
        item.setSent(forwarded: forwarded, live: live, ttl: ttl, at: now, quote: quote?.row, quotedContentJSON: quotedContent)
        item.quotedMemberId = quote?.authorMemberId
        let itemId = try store.write { db in try db.insertChatItem(item, at: now) }
        let deliveries = await sendGroupEvent(g.groupId, .msgNew(container), msgId: shared, itemId: itemId)
        let sndNew = try json(CIStatus.sndNew)
        try store.write { db in
            for d in deliveries {
                try db.run("""
                    INSERT OR REPLACE INTO group_item_deliveries (chat_item_id, group_member_id, agent_conn_id, agent_msg_id, delivery_status)
                    VALUES (?, ?, ?, ?, ?)
                    """, [itemId, d.gmId, d.agentConnId, d.msgId, sndNew])
            }
        }
        // Reports that arrived while we were still sending.
        for d in deliveries {
            if let early = earlyStatuses.removeValue(forKey: EarlyKey(agentConnId: d.agentConnId, msgId: d.msgId)) {
                try groupDeliveryUpdate(d.agentConnId, d.msgId, early)
            }
        }
        return itemId
    }

    /// A delivery report for one member's copy of a sent group item; the item's own status is the
    /// least advanced of its copies (partial until every member got it).
    /// Returns false when the message is not a tracked group item copy.
    @discardableResult
    func groupDeliveryUpdate(_ agentConnId: String, _ msgId: Int64, _ status: CIStatus) throws(ChatError) -> Bool {
        let statusJSON = try json(status)
        // Looked up with a read: most reports are for direct messages, which cost no write here.
        guard try store.read({ db in
            try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM group_item_deliveries WHERE agent_conn_id = ? AND agent_msg_id = ?"),
                              arguments: [agentConnId, msgId]) == true
        }) else { return false }
        guard let itemId = try store.write({ db -> Int64? in
            guard let id = try Int64.fetchOne(db.cachedStatement(sql: "SELECT chat_item_id FROM group_item_deliveries WHERE agent_conn_id = ? AND agent_msg_id = ?"),
                                              arguments: [agentConnId, msgId]) else { return nil }
            // A late SENT must not overwrite "delivered".
            if case .sndSent = status {
                try db.run("UPDATE group_item_deliveries SET delivery_status = ? WHERE agent_conn_id = ? AND agent_msg_id = ? AND delivery_status_type <> 'sndRcvd'",
                           [statusJSON, agentConnId, msgId])
            } else {
                try db.run("UPDATE group_item_deliveries SET delivery_status = ? WHERE agent_conn_id = ? AND agent_msg_id = ?", [statusJSON, agentConnId, msgId])
            }
            return id
        }) else { return false }
        let statuses = try store.read { db in
            try String.fetchAll(db.cachedStatement(sql: "SELECT delivery_status FROM group_item_deliveries WHERE chat_item_id = ?"), arguments: [itemId])
        }.compactMap { try? ChatJSON.decode(CIStatus.self, from: $0) }
        let rcvd = statuses.filter { if case .sndRcvd = $0 { return true } else { return false } }.count
        let sentOrRcvd = statuses.filter {
            switch $0 {
            case .sndSent, .sndRcvd: true
            default: false
            }
        }.count
        let aggregate: CIStatus
        if rcvd > 0 {
            aggregate = .sndRcvd(msgRcptStatus: .ok, sndProgress: rcvd == statuses.count ? .complete : .partial)
        } else if sentOrRcvd > 0 {
            aggregate = .sndSent(sndProgress: sentOrRcvd == statuses.count ? .complete : .partial)
        } else if case .sndError = status {
            aggregate = status
        } else {
            return true
        }
        try setStatus(itemId, aggregate)
        guard let groupId = try store.read({ db in try Int64.fetchOne(db.cachedStatement(sql: "SELECT group_id FROM chat_items WHERE chat_item_id = ?"), arguments: [itemId]) }),
            let userId = try store.read({ db in try Int64.fetchOne(db.cachedStatement(sql: "SELECT user_id FROM groups WHERE group_id = ?"), arguments: [groupId]) })
        else { return true }
        emit(.chatItemsStatusesUpdated(user: try userById(userId), chatItems: [try groupItem(groupId, itemId)]))
        return true
    }

    /// A sent or received item of a group chat with what actions need.
    func groupItemRow(_ ref: ChatRef, _ itemId: Int64) throws(ChatError) -> (User, GroupInfo, Row) {
        let (user, g) = try groupContext(ref.chatId)
        guard let r = try store.read({ db in
            try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM chat_items WHERE chat_item_id = ? AND group_id = ?"), arguments: [itemId, ref.chatId])
        }) else { throw .errorStore(storeError: .chatItemNotFound(itemId: itemId)) }
        return (user, g, r)
    }

    /// `/_update item #<groupId>`: our own message, sent again as x.msg.update to every member.
    func updateGroupItem(_ ref: ChatRef, _ itemId: Int64, live: Bool, _ updated: UpdatedMessage) async throws(ChatError) -> ChatResponse {
        let (user, g, r) = try groupItemRow(ref, itemId)
        try assertUserRole(g, .author)
        guard r["item_sent"] as Bool, r["item_deleted"] as String? == nil,
            let shared = (r["shared_msg_id"] as String?).flatMap({ SharedMsgId(base64url: $0) }),
            let current = (try? ChatJSON.decode(CIContent.self, from: r["item_content"] as String))?.msgContent
        else { throw .error(errorType: .invalidChatItemUpdate) }
        if current == updated.msgContent { return .chatItemNotChanged(user: user, chatItem: try groupItem(g.groupId, itemId)) }
        for d in await sendGroupEvent(g.groupId, .msgUpdate(ChatMsgEvent.MsgUpdate(msgId: shared, content: updated.msgContent))) {
            dropStatus(d.agentConnId, d.msgId)
        }
        let contentJSON = try json(CIContent.sndMsgContent(msgContent: updated.msgContent))
        try store.write { db in
            try db.run("UPDATE chat_items SET item_text = ?, item_content = ?, item_edited = 1, item_live = ?, updated_at = ? WHERE chat_item_id = ?",
                       [updated.msgContent.text, contentJSON, live, Self.now, itemId])
        }
        return .chatItemUpdated(user: user, chatItem: try groupItem(g.groupId, itemId))
    }

    /// `/_delete item #<groupId>`: for me, or for everyone (our own messages: x.msg.del).
    func deleteGroupItems(_ ref: ChatRef, _ itemIds: [Int64], mode: CIDeleteMode) async throws(ChatError) -> ChatResponse {
        var deletions: [ChatItemDeletion] = []
        var user: User?
        for itemId in itemIds {
            let (u, g, r) = try groupItemRow(ref, itemId)
            user = u
            let before = try groupItem(g.groupId, itemId)
            switch mode {
            case .internal:
                try store.write { db in try db.run("DELETE FROM chat_items WHERE chat_item_id = ?", [itemId]) }
                deletions.append(ChatItemDeletion(deletedChatItem: before, toChatItem: nil))
            case .internalMark, .broadcast:
                if mode == .broadcast {
                    guard r["item_sent"] as Bool, let shared = (r["shared_msg_id"] as String?).flatMap({ SharedMsgId(base64url: $0) }) else {
                        throw .error(errorType: .invalidChatItemDelete)
                    }
                    for d in await sendGroupEvent(g.groupId, .msgDel(msgId: shared)) { dropStatus(d.agentConnId, d.msgId) }
                }
                try markDeleted(itemId, .deleted(deletedTs: Self.ts(Self.now), chatType: .group))
                deletions.append(ChatItemDeletion(deletedChatItem: before, toChatItem: try groupItem(g.groupId, itemId)))
            }
        }
        guard let user else { throw .error(errorType: .commandError(message: "no items")) }
        return .chatItemsDeleted(user: user, chatItemDeletions: deletions, byUser: true, timed: false)
    }

    /// `/_delete member item #<groupId> <ids>`: moderators delete other members' messages for
    /// everyone (x.msg.del with the author's member ID); ours are marked moderated.
    func deleteMemberItems(groupId: Int64, _ itemIds: [Int64]) async throws(ChatError) -> ChatResponse {
        let (user, g) = try groupContext(groupId)
        try assertUserRole(g, .moderator)
        var deletions: [ChatItemDeletion] = []
        for itemId in itemIds {
            let (_, _, r) = try groupItemRow(.group(groupId), itemId)
            guard let shared = (r["shared_msg_id"] as String?).flatMap({ SharedMsgId(base64url: $0) }) else { throw .error(errorType: .invalidChatItemDelete) }
            var authorId = g.membership.memberId
            if !(r["item_sent"] as Bool) {
                guard let gm = r["group_member_id"] as Int64?, let author = try store.read({ db in try Self.groupMember(db, gm) }),
                    author.memberRole <= g.membership.memberRole else { throw .error(errorType: .invalidChatItemDelete) }
                authorId = author.memberId
            }
            guard let mid = MemberId(base64url: authorId) else { throw .error(errorType: .invalidChatItemDelete) }
            let before = try groupItem(groupId, itemId)
            for d in await sendGroupEvent(groupId, .msgDel(msgId: shared, memberId: mid)) { dropStatus(d.agentConnId, d.msgId) }
            try markDeleted(itemId, .moderated(deletedTs: Self.ts(Self.now), byGroupMember: g.membership))
            deletions.append(ChatItemDeletion(deletedChatItem: before, toChatItem: try groupItem(groupId, itemId)))
        }
        return .chatItemsDeleted(user: user, chatItemDeletions: deletions, byUser: true, timed: false)
    }

    /// `/_reaction #<groupId> ...`: x.msg.react naming the item's author.
    func reactInGroup(_ ref: ChatRef, _ itemId: Int64, add: Bool, _ reaction: MsgReaction) async throws(ChatError) -> ChatResponse {
        let (user, g, r) = try groupItemRow(ref, itemId)
        try assertUserRole(g, .author)
        guard let shared = (r["shared_msg_id"] as String?).flatMap({ SharedMsgId(base64url: $0) }), r["item_deleted"] as String? == nil else {
            throw .error(errorType: .commandError(message: "this item cannot have reactions"))
        }
        var authorId = g.membership.memberId
        if !(r["item_sent"] as Bool), let gm = r["group_member_id"] as Int64?, let author = try store.read({ db in try Self.groupMember(db, gm) }) {
            authorId = author.memberId
        }
        let reactionJSON = try json(reaction)
        let present = try store.read { db in
            try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM chat_item_reactions WHERE chat_item_id = ? AND reaction = ? AND reaction_sent = 1"),
                              arguments: [itemId, reactionJSON]) == true
        }
        guard present != add else { throw .error(errorType: .commandError(message: add ? "reaction already added" : "no such reaction")) }
        for d in await sendGroupEvent(g.groupId, .msgReact(msgId: shared, memberId: MemberId(base64url: authorId), reaction: reaction, add: add)) {
            dropStatus(d.agentConnId, d.msgId)
        }
        try setReaction(itemId, reactionJSON, sent: true, add: add)
        let cr = CIReaction(chatDir: .groupSnd, chatItem: try chatItem(itemId), sentAt: Self.ts(Self.now), reaction: reaction)
        return .chatItemReaction(user: user, added: add, reaction: ACIReaction(chatInfo: .group(groupInfo: try groupInfo(g.groupId), groupChatScope: nil), chatReaction: cr))
    }

    /// Marks every message of a removed member as moderated by `by` (x.grp.mem.del with messages).
    func moderateMemberItems(groupId: Int64, authorGmId: Int64, by: GroupMember) throws(ChatError) {
        let mark = try json(CIDeleted.moderated(deletedTs: Self.ts(Self.now), byGroupMember: by))
        try store.write { db in
            try db.run("UPDATE chat_items SET item_deleted = ?, updated_at = ? WHERE group_id = ? AND group_member_id = ? AND item_deleted IS NULL",
                       [mark, Self.now, groupId, authorGmId])
        }
    }
}
