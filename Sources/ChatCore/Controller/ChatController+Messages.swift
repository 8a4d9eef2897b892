import Foundation
import GRDB
import SMPAgent

/// Messages in direct chats (seed 003): sending, chat items, delivery statuses, chat lists.
extension ChatController {
    func contactConnection(_ contactId: Int64) throws(ChatError) -> (User, Contact, String) {
        let found = try store.read { db -> (User, Contact, String)? in
            guard let (c, userId) = try self.contactWithUserId(db, contactId) else { return nil }
            // The newest connection, when ready, is the newest ready one (no second query per message).
            var ready = c.activeConn?.agentConnId
            if c.activeConn?.connStatus != .ready { ready = try db.readyContactAgentConnId(contactId) }
            guard let agentConnId = ready else { throw ChatError.error(errorType: .contactNotReady(contact: c)) }
            return (try self.user(db, userId), c, agentConnId)
        }
        guard let found else { throw .errorStore(storeError: .contactNotFound(contactId: contactId)) }
        return found
    }

    /// Disappearing messages in a direct chat: only when the feature is on for both sides; the
    /// message's own ttl, else the one in our preference (simplex-chat `contactTimedTTL`).
    static func timedTTL(_ contact: Contact, _ itemTTL: Int?) -> Int? {
        let p = contact.mergedPreferences.timedMessages
        guard p.enabled.forUser && p.enabled.forContact else { return nil }
        return itemTTL ?? contact.userPreferences.timedMessages?.ttl
    }

    /// Sends one body; on a post-quantum connection of chat version 8+ a long body goes compressed,
    /// as simplex-chat's `deliverMessagesB` does.
    func sendToAgent(_ agentConnId: String, _ body: Data) async throws(ChatError) -> Int64 {
        let agent = try runningAgent()
        let wire = try bodyToSend(agentConnId, body)
        do { return try await agent.sendMessage(connId: agentConnId, body: [UInt8](wire)) } catch {
            throw Self.agentError(error, connId: agentConnId)
        }
    }

    /// The chat version negotiated on a connection: the highest both ranges share (ours until the
    /// peer's range is known), and whether it was made with post-quantum support.
    func negotiated(_ agentConnId: String) throws(ChatError) -> (version: UInt16, pqSupport: Bool) {
        guard let r = try store.read({ db in try db.connectionRow(agentConnId: agentConnId) }) else {
            return (ChatProtocolVersion.initial, false)
        }
        return (Self.negotiatedVersion(ours: ourChatVRange, peerMin: r["peer_chat_min_version"], peerMax: r["peer_chat_max_version"]), r["pq_support"] as Bool? ?? false)
    }

    /// simplex-chat `compatibleVersion`: the top of the two ranges' overlap; with no overlap the
    /// lower of the two maxima, so nothing newer than both is used. A peer whose range we have not
    /// heard yet is taken as version 1 (what a message without `v` means): no batches or
    /// compression go to it.
    static func negotiatedVersion(ours: VersionRange = ChatProtocolVersion.supportedRange, peerMin: Int?, peerMax: Int?) -> UInt16 {
        guard let lo = peerMin, let hi = peerMax, let peer = VersionRange(min: UInt16(clamping: lo), max: UInt16(clamping: hi)) else {
            return ChatProtocolVersion.initial
        }
        return peer.intersection(ours)?.max ?? min(peer.max, ours.max)
    }

    /// The bytes the agent sends for a chat body on this connection (compressed when due).
    func bodyToSend(_ agentConnId: String, _ body: Data, limit: Int = ChatProtocolLimits.maxCompressedMsgLength) throws(ChatError) -> Data {
        guard body.count > limit else { return body }
        let (version, pq) = try negotiated(agentConnId)
        do { return try ChatCompression.bodyToSend(body, pqSupport: pq, chatVersion: version, limit: limit) } catch {
            throw .error(errorType: .internalError(message: "large compressed message: \(error)"))
        }
    }

    /// Sends a chat event that makes no chat item of its own (update, delete, reaction, profile).
    func sendEvent(_ agentConnId: String, _ event: ChatMsgEvent) async throws(ChatError) {
        let id = try await sendToAgent(agentConnId, try chatMessage(event))
        dropStatus(agentConnId, id)
    }

    func chatItem(_ itemId: Int64) throws(ChatError) -> ChatItem {
        let deferred = store.deferredSentStatuses
        if let inserted = insertedItem(itemId) {
            // Just inserted, and nothing written since: no reactions, mentions or file yet.
            return try store.read { db in
                try self.chatItem(db, inserted, deferred: deferred, has: ItemRelations(reactions: false, mentions: false, file: false))
            }
        }
        guard let item = try store.read({ db -> ChatItem? in
            try db.withChatItemRow(itemId) { r, has in try self.chatItem(db, r, deferred: deferred, has: has) }
        }) else {
            throw .errorStore(storeError: .chatItemNotFound(itemId: itemId))
        }
        return item
    }

    /// Remembers the contacts' items a write just inserted (the others are read back as before).
    func rememberInserted(_ items: [(id: Int64, item: NewChatItem)], at now: Double) {
        var kept: [Int64: NewChatItem] = [:]
        for (id, item) in items where InsertedItemColumns.covers(item) { kept[id] = item }
        insertedItems = kept.isEmpty ? nil
            : InsertedItems(store: ObjectIdentifier(store), writeCount: store.writeCount, at: now, items: kept)
    }

    /// An item's row as `rememberInserted` kept it, while no write has followed its insert.
    func insertedItem(_ itemId: Int64) -> InsertedItemColumns? {
        guard let ins = insertedItems, let item = ins.items[itemId] else { return nil }
        guard ins.store == ObjectIdentifier(store), ins.writeCount == store.writeCount else {
            insertedItems = nil
            return nil
        }
        return InsertedItemColumns(item, id: itemId, at: ins.at)
    }

    func setStatus(_ itemId: Int64, _ status: CIStatus) throws(ChatError) {
        let s = try json(status)
        try store.write { db in try db.setItemStatus(itemId, s, at: Self.now) }
    }

    func json<T: Encodable>(_ v: T) throws(ChatError) -> String { try Self.jsonText(v) }

    /// A status as stored; the few that every message writes are encoded once (issue 16).
    func json(_ status: CIStatus) throws(ChatError) -> String {
        if let known = Self.commonStatusJSON[status] { return known }
        return try Self.jsonText(status)
    }

    private static let commonStatusJSON: [CIStatus: String] = {
        var known: [CIStatus: String] = [:]
        for s: CIStatus in [.sndNew, .rcvNew, .rcvRead, .sndSent(sndProgress: .complete), .sndRcvd(msgRcptStatus: .ok, sndProgress: .complete)] {
            known[s] = try? jsonText(s)
        }
        return known
    }()

    /// A message item's content as stored. Text content (which decodes back exactly) is kept
    /// decoded for the item's answer or event read right after the write.
    func itemContentJSON(_ content: CIContent) throws(ChatError) -> String {
        let text = try json(content)
        if case .text? = content.msgContent { decoded.contents.remember(text, content) }
        return text
    }

    static func jsonText<T: Encodable>(_ v: T) throws(ChatError) -> String {
        do { return String(decoding: try ChatJSON.encode(v), as: UTF8.self) } catch {
            throw .error(errorType: .internalError(message: "json: \(error)"))
        }
    }

    /// `/_get chats <userId> [pcc=on] [count=N | before=<ts> count=N | after=<ts> count=N] [query]`:
    /// at most N chat previews of every kind together (contacts, groups, contact requests and,
    /// when asked, pending connections), by last activity, each with its last item. Filters:
    /// `search` on names; `unread` keeps chats with unread items; `favorite` keeps favorite
    /// chats (none can be made favorite yet, so it keeps none). Cleared chats are hidden.
    func getChats(userId: Int64, pendingConnections: Bool, pagination: PaginationByTime, query: ChatListQuery) throws(ChatError) -> ChatResponse {
        let user = try userById(userId)
        let (count, bound, ascending): (Int, (Double, Bool)?, Bool) = switch pagination {
        case .last(let n): (n, nil, false)
        case .before(let t, let n): (n, (t.date.timeIntervalSince1970, false), false)
        case .after(let t, let n): (n, (t.date.timeIntervalSince1970, true), true)
        }
        var search: String?
        var favorite = false, unread = false
        switch query {
        case .search(let text): search = text.isEmpty ? nil : text
        case .filters(let f, let u): favorite = f; unread = u
        }
        let onlyChats = favorite || unread
        let deferred = store.deferredSentStatuses
        let chats = try store.read { db -> [AChat] in
            if favorite { return [] }
            var out: [(Double, AChat)] = []
            func inRange(_ ts: Double) -> Bool {
                guard let (t, after) = bound else { return true }
                return after ? ts > t : ts < t
            }
            for (id, ts) in try db.chatListContacts(userId: userId, bound: bound, search: search, limit: count) {
                guard let c = try self.contact(db, id) else { continue }
                let unreadCount = try db.contactUnreadCount(id)
                if unread && unreadCount == 0 { continue }
                let last = try db.lastContactItemRow(id)
                out.append((ts, AChat(chatInfo: .direct(contact: c), chatItems: try last.map { [try self.chatItem(db, $0, deferred: deferred)] } ?? [],
                                      chatStats: ChatStats(unreadCount: unreadCount))))
            }
            for (id, ts) in try db.chatListGroups(userId: userId, bound: bound, search: search, limit: count) {
                guard let g = try self.groupInfo(db, id) else { continue }
                let unreadCount = try db.groupUnreadCount(id)
                if unread && unreadCount == 0 { continue }
                let last = try db.lastGroupItemRow(id)
                out.append((ts, AChat(chatInfo: .group(groupInfo: g, groupChatScope: nil), chatItems: try last.map { [try self.chatItem(db, $0, deferred: deferred)] } ?? [],
                                      chatStats: ChatStats(unreadCount: unreadCount, unreadMentions: try db.unreadMentionsCount(groupId: id),
                                                           reportsCount: try db.receivedReportsCount(groupId: id)))))
            }
            if !onlyChats {
                for id in try db.contactRequestIds(userId: userId) {
                    guard let r = try self.contactRequest(db, id) else { continue }
                    let ts = r.updatedAt.date.timeIntervalSince1970
                    if inRange(ts), search.map({ r.localDisplayName.localizedCaseInsensitiveContains($0) }) ?? true {
                        out.append((ts, AChat(chatInfo: .contactRequest(contactRequest: r), chatItems: [])))
                    }
                }
                if pendingConnections && search == nil {
                    for r in try db.pendingConnectionRows(userId: userId) {
                        let ts: Double = r["updated_at"]
                        if inRange(ts) { out.append((ts, AChat(chatInfo: .contactConnection(contactConnection: Self.pending(r)), chatItems: []))) }
                    }
                }
            }
            // One limit over every kind: the N nearest to the bound (the latest without one).
            let page = ascending ? out.sorted { $0.0 < $1.0 }.prefix(count) : out.sorted { $0.0 > $1.0 }.prefix(count)
            return page.sorted { $0.0 > $1.0 }.map(\.1)
        }
        return .apiChats(user: user, chats: chats)
    }

    /// `/_get chat @<contactId> <pagination>[ search=...]`.
    func getChat(_ ref: ChatRef, contentTag: String?, pagination: ChatPagination, search: String?) throws(ChatError) -> ChatResponse {
        if ref.chatType == .group, ref.chatScope != nil { return try getSupportChat(ref, pagination: pagination) }
        guard ref.chatType == .direct || (ref.chatType == .group && ref.chatScope == nil) else {
            throw .error(errorType: .commandError(message: "only direct and group chats are supported"))
        }
        let isGroup = ref.chatType == .group
        let deferred = store.deferredSentStatuses
        let found = try store.read { db -> (Int64, ChatInfo, [ChatItem])? in
            let info: ChatInfo
            if isGroup {
                guard let g = try self.groupInfo(db, ref.chatId) else { return nil }
                info = .group(groupInfo: g, groupChatScope: nil)
            } else {
                guard let c = try self.contact(db, ref.chatId) else { return nil }
                info = .direct(contact: c)
            }
            guard let userId = try isGroup ? db.groupUserId(ref.chatId) : db.contactUserId(ref.chatId) else { return nil }
            let rows = try db.chatItemRows(contactId: isGroup ? nil : ref.chatId, groupId: isGroup ? ref.chatId : nil,
                                           contentTag: contentTag, search: search, pagination: pagination)
            return (userId, info, try rows.map { try self.chatItem(db, $0, deferred: deferred) })
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
            let (user, g) = try groupContext(ref.chatId)
            let read = try json(CIStatus.rcvRead)
            if let scope = ref.chatScope {
                // A support chat: its items and counters (chat version 15).
                let scopeGmId = try supportScopeGmId(g, scope)
                try store.write { db in try db.readSupportChat(groupId: g.groupId, memberGmId: scopeGmId, to: read) }
                // simplex-chat CRMemberSupportChatRead: the group and the member after the read.
                return .memberSupportChatRead(user: user, groupInfo: try groupInfo(g.groupId), member: try member(scopeGmId))
            }
            try store.write { db in try db.readMainGroupChat(groupId: ref.chatId, to: read) }
            return .cmdOk(user_: user)
        }
        guard ref.chatType == .direct else { throw .error(errorType: .commandError(message: "only direct and group chats are supported")) }
        let read = try json(CIStatus.rcvRead)
        let userId = try store.write { db -> Int64? in
            try db.markNewItems(contactId: ref.chatId, as: read)
            return try db.contactUserId(ref.chatId)
        }
        guard let userId else { throw .errorStore(storeError: .contactNotFound(contactId: ref.chatId)) }
        return .cmdOk(user_: try userById(userId))
    }

    func listContacts(userId: Int64) throws(ChatError) -> ChatResponse {
        let user = try userById(userId)
        let contacts = try store.read { db in
            try db.activeContactIds(userId: userId).compactMap { try self.contact(db, $0) }
        }
        return .contactsList(user: user, contacts: contacts)
    }
}

/// A delivery status the agent reported before the chat item knew its agent message id.
struct EarlyKey: Hashable {
    let agentConnId: String
    let msgId: Int64
}

extension NewChatItem {
    /// What a sent item records of its sending options and quote, for contacts and groups alike.
    mutating func setSent(forwarded: Bool, live: Bool, ttl: Int?, at now: Double, quote: Row?, quotedContentJSON: String?) {
        self.forwarded = forwarded
        self.live = live
        self.ttl = ttl
        deleteAt = ttl.map { now + Double($0) }
        quotedItemId = quote?["chat_item_id"] as Int64?
        quotedSharedMsgId = quote?["shared_msg_id"] as String?
        quotedSent = quote?["item_sent"] as Bool?
        quotedSentAt = quote?["item_ts"] as Double?
        self.quotedContentJSON = quotedContentJSON
    }
}
