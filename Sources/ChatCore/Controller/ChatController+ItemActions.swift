import Foundation
import GRDB
import SMPAgent

/// Edits, deletions, reactions and forwarding (seed 003 §4-8), on our side and the peer's.
extension ChatController {
    /// A chat item of a direct chat with what actions need: its row, contact and user.
    func directItem(_ ref: ChatRef, _ itemId: Int64) throws(ChatError) -> (User, Contact, String, Row) {
        guard ref.chatType == .direct else { throw .error(errorType: .commandError(message: "only direct chats are supported yet")) }
        let (user, contact, agentConnId) = try contactConnection(ref.chatId)
        guard let r = try store.read({ db in try db.contactItemRow(itemId, contactId: ref.chatId) }) else { throw .errorStore(storeError: .chatItemNotFound(itemId: itemId)) }
        return (user, contact, agentConnId, r)
    }

    func aItem(_ contact: Contact, _ itemId: Int64) throws(ChatError) -> AChatItem {
        AChatItem(chatInfo: .direct(contact: contact), chatItem: try chatItem(itemId))
    }

    /// `/_update item`: edits a sent message (x.msg.update); identical content changes nothing.
    func updateItem(_ ref: ChatRef, _ itemId: Int64, live: Bool, _ updated: UpdatedMessage) async throws(ChatError) -> ChatResponse {
        let (user, contact, agentConnId, r) = try directItem(ref, itemId)
        guard r["item_sent"] as Bool, r["item_deleted"] as String? == nil,
            let shared = (r["shared_msg_id"] as String?).flatMap({ SharedMsgId(base64url: $0) }),
            let current = (try? ChatJSON.decode(CIContent.self, from: r["item_content"] as String))?.msgContent
        else { throw .error(errorType: .invalidChatItemUpdate) }
        if current == updated.msgContent {
            return .chatItemNotChanged(user: user, chatItem: try aItem(contact, itemId))
        }
        try await sendEvent(agentConnId, .msgUpdate(ChatMsgEvent.MsgUpdate(msgId: shared, content: updated.msgContent)))
        let contentJSON = try json(CIContent.sndMsgContent(msgContent: updated.msgContent))
        try store.write { db in
            try db.updateItemContent(itemId, text: updated.msgContent.text, contentJSON: contentJSON, live: live, at: Self.now)
        }
        return .chatItemUpdated(user: user, chatItem: try aItem(contact, itemId))
    }

    /// `/_delete item`: for me (internal: removed; internalMark: marked) or for everyone
    /// (broadcast: x.msg.del to the peer, our copy marked deleted).
    func deleteItems(_ ref: ChatRef, _ itemIds: [Int64], mode: CIDeleteMode) async throws(ChatError) -> ChatResponse {
        var deletions: [ChatItemDeletion] = []
        var user: User?
        for itemId in itemIds {
            let (u, contact, agentConnId, r) = try directItem(ref, itemId)
            user = u
            let before = try aItem(contact, itemId)
            switch mode {
            case .internal:
                try store.write { db in try db.deleteChatItem(itemId) }
                deletions.append(ChatItemDeletion(deletedChatItem: before, toChatItem: nil))
            case .internalMark, .broadcast:
                if mode == .broadcast {
                    guard before.chatItem.meta.deletable, let shared = (r["shared_msg_id"] as String?).flatMap({ SharedMsgId(base64url: $0) }) else {
                        throw .error(errorType: .invalidChatItemDelete)
                    }
                    try await sendEvent(agentConnId, .msgDel(msgId: shared))
                    // With full deletion on for us, our copy goes too (simplex-chat `deleteDirectCIs`).
                    if contact.mergedPreferences.enabled(.fullDelete).forUser {
                        try store.write { db in try db.deleteChatItem(itemId) }
                        deletions.append(ChatItemDeletion(deletedChatItem: before, toChatItem: nil))
                        continue
                    }
                }
                try markDeleted(itemId, .deleted(deletedTs: Self.ts(Self.now), chatType: .direct))
                deletions.append(ChatItemDeletion(deletedChatItem: before, toChatItem: try aItem(contact, itemId)))
            }
        }
        guard let user else { throw .error(errorType: .commandError(message: "no items")) }
        return .chatItemsDeleted(user: user, chatItemDeletions: deletions, byUser: true, timed: false)
    }

    func markDeleted(_ itemId: Int64, _ deleted: CIDeleted) throws(ChatError) {
        let mark = try json(deleted)
        try store.write { db in
            try db.markItemDeleted(itemId, mark, at: Self.now)
        }
    }

    /// `/_reaction`: adds or removes our reaction (x.msg.react).
    func react(_ ref: ChatRef, _ itemId: Int64, add: Bool, _ reaction: MsgReaction) async throws(ChatError) -> ChatResponse {
        let (user, contact, agentConnId, r) = try directItem(ref, itemId)
        guard contact.mergedPreferences.enabled(.reactions).forUser else {
            throw .error(errorType: .commandError(message: "feature not allowed \(ChatFeature.reactions.displayName)"))
        }
        guard let shared = (r["shared_msg_id"] as String?).flatMap({ SharedMsgId(base64url: $0) }), r["item_deleted"] as String? == nil else {
            throw .error(errorType: .commandError(message: "this item cannot have reactions"))
        }
        let reactionJSON = try json(reaction)
        let present = try store.read { db in
            try db.hasReaction(itemId, reactionJSON, sent: true)
        }
        guard present != add else { throw .error(errorType: .commandError(message: add ? "reaction already added" : "no such reaction")) }
        try await sendEvent(agentConnId, .msgReact(msgId: shared, reaction: reaction, add: add))
        try setReaction(itemId, reactionJSON, sent: true, add: add)
        let item = try chatItem(itemId)
        let cr = CIReaction(chatDir: .directSnd, chatItem: item, sentAt: Self.ts(Self.now), reaction: reaction)
        return .chatItemReaction(user: user, added: add, reaction: ACIReaction(chatInfo: .direct(contact: contact), chatReaction: cr))
    }

    func setReaction(_ itemId: Int64, _ reactionJSON: String, sent: Bool, add: Bool) throws(ChatError) {
        try store.write { db in try db.setReaction(itemId, reactionJSON, sent: sent, add: add, at: Self.now) }
    }

    /// An item's row and user from a direct or group chat (the source of a forward).
    func sourceItem(_ ref: ChatRef, _ itemId: Int64) throws(ChatError) -> (User, Row) {
        switch ref.chatType {
        case .direct:
            let (u, _, _, r) = try directItem(ref, itemId)
            return (u, r)
        case .group:
            let (u, _, r) = try groupItemRow(ref, itemId)
            return (u, r)
        default:
            throw .error(errorType: .commandError(message: "only direct and group chats are supported"))
        }
    }

    /// `/_forward plan`: which of the items can be forwarded (those with message content).
    func forwardPlan(_ ref: ChatRef, _ itemIds: [Int64]) throws(ChatError) -> ChatResponse {
        var ok: [Int64] = []
        var user: User?
        for id in itemIds {
            let (u, r) = try sourceItem(ref, id)
            user = u
            if r["item_deleted"] as String? == nil, (try? ChatJSON.decode(CIContent.self, from: r["item_content"] as String))?.msgContent != nil {
                ok.append(id)
            }
        }
        guard let user else { throw .error(errorType: .commandError(message: "no items")) }
        return .forwardPlan(user: user, itemsCount: itemIds.count, chatItemIds: ok, forwardConfirmation: nil)
    }

    /// `/_forward`: sends the items' content to another chat (direct or group), marked as forwarded.
    func forward(to: ChatRef, from: ChatRef, _ itemIds: [Int64], ttl: Int?) async throws(ChatError) -> ChatResponse {
        var contents: [MsgContent] = []
        for id in itemIds {
            let (_, r) = try sourceItem(from, id)
            if r["item_deleted"] as String? == nil, let c = (try? ChatJSON.decode(CIContent.self, from: r["item_content"] as String))?.msgContent {
                contents.append(c)
            }
        }
        var items: [AChatItem] = []
        switch to.chatType {
        case .direct:
            let (user, contact, agentConnId) = try contactConnection(to.chatId)
            for content in contents {
                let newId = try await sendItem(user: user, contact: contact, agentConnId: agentConnId, content: content, quotedItemId: nil,
                                               ttl: ttl, live: false, forwarded: true)
                items.append(try aItem(contact, newId))
            }
            return .newChatItems(user: user, chatItems: items)
        case .group where to.chatScope == nil:
            let (user, g) = try groupContext(to.chatId)
            try assertUserRole(g, .author)
            for content in contents {
                let newId = try await sendGroupItem(user: user, g, content: content, quotedItemId: nil, ttl: ttl, live: false, forwarded: true)
                items.append(try groupItem(g.groupId, newId))
            }
            return .newChatItems(user: user, chatItems: items)
        default:
            throw .error(errorType: .commandError(message: "only direct and group chats are supported"))
        }
    }

    /// `/_profile <userId> <json>`: updates the profile and sends it (x.info) to every contact.
    func updateProfile(userId: Int64, _ profile: Profile, force: Bool = false) async throws(ChatError) -> ChatResponse {
        let user = try userById(userId)
        var from = user.profile.profile
        if force { from.contactLink = nil }
        if from == profile && !force { return .userProfileNoChange(user: user) }
        let valid = Self.validDisplayName(profile.displayName)
        guard !valid.isEmpty, valid == profile.displayName else {
            throw .error(errorType: .invalidDisplayName(displayName: profile.displayName, validName: valid))
        }
        try store.write { db in
            try db.updateUserProfile(userId: userId, localDisplayName: valid, profile)
        }
        // Incognito connections keep their random profile: only the others get the new one.
        let conns = try store.read { db in
            try db.readyContactConnIdsWithMainProfile(userId: userId)
        }
        var ok = 0, failed = 0
        for c in conns {
            do {
                try await sendEvent(c, .info(profile))
                ok += 1
            } catch {
                failed += 1
            }
        }
        // The address's short link shows the profile too (best effort: the relay may be away).
        if let agent, let addr = try store.read({ db in
            try db.addressConnIdWithShortLink(userId: userId)
        }), let data = try? shortLinkData(ContactShortLinkData(profile: redacted(profile))) {
            _ = try? await agent.setConnShortLink(connId: addr, userData: data)
        }
        let updated = try userById(userId)
        return .userProfileUpdated(user: updated, fromProfile: from, toProfile: profile,
                                   updateSummary: UserProfileUpdateSummary(updateSuccesses: ok, updateFailures: failed, changedContacts: []))
    }
}
