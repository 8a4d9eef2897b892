import Foundation
import GRDB
import SMPAgent

/// Messages in direct chats (seed 003): sending, chat items, delivery statuses, chat lists.
extension ChatController {
    func contactConnection(_ contactId: Int64) throws(ChatError) -> (User, Contact, String) {
        let found = try store.read { db -> (Int64, Contact, String)? in
            guard let c = try self.contact(db, contactId),
                let userId = try Int64.fetchOne(db.cachedStatement(sql: "SELECT user_id FROM contacts WHERE contact_id = ?"), arguments: [contactId])
            else { return nil }
            guard let agentConnId = try String.fetchOne(db.cachedStatement(sql: """
                SELECT agent_conn_id FROM connections WHERE contact_id = ? AND conn_status = 'ready' ORDER BY connection_id DESC LIMIT 1
                """), arguments: [contactId]) else { throw ChatError.error(errorType: .contactNotReady(contact: c)) }
            return (userId, c, agentConnId)
        }
        guard let (userId, contact, connId) = found else { throw .errorStore(storeError: .contactNotFound(contactId: contactId)) }
        return (try userById(userId), contact, connId)
    }

    /// `/_send @<contactId> json [...]`: each composed message becomes an x.msg.new to the peer
    /// and a sent chat item (status sndNew until the agent reports SENT).
    func sendMessages(_ ref: ChatRef, ttl: Int?, live: Bool, _ messages: [ComposedMessage]) async throws(ChatError) -> ChatResponse {
        guard ref.chatType == .direct else {
            throw .error(errorType: .commandError(message: "only direct chats are supported yet"))
        }
        guard !messages.isEmpty else { throw .error(errorType: .commandError(message: "no messages to send")) }
        let (user, contact, agentConnId) = try contactConnection(ref.chatId)
        var items: [AChatItem] = []
        for m in messages {
            let itemId = try await sendItem(user: user, contact: contact, agentConnId: agentConnId, content: m.msgContent,
                                            quotedItemId: m.quotedItemId, ttl: ttl, live: live, forwarded: false)
            items.append(AChatItem(chatInfo: .direct(contact: contact), chatItem: try chatItem(itemId)))
        }
        return .newChatItems(user: user, chatItems: items)
    }

    /// Sends one x.msg.new and stores its chat item (sndNew until the agent reports SENT).
    func sendItem(user: User, contact: Contact, agentConnId: String, content: MsgContent, quotedItemId: Int64?,
                  ttl: Int?, live: Bool, forwarded: Bool) async throws(ChatError) -> Int64 {
        var quote: (row: Row, msg: QuotedMsg)?
        if let qid = quotedItemId {
            guard let r = try store.read({ db in
                try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM chat_items WHERE chat_item_id = ? AND contact_id = ?"), arguments: [qid, contact.contactId])
            }), let qc = try? ChatJSON.decode(CIContent.self, from: r["item_content"] as String), let qContent = qc.msgContent else {
                throw .errorStore(storeError: .chatItemNotFound(itemId: qid))
            }
            let shared = (r["shared_msg_id"] as String?).flatMap { SharedMsgId(base64url: $0) }
            // `sent`: whether the quoting author (we) sent the quoted message.
            quote = (r, QuotedMsg(msgRef: MsgRef(msgId: shared, sentAt: Self.ts(r["item_ts"]), sent: r["item_sent"] as Bool), content: qContent))
        }
        let shared = SharedMsgId.random()
        let container = MsgContainer(content: content, ttl: ttl, live: live ? true : nil, quote: quote?.msg, forward: forwarded)
        let body: Data
        body = try chatMessage(.msgNew(container), msgId: shared)
        let contentJSON = try json(CIContent.sndMsgContent(msgContent: content))
        let status = try json(CIStatus.sndNew)
        let quotedContent = try quote.map { q throws(ChatError) in try json(q.msg.content) }
        let itemId = try store.write { db -> Int64 in
            try db.run("""
                INSERT INTO chat_items (user_id, contact_id, item_sent, item_ts, item_text, item_content, item_status, shared_msg_id,
                  item_forwarded, item_live, timed_ttl, timed_delete_at, quoted_item_id, quoted_shared_msg_id, quoted_sent, quoted_sent_at, quoted_content,
                  created_at, updated_at)
                VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, [user.userId, contact.contactId, Self.now, content.text, contentJSON, status, shared.base64url,
                                 forwarded, live, ttl, ttl.map { Self.now + Double($0) }, quote?.row["chat_item_id"] as Int64?,
                                 quote?.row["shared_msg_id"] as String?, quote?.row["item_sent"] as Bool?, quote?.row["item_ts"] as Double?,
                                 quotedContent, Self.now, Self.now])
            let id = db.lastInsertedRowID
            try db.run("UPDATE contacts SET chat_ts = ?, contact_used = 1 WHERE contact_id = ?", [Self.now, contact.contactId])
            return id
        }
        let msgId: Int64
        do { msgId = try await sendToAgent(agentConnId, body) } catch {
            try? store.write { db in try db.run("DELETE FROM chat_items WHERE chat_item_id = ?", [itemId]) }
            throw error
        }
        try store.write { db in
            try db.run("UPDATE chat_items SET agent_msg_id = ? WHERE chat_item_id = ?", [msgId, itemId])
        }
        // The agent may have reported on it before we knew its id.
        if let early = earlyStatuses.removeValue(forKey: EarlyKey(agentConnId: agentConnId, msgId: msgId)) {
            try setStatus(itemId, early)
        }
        return itemId
    }

    func sendToAgent(_ agentConnId: String, _ body: Data) async throws(ChatError) -> Int64 {
        let agent = try runningAgent()
        do { return try await agent.sendMessage(connId: agentConnId, body: [UInt8](body)) } catch {
            throw Self.agentError(error, connId: agentConnId)
        }
    }

    /// Sends a chat event that makes no chat item of its own (update, delete, reaction, profile).
    func sendEvent(_ agentConnId: String, _ event: ChatMsgEvent) async throws(ChatError) {
        let id = try await sendToAgent(agentConnId, try chatMessage(event))
        dropStatus(agentConnId, id)
    }

    func chatItem(_ itemId: Int64) throws(ChatError) -> ChatItem {
        guard let item = try store.read({ db -> ChatItem? in
            guard let r = try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM chat_items WHERE chat_item_id = ?"), arguments: [itemId]) else { return nil }
            return try Self.chatItem(db, r)
        }) else {
            throw .errorStore(storeError: .chatItemNotFound(itemId: itemId))
        }
        return item
    }

    func setStatus(_ itemId: Int64, _ status: CIStatus) throws(ChatError) {
        let s = try json(status)
        try store.write { db in
            try db.run("UPDATE chat_items SET item_status = ?, updated_at = ? WHERE chat_item_id = ?", [s, Self.now, itemId])
        }
    }

    func json<T: Encodable>(_ v: T) throws(ChatError) -> String {
        do { return String(decoding: try ChatJSON.encode(v), as: UTF8.self) } catch {
            throw .error(errorType: .internalError(message: "json: \(error)"))
        }
    }

    /// `/_get chats <userId> [pcc=on] [count=N | before=<ts> count=N | after=<ts> count=N]`:
    /// the most recent direct chats (by last activity) with their last item, plus contact
    /// requests and, when asked, pending connections. Set-based queries, so the cost depends on
    /// the page size, not on how many contacts and items there are.
    func getChats(userId: Int64, pendingConnections: Bool, pagination: PaginationByTime, query: ChatListQuery) throws(ChatError) -> ChatResponse {
        let user = try userById(userId)
        let newStatus = try json(CIStatus.rcvNew)
        let chats = try store.read { db -> [AChat] in
            var filter = "user_id = ? AND contact_status = 'active'"
            var args: StatementArguments = [userId]
            var order = "DESC"
            let count: Int
            switch pagination {
            case .last(let n): count = n
            case .before(let t, let n):
                filter += " AND coalesce(chat_ts, created_at) < ?"
                _ = args.append(contentsOf: [t.date.timeIntervalSince1970])
                count = n
            case .after(let t, let n):
                filter += " AND coalesce(chat_ts, created_at) > ?"
                _ = args.append(contentsOf: [t.date.timeIntervalSince1970])
                order = "ASC"
                count = n
            }
            if case .search(let text) = query, !text.isEmpty {
                filter += " AND local_display_name LIKE ?"
                _ = args.append(contentsOf: ["%\(text)%"])
            }
            let ids = try Int64.fetchAll(db.cachedStatement(sql: """
                SELECT contact_id FROM contacts WHERE \(filter) ORDER BY coalesce(chat_ts, created_at) \(order) LIMIT ?
                """), arguments: args + [count])
            var out: [(Double, AChat)] = []
            for id in ids {
                guard let c = try self.contact(db, id) else { continue }
                let last = try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM chat_items WHERE user_id = ? AND contact_id = ? ORDER BY chat_item_id DESC LIMIT 1"),
                                            arguments: [userId, id])
                let unread = try Int.fetchOne(db.cachedStatement(sql: "SELECT count(*) FROM chat_items WHERE contact_id = ? AND item_status = ?"),
                                              arguments: [id, newStatus]) ?? 0
                let ts = (c.chatTs ?? c.createdAt).date.timeIntervalSince1970
                out.append((ts, AChat(chatInfo: .direct(contact: c), chatItems: try last.map { [try Self.chatItem(db, $0)] } ?? [],
                                      chatStats: ChatStats(unreadCount: unread))))
            }
            var gFilter = "user_id = ?"
            var gArgs: StatementArguments = [userId]
            switch pagination {
            case .last: break
            case .before(let t, _):
                gFilter += " AND coalesce(chat_ts, created_at) < ?"
                _ = gArgs.append(contentsOf: [t.date.timeIntervalSince1970])
            case .after(let t, _):
                gFilter += " AND coalesce(chat_ts, created_at) > ?"
                _ = gArgs.append(contentsOf: [t.date.timeIntervalSince1970])
            }
            if case .search(let text) = query, !text.isEmpty {
                gFilter += " AND local_display_name LIKE ?"
                _ = gArgs.append(contentsOf: ["%\(text)%"])
            }
            let groupIds = try Int64.fetchAll(db.cachedStatement(sql: """
                SELECT group_id FROM groups WHERE \(gFilter) ORDER BY coalesce(chat_ts, created_at) \(order) LIMIT ?
                """), arguments: gArgs + [count])
            for id in groupIds {
                guard let g = try Self.groupInfo(db, id) else { continue }
                let last = try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM chat_items WHERE group_id = ? ORDER BY chat_item_id DESC LIMIT 1"), arguments: [id])
                let unread = try Int.fetchOne(db.cachedStatement(sql: "SELECT count(*) FROM chat_items WHERE group_id = ? AND item_status = ?"),
                                              arguments: [id, newStatus]) ?? 0
                let ts = (g.chatTs ?? g.createdAt).date.timeIntervalSince1970
                out.append((ts, AChat(chatInfo: .group(groupInfo: g, groupChatScope: nil), chatItems: try last.map { [try Self.chatItem(db, $0)] } ?? [],
                                      chatStats: ChatStats(unreadCount: unread))))
            }
            for id in try Int64.fetchAll(db.cachedStatement(sql: "SELECT contact_request_id FROM contact_requests WHERE user_id = ?"), arguments: [userId]) {
                guard let r = try self.contactRequest(db, id) else { continue }
                out.append((r.createdAt.date.timeIntervalSince1970, AChat(chatInfo: .contactRequest(contactRequest: r), chatItems: [])))
            }
            if pendingConnections {
                for r in try Row.fetchAll(db.cachedStatement(sql: "SELECT * FROM connections WHERE user_id = ? AND contact_id IS NULL AND conn_type = 'contact'"), arguments: [userId]) {
                    out.append((r["created_at"], AChat(chatInfo: .contactConnection(contactConnection: Self.pending(r)), chatItems: [])))
                }
            }
            return out.sorted { $0.0 > $1.0 }.map(\.1)
        }
        return .apiChats(user: user, chats: chats)
    }

    /// `/_get chat @<contactId> <pagination>[ search=...]`.
    func getChat(_ ref: ChatRef, pagination: ChatPagination, search: String?) throws(ChatError) -> ChatResponse {
        guard ref.chatType == .direct || (ref.chatType == .group && ref.chatScope == nil) else {
            throw .error(errorType: .commandError(message: "only direct and group chats are supported"))
        }
        let isGroup = ref.chatType == .group
        let found = try store.read { db -> (Int64, ChatInfo, [ChatItem])? in
            let info: ChatInfo
            if isGroup {
                guard let g = try Self.groupInfo(db, ref.chatId) else { return nil }
                info = .group(groupInfo: g, groupChatScope: nil)
            } else {
                guard let c = try self.contact(db, ref.chatId) else { return nil }
                info = .direct(contact: c)
            }
            guard let userId = try Int64.fetchOne(db.cachedStatement(sql: isGroup ? "SELECT user_id FROM groups WHERE group_id = ?" : "SELECT user_id FROM contacts WHERE contact_id = ?"),
                                                  arguments: [ref.chatId])
            else { return nil }
            var sql = isGroup ? "SELECT * FROM chat_items WHERE group_id = ?" : "SELECT * FROM chat_items WHERE contact_id = ?"
            var args: StatementArguments = [ref.chatId]
            if let search, !search.isEmpty {
                sql += " AND item_text LIKE ? ESCAPE '\\'"
                let escaped = search.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_")
                _ = args.append(contentsOf: ["%" + escaped + "%"])
            }
            let rows: [Row]
            switch pagination {
            case .last(let n), .initial(let n):
                rows = try Row.fetchAll(db.cachedStatement(sql: sql + " ORDER BY chat_item_id DESC LIMIT ?"), arguments: args + [n]).reversed()
            case .after(let id, let n):
                rows = try Row.fetchAll(db.cachedStatement(sql: sql + " AND chat_item_id > ? ORDER BY chat_item_id ASC LIMIT ?"), arguments: args + [id, n])
            case .before(let id, let n):
                rows = try Row.fetchAll(db.cachedStatement(sql: sql + " AND chat_item_id < ? ORDER BY chat_item_id DESC LIMIT ?"), arguments: args + [id, n]).reversed()
            case .around(let id, let n):
                let before: [Row] = try Row.fetchAll(db.cachedStatement(sql: sql + " AND chat_item_id < ? ORDER BY chat_item_id DESC LIMIT ?"), arguments: args + [id, n / 2]).reversed()
                let after = try Row.fetchAll(db.cachedStatement(sql: sql + " AND chat_item_id >= ? ORDER BY chat_item_id ASC LIMIT ?"), arguments: args + [id, n - n / 2])
                rows = before + after
            }
            return (userId, info, try rows.map { try Self.chatItem(db, $0) })
        }
        guard let (userId, info, items) = found else {
            throw isGroup ? .errorStore(storeError: .groupNotFound(groupId: ref.chatId)) : .errorStore(storeError: .contactNotFound(contactId: ref.chatId))
        }
        let user = try userById(userId)
        return .apiChat(user: user, chat: AChat(chatInfo: info, chatItems: items), navInfo: nil)
    }

    /// `/_read chat @<contactId>`: received items become rcvRead.
    func readChat(_ ref: ChatRef) throws(ChatError) -> ChatResponse {
        if ref.chatType == .group {
            let (user, _) = try groupContext(ref.chatId)
            let read = try json(CIStatus.rcvRead), new = try json(CIStatus.rcvNew)
            try store.write { db in try db.run("UPDATE chat_items SET item_status = ? WHERE group_id = ? AND item_status = ?", [read, ref.chatId, new]) }
            return .cmdOk(user_: user)
        }
        guard ref.chatType == .direct else { throw .error(errorType: .commandError(message: "only direct and group chats are supported")) }
        let read = try json(CIStatus.rcvRead), new = try json(CIStatus.rcvNew)
        let userId = try store.write { db -> Int64? in
            try db.run("UPDATE chat_items SET item_status = ? WHERE contact_id = ? AND item_status = ?", [read, ref.chatId, new])
            return try Int64.fetchOne(db.cachedStatement(sql: "SELECT user_id FROM contacts WHERE contact_id = ?"), arguments: [ref.chatId])
        }
        guard let userId else { throw .errorStore(storeError: .contactNotFound(contactId: ref.chatId)) }
        return .cmdOk(user_: try userById(userId))
    }

    func listContacts(userId: Int64) throws(ChatError) -> ChatResponse {
        let user = try userById(userId)
        let contacts = try store.read { db in
            try Int64.fetchAll(db.cachedStatement(sql: "SELECT contact_id FROM contacts WHERE user_id = ? AND contact_status = 'active' ORDER BY contact_id"), arguments: [userId])
                .compactMap { try self.contact(db, $0) }
        }
        return .contactsList(user: user, contacts: contacts)
    }
}

/// A delivery status the agent reported before the chat item knew its agent message id.
struct EarlyKey: Hashable {
    let agentConnId: String
    let msgId: Int64
}
