import Foundation
import GRDB

/// `/_read chat items <chatRef> <ids>` (simplex-chat APIChatItemsRead): the app marks the items it
/// showed. In a member's support chat the chat's counters and the group's count of members needing
/// attention go down by what was read (`updateGroupScopeUnreadStats`).
extension ChatController {
    func readChatItems(_ ref: ChatRef, _ itemIds: [Int64]) throws(ChatError) -> ChatResponse {
        let read = try json(CIStatus.rcvRead), new = try json(CIStatus.rcvNew)
        switch ref.chatType {
        case .direct:
            guard let userId = try store.read({ db in try db.contactUserId(ref.chatId) }) else {
                throw .errorStore(storeError: .contactNotFound(contactId: ref.chatId))
            }
            try store.write { db in try db.readContactItems(contactId: ref.chatId, itemIds, from: new, to: read) }
            guard let ct = try store.read({ db in try self.contact(db, ref.chatId) }) else {
                throw .errorStore(storeError: .contactNotFound(contactId: ref.chatId))
            }
            return .itemsReadForChat(user: try userById(userId), chatInfo: .direct(contact: ct))
        case .group:
            let (user, g) = try groupContext(ref.chatId)
            var scopeGmId: Int64?
            if let scope = ref.chatScope { scopeGmId = try supportScopeGmId(g, scope) }
            // Our own support chat counts no member's messages as waiting for an answer.
            let scopeMember = scopeGmId == g.membership.groupMemberId ? nil : scopeGmId
            let gmId = scopeGmId
            try store.write { db in
                let readItems = try db.readGroupItems(groupId: g.groupId, itemIds, from: new, to: read)
                guard let gmId else { return }
                let unanswered = scopeMember.map { m in readItems.filter { $0.senderGmId == m }.count } ?? 0
                try db.lowerSupportChatStats(gmId, unread: readItems.count, attention: unanswered,
                                             mentions: readItems.filter { $0.mention }.count, at: Self.now)
            }
            return .itemsReadForChat(user: user, chatInfo: .group(groupInfo: try groupInfo(g.groupId), groupChatScope: nil))
        default:
            throw .error(errorType: .commandError(message: "not supported"))
        }
    }
}
