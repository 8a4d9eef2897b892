import Foundation
import GRDB
import SMPAgent

/// Where a message goes: a contact's one connection, or every member of a group. Sending, edits,
/// deletions, reactions and forwards are written once over this value (simplex-chat's
/// `SendRef`/`ChatDirection`), instead of a pair of functions per feature.
enum MessageTarget {
    case direct(Contact, agentConnId: String)
    case group(GroupInfo)

    var chatType: ChatType {
        switch self {
        case .direct: .direct
        case .group: .group
        }
    }

    var chatId: Int64 {
        switch self {
        case .direct(let c, _): c.contactId
        case .group(let g): g.groupId
        }
    }

    var chatRef: ChatRef { ChatRef(chatType, chatId) }

    var chatInfo: ChatInfo {
        switch self {
        case .direct(let c, _): .direct(contact: c)
        case .group(let g): .group(groupInfo: g, groupChatScope: nil)
        }
    }

    /// The chat direction of what we send (reactions name it).
    var sndDirection: CIDirection {
        switch self {
        case .direct: .directSnd
        case .group: .groupSnd
        }
    }
}

/// One sent chat item before it goes out: what the message says, and its row (without the
/// agent message id). Features that add to a message (files) change `container` and `item`
/// between `prepareItem` and `sendPrepared`; the wire body is made from `container` there.
struct PreparedItem {
    var container: MsgContainer
    var sharedMsgId: SharedMsgId
    var item: NewChatItem
}

/// Which agent message carried which prepared items to which recipient.
struct Delivery {
    /// The member for a group, nil for a contact.
    var groupMemberId: Int64?
    var agentConnId: String
    var agentMsgId: Int64
    var itemIndices: [Int]
}

extension ChatController {
    /// The target of a chat reference: a contact with a ready connection, or a group where our
    /// role is at least `requiredRole` (nil: any, for what stays local). Member support scopes
    /// are not built.
    func messageTarget(_ ref: ChatRef, requiredRole: GroupMemberRole?) throws(ChatError) -> (User, MessageTarget) {
        switch ref.chatType {
        case .direct:
            let (user, contact, conn) = try contactConnection(ref.chatId)
            return (user, .direct(contact, agentConnId: conn))
        case .group:
            guard ref.chatScope == nil else { throw .error(errorType: .commandError(message: "member support chats are not supported")) }
            let (user, g) = try groupContext(ref.chatId)
            if let requiredRole { try assertUserRole(g, requiredRole) }
            return (user, .group(g))
        default:
            throw .error(errorType: .commandError(message: "only direct and group chats are supported"))
        }
    }

    /// An item of the target's chat, as actions need it.
    func targetItemRow(_ target: MessageTarget, _ itemId: Int64) throws(ChatError) -> Row {
        let row = try store.read { db -> Row? in
            switch target {
            case .direct(let c, _): try db.contactItemRow(itemId, contactId: c.contactId)
            case .group(let g): try db.groupItemRow(itemId, groupId: g.groupId)
            }
        }
        guard let row else { throw .errorStore(storeError: .chatItemNotFound(itemId: itemId)) }
        return row
    }

    /// An item with its chat info, as answers carry it (the group's re-read for its counts).
    func targetItem(_ target: MessageTarget, _ itemId: Int64) throws(ChatError) -> AChatItem {
        switch target {
        case .direct(let c, _):
            return AChatItem(chatInfo: .direct(contact: c), chatItem: try chatItem(itemId))
        case .group(let g):
            return try groupItem(g.groupId, itemId)
        }
    }

    /// The member ID of an item's author in a group (ours for our items); nil in direct chats.
    func itemAuthorMemberId(_ target: MessageTarget, _ row: Row) throws(ChatError) -> String? {
        guard case .group(let g) = target else { return nil }
        if row["item_sent"] as Bool { return g.membership.memberId }
        return try store.read { db in try db.memberIdOf(groupMemberId: row["group_member_id"]) }
    }

    /// Whether an item can be deleted for everyone: our own message content, less than a day
    /// old, with a shared ID (simplex-chat `assertDeletable`).
    func broadcastDeletable(_ row: Row, _ item: ChatItem) -> SharedMsgId? {
        guard row["item_sent"] as Bool, item.meta.deletable else { return nil }
        return (row["shared_msg_id"] as String?).flatMap { SharedMsgId(base64url: $0) }
    }

    /// Whether a feature is allowed for us in the target's chat (contact preferences; groups
    /// have their own preferences, not built yet, so their features are allowed).
    func assertFeatureAllowed(_ target: MessageTarget, _ feature: ChatFeature) throws(ChatError) {
        guard case .direct(let c, _) = target, !c.mergedPreferences.enabled(feature).forUser else { return }
        throw .error(errorType: .commandError(message: "feature not allowed \(feature.displayName)"))
    }

    /// Disappearing messages: for a contact only when both sides allow them (`contactTimedTTL`);
    /// in groups the message's own ttl.
    func itemTTL(_ target: MessageTarget, _ ttl: Int?) -> Int? {
        switch target {
        case .direct(let c, _): Self.timedTTL(c, ttl)
        case .group: ttl
        }
    }

    /// Sends an event that makes no chat item to the target (edits, deletions, reactions): to the
    /// contact, or to every member (a member whose send fails is reported and skipped).
    func sendTargetEvent(_ target: MessageTarget, _ event: ChatMsgEvent) async throws(ChatError) {
        switch target {
        case .direct(_, let conn):
            try await sendEvent(conn, event)
        case .group(let g):
            for d in await sendGroupEvent(g.groupId, event) { dropStatus(d.agentConnId, d.msgId) }
        }
    }
}
