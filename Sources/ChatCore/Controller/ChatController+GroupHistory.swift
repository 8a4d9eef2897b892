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
                events += try historyEvents(g, r)
            } catch {
                errors.append(error)
            }
        }
        if !errors.isEmpty { emit(.chatErrors(chatErrors: errors)) }
        // A joiner that named the welcome it shows from the link's data does not get it again
        // (simplex-chat `sendHistory` with the member's welcome ID).
        let shownFromLink = try store.read { db in try db.memberWelcomeId(m.groupMemberId) } != nil
        if v.max >= ChatProtocolVersion.groupHistoryIncludeWelcome, !shownFromLink, let welcome = g.groupProfile.description, !welcome.isEmpty {
            events.append(.msgNew(MsgContainer(content: .text(welcome))))
        }
        try await sendToMember(m.groupMemberId, events)
    }

    /// simplex-chat `rcvFilesTTL`: older files are gone from the XFTP servers, so not offered.
    static let historyFilesTTL: Double = 2 * 86400

    /// One history item as simplex-chat's `itemForwardEvents`: the message content (with its quote,
    /// timer and file) in a chat message with the author's version range and the item's shared ID,
    /// then the file's description in x.msg.file.descr parts, each forwarded in the author's name at
    /// the item's time. Nothing for content without text or file, or an author blocked by an admin.
    private func historyEvents(_ g: GroupInfo, _ r: Row) throws(ChatError) -> [ChatMsgEvent] {
        let content: MsgContent
        do { guard let c = try ChatJSON.decode(CIContent.self, from: r["item_content"] as String).msgContent else { return [] }; content = c } catch {
            throw .error(errorType: .internalError(message: "history item \(r["chat_item_id"] as Int64): \(error)"))
        }
        guard content.tag != "report" else { return [] }
        let sharedMsgId = (r["shared_msg_id"] as String?).flatMap { SharedMsgId(base64url: $0) }
        // `invCompleteDescr`: a file not cancelled, not expired, whose description is complete.
        var file: (FileInvitation, String)?
        if let fileId = r["file_id"] as Int64?, !(r["file_cancelled"] as Bool? ?? false), sharedMsgId != nil,
            (r["item_ts"] as Double) >= Self.now - Self.historyFilesTTL,
            let text = try store.read({ db in try db.historyFileDescription(fileId: fileId, sent: r["file_sent"]) }) {
            let inv = FileInvitation(fileName: r["file_name"], fileSize: r["file_size"],
                                     fileDescr: FileDescr(fileDescrText: "", fileDescrPartNo: 0, fileDescrComplete: false))
            file = (inv, text)
        }
        guard file != nil || !content.text.isEmpty else { return [] }
        let sent: Bool = r["item_sent"]
        let author: GroupMember
        let authorRange: VersionRange
        if sent {
            author = g.membership
            authorRange = ourChatVRange
        } else {
            guard let gmId = r["group_member_id"] as Int64? else { return [] }
            author = try member(gmId)
            if author.blockedByAdmin { return [] }
            authorRange = try memberVRange(gmId) ?? ChatProtocolVersion.initialRange
        }
        guard let authorId = MemberId(base64url: author.memberId) else { return [] }
        var container = MsgContainer(content: content, file: file?.0, ttl: r["timed_ttl"])
        // The item's mentions go with it (issue 13).
        for (name, memberId) in try store.read({ db in try db.itemMentions(r["chat_item_id"]) }) {
            if let id = MemberId(base64url: memberId) { container.mentions[name] = MsgMention(memberId: id) }
        }
        if let quotedContent = r["quoted_content"] as String?, let sentAt = r["quoted_sent_at"] as Double? {
            let quotedMember = (r["quoted_member_id"] as String?).flatMap { MemberId(base64url: $0) }
            let ref = MsgRef(msgId: (r["quoted_shared_msg_id"] as String?).flatMap { SharedMsgId(base64url: $0) }, sentAt: Self.ts(sentAt),
                             sent: quotedMember == authorId, memberId: quotedMember)
            if let q = try? ChatJSON.decode(MsgContent.self, from: quotedContent) { container.quote = QuotedMsg(msgRef: ref, content: q) }
        }
        var messages = [ChatMessage(chatVRange: authorRange, msgId: sharedMsgId, event: .msgNew(container))]
        if let (_, text) = file, let sharedMsgId {
            messages += Self.splitFileDescr(text).map { ChatMessage(chatVRange: authorRange, event: .msgFileDescr(msgId: sharedMsgId, fileDescr: $0)) }
        }
        let ts = Self.ts(r["item_ts"])
        return messages.map { .grpMsgForward(memberId: authorId, memberName: author.memberProfile.profile.displayName, msg: $0, msgTs: ts) }
    }
}
