import Foundation
import GRDB
import SMPAgent

/// Messages in groups (seed 003 for `#<groupId>` chats): one chat message, with one shared ID,
/// sent separately over each connected member's connection, and one chat item for it.
extension ChatController {
    /// The chat versions we announce (`v`): up to 9, batches in direct chats. We stop before 10,
    /// business chats, which this core does not have (docs/protocol-notes.md, "Chat protocol
    /// versions, batches and compression", says what each version we claim makes us do).
    nonisolated var ourChatVRange: VersionRange { config.chatVRange }

    /// A chat message as sent: our version range, a shared ID, the event.
    func chatMessage(_ event: ChatMsgEvent, msgId: SharedMsgId? = SharedMsgId.random(),
                     maxSize: Int? = ChatProtocolLimits.maxEncodedMsgLength) throws(ChatError) -> Data {
        do { return try ChatMessage(chatVRange: ourChatVRange, msgId: msgId, event: event).encoded(maxSize: maxSize) } catch {
            throw .error(errorType: .commandError(message: "message: \(error)"))
        }
    }

    /// Stores a chat item that is not message content (group events, invitations, welcome).
    func insertItem(userId: Int64, contactId: Int64? = nil, groupId: Int64? = nil, memberGmId: Int64? = nil, sent: Bool,
                    content: CIContent, text: String, shared: String? = nil, status: CIStatus? = nil) throws(ChatError) -> Int64 {
        let contentJSON = try json(content)
        let statusJSON = try json(status ?? (sent ? .sndSent(sndProgress: .complete) : .rcvRead))
        let now = Self.now
        var item = NewChatItem(userId: userId, contactId: contactId, groupId: groupId, memberGmId: memberGmId, sent: sent, itemTs: now,
                               text: text, contentJSON: contentJSON, statusJSON: statusJSON, sharedMsgId: shared)
        if groupId != nil, !sent { item.forwardedByGmId = Self.forwardingHost }
        return try store.write { db in try db.insertChatItem(item, at: now) }
    }

    func groupItem(_ groupId: Int64, _ itemId: Int64) throws(ChatError) -> AChatItem {
        AChatItem(chatInfo: .group(groupInfo: try groupInfo(groupId), groupChatScope: nil), chatItem: try chatItem(itemId))
    }

    /// The members a group message goes to: current members with a ready connection.
    func groupRecipients(_ groupId: Int64, excluding: Set<Int64> = []) throws(ChatError) -> [(gmId: Int64, agentConnId: String)] {
        let rows = try store.read { db in try db.groupRecipientConnections(groupId: groupId, currentStatuses: Self.currentStatuses) }
        return rows.compactMap { r in excluding.contains(r.0) ? nil : (r.0, r.1) }
    }

    /// Sends one event to every recipient; a member whose connection fails is skipped (its
    /// error is reported as an event), the others still get it. Returns what was sent where.
    @discardableResult
    func sendGroupEvent(_ groupId: Int64, _ event: ChatMsgEvent, excluding: Set<Int64> = [], msgId: SharedMsgId = SharedMsgId.random(),
                        itemId: Int64? = nil) async -> [(gmId: Int64, agentConnId: String, msgId: Int64)] {
        if case .info = event {} else { await sendProfileUpdateIfNeeded(groupId) }
        guard let body = try? chatMessage(event, msgId: msgId), let recipients = try? groupRecipients(groupId, excluding: excluding) else { return [] }
        storePending(groupId, event, body, itemId: itemId)
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

    /// Chat version 7 (simplex-chat `sendGroupMessages`): a group that has not had our changed
    /// profile yet gets it (x.info, without contact link and preferences) before our next message,
    /// sent to the members whose connection is ready and of version 7 or later. Never for an
    /// incognito membership. A failure is reported and does not stop the message.
    func sendProfileUpdateIfNeeded(_ groupId: Int64) async {
        guard (try? store.read({ db in try db.groupNeedsUserProfile(groupId: groupId) })) == true, let g = try? groupInfo(groupId) else { return }
        let body: Data
        do { body = try chatMessage(.info(membershipProfile(g))) } catch { return emit(.chatError(chatError: error)) }
        for (_, conn) in (try? groupRecipients(groupId)) ?? [] {
            guard let version = try? negotiated(conn).version, version >= ChatProtocolVersion.memberProfileUpdate else { continue }
            do { dropStatus(conn, try await sendToAgent(conn, body)) } catch { emit(.chatError(chatError: error)) }
        }
        do { try store.write { db in try db.markUserProfileSentToGroup(groupId: groupId, at: Self.now) } } catch { emit(.chatError(chatError: error)) }
    }

    /// Members still connecting get a message when their connection is ready (simplex-chat's
    /// pending group messages), so nothing sent meanwhile is lost for them.
    func storePending(_ groupId: Int64, _ event: ChatMsgEvent, _ body: Data, itemId: Int64?) {
        for gmId in pendingMembers(groupId, forwardable: event.isForwardedGroupMsg) {
            try? store.write { db in try db.insertPendingGroupMessage(groupMemberId: gmId, chatItemId: itemId, body: body, at: Self.now) }
        }
    }

    /// The members without a ready connection who should get a group message as a pending one:
    /// all of them, except, for a message a host forwards (chat version 4+, simplex-chat
    /// `memberSendAction`), those a host will forward it to.
    func pendingMembers(_ groupId: Int64, forwardable: Bool) -> [Int64] {
        let pending = (try? store.read { db in try db.membersWithoutReadyConnection(groupId: groupId, currentStatuses: Self.currentStatuses) }) ?? []
        let membershipInviter = pending.isEmpty ? nil : (try? groupInfo(groupId))?.membership.invitedByGroupMemberId
        return pending.compactMap { (gmId, categoryText, invitedBy) in
            let category = GroupMemberCategory(rawValue: categoryText)
            let inviter: Int64? = category == .pre ? membershipInviter : category == .post ? invitedBy : nil
            return forwardable && willBeForwarded(to: gmId, inviter: inviter) ? nil : gmId
        }
    }

    /// Sends their pending messages to those of these members whose connection is ready now.
    func sendPendingIfReady(_ members: [Int64]) async {
        for gmId in members {
            guard let (conn, _) = (try? store.read({ db in try db.readyMemberConnection(groupMemberId: gmId) })) ?? nil else { continue }
            do { try await sendPendingGroupMessages(gmId, agentConnId: conn) } catch { emit(.chatError(chatError: error)) }
        }
    }

    /// What was sent to the group while this member's connection was not ready, in order.
    func sendPendingGroupMessages(_ groupMemberId: Int64, agentConnId: String) async throws(ChatError) {
        let rows = try store.read { db in try db.pendingGroupMessageRows(groupMemberId: groupMemberId) }
        guard !rows.isEmpty else { return }
        // Batched as simplex-chat's `sendPendingGroupMessages` when the member takes batches.
        let bodies: [Data] = rows.map { $0["body"] }
        var sends: [(body: Data, rows: [Int])] = []
        if try memberTakesBatches(groupMemberId, agentConnId) {
            for r in ChatMessageBody.batch(bodies) {
                if case .success(let b) = r { sends.append((b.body, b.messageIndices)) }
            }
            // A body too large to batch (none should be: each was checked when made) goes alone.
            let covered = Set(sends.flatMap(\.rows))
            for i in bodies.indices where !covered.contains(i) { sends.append((bodies[i], [i])) }
            sends.sort { $0.rows[0] < $1.rows[0] }
        } else {
            sends = bodies.indices.map { (bodies[$0], [$0]) }
        }
        let sndNew = try json(CIStatus.sndNew)
        for send in sends {
            let id = try await sendToAgent(agentConnId, send.body)
            let group = send.rows.map { rows[$0] }
            try store.write { db in
                for r in group {
                    if let itemId = r["chat_item_id"] as Int64? {
                        try db.insertGroupItemDelivery(chatItemId: itemId, groupMemberId: groupMemberId, agentConnId: agentConnId, agentMsgId: id, status: sndNew)
                    }
                    try db.deletePendingGroupMessage(r["pending_group_message_id"])
                }
            }
            if group.allSatisfy({ $0["chat_item_id"] as Int64? == nil }) { dropStatus(agentConnId, id) }
        }
    }

    /// One event to one member (introductions, handshake replies).
    func sendToMember(_ groupMemberId: Int64, _ event: ChatMsgEvent) async throws(ChatError) {
        try await sendToMember(groupMemberId, [event])
    }

    /// Events that make no chat item to one member, batched when the member's version allows
    /// (simplex-chat `sendGroupMemberMessages`): JSON arrays from chat version 5, except to an
    /// admin below version 9, which would have to forward them one by one (`memberSendAction`).
    func sendToMember(_ groupMemberId: Int64, _ events: [ChatMsgEvent]) async throws(ChatError) {
        guard !events.isEmpty else { return }
        guard let (conn, roleText) = try store.read({ db in try db.readyMemberConnection(groupMemberId: groupMemberId) }) else {
            throw .error(errorType: .groupInternal(message: "member \(groupMemberId) has no ready connection"))
        }
        let role = GroupMemberRole(rawValue: roleText) ?? .member
        let version = try negotiated(conn).version
        let batched = version >= ChatProtocolVersion.batchSend && (role < .admin || version >= ChatProtocolVersion.batchSend2)
        for id in try await sendEvents(conn, events, batched: batched) { dropStatus(conn, id) }
    }

    /// Sends events over one connection, as one agent message per event or packed into batches
    /// (Batch.hs `batchMessages`, at most `maxEncodedMsgLength` each). Returns the agent message
    /// ids. An event too large to send is reported after the others are sent.
    func sendEvents(_ agentConnId: String, _ events: [ChatMsgEvent], batched: Bool) async throws(ChatError) -> [Int64] {
        var bodies: [Data] = []
        for e in events { bodies.append(try chatMessage(e, maxSize: batched ? nil : ChatProtocolLimits.maxEncodedMsgLength)) }
        guard batched, bodies.count > 1 else {
            var ids: [Int64] = []
            for b in bodies { ids.append(try await sendToAgent(agentConnId, b)) }
            return ids
        }
        var ids: [Int64] = []
        var failure: ChatError?
        for r in ChatMessageBody.batch(bodies) {
            switch r {
            case .success(let b): ids.append(try await sendToAgent(agentConnId, b.body))
            case .failure(let e): failure = failure ?? .error(errorType: .internalError(message: "large message: \(e)"))
            }
        }
        if let failure { throw failure }
        return ids
    }

    /// A message that makes no chat item: its delivery reports are not needed.
    func dropStatus(_ agentConnId: String, _ msgId: Int64) {
        earlyStatuses.removeValue(forKey: EarlyKey(agentConnId: agentConnId, msgId: msgId))
    }

    /// Whether a member is sent batches (simplex-chat `memberSendAction`, `batchSendVersion`): its
    /// connection's version is 5+, and 9+ for an admin, who would otherwise forward them one by one.
    func memberTakesBatches(_ groupMemberId: Int64, _ agentConnId: String) throws(ChatError) -> Bool {
        let version = try negotiated(agentConnId).version
        let role = try store.read { db in try db.groupMemberRole(groupMemberId: groupMemberId) }.flatMap(GroupMemberRole.init(rawValue:)) ?? .member
        return version >= ChatProtocolVersion.batchSend && (role < .admin || version >= ChatProtocolVersion.batchSend2)
    }

    /// A delivery report for one member's copy of a sent group item; the item's own status is the
    /// least advanced of its copies (partial until every member got it). The copy's status and
    /// the item's are written in one transaction.
    /// Returns false when the message is not a tracked group item copy.
    @discardableResult
    func groupDeliveryUpdate(_ agentConnId: String, _ msgId: Int64, _ status: CIStatus) throws(ChatError) -> Bool {
        let statusJSON = try json(status)
        // Looked up with a read: most reports are for direct messages, which cost no write here.
        guard try store.read({ db in try db.hasGroupItemDelivery(agentConnId: agentConnId, agentMsgId: msgId) }) else { return false }
        // Several items when they went to this member in one batch.
        let (tracked, changed) = try store.write({ db -> (Bool, [Int64]) in
            let ids = try db.groupItemIdsDelivered(agentConnId: agentConnId, agentMsgId: msgId)
            guard !ids.isEmpty else { return (false, []) }
            // A late SENT must not overwrite "delivered".
            try db.setGroupDeliveryStatus(agentConnId: agentConnId, agentMsgId: msgId, statusJSON, keepDelivered: Self.isSent(status))
            var changed: [Int64] = []
            for itemId in ids {
                let copies = try db.groupDeliveryStatuses(chatItemId: itemId).compactMap { try? ChatJSON.decode(CIStatus.self, from: $0) }
                guard let aggregate = Self.groupItemStatus(copies, reported: status) else { continue }
                try db.setItemStatus(itemId, Self.jsonText(aggregate), at: Self.now)
                changed.append(itemId)
            }
            return (true, changed)
        })
        for itemId in changed {
            guard let groupId = try store.read({ db in try db.itemGroupId(itemId) }),
                let userId = try store.read({ db in try db.groupUserId(groupId) })
            else { continue }
            emit(.chatItemsStatusesUpdated(user: try userById(userId), chatItems: [try groupItem(groupId, itemId)]))
        }
        return tracked
    }

    /// A sent group item's status from its copies' statuses: the least advanced, partial until
    /// all copies got there; an error when no copy went anywhere. Nil: nothing to change.
    static func groupItemStatus(_ copies: [CIStatus], reported status: CIStatus) -> CIStatus? {
        let rcvd = copies.filter { if case .sndRcvd = $0 { true } else { false } }.count
        let sentOrRcvd = copies.filter {
            switch $0 {
            case .sndSent, .sndRcvd: true
            default: false
            }
        }.count
        if rcvd > 0 { return .sndRcvd(msgRcptStatus: .ok, sndProgress: rcvd == copies.count ? .complete : .partial) }
        if sentOrRcvd > 0 { return .sndSent(sndProgress: sentOrRcvd == copies.count ? .complete : .partial) }
        if case .sndError = status { return status }
        return nil
    }

    /// A sent or received item of a group chat with what actions need.
    func groupItemRow(_ ref: ChatRef, _ itemId: Int64) throws(ChatError) -> (User, GroupInfo, Row) {
        let (user, g) = try groupContext(ref.chatId)
        guard let r = try store.read({ db in try db.groupItemRow(itemId, groupId: ref.chatId) }) else { throw .errorStore(storeError: .chatItemNotFound(itemId: itemId)) }
        return (user, g, r)
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
                guard let gm = r["group_member_id"] as Int64?, let author = try store.read({ db in try self.groupMember(db, gm) }),
                    author.memberRole <= g.membership.memberRole else { throw .error(errorType: .invalidChatItemDelete) }
                authorId = author.memberId
            }
            guard let mid = MemberId(base64url: authorId) else { throw .error(errorType: .invalidChatItemDelete) }
            let before = try groupItem(groupId, itemId)
            for d in await sendGroupEvent(groupId, .msgDel(msgId: shared, memberId: mid)) { dropStatus(d.agentConnId, d.msgId) }
            try markDeleted(itemId, .moderated(deletedTs: Self.ts(Self.now), byGroupMember: g.membership))
            deletions.append(ChatItemDeletion(deletedChatItem: before, toChatItem: try groupItem(groupId, itemId)))
            try archiveReportsAbout(user: user, g, sharedMsgId: shared.base64url, by: g.membership, byUser: true)
        }
        return .chatItemsDeleted(user: user, chatItemDeletions: deletions, byUser: true, timed: false)
    }

    /// Marks every message of a removed member as moderated by `by` (x.grp.mem.del with messages).
    func moderateMemberItems(groupId: Int64, authorGmId: Int64, by: GroupMember) throws(ChatError) {
        let mark = try json(CIDeleted.moderated(deletedTs: Self.ts(Self.now), byGroupMember: by))
        try store.write { db in
            try db.markMemberItemsDeleted(groupId: groupId, groupMemberId: authorGmId, deletedJSON: mark, at: Self.now)
        }
    }
}

/// Chat versions of members, and a host's forwarding of messages between members who are not yet
/// connected to each other (chat version 4+, simplex-chat `forwardMsgs`).
extension ChatController {
    /// The chat version range a member's connection to us announced (`v` of its messages), nil
    /// while unknown. This is what introductions tell other members (MemberInfo `v`).
    func memberVRange(_ groupMemberId: Int64) throws(ChatError) -> VersionRange? {
        try store.read { db in try db.memberChatVRange(groupMemberId: groupMemberId) }.flatMap {
            VersionRange(min: UInt16(clamping: $0.min), max: UInt16(clamping: $0.max))
        }
    }

    /// `v` for a member in x.grp.mem.new / x.grp.mem.intro / x.grp.mem.fwd: its own range when
    /// known, else version 1 (what a message without `v` means), never ours.
    func memberVRangeText(_ groupMemberId: Int64) -> String {
        ((try? memberVRange(groupMemberId)) ?? nil ?? ChatProtocolVersion.initialRange).description
    }

    /// Whether a host forwards our messages to a member we are not connected to yet: the member
    /// and the member who introduced us both support chat version 4 (simplex-chat
    /// `forwardSupportedOrPending`). A version not known yet counts as not supporting it.
    func willBeForwarded(to groupMemberId: Int64, inviter: Int64?) -> Bool {
        guard let inviter,
            let m = (try? memberVRange(groupMemberId)) ?? nil, m.max >= ChatProtocolVersion.groupForward,
            let i = (try? memberVRange(inviter)) ?? nil, i.max >= ChatProtocolVersion.groupForward
        else { return false }
        return true
    }

    /// Host side of chat version 4: messages from `sender` that other members would miss until
    /// they connect to it go to those members wrapped in x.grp.msg.forward. Only admins forward,
    /// never for a member blocked by an admin, and only between members whose versions both
    /// support forwarding; the members are those in an introduction with the sender that has not
    /// been confirmed connected (x.grp.mem.con).
    func forwardToUnconnected(_ g: GroupInfo, sender: GroupMember, _ messages: [ChatMessage], brokerTs: Double) async {
        guard g.membership.memberRole >= .admin, !sender.blockedByAdmin, let senderId = MemberId(base64url: sender.memberId) else { return }
        let forwarded = messages.filter { $0.event.isForwardedGroupMsg }
        guard !forwarded.isEmpty,
            let senderRange = try? memberVRange(sender.groupMemberId), senderRange.max >= ChatProtocolVersion.groupForward
        else { return }
        let targets = (try? store.read { db in try db.unconfirmedIntroductionPeers(groupMemberId: sender.groupMemberId) }) ?? []
        let ts = Self.ts(brokerTs)
        // Each with the support chat it belongs to (chat version 15), if any: those go to its participants only.
        let events = forwarded.compactMap { msg -> (event: ChatMsgEvent, scopeGmId: Int64?)? in
            guard let scope = supportForwardScope(g, sender: sender, msg) else { return nil }
            return (ChatMsgEvent.grpMsgForward(memberId: senderId, memberName: sender.memberProfile.profile.displayName, msg: msg, msgTs: ts), scope)
        }
        for gmId in targets where gmId != sender.groupMemberId {
            guard let m = try? store.read({ db in try self.groupMember(db, gmId) }), m.memberStatus.isCurrent,
                let range = try? memberVRange(gmId), range.max >= ChatProtocolVersion.groupForward
            else { continue }
            let visible = events.filter { $0.scopeGmId == nil || $0.scopeGmId == gmId || m.memberRole >= .moderator }.map(\.event)
            // Reports go to moderators only (chat version 12).
            let toSend = m.memberRole >= .moderator ? visible : visible.filter { !$0.isForwardedReport }
            if toSend.isEmpty { continue }
            do { try await sendToMember(gmId, toSend) } catch { emit(.chatError(chatError: error)) }
        }
    }
}
