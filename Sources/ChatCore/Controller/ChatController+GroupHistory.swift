import Foundation
import GRDB
import SMPAgent

/// Group history for new members (simplex-chat Internal.hs `sendHistory`, chat versions 5-6): when
/// a host admits a member into a group that keeps history, it sends the recent messages, each in
/// an x.grp.msg.forward naming its original author and time, so the member sees them as received
/// from their authors; from version 6 the welcome message follows them.
extension ChatController {
    /// simplex-chat sends the last 100 items.
    static let groupHistoryCount = 100

    func sendHistory(_ g: GroupInfo, to m: GroupMember) async throws(ChatError) {
        guard g.fullGroupPreferences.history.enable == .on, let v = try memberVRange(m.groupMemberId),
            v.max >= ChatProtocolVersion.batchSend
        else { return }
        var events: [ChatMsgEvent] = []
        var errors: [ChatError] = []
        let rows = try store.read { db in try db.groupHistoryRows(groupId: g.groupId, groupMemberId: m.groupMemberId, count: Self.groupHistoryCount) }
        for r in rows {
            do {
                if let e = try historyEvent(g, r) { events.append(e) }
            } catch {
                errors.append(error)
            }
        }
        if !errors.isEmpty { emit(.chatErrors(chatErrors: errors)) }
        if v.max >= ChatProtocolVersion.groupHistoryIncludeWelcome, let welcome = g.groupProfile.description, !welcome.isEmpty {
            events.append(.msgNew(MsgContainer(content: .text(welcome))))
        }
        try await sendToMember(m.groupMemberId, events)
    }

    /// One history item as simplex-chat's `itemForwardEvents`: the message content (with its quote
    /// and timer) in a chat message with the author's version range and the item's shared ID,
    /// forwarded in the author's name at the item's time. Nil for items not sent: content without
    /// text, or an author blocked by an admin.
    private func historyEvent(_ g: GroupInfo, _ r: Row) throws(ChatError) -> ChatMsgEvent? {
        let content: MsgContent
        do { guard let c = try ChatJSON.decode(CIContent.self, from: r["item_content"] as String).msgContent else { return nil }; content = c } catch {
            throw .error(errorType: .internalError(message: "history item \(r["chat_item_id"] as Int64): \(error)"))
        }
        guard !content.text.isEmpty, content.tag != "report" else { return nil }
        let sent: Bool = r["item_sent"]
        let author: GroupMember
        let authorRange: VersionRange
        if sent {
            author = g.membership
            authorRange = Self.ourChatVRange
        } else {
            guard let gmId = r["group_member_id"] as Int64? else { return nil }
            author = try member(gmId)
            if author.blockedByAdmin { return nil }
            authorRange = try memberVRange(gmId) ?? ChatProtocolVersion.initialRange
        }
        guard let authorId = MemberId(base64url: author.memberId) else { return nil }
        var container = MsgContainer(content: content, ttl: r["timed_ttl"])
        if let quotedContent = r["quoted_content"] as String?, let sentAt = r["quoted_sent_at"] as Double? {
            let quotedMember = (r["quoted_member_id"] as String?).flatMap { MemberId(base64url: $0) }
            let ref = MsgRef(msgId: (r["quoted_shared_msg_id"] as String?).flatMap { SharedMsgId(base64url: $0) }, sentAt: Self.ts(sentAt),
                             sent: quotedMember == authorId, memberId: quotedMember)
            if let q = try? ChatJSON.decode(MsgContent.self, from: quotedContent) { container.quote = QuotedMsg(msgRef: ref, content: q) }
        }
        let msg = ChatMessage(chatVRange: authorRange, msgId: (r["shared_msg_id"] as String?).flatMap { SharedMsgId(base64url: $0) },
                              event: .msgNew(container))
        return .grpMsgForward(memberId: authorId, memberName: author.memberProfile.profile.displayName, msg: msg, msgTs: Self.ts(r["item_ts"]))
    }
}
