/// An event the core sends without a command (EVENTS.md); JSON `{"type": "<tag>", ...fields}`.
public enum ChatEvent: Sendable, Hashable, Codable {
    case contactConnected(user: User, contact: Contact, userCustomProfile: Profile?)
    case contactSndReady(user: User, contact: Contact)
    case contactConnecting(user: User, contact: Contact)
    case acceptingContactRequest(user: User, contact: Contact)
    case receivedContactRequest(user: User, contactRequest: UserContactRequest, chat_: AChat?)
    case contactUpdated(user: User, fromContact: Contact, toContact: Contact)
    case contactDeletedByContact(user: User, contact: Contact)
    case newChatItems(user: User, chatItems: [AChatItem])
    case chatItemUpdated(user: User, chatItem: AChatItem)
    case chatItemNotChanged(user: User, chatItem: AChatItem)
    case chatItemsDeleted(user: User, chatItemDeletions: [ChatItemDeletion], byUser: Bool, timed: Bool)
    case chatItemReaction(user: User, added: Bool, reaction: ACIReaction)
    case chatItemsStatusesUpdated(user: User, chatItems: [AChatItem])
    case hostConnected(protocol: String, transportHost: String)
    case hostDisconnected(protocol: String, transportHost: String)
    case subscriptionStatus(server: String, subscriptionStatus: SubscriptionStatus, connections: [String])
    case messageError(user: User, severity: String, errorMessage: String)
    case chatError(chatError: ChatError)
    case chatErrors(chatErrors: [ChatError])
    /// A member of a newer version, kept raw.
    case unknown(JSONValue)


    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        switch try c.tag() {
        case "contactConnected": self = try .contactConnected(user: c.v("user"), contact: c.v("contact"), userCustomProfile: c.opt("userCustomProfile"))
        case "contactSndReady": self = try .contactSndReady(user: c.v("user"), contact: c.v("contact"))
        case "contactConnecting": self = try .contactConnecting(user: c.v("user"), contact: c.v("contact"))
        case "acceptingContactRequest": self = try .acceptingContactRequest(user: c.v("user"), contact: c.v("contact"))
        case "receivedContactRequest": self = try .receivedContactRequest(user: c.v("user"), contactRequest: c.v("contactRequest"), chat_: c.opt("chat_"))
        case "contactUpdated": self = try .contactUpdated(user: c.v("user"), fromContact: c.v("fromContact"), toContact: c.v("toContact"))
        case "contactDeletedByContact": self = try .contactDeletedByContact(user: c.v("user"), contact: c.v("contact"))
        case "newChatItems": self = try .newChatItems(user: c.v("user"), chatItems: c.v("chatItems"))
        case "chatItemUpdated": self = try .chatItemUpdated(user: c.v("user"), chatItem: c.v("chatItem"))
        case "chatItemNotChanged": self = try .chatItemNotChanged(user: c.v("user"), chatItem: c.v("chatItem"))
        case "chatItemsDeleted": self = try .chatItemsDeleted(user: c.v("user"), chatItemDeletions: c.v("chatItemDeletions"), byUser: c.v("byUser"), timed: c.v("timed"))
        case "chatItemReaction": self = try .chatItemReaction(user: c.v("user"), added: c.v("added"), reaction: c.v("reaction"))
        case "chatItemsStatusesUpdated": self = try .chatItemsStatusesUpdated(user: c.v("user"), chatItems: c.v("chatItems"))
        case "hostConnected": self = try .hostConnected(protocol: c.v("protocol"), transportHost: c.v("transportHost"))
        case "hostDisconnected": self = try .hostDisconnected(protocol: c.v("protocol"), transportHost: c.v("transportHost"))
        case "subscriptionStatus": self = try .subscriptionStatus(server: c.v("server"), subscriptionStatus: c.v("subscriptionStatus"), connections: c.v("connections"))
        case "messageError": self = try .messageError(user: c.v("user"), severity: c.v("severity"), errorMessage: c.v("errorMessage"))
        case "chatError": self = try .chatError(chatError: c.v("chatError"))
        case "chatErrors": self = try .chatErrors(chatErrors: c.v("chatErrors"))
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
        case .contactConnected(let user, let contact, let userCustomProfile):
            try c.tag("contactConnected")
            try c.put(user, "user")
            try c.put(contact, "contact")
            try c.put(userCustomProfile, "userCustomProfile")
        case .contactSndReady(let user, let contact):
            try c.tag("contactSndReady")
            try c.put(user, "user")
            try c.put(contact, "contact")
        case .contactConnecting(let user, let contact):
            try c.tag("contactConnecting")
            try c.put(user, "user")
            try c.put(contact, "contact")
        case .acceptingContactRequest(let user, let contact):
            try c.tag("acceptingContactRequest")
            try c.put(user, "user")
            try c.put(contact, "contact")
        case .receivedContactRequest(let user, let contactRequest, let chat_):
            try c.tag("receivedContactRequest")
            try c.put(user, "user")
            try c.put(contactRequest, "contactRequest")
            try c.put(chat_, "chat_")
        case .contactUpdated(let user, let fromContact, let toContact):
            try c.tag("contactUpdated")
            try c.put(user, "user")
            try c.put(fromContact, "fromContact")
            try c.put(toContact, "toContact")
        case .contactDeletedByContact(let user, let contact):
            try c.tag("contactDeletedByContact")
            try c.put(user, "user")
            try c.put(contact, "contact")
        case .newChatItems(let user, let chatItems):
            try c.tag("newChatItems")
            try c.put(user, "user")
            try c.put(chatItems, "chatItems")
        case .chatItemUpdated(let user, let chatItem):
            try c.tag("chatItemUpdated")
            try c.put(user, "user")
            try c.put(chatItem, "chatItem")
        case .chatItemNotChanged(let user, let chatItem):
            try c.tag("chatItemNotChanged")
            try c.put(user, "user")
            try c.put(chatItem, "chatItem")
        case .chatItemsDeleted(let user, let chatItemDeletions, let byUser, let timed):
            try c.tag("chatItemsDeleted")
            try c.put(user, "user")
            try c.put(chatItemDeletions, "chatItemDeletions")
            try c.put(byUser, "byUser")
            try c.put(timed, "timed")
        case .chatItemReaction(let user, let added, let reaction):
            try c.tag("chatItemReaction")
            try c.put(user, "user")
            try c.put(added, "added")
            try c.put(reaction, "reaction")
        case .chatItemsStatusesUpdated(let user, let chatItems):
            try c.tag("chatItemsStatusesUpdated")
            try c.put(user, "user")
            try c.put(chatItems, "chatItems")
        case .hostConnected(let `protocol`, let transportHost):
            try c.tag("hostConnected")
            try c.put(`protocol`, "protocol")
            try c.put(transportHost, "transportHost")
        case .hostDisconnected(let `protocol`, let transportHost):
            try c.tag("hostDisconnected")
            try c.put(`protocol`, "protocol")
            try c.put(transportHost, "transportHost")
        case .subscriptionStatus(let server, let subscriptionStatus, let connections):
            try c.tag("subscriptionStatus")
            try c.put(server, "server")
            try c.put(subscriptionStatus, "subscriptionStatus")
            try c.put(connections, "connections")
        case .messageError(let user, let severity, let errorMessage):
            try c.tag("messageError")
            try c.put(user, "user")
            try c.put(severity, "severity")
            try c.put(errorMessage, "errorMessage")
        case .chatError(let chatError):
            try c.tag("chatError")
            try c.put(chatError, "chatError")
        case .chatErrors(let chatErrors):
            try c.tag("chatErrors")
            try c.put(chatErrors, "chatErrors")
        case .unknown: break
        }
    }
}
