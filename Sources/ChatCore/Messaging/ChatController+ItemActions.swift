import Foundation
import GRDB
import SMPAgent

/// Edits, deletions, reactions and forwarding (seed 003 §4-8) in direct and group chats, over one
/// `MessageTarget`; the profile update that goes to every contact.
extension ChatController {
    func aItem(_ contact: Contact, _ itemId: Int64) throws(ChatError) -> AChatItem {
        AChatItem(chatInfo: .direct(contact: contact), chatItem: try chatItem(itemId))
    }

    /// `/_update item`: edits a sent message (x.msg.update to the contact or every member);
    /// identical content changes nothing.
    func updateItem(_ ref: ChatRef, _ itemId: Int64, live: Bool, _ updated: UpdatedMessage) async throws(ChatError) -> ChatResponse {
        let (user, target) = try messageTarget(ref, requiredRole: .author)
        let r = try targetItemRow(target, itemId)
        try assertMainChatItem(r)
        guard r["item_sent"] as Bool, r["item_deleted"] as String? == nil,
            let shared = (r["shared_msg_id"] as String?).flatMap({ SharedMsgId(base64url: $0) }),
            let current = (try? ChatJSON.decode(CIContent.self, from: r["item_content"] as String))?.msgContent
        else { throw .error(errorType: .invalidChatItemUpdate) }
        // Group mentions are checked as for a new message and replace the item's (issue 13).
        var mentions: (wire: [String: MsgMention], stored: [String: String]) = ([:], [:])
        if case .group(let g) = target { mentions = try sndMentions(g, text: updated.msgContent.text, updated.mentions) }
        let currentMentions = try store.read { db in try db.itemMentions(itemId) }
        if current == updated.msgContent && currentMentions == mentions.stored {
            return .chatItemNotChanged(user: user, chatItem: try targetItem(target, itemId))
        }
        try await sendTargetEvent(target, .msgUpdate(ChatMsgEvent.MsgUpdate(msgId: shared, content: updated.msgContent, mentions: mentions.wire)))
        let contentJSON = try json(CIContent.sndMsgContent(msgContent: updated.msgContent))
        try store.write { db in
            try db.updateItemContent(itemId, text: updated.msgContent.text, contentJSON: contentJSON, live: live, at: Self.now)
            if let groupId = target.groupId { try db.setItemMentions(itemId, groupId: groupId, mentions.stored, userMention: false) }
        }
        return .chatItemUpdated(user: user, chatItem: try targetItem(target, itemId))
    }

    /// `/_delete item`: for me (internal: removed; internalMark: marked) or for everyone
    /// (broadcast: x.msg.del to the contact or every member, our copy marked deleted, or removed
    /// when full deletion is on for us in a direct chat, as simplex-chat `deleteDirectCIs`).
    func deleteItems(_ ref: ChatRef, _ itemIds: [Int64], mode: CIDeleteMode) async throws(ChatError) -> ChatResponse {
        let (user, target) = try messageTarget(ref, requiredRole: nil)
        var deletions: [ChatItemDeletion] = []
        for itemId in itemIds {
            let r = try targetItemRow(target, itemId)
            try assertMainChatItem(r)
            let before = try targetItem(target, itemId)
            // Its file stops (issue 15); a removed item's received file goes too (`deleteCIFiles`).
            let removes = mode == .internal || (mode == .broadcast && target.fullDeleteForUser)
            cancelItemFile(itemId, deleteLocal: removes)
            switch mode {
            case .internal:
                try store.write { db in try db.deleteChatItem(itemId) }
                deletions.append(ChatItemDeletion(deletedChatItem: before, toChatItem: nil))
            case .internalMark, .broadcast:
                if mode == .broadcast {
                    guard let shared = broadcastDeletable(r, before.chatItem) else { throw .error(errorType: .invalidChatItemDelete) }
                    try await sendTargetEvent(target, .msgDel(msgId: shared))
                    if case .direct(let c, _) = target, c.mergedPreferences.enabled(.fullDelete).forUser {
                        try store.write { db in try db.deleteChatItem(itemId) }
                        deletions.append(ChatItemDeletion(deletedChatItem: before, toChatItem: nil))
                        continue
                    }
                }
                try markDeleted(itemId, .deleted(deletedTs: Self.ts(Self.now), chatType: target.chatType))
                deletions.append(ChatItemDeletion(deletedChatItem: before, toChatItem: try targetItem(target, itemId)))
            }
        }
        guard !itemIds.isEmpty else { throw .error(errorType: .commandError(message: "no items")) }
        return .chatItemsDeleted(user: user, chatItemDeletions: deletions, byUser: true, timed: false)
    }

    func markDeleted(_ itemId: Int64, _ deleted: CIDeleted) throws(ChatError) {
        let mark = try json(deleted)
        try store.write { db in
            try db.markItemDeleted(itemId, mark, at: Self.now)
        }
    }

    /// `/_reaction`: adds or removes our reaction (x.msg.react; in groups it names the item's
    /// author). Contacts must both allow reactions.
    func react(_ ref: ChatRef, _ itemId: Int64, add: Bool, _ reaction: MsgReaction) async throws(ChatError) -> ChatResponse {
        let (user, target) = try messageTarget(ref, requiredRole: .author)
        try assertFeatureAllowed(target, .reactions)
        let r = try targetItemRow(target, itemId)
        try assertMainChatItem(r)
        guard let shared = (r["shared_msg_id"] as String?).flatMap({ SharedMsgId(base64url: $0) }), r["item_deleted"] as String? == nil else {
            throw .error(errorType: .commandError(message: "this item cannot have reactions"))
        }
        let author = try itemAuthorMemberId(target, r).flatMap { MemberId(base64url: $0) }
        let reactionJSON = try json(reaction)
        let present = try store.read { db in
            try db.hasReaction(itemId, reactionJSON, sent: true)
        }
        guard present != add else { throw .error(errorType: .commandError(message: add ? "reaction already added" : "no such reaction")) }
        try await sendTargetEvent(target, .msgReact(msgId: shared, memberId: author, reaction: reaction, add: add))
        try setReaction(itemId, reactionJSON, sent: true, add: add)
        let item = try targetItem(target, itemId)
        let cr = CIReaction(chatDir: target.sndDirection, chatItem: item.chatItem, sentAt: Self.ts(Self.now), reaction: reaction)
        return .chatItemReaction(user: user, added: add, reaction: ACIReaction(chatInfo: item.chatInfo, chatReaction: cr))
    }

    func setReaction(_ itemId: Int64, _ reactionJSON: String, sent: Bool, add: Bool) throws(ChatError) {
        try store.write { db in try db.setReaction(itemId, reactionJSON, sent: sent, add: add, at: Self.now) }
    }

    /// An item's row and user from a direct or group chat (the source of a forward).
    func sourceItem(_ ref: ChatRef, _ itemId: Int64) throws(ChatError) -> (User, Row) {
        let (user, target) = try messageTarget(ref, requiredRole: nil)
        let r = try targetItemRow(target, itemId)
        try assertMainChatItem(r)
        return (user, r)
    }

    /// `/_forward plan`: which of the items can be forwarded (those with message content), and
    /// what to confirm about files that cannot go with them (not received, in progress...).
    func forwardPlan(_ ref: ChatRef, _ itemIds: [Int64]) throws(ChatError) -> ChatResponse {
        var ok: [Int64] = []
        var fileErrors: [ForwardFileError] = []
        var user: User?
        for id in itemIds {
            let (u, r) = try sourceItem(ref, id)
            user = u
            guard r["item_deleted"] as String? == nil, let mc = (try? ChatJSON.decode(CIContent.self, from: r["item_content"] as String))?.msgContent
            else { continue }
            let (forwarded, error) = forwardFilePlan(itemId: id, mc)
            if forwarded { ok.append(id) }
            if let error { fileErrors.append(error) }
        }
        guard let user else { throw .error(errorType: .commandError(message: "no items")) }
        return .forwardPlan(user: user, itemsCount: itemIds.count, chatItemIds: ok, forwardConfirmation: Self.forwardConfirmation(fileErrors))
    }

    /// `/_forward`: sends the items' content to another chat (direct or group), marked as forwarded.
    func forward(to: ChatRef, from: ChatRef, _ itemIds: [Int64], ttl: Int?) async throws(ChatError) -> ChatResponse {
        var contents: [(MsgContent, CryptoFile?)] = []
        for id in itemIds {
            let (_, r) = try sourceItem(from, id)
            if r["item_deleted"] as String? == nil, let c = (try? ChatJSON.decode(CIContent.self, from: r["item_content"] as String))?.msgContent,
               let forwarded = forwardContent(itemId: id, c) {
                // A copy of the item's file goes with it when the file is here (issue 15).
                contents.append(forwarded)
            }
        }
        let (user, target) = try messageTarget(to, requiredRole: .author)
        let itemTTL = itemTTL(target, ttl)
        var prepared: [PreparedItem] = []
        var sndFiles: [(fileId: Int64, sharedMsgId: SharedMsgId)] = []
        do {
            for (content, source) in contents {
                var p = try prepareItem(user: user, target, content: content, quotedItemId: nil, ttl: itemTTL, live: false, forwarded: true)
                if let source {
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
        if agent != nil { await updateAddressLinkData(userId: userId, profile: profile) }
        let updated = try userById(userId)
        return .userProfileUpdated(user: updated, fromProfile: from, toProfile: profile,
                                   updateSummary: UserProfileUpdateSummary(updateSuccesses: ok, updateFailures: failed, changedContacts: []))
    }
}
