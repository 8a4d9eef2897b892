import Foundation
import GRDB
import SMPAgent

/// Sending message content (seed 003 §2): one path for contacts and groups. Items are prepared,
/// sent (the agent's message ids first), then stored with their deliveries in one transaction.
extension ChatController {
    /// `/_send <chatRef> json [...]`: each composed message becomes an x.msg.new and a sent chat
    /// item (sndNew until the agent reports SENT).
    func sendMessages(_ ref: ChatRef, ttl: Int?, live: Bool, _ messages: [ComposedMessage]) async throws(ChatError) -> ChatResponse {
        guard !messages.isEmpty else { throw .error(errorType: .commandError(message: "no messages to send")) }
        if ref.chatType == .group, ref.chatScope != nil { return try await sendSupportMessages(ref, messages) }
        let (user, target) = try messageTarget(ref, requiredRole: .author)
        // A member held for approval or review writes only in its support chat (as simplex-chat).
        if case .group(let g) = target, g.membership.memberStatus == .pendingApproval || g.membership.memberStatus == .pendingReview {
            throw .error(errorType: .commandError(message: "not current member"))
        }
        if messages.contains(where: { if case .voice = $0.msgContent { true } else { false } }) {
            try assertFeatureAllowed(target, .voice)
        }
        let itemTTL = itemTTL(target, ttl)
        var prepared: [PreparedItem] = []
        var sndFiles: [(fileId: Int64, sharedMsgId: SharedMsgId)] = []
        do {
            for m in messages {
                if let q = m.quotedItemId { try assertMainChatItem(try targetItemRow(target, q)) }
                var p = try prepareItem(user: user, target, content: m.msgContent, quotedItemId: m.quotedItemId,
                                        ttl: itemTTL, live: live, forwarded: false)
                if case .group(let g) = target { try addMentions(&p, g, m.mentions) }
                // A file goes as the container's invitation; it is uploaded once its item exists (issue 15).
                if let source = m.fileSource {
                    let f = try prepareSndFile(userId: user.userId, source: source, to: try fileRecipients(target))
                    p.container.file = f.invitation
                    sndFiles.append((f.fileId, p.sharedMsgId))
                }
                prepared.append(p)
            }
        } catch {
            discardSndFiles(sndFiles.map(\.fileId))
            throw error
        }
        return try await sendNewItems(user: user, target, prepared, files: sndFiles)
    }

    /// Sends prepared items with files (issue 15): each file is linked to its stored item (and its
    /// upload starts) before the items are read for the answer.
    func sendNewItems(user: User, _ target: MessageTarget, _ prepared: [PreparedItem],
                      files sndFiles: [(fileId: Int64, sharedMsgId: SharedMsgId)]) async throws(ChatError) -> ChatResponse {
        if sndFiles.isEmpty { return try await sendNewItems(user: user, target, prepared) }
        let itemIds: [Int64]
        do { itemIds = try await sendPrepared(target, prepared) } catch {
            startSndFiles(target, sndFiles)
            throw error
        }
        startSndFiles(target, sndFiles)
        var items: [AChatItem] = []
        for itemId in itemIds { items.append(try targetItem(target, itemId)) }
        return .newChatItems(user: user, chatItems: items)
    }

    /// Sends prepared items and answers with them (`newChatItems`).
    func sendNewItems(user: User, _ target: MessageTarget, _ prepared: [PreparedItem]) async throws(ChatError) -> ChatResponse {
        let itemIds = try await sendPrepared(target, prepared)
        var items: [AChatItem] = []
        for itemId in itemIds { items.append(try targetItem(target, itemId)) }
        return .newChatItems(user: user, chatItems: items)
    }

    /// A sent item before it is sent: the x.msg.new container, and its row (a quote resolved in
    /// the target's chat, with the quoted author's member ID in groups).
    func prepareItem(user: User, _ target: MessageTarget, content: MsgContent, quotedItemId: Int64?,
                     ttl: Int?, live: Bool, forwarded: Bool) throws(ChatError) -> PreparedItem {
        var quote: (row: Row, msg: QuotedMsg, author: String?)?
        if let qid = quotedItemId {
            let r = try targetItemRow(target, qid)
            guard let qContent = (try? ChatJSON.decode(CIContent.self, from: r["item_content"] as String))?.msgContent else {
                throw .errorStore(storeError: .chatItemNotFound(itemId: qid))
            }
            let author = try itemAuthorMemberId(target, r)
            let shared = (r["shared_msg_id"] as String?).flatMap { SharedMsgId(base64url: $0) }
            // `sent`: whether the quoting author (we) sent the quoted message.
            let ref = MsgRef(msgId: shared, sentAt: Self.ts(r["item_ts"]), sent: r["item_sent"] as Bool,
                             memberId: author.flatMap { MemberId(base64url: $0) })
            quote = (r, QuotedMsg(msgRef: ref, content: qContent), author)
        }
        let shared = SharedMsgId.random()
        let container = MsgContainer(content: content, ttl: ttl, live: live ? true : nil, quote: quote?.msg, forward: forwarded)
        let contentJSON = try itemContentJSON(.sndMsgContent(msgContent: content))
        let status = try json(CIStatus.sndNew)
        let quotedContent = try quote.map { q throws(ChatError) in try json(q.msg.content) }
        let now = Self.now
        var item = NewChatItem(userId: user.userId, contactId: target.contactId, groupId: target.groupId, sent: true, itemTs: now,
                               text: content.text, contentJSON: contentJSON, statusJSON: status, sharedMsgId: shared.base64url)
        item.setSent(forwarded: forwarded, live: live, ttl: ttl, at: now, quote: quote?.row, quotedContentJSON: quotedContent)
        item.quotedMemberId = quote?.author
        return PreparedItem(container: container, sharedMsgId: shared, item: item)
    }

    /// Sends prepared items to the target and stores them. Every body is made (and checked for
    /// size) before anything is sent. To a contact of chat version 9+ several items go batched
    /// (simplex-chat `sendDirectContactMessages`); to a member when its version takes batches
    /// (5+, 9+ for an admin); members still connecting get them as pending messages.
    /// A contact's item the agent refused is not stored (its error is thrown, after the items
    /// sent before it are stored); a member whose send fails is reported and skipped.
    /// `only`: the group members it goes to (reports go to moderators only); nil for all.
    func sendPrepared(_ target: MessageTarget, _ prepared: [PreparedItem], only: Set<Int64>? = nil) async throws(ChatError) -> [Int64] {
        guard !prepared.isEmpty else { return [] }
        var bodies: [Data] = []
        for p in prepared { bodies.append(try chatMessage(.msgNew(p.container), msgId: p.sharedMsgId)) }
        switch target {
        case .direct(_, let conn):
            // One message needs no version (a read per message saved).
            var batched = false
            if bodies.count > 1 { batched = try negotiated(conn).version >= ChatProtocolVersion.batchSend2 }
            let (deliveries, failure) = await deliver(bodies, over: conn, member: nil, batched: batched)
            let ids = try storeSentItems(target, prepared, bodies: bodies, deliveries, pendingMembers: [])
            if let failure { throw failure }
            return ids.compactMap { $0 }
        case .group(let g):
            await sendProfileUpdateIfNeeded(g.groupId)
            let pending = pendingMembers(g.groupId, forwardable: true).filter { only?.contains($0) ?? true }
            var deliveries: [Delivery] = []
            for (gmId, conn) in (try? groupRecipients(g.groupId)) ?? [] where only?.contains(gmId) ?? true {
                var batched = false
                if bodies.count > 1 {
                    do throws(ChatError) { batched = try memberTakesBatches(gmId, conn) } catch {
                        emit(.chatError(chatError: error))
                        continue
                    }
                }
                let (sent, failure) = await deliver(bodies, over: conn, member: gmId, batched: batched)
                deliveries += sent
                if let failure { emit(.chatError(chatError: failure)) }
            }
            let ids = try storeSentItems(target, prepared, bodies: bodies, deliveries, pendingMembers: pending).compactMap { $0 }
            // A member whose connection became ready while we were sending has had its pending
            // messages sent already: it gets these now, so nothing is left waiting.
            await sendPendingIfReady(pending)
            return ids
        }
    }

    /// Sends bodies over one connection, one agent message each or packed into batches
    /// (Batch.hs `batchMessages`). Stops at the first failure and returns what went out.
    func deliver(_ bodies: [Data], over conn: String, member: Int64?, batched: Bool) async -> ([Delivery], ChatError?) {
        var out: [Delivery] = []
        if batched {
            for r in ChatMessageBody.batch(bodies) {
                // Each body is within the limit (checked when made), so every batch is too.
                guard case .success(let b) = r else { return (out, .error(errorType: .internalError(message: "large message"))) }
                do { out.append(Delivery(groupMemberId: member, agentConnId: conn, agentMsgId: try await sendToAgent(conn, b.body), itemIndices: b.messageIndices)) }
                catch { return (out, error) }
            }
        } else {
            for (i, body) in bodies.enumerated() {
                do { out.append(Delivery(groupMemberId: member, agentConnId: conn, agentMsgId: try await sendToAgent(conn, body), itemIndices: [i])) }
                catch { return (out, error) }
            }
        }
        return (out, nil)
    }

    /// Stores sent items in one transaction: a contact's items with the agent message that carried
    /// each (those never sent are left out: nil), a group's items with one delivery per member and
    /// pending messages for members still connecting. Reports the agent made before the items
    /// existed are applied.
    func storeSentItems(_ target: MessageTarget, _ prepared: [PreparedItem], bodies: [Data], _ deliveries: [Delivery],
                        pendingMembers: [Int64]) throws(ChatError) -> [Int64?] {
        let now = Self.now
        var rows = prepared.map(\.item)
        var stored = Array(repeating: true, count: rows.count)
        if case .direct(_, let conn) = target {
            stored = Array(repeating: false, count: rows.count)
            for d in deliveries {
                let early = earlyStatuses[EarlyKey(agentConnId: conn, msgId: d.agentMsgId)]
                for i in d.itemIndices {
                    rows[i].agentMsgId = d.agentMsgId
                    if let early { rows[i].statusJSON = try json(early) }
                    stored[i] = true
                }
            }
        }
        let sndNew = try json(CIStatus.sndNew)
        let ids = try store.write { db -> [Int64?] in
            if case .direct(let c, _) = target, !c.contactUsed, stored.contains(true) { try db.setContactUsed(c.contactId) }
            let ids = try rows.indices.map { i in stored[i] ? try db.insertChatItem(rows[i], at: now) : nil }
            guard case .group = target else { return ids }
            for d in deliveries {
                for i in d.itemIndices {
                    guard let itemId = ids[i], let gmId = d.groupMemberId else { continue }
                    try db.insertGroupItemDelivery(chatItemId: itemId, groupMemberId: gmId, agentConnId: d.agentConnId, agentMsgId: d.agentMsgId, status: sndNew)
                }
            }
            for gmId in pendingMembers {
                for (i, body) in bodies.enumerated() {
                    try db.insertPendingGroupMessage(groupMemberId: gmId, chatItemId: ids[i], body: body, at: now)
                }
            }
            return ids
        }
        if case .direct = target {
            rememberInserted(rows.indices.compactMap { i in ids[i].map { ($0, rows[i]) } }, at: now)
        }
        for d in deliveries {
            guard let early = earlyStatuses.removeValue(forKey: EarlyKey(agentConnId: d.agentConnId, msgId: d.agentMsgId)) else { continue }
            if case .group = target { try groupDeliveryUpdate(d.agentConnId, d.agentMsgId, early) }
        }
        return ids
    }
}

extension MessageTarget {
    var contactId: Int64? {
        if case .direct(let c, _) = self { return c.contactId }
        return nil
    }

    var groupId: Int64? {
        if case .group(let g) = self { return g.groupId }
        return nil
    }
}
