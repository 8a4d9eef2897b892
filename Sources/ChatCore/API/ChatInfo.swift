/// Kinds of chat (TYPES.md ChatType) with the prefix commands use for each: `@2`, `#3`, `*1`,
/// `:4` (a pending connection) and `<@5` (a contact request).
public enum ChatType: String, Codable, Sendable, Hashable, CaseIterable {
    case direct
    case group
    case local
    case contactRequest
    case contactConnection

    /// The command prefix.
    public var prefix: String {
        switch self {
        case .direct: "@"
        case .group: "#"
        case .local: "*"
        case .contactRequest: "<@"
        case .contactConnection: ":"
        }
    }
}

/// A chat named by type and ID, as commands take it (TYPES.md ChatRef); syntax
/// `<prefix><chatId>[<scope>]`, the scope only for groups.
public struct ChatRef: Codable, Sendable, Hashable {
    public var chatType: ChatType
    public var chatId: Int64
    public var chatScope: GroupChatScope?

    public init(_ chatType: ChatType, _ chatId: Int64, scope: GroupChatScope? = nil) {
        self.chatType = chatType
        self.chatId = chatId
        chatScope = scope
    }

    public static func direct(_ id: Int64) -> ChatRef { ChatRef(.direct, id) }
    public static func group(_ id: Int64, scope: GroupChatScope? = nil) -> ChatRef { ChatRef(.group, id, scope: scope) }
    public static func local(_ id: Int64) -> ChatRef { ChatRef(.local, id) }
    public static func contactConnection(_ id: Int64) -> ChatRef { ChatRef(.contactConnection, id) }

    /// The command form, e.g. `#3(_support:7)`.
    public var commandString: String {
        chatType.prefix + String(chatId) + (chatScope?.commandString ?? "")
    }
}

/// The chat a chat item or preview belongs to (TYPES.md ChatInfo).
public enum ChatInfo: Sendable, Hashable, Codable {
    case direct(contact: Contact)
    case group(groupInfo: GroupInfo, groupChatScope: GroupChatScopeInfo?)
    case local(noteFolder: NoteFolder)
    case contactRequest(contactRequest: UserContactRequest)
    case contactConnection(contactConnection: PendingContactConnection)
    /// A kind from a newer version, kept raw.
    case unknown(JSONValue)

    public var chatType: ChatType? {
        switch self {
        case .direct: .direct
        case .group: .group
        case .local: .local
        case .contactRequest: .contactRequest
        case .contactConnection: .contactConnection
        case .unknown: nil
        }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        switch try c.tag() {
        case "direct": self = try .direct(contact: c.v("contact"))
        case "group": self = try .group(groupInfo: c.v("groupInfo"), groupChatScope: c.opt("groupChatScope"))
        case "local": self = try .local(noteFolder: c.v("noteFolder"))
        case "contactRequest": self = try .contactRequest(contactRequest: c.v("contactRequest"))
        case "contactConnection": self = try .contactConnection(contactConnection: c.v("contactConnection"))
        default: self = try .unknown(rawJSON(decoder))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        if case .unknown(let json) = self {
            try json.encode(to: encoder)
            return
        }
        var c = encoder.container(keyedBy: JSONKey.self)
        switch self {
        case .direct(let contact):
            try c.tag("direct")
            try c.put(contact, "contact")
        case .group(let groupInfo, let scope):
            try c.tag("group")
            try c.put(groupInfo, "groupInfo")
            try c.put(scope, "groupChatScope")
        case .local(let folder):
            try c.tag("local")
            try c.put(folder, "noteFolder")
        case .contactRequest(let req):
            try c.tag("contactRequest")
            try c.put(req, "contactRequest")
        case .contactConnection(let conn):
            try c.tag("contactConnection")
            try c.put(conn, "contactConnection")
        case .unknown: break
        }
    }
}

/// Unread counters of a chat preview (TYPES.md ChatStats).
public struct ChatStats: Codable, Sendable, Hashable {
    public var unreadCount: Int
    public var unreadMentions: Int
    public var reportsCount: Int
    public var minUnreadItemId: Int64
    public var unreadChat: Bool

    public init(unreadCount: Int = 0, unreadMentions: Int = 0, reportsCount: Int = 0, minUnreadItemId: Int64 = 0, unreadChat: Bool = false) {
        self.unreadCount = unreadCount
        self.unreadMentions = unreadMentions
        self.reportsCount = reportsCount
        self.minUnreadItemId = minUnreadItemId
        self.unreadChat = unreadChat
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        unreadCount = try c.v("unreadCount")
        unreadMentions = try c.v("unreadMentions", default: 0)
        reportsCount = try c.v("reportsCount", default: 0)
        minUnreadItemId = try c.v("minUnreadItemId")
        unreadChat = try c.v("unreadChat")
    }
}

/// A chat with (some of) its items and counters: the `/_get chats` previews and `/_get chat`
/// pages (TYPES.md AChat).
public struct AChat: Codable, Sendable, Hashable {
    public var chatInfo: ChatInfo
    public var chatItems: [ChatItem]
    public var chatStats: ChatStats

    public init(chatInfo: ChatInfo, chatItems: [ChatItem], chatStats: ChatStats = ChatStats()) {
        self.chatInfo = chatInfo
        self.chatItems = chatItems
        self.chatStats = chatStats
    }
}

/// Where a `/_get chat` page sits among the chat's items (simplex-chat `NavigationInfo`).
public struct NavigationInfo: Codable, Sendable, Hashable {
    public var afterUnread: Int
    public var afterTotal: Int
    public init(afterUnread: Int = 0, afterTotal: Int = 0) {
        self.afterUnread = afterUnread
        self.afterTotal = afterTotal
    }
}
