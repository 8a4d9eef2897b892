import ChatCore

/// A chat id as the iOS app keys its chat list: the command prefix and the entity id, e.g. `@5`
/// (contact), `:4` (pending connection), `<@2` (contact request).
public typealias ChatId = String

/// One row of the chat list with the items loaded for it (the iOS `Chat` object, as a value).
public struct Chat: Identifiable, Hashable, Sendable {
    public var chatInfo: ChatInfo
    public var chatItems: [ChatItem]
    public var chatStats: ChatStats

    public init(chatInfo: ChatInfo, chatItems: [ChatItem] = [], chatStats: ChatStats = ChatStats()) {
        self.chatInfo = chatInfo
        self.chatItems = chatItems
        self.chatStats = chatStats
    }

    public init(_ chat: AChat) {
        self.init(chatInfo: chat.chatInfo, chatItems: chat.chatItems, chatStats: chat.chatStats)
    }

    public var id: ChatId { chatInfo.id }
}

extension ChatInfo {
    /// The id of the chat in the chat list (`ChatId`).
    public var id: ChatId {
        guard let type = chatType, let apiId else { return "?" }
        return ChatModel.chatId(type, apiId)
    }

    /// The entity id commands take after the prefix.
    public var apiId: Int64? {
        switch self {
        case .direct(let c): c.contactId
        case .group(let g, _): g.groupId
        case .local(let f): f.noteFolderId
        case .contactRequest(let r): r.contactRequestId
        case .contactConnection(let c): c.pccConnId
        case .unknown: nil
        }
    }

    /// The name shown in the chat list.
    public var displayName: String {
        switch self {
        case .direct(let c): c.profile.displayName
        case .group(let g, _): g.localDisplayName
        case .local: "Notes"
        case .contactRequest(let r): r.profile.displayName
        case .contactConnection(let c): c.localAlias
        case .unknown: ""
        }
    }
}

extension ChatItem {
    /// The item's database id (`meta.itemId`).
    public var id: Int64 { meta.itemId }
}
