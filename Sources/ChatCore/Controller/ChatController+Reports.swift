import Foundation
import GRDB
import SMPAgent

/// Content reports (chat version 12, simplex-chat `APIReportMessage`): a member reports a group
/// message to the group's moderators; nobody else receives the report.
extension ChatController {
    /// `/_report #<groupId> <chatItemId> reason=<reason>[ <text>]`: an x.msg.new with `report`
    /// content quoting the reported item, sent only to current moderators, admins and owners whose
    /// chat version is 12 or later; refused when there is none.
    ///
    /// From chat version 15 (simplex-chat 7.0 `APIReportMessage` with `GCSMemberSupport Nothing`) the
    /// report goes in our own support chat: scope `member` with our member ID, to the moderators
    /// whose version is 15 or later, and our copy is an item of that support chat.
    func reportMessage(groupId: Int64, itemId: Int64, reason: ReportReason, text: String) async throws(ChatError) -> ChatResponse {
        let (user, target) = try messageTarget(ChatRef(.group, groupId), requiredRole: .author)
        guard case .group(let g) = target else { throw .error(errorType: .commandError(message: "not a group")) }
        if ourChatVRange.max >= ChatProtocolVersion.groupKnocking {
            return try await reportInSupportChat(user: user, target, g, itemId: itemId, reason: reason, text: text)
        }
        let members = try store.read { db in try self.groupMembers(db, g.groupId) }
        var moderators: Set<Int64> = []
        for m in members where m.memberRole >= .moderator && m.memberStatus.isCurrent {
            let range = (try? memberVRange(m.groupMemberId)) ?? nil
            if let range, range.max >= ChatProtocolVersion.contentReports { moderators.insert(m.groupMemberId) }
        }
        guard !moderators.isEmpty else {
            throw .error(errorType: .commandError(message: "no moderators support receiving reports"))
        }
        let prepared = try prepareItem(user: user, target, content: .report(text: text, reason: reason), quotedItemId: itemId,
                                       ttl: nil, live: false, forwarded: false)
        let ids = try await sendPrepared(target, [prepared], only: moderators)
        var items: [AChatItem] = []
        for id in ids { items.append(try targetItem(target, id)) }
        return .newChatItems(user: user, chatItems: items)
    }

    private func reportInSupportChat(user: User, _ target: MessageTarget, _ g: GroupInfo, itemId: Int64, reason: ReportReason,
                                     text: String) async throws(ChatError) -> ChatResponse {
        guard let ownId = MemberId(base64url: g.membership.memberId) else { throw .error(errorType: .groupInternal(message: "bad member ID")) }
        let members = try store.read { db in try self.groupMembers(db, g.groupId) }
        var moderators: Set<Int64> = []
        for m in members where m.memberRole >= .moderator && m.memberStatus.isCurrent {
            if let range = (try? memberVRange(m.groupMemberId)) ?? nil, range.max >= ChatProtocolVersion.groupKnocking { moderators.insert(m.groupMemberId) }
        }
        var prepared = try prepareItem(user: user, target, content: .report(text: text, reason: reason), quotedItemId: itemId,
                                       ttl: nil, live: false, forwarded: false)
        prepared.container.scope = .member(memberId: ownId)
        prepared.item.scopeMemberGmId = g.membership.groupMemberId
        let ids = try await sendPrepared(target, [prepared], only: moderators)
        var items: [AChatItem] = []
        for id in ids { items.append(try supportItem(g, id, scopeGmId: g.membership.groupMemberId)) }
        return .newChatItems(user: user, chatItems: items)
    }

    /// `/report #<group>[ @<member>] <reason> <text>` (simplex-chat ReportMessage): the latest
    /// message starting with the text (of that member, or ours when the name is the user's),
    /// reported with no comment.
    func reportMessage(groupName: String, member: String?, reason: ReportReason, text: String) async throws(ChatError) -> ChatResponse {
        let user = try activeUser()
        guard let groupId = try store.read({ db in try db.groupId(userId: user.userId, named: groupName) }) else {
            throw .errorStore(storeError: .groupNotFoundByName(groupName: groupName))
        }
        let ours = member == user.localDisplayName
        guard let itemId = try store.read({ db in
            try db.groupItemId(groupId: groupId, textPrefix: text, member: ours ? nil : member, ours: ours)
        }) else { throw .errorStore(storeError: .chatItemNotFoundByText(text: text)) }
        return try await reportMessage(groupId: groupId, itemId: itemId, reason: reason, text: "")
    }

    /// `/_archive reports #<groupId>` (simplex-chat APIArchiveReceivedReports): every received
    /// report of the group is marked deleted by us, as a moderator who dealt with it; nothing is sent.
    func archiveReceivedReports(groupId: Int64) throws(ChatError) -> ChatResponse {
        let (user, g) = try groupContext(groupId)
        let mark = try json(CIDeleted.moderated(deletedTs: Self.ts(Self.now), byGroupMember: g.membership))
        let ids = try store.write { db in try db.markReceivedReportsDeleted(groupId: groupId, markJSON: mark, at: Self.now) }
        return .groupChatItemsDeleted(user: user, groupInfo: g, chatItemIDs: ids, byUser: true, member_: g.membership)
    }

    /// `/_delete reports #<groupId> <ids> <mode>` (simplex-chat APIDeleteReceivedReports): only
    /// received reports. internal removes them, internalMark marks them deleted; broadcast sends
    /// x.msg.del naming the reporter to the current moderators (who hold the only other copies)
    /// and marks ours moderated by us (removed when full deletion is on in the group).
    func deleteReceivedReports(groupId: Int64, _ itemIds: [Int64], mode: CIDeleteMode) async throws(ChatError) -> ChatResponse {
        let (user, g) = try groupContext(groupId)
        guard !itemIds.isEmpty else { throw .error(errorType: .commandError(message: "no items")) }
        var rows: [(Int64, Row)] = []
        for itemId in itemIds {
            let (_, _, r) = try groupItemRow(.group(groupId), itemId)
            rows.append((itemId, r))
        }
        let allReports = try store.read { db in try itemIds.allSatisfy { id in try db.isReceivedReport(id) } }
        guard allReports else { throw .error(errorType: .commandError(message: "some items are not received reports")) }
        var deletions: [ChatItemDeletion] = []
        let now = Self.ts(Self.now)
        var moderators: [Int64] = []
        if mode == .broadcast {
            try assertUserRole(g, .moderator)
            let members = try store.read { db in try self.groupMembers(db, g.groupId) }
            let current = Set(members.filter { $0.memberRole >= .moderator && $0.memberStatus.isCurrent }.map(\.groupMemberId))
            moderators = try groupRecipients(groupId).map(\.gmId).filter(current.contains)
        }
        let fullDelete = g.fullGroupPreferences.fullDelete.enable == .on
        for (itemId, r) in rows {
            let before = try groupItem(groupId, itemId)
            switch mode {
            case .internal:
                cancelItemFile(itemId, deleteLocal: true)
                try store.write { db in try db.deleteChatItem(itemId) }
                deletions.append(ChatItemDeletion(deletedChatItem: before, toChatItem: nil))
            case .internalMark:
                try markDeleted(itemId, .deleted(deletedTs: now, chatType: .group))
                deletions.append(ChatItemDeletion(deletedChatItem: before, toChatItem: try groupItem(groupId, itemId)))
            case .broadcast:
                guard let shared = (r["shared_msg_id"] as String?).flatMap({ SharedMsgId(base64url: $0) }),
                    let gm = r["group_member_id"] as Int64?, let reporter = try store.read({ db in try self.groupMember(db, gm) }),
                    let reporterId = MemberId(base64url: reporter.memberId)
                else { throw .error(errorType: .invalidChatItemDelete) }
                for m in moderators {
                    do { try await sendToMember(m, .msgDel(msgId: shared, memberId: reporterId)) } catch { emit(.chatError(chatError: error)) }
                }
                if fullDelete {
                    try store.write { db in try db.deleteChatItem(itemId) }
                    deletions.append(ChatItemDeletion(deletedChatItem: before, toChatItem: nil))
                } else {
                    try markDeleted(itemId, .moderated(deletedTs: now, byGroupMember: g.membership))
                    deletions.append(ChatItemDeletion(deletedChatItem: before, toChatItem: try groupItem(groupId, itemId)))
                }
            }
        }
        return .chatItemsDeleted(user: user, chatItemDeletions: deletions, byUser: true, timed: false)
    }

    /// A report received in a support chat (chat version 15): only a moderator keeps it, with its quote.
    func reportInSupportChatReceived(user: User, _ g: GroupInfo, sender: GroupMember, meta: MsgMeta, itemTs: Double, shared: String?,
                                     _ container: MsgContainer, scopeGmId: Int64) throws(ChatError) -> [UInt8]? {
        guard g.membership.memberRole >= .moderator else {
            reportMessageError(g, "x.msg.new: a report to a member who is not a moderator")
            return nil
        }
        let attention = try supportAttention(g, scopeGmId: scopeGmId, sender: sender, itemTs: itemTs)
        if let itemId = try storeReceivedItem(user: user, .member(g, sender), meta: meta, itemTs: itemTs, shared: shared, container,
                                              support: (scopeGmId, attention)) {
            emit(.newChatItems(user: user, chatItems: [try supportItem(g, itemId, scopeGmId: scopeGmId)]))
        }
        return nil
    }

    /// A moderated message takes its reports with it (simplex-chat `markMessageReportsDeleted`):
    /// the reports quoting it are marked deleted by the moderator, announced as
    /// `groupChatItemsDeleted`.
    func archiveReportsAbout(user: User, _ g: GroupInfo, sharedMsgId: String, by moderator: GroupMember, byUser: Bool) throws(ChatError) {
        let mark = try json(CIDeleted.moderated(deletedTs: Self.ts(Self.now), byGroupMember: moderator))
        let ids = try store.write { db in try db.markReportsAbout(groupId: g.groupId, sharedMsgId: sharedMsgId, markJSON: mark, at: Self.now) }
        guard !ids.isEmpty else { return }
        emit(.groupChatItemsDeleted(user: user, groupInfo: g, chatItemIDs: ids, byUser: byUser, member_: moderator))
    }
}

extension ChatMsgEvent {
    /// A forwarded x.msg.new with a report: hosts pass it on to moderators only.
    var isForwardedReport: Bool {
        if case .grpMsgForward(_, _, let msg, _) = self, case .msgNew(let c) = msg.event, case .report = c.content { return true }
        return false
    }
}
