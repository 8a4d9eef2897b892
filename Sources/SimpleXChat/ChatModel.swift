import ChatCore
import Foundation
import Observation

/// The app state of seed 002 §1 (`ChatModel`, an ObservableObject in the iOS app): the current
/// user, the chat list with each chat's items, and the user's address. `@Observable` lets any
/// front end observe it; `@MainActor` keeps every mutation on one actor, as SwiftUI requires.
/// `ChatAPI` updates it after commands and `ChatReceiver` after events.
@Observable @MainActor
public final class ChatModel {
    public var currentUser: User?
    /// Chats, most recently active first.
    public var chats: [Chat] = []
    /// The user's long-term address (seed 001 §6), nil when there is none.
    public var userAddress: UserContactLink?
    /// Whether the core is running (after `/_start`).
    public var chatRunning: Bool?
    /// Alerts the api* functions raised, in order, for a front end to show and clear.
    public var alerts: [ChatAlert] = []

    public nonisolated init() {}

    /// The chat id of an entity: `@5`, `:4`, `<@2`, `#3`, `*1`.
    public nonisolated static func chatId(_ type: ChatType, _ id: Int64) -> ChatId {
        type.prefix + String(id)
    }

    // MARK: chats

    public func getChat(_ id: ChatId) -> Chat? {
        chats.first { $0.id == id }
    }

    public func getChatIndex(_ id: ChatId) -> Int? {
        chats.firstIndex { $0.id == id }
    }

    /// The contact's chat, by contact id.
    public func getContactChat(_ contactId: Int64) -> Chat? {
        getChat(Self.chatId(.direct, contactId))
    }

    /// Adds a chat at the top of the list, or replaces the chat with the same id.
    public func addChat(_ chat: Chat) {
        if let i = getChatIndex(chat.id) {
            chats[i] = chat
        } else {
            chats.insert(chat, at: 0)
        }
    }

    /// Replaces the whole list (after `/_get chats`).
    public func updateChats(_ newChats: [AChat]) {
        chats = newChats.map(Chat.init)
    }

    /// Updates a chat's info, adding the chat when it is not in the list.
    public func updateChatInfo(_ cInfo: ChatInfo) {
        if let i = getChatIndex(cInfo.id) {
            chats[i].chatInfo = cInfo
        } else {
            addChat(Chat(chatInfo: cInfo))
        }
    }

    /// Updates (or adds) a contact's chat.
    public func updateContact(_ contact: Contact) {
        updateChatInfo(.direct(contact: contact))
    }

    /// Replaces the chat `id` with `chat` in the same position (a request or pending connection
    /// becoming a contact); adds `chat` when `id` is not in the list.
    public func replaceChat(_ id: ChatId, _ chat: Chat) {
        if let i = getChatIndex(id) {
            chats[i] = chat
            // The replacement may already have been added under its own id.
            if let j = chats.indices.first(where: { $0 != i && chats[$0].id == chat.id }) { chats.remove(at: j) }
        } else {
            addChat(chat)
        }
    }

    public func removeChat(_ id: ChatId) {
        chats.removeAll { $0.id == id }
    }

    // MARK: connections (seed 001)

    /// Adds or updates a pending connection (seed 001 §1.9, §2.8).
    public func updateContactConnection(_ connection: PendingContactConnection) {
        updateChatInfo(.contactConnection(contactConnection: connection))
    }

    /// The pending connection a contact was created from.
    public func pendingConnectionId(of contact: Contact) -> ChatId? {
        contact.activeConn.map { Self.chatId(.contactConnection, $0.connId) }
    }

    /// A connection became a contact (seed 001 §5.5): the pending connection row is replaced by
    /// the contact's chat, keeping its position; items already loaded for the contact stay.
    public func contactConnected(_ contact: Contact) {
        let contactChatId = Self.chatId(.direct, contact.contactId)
        if let pending = pendingConnectionId(of: contact), getChatIndex(pending) != nil {
            let items = getChat(contactChatId)?.chatItems ?? []
            replaceChat(pending, Chat(chatInfo: .direct(contact: contact), chatItems: items))
        } else {
            updateContact(contact)
        }
    }

    /// Adds a received contact request (seed 001 §4.2).
    public func addContactRequest(_ request: UserContactRequest) {
        updateChatInfo(.contactRequest(contactRequest: request))
    }

    /// Removes a contact request after it was rejected.
    public func removeContactRequest(_ contactRequestId: Int64) {
        removeChat(Self.chatId(.contactRequest, contactRequestId))
    }

    /// A request was accepted: its row becomes the contact's chat (seed 001 §4.6).
    public func replaceContactRequest(_ contactRequestId: Int64, with contact: Contact) {
        let requestId = Self.chatId(.contactRequest, contactRequestId)
        if getChatIndex(requestId) != nil {
            replaceChat(requestId, Chat(chatInfo: .direct(contact: contact), chatItems: getContactChat(contact.contactId)?.chatItems ?? []))
        } else {
            updateContact(contact)
        }
    }

    // MARK: chat items (seed 003)

    /// Adds a new item to its chat (creating the chat if needed) and moves the chat to the top;
    /// an item already present is left as it is, so a later status is not overwritten.
    public func addChatItem(_ cInfo: ChatInfo, _ cItem: ChatItem) {
        let i: Int
        if let existing = getChatIndex(cInfo.id) {
            i = existing
            chats[i].chatInfo = cInfo
        } else {
            chats.insert(Chat(chatInfo: cInfo), at: 0)
            i = 0
        }
        guard !chats[i].chatItems.contains(where: { $0.id == cItem.id }) else { return }
        chats[i].chatItems.append(cItem)
        if !cItem.chatDir.sent, case .rcvNew = cItem.meta.itemStatus { chats[i].chatStats.unreadCount += 1 }
        if i > 0 { chats.insert(chats.remove(at: i), at: 0) }
    }

    /// Replaces the item with the same id, or adds it; true when it was added.
    @discardableResult
    public func upsertChatItem(_ cInfo: ChatInfo, _ cItem: ChatItem) -> Bool {
        if let (i, j) = itemIndex(cInfo.id, cItem.id) {
            chats[i].chatItems[j] = cItem
            return false
        }
        addChatItem(cInfo, cItem)
        return true
    }

    /// Replaces the item with the same id if the chat has it.
    public func updateChatItem(_ cInfo: ChatInfo, _ cItem: ChatItem) {
        if let (i, j) = itemIndex(cInfo.id, cItem.id) { chats[i].chatItems[j] = cItem }
    }

    /// Removes the item from its chat.
    public func removeChatItem(_ cInfo: ChatInfo, _ cItem: ChatItem) {
        if let (i, j) = itemIndex(cInfo.id, cItem.id) { chats[i].chatItems.remove(at: j) }
    }

    /// Applies deletions: the item is replaced by its "deleted" form when there is one, removed otherwise.
    public func applyDeletions(_ deletions: [ChatItemDeletion]) {
        for d in deletions {
            if let to = d.toChatItem {
                upsertChatItem(to.chatInfo, to.chatItem)
            } else {
                removeChatItem(d.deletedChatItem.chatInfo, d.deletedChatItem.chatItem)
            }
        }
    }

    /// Items marked deleted in place, as archived reports are (groupChatItemsDeleted): moderated
    /// by the member when one is named.
    public func markItemsDeleted(_ groupInfo: GroupInfo, _ itemIds: [Int64], by member: GroupMember?) {
        let chatId = Self.chatId(.group, groupInfo.groupId)
        let now = UTCTime(Date())
        for itemId in itemIds {
            guard let (i, j) = itemIndex(chatId, itemId) else { continue }
            chats[i].chatItems[j].meta.itemDeleted = member.map { .moderated(deletedTs: now, byGroupMember: $0) } ?? .deleted(deletedTs: now, chatType: .group)
        }
    }

    /// A chat's item by id.
    public func chatItem(_ chatId: ChatId, _ itemId: Int64) -> ChatItem? {
        itemIndex(chatId, itemId).map { chats[$0.0].chatItems[$0.1] }
    }

    private func itemIndex(_ chatId: ChatId, _ itemId: Int64) -> (Int, Int)? {
        guard let i = getChatIndex(chatId), let j = chats[i].chatItems.firstIndex(where: { $0.id == itemId }) else { return nil }
        return (i, j)
    }
}

/// Setters for ChatAPI and ChatReceiver, which change the model from outside the main actor.
extension ChatModel {
    func appendAlert(_ alert: ChatAlert) { alerts.append(alert) }
    func setCurrentUser(_ user: User) { currentUser = user }
    func setChatRunning(_ running: Bool) { chatRunning = running }
    func setUserAddress(_ address: UserContactLink?) { userAddress = address }
    func addChatItems(_ items: [AChatItem]) {
        for item in items { addChatItem(item.chatInfo, item.chatItem) }
    }
}
