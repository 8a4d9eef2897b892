import Foundation
import GRDB
import SMPAgent

/// Content reports (chat version 12, simplex-chat `APIReportMessage`): a member reports a group
/// message to the group's moderators; nobody else receives the report.
extension ChatController {
    /// `/_report #<groupId> <chatItemId> reason=<reason>[ <text>]`: an x.msg.new with `report`
    /// content quoting the reported item, sent only to current moderators, admins and owners whose
    /// chat version is 12 or later; refused when there is none.
    func reportMessage(groupId: Int64, itemId: Int64, reason: ReportReason, text: String) async throws(ChatError) -> ChatResponse {
        let (user, target) = try messageTarget(ChatRef(.group, groupId), requiredRole: .author)
        guard case .group(let g) = target else { throw .error(errorType: .commandError(message: "not a group")) }
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
}

extension ChatMsgEvent {
    /// A forwarded x.msg.new with a report: hosts pass it on to moderators only.
    var isForwardedReport: Bool {
        if case .grpMsgForward(_, _, let msg, _) = self, case .msgNew(let c) = msg.event, case .report = c.content { return true }
        return false
    }
}
