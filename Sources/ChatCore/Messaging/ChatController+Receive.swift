import Foundation
import GRDB
import SMPAgent

/// Who a received chat message came from: a contact, or a member of a group (its author, also
/// when a host forwarded it). Storing new messages and receiving edits, deletions and reactions
/// are written once over this value; they differ by source only where SimpleX's rules do
/// (contact preferences, blocked members, moderation).
enum MessageSource {
    case contact(Contact)
    case member(GroupInfo, GroupMember)
}

extension ChatController {
    /// An item with its chat info, as events carry it (re-read: the message may have changed it).
    func receivedChatItem(_ source: MessageSource, _ itemId: Int64) throws(ChatError) -> AChatItem {
        switch source {
        case .contact(let c):
            let contact = try store.read { db in try self.contact(db, c.contactId) } ?? c
            return AChatItem(chatInfo: .direct(contact: contact), chatItem: try chatItem(itemId))
        case .member(let g, _):
            // An item of a support chat is shown in that chat (chat version 15 scopes).
            if let scopeGmId = try store.read({ db in try db.itemSupportScope(itemId) }) { return try supportItem(g, itemId, scopeGmId: scopeGmId) }
            return try groupItem(g.groupId, itemId)
        }
    }

    /// The sender's own item with this shared ID: what it may edit or delete.
    func senderItemRow(_ source: MessageSource, _ shared: String) throws(ChatError) -> Row? {
        try store.read { db -> Row? in
            switch source {
            case .contact(let c): try db.contactItemRow(c.contactId, sharedMsgId: shared, sent: false)
            case .member(let g, let m): try db.memberGroupItemRow(g.groupId, groupMemberId: m.groupMemberId, sharedMsgId: shared)
            }
        }
    }

    /// Stores a received x.msg.new once (by its sender and shared ID), with its quote and timer.
    /// A blocked member's message is kept, marked blocked; a contact's message using a feature
    /// the contact may not use (`rejected`) becomes a rejected-feature item.
    /// `support`: the member support chat it goes to (chat version 15) and how it changes that chat's attention count.
    func storeReceivedItem(user: User, _ source: MessageSource, meta: MsgMeta, itemTs: Double, shared: String?,
                           _ container: MsgContainer, rejected: ChatFeature? = nil,
                           support: (scopeGmId: Int64, attention: SupportAttention)? = nil) throws(ChatError) -> Int64? {
        let content = rejected.map { CIContent.rcvChatFeatureRejected(feature: $0) } ?? CIContent.rcvMsgContent(msgContent: container.content)
        let contentJSON = try itemContentJSON(content)
        let newStatus = try json(CIStatus.rcvNew)
        let quotedContent = try container.quote.map { q throws(ChatError) in try json(q.content) }
        let now = Self.now
        var item = NewChatItem(userId: user.userId, sent: false, itemTs: itemTs, text: container.content.text, contentJSON: contentJSON,
                               statusJSON: newStatus, sharedMsgId: shared, agentMsgId: meta.agentMsgId)
        item.forwarded = container.forward
        item.live = container.live ?? false
        item.ttl = container.ttl
        item.deleteAt = container.ttl.map { now + Double($0) }
        item.quotedSharedMsgId = container.quote?.msgRef.msgId?.base64url
        item.quotedSentAt = container.quote?.msgRef.sentAt.date.timeIntervalSince1970
        item.quotedContentJSON = quotedContent
        switch source {
        case .contact(let c):
            item.contactId = c.contactId
            // The peer's "sent" is from its side: its sent item is our received one.
            item.quotedSent = container.quote.map { !$0.msgRef.sent }
        case .member(let g, let sender):
            item.groupId = g.groupId
            item.memberGmId = sender.groupMemberId
            item.quotedMemberId = container.quote?.msgRef.memberId?.base64url
            item.quotedSent = container.quote.map { _ in item.quotedMemberId == g.membership.memberId }
            item.mentions = Self.rcvMentions(text: container.content.text, container.mentions)
            item.userMention = Self.mentionsUser(g, mentions: item.mentions, quotedMemberId: item.quotedMemberId)
            item.scopeMemberGmId = support?.scopeGmId
            item.forwardedByGmId = Self.forwardingHost
            if sender.blockedByAdmin {
                item.deletedJSON = try json(CIDeleted.blockedByAdmin(deletedTs: Self.ts(now)))
            } else if !sender.memberSettings.showMessages {
                item.deletedJSON = try json(CIDeleted.blocked(deletedTs: Self.ts(now)))
            }
        }
        // One transaction per received message: the duplicate check, the quote and the item.
        let id = try store.write { db -> Int64? in
            let qid = container.quote?.msgRef.msgId?.base64url
            switch source {
            case .contact(let c):
                if let shared, try db.hasReceivedContactItem(c.contactId, sharedMsgId: shared) { return nil }
                if let q = container.quote, let qid { item.quotedItemId = try db.contactItemId(c.contactId, sharedMsgId: qid, sent: !q.msgRef.sent) }
            case .member(let g, let sender):
                if let shared, try db.hasMemberItem(g.groupId, memberGmId: sender.groupMemberId, sharedMsgId: shared) { return nil }
                if let qid {
                    item.quotedItemId = try item.quotedSent == true ? db.sentGroupItemId(g.groupId, sharedMsgId: qid)
                        : item.quotedMemberId.flatMap { try db.memberGroupItemId(g.groupId, memberId: $0, sharedMsgId: qid) }
                }
            }
            let id = try db.insertChatItem(item, at: now)
            if let support {
                try db.updateSupportChatStats(support.scopeGmId, unread: 1, mentions: item.userMention ? 1 : 0, attention: support.attention, at: now)
            }
            return id
        }
        if let id { rememberInserted([(id, item)], at: now) }
        return id
    }

    /// x.msg.update: the sender edits its message; the same content changes nothing.
    func receiveUpdate(user: User, _ source: MessageSource, _ u: ChatMsgEvent.MsgUpdate) throws(ChatError) {
        guard let r = try senderItemRow(source, u.msgId.base64url), try itemInScope(source, u.scope, r, "x.msg.update") else { return }
        let itemId: Int64 = r["chat_item_id"]
        if (try? ChatJSON.decode(CIContent.self, from: r["item_content"] as String))?.msgContent == u.content {
            // The same text changes nothing, unless (in a group) it names other members.
            guard case .member = source else { return }
            let stored = try store.read { db in try db.itemMentions(itemId) }
            guard stored != Self.rcvMentions(text: u.content.text, u.mentions) else { return }
        }
        let contentJSON = try json(CIContent.rcvMsgContent(msgContent: u.content))
        try store.write { db in
            try db.updateItemContent(itemId, text: u.content.text, contentJSON: contentJSON, live: nil, at: Self.now)
            // The edited text's mentions replace the old ones (simplex-chat `updateGroupCIMentions`).
            if case .member(let g, _) = source {
                let mentions = Self.rcvMentions(text: u.content.text, u.mentions)
                try db.setItemMentions(itemId, groupId: g.groupId, mentions,
                                       userMention: Self.mentionsUser(g, mentions: mentions, quotedMemberId: r["quoted_member_id"]))
            }
        }
        emit(.chatItemUpdated(user: user, chatItem: try receivedChatItem(source, itemId)))
    }

    /// x.msg.del: the sender deletes its own message (removed when the contact may fully delete,
    /// marked otherwise), or a group moderator deletes someone's (marked moderated; only with a
    /// role at least the author's). The item's file transfer stops either way.
    func receiveDelete(user: User, _ source: MessageSource, _ shared: String, authorMemberId: String?, scope: MsgScope? = nil) throws(ChatError) {
        let row: Row?
        let mark: CIDeleted
        var fullDelete = false
        switch source {
        case .contact(let c):
            row = try senderItemRow(source, shared)
            mark = .deleted(deletedTs: Self.ts(Self.now), chatType: .direct)
            fullDelete = c.mergedPreferences.enabled(.fullDelete).forContact
        case .member(let g, let sender):
            if authorMemberId == nil || authorMemberId == sender.memberId {
                row = try senderItemRow(source, shared)
                mark = .deleted(deletedTs: Self.ts(Self.now), chatType: .group)
            } else {
                let author: GroupMember? = authorMemberId == g.membership.memberId ? g.membership
                    : try store.read { db in try self.groupMember(db, groupId: g.groupId, memberId: authorMemberId ?? "") }
                guard let author, sender.memberRole >= .moderator, sender.memberRole >= author.memberRole else {
                    return reportMessageError(g, "x.msg.del with insufficient member permissions")
                }
                row = try store.read { db in
                    author.memberCategory == .user
                        ? try db.sentGroupItemRow(g.groupId, sharedMsgId: shared)
                        : try db.memberGroupItemRow(g.groupId, groupMemberId: author.groupMemberId, sharedMsgId: shared)
                }
                mark = .moderated(deletedTs: Self.ts(Self.now), byGroupMember: sender)
            }
        }
        guard let row, try itemInScope(source, scope, row, "x.msg.del") else { return }
        let itemId: Int64 = row["chat_item_id"]
        let before = try receivedChatItem(source, itemId)
        cancelItemFile(itemId, deleteLocal: fullDelete)
        if fullDelete {
            try store.write { db in try db.deleteChatItem(itemId) }
            emit(.chatItemsDeleted(user: user, chatItemDeletions: [ChatItemDeletion(deletedChatItem: before, toChatItem: nil)], byUser: false, timed: false))
            return
        }
        try markDeleted(itemId, mark)
        emit(.chatItemsDeleted(user: user, chatItemDeletions: [ChatItemDeletion(deletedChatItem: before, toChatItem: try receivedChatItem(source, itemId))],
                               byUser: false, timed: false))
        if case .moderated(_, let moderator) = mark, case .member(let g, _) = source {
            try archiveReportsAbout(user: user, g, sharedMsgId: shared, by: moderator, byUser: false)
        }
    }

    /// x.msg.react: a reaction to one of our items or the sender's (in a group, the item of the
    /// member it names). A contact's reactions count only while the contact may use them.
    func receiveReaction(user: User, _ source: MessageSource, _ msgId: SharedMsgId, authorMemberId: MemberId?,
                         _ reaction: MsgReaction, add: Bool, sentAt: Double, scope: MsgScope? = nil) throws(ChatError) {
        let shared = msgId.base64url
        let row: Row?
        let dir: CIDirection
        switch source {
        case .contact(let c):
            guard c.mergedPreferences.enabled(.reactions).forContact else { return }
            row = try store.read { db in try db.contactItemRow(c.contactId, sharedMsgId: shared, sent: nil) }
            dir = .directRcv
        case .member(let g, let sender):
            let mine = authorMemberId?.base64url == g.membership.memberId
            let author = mine ? nil : try authorMemberId.flatMap { id throws(ChatError) in
                try store.read { db in try self.groupMember(db, groupId: g.groupId, memberId: id.base64url) }
            }
            row = try store.read { db -> Row? in
                if mine { return try db.sentGroupItemRow(g.groupId, sharedMsgId: shared) }
                guard let author else { return nil }
                return try db.memberGroupItemRow(g.groupId, groupMemberId: author.groupMemberId, sharedMsgId: shared)
            }
            dir = .groupRcv(groupMember: sender)
        }
        guard let row, try itemInScope(source, scope, row, "x.msg.react") else { return }
        let itemId: Int64 = row["chat_item_id"]
        let reactionJSON = try json(reaction)
        try store.write { db in
            switch source {
            case .contact: try db.setReaction(itemId, reactionJSON, sent: false, add: add, at: Self.now)
            case .member(_, let sender): try db.setMemberReaction(itemId, reactionJSON: reactionJSON, reactor: sender.memberId, add: add, at: Self.now)
            }
        }
        let item = try receivedChatItem(source, itemId)
        let cr = CIReaction(chatDir: dir, chatItem: item.chatItem, sentAt: Self.ts(sentAt), reaction: reaction)
        emit(.chatItemReaction(user: user, added: add, reaction: ACIReaction(chatInfo: item.chatInfo, chatReaction: cr)))
    }
}

extension ChatController {
    /// Whether the item an x.msg.update, x.msg.del or x.msg.react names is in the chat the
    /// message's `scope` names (chat version 15): the main chat without a scope, else that member's
    /// support chat, where the sender may write. Otherwise the event is refused with a `messageError`.
    func itemInScope(_ source: MessageSource, _ scope: MsgScope?, _ row: Row, _ event: String) throws(ChatError) -> Bool {
        guard case .member(let g, let sender) = source else { return true }
        let itemScope: Int64? = row["group_scope_group_member_id"]
        guard let named = try supportScopeMember(g, sender: sender, scope), named == itemScope else {
            reportMessageError(g, "\(event) from \(sender.localDisplayName): the item is not in the message's scope")
            return false
        }
        return true
    }
}
