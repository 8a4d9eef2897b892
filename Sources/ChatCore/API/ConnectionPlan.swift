/// What connecting via a link would do (TYPES.md ConnectionPlan and its parts): the answer to
/// `/_connect plan`, letting a client warn before reconnecting or connecting to itself.

/// TYPES.md ConnectionPlan.
public enum ConnectionPlan: Sendable, Hashable, Codable {
    case invitationLink(invitationLinkPlan: InvitationLinkPlan)
    case contactAddress(contactAddressPlan: ContactAddressPlan)
    case groupLink(groupLinkPlan: GroupLinkPlan)
    case error(chatError: ChatError)
    /// A member of a newer version, kept raw.
    case unknown(JSONValue)


    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        switch try c.tag() {
        case "invitationLink": self = try .invitationLink(invitationLinkPlan: c.v("invitationLinkPlan"))
        case "contactAddress": self = try .contactAddress(contactAddressPlan: c.v("contactAddressPlan"))
        case "groupLink": self = try .groupLink(groupLinkPlan: c.v("groupLinkPlan"))
        case "error": self = try .error(chatError: c.v("chatError"))
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
        case .invitationLink(let invitationLinkPlan):
            try c.tag("invitationLink")
            try c.put(invitationLinkPlan, "invitationLinkPlan")
        case .contactAddress(let contactAddressPlan):
            try c.tag("contactAddress")
            try c.put(contactAddressPlan, "contactAddressPlan")
        case .groupLink(let groupLinkPlan):
            try c.tag("groupLink")
            try c.put(groupLinkPlan, "groupLinkPlan")
        case .error(let chatError):
            try c.tag("error")
            try c.put(chatError, "chatError")
        case .unknown: break
        }
    }
}

/// TYPES.md InvitationLinkPlan.
public enum InvitationLinkPlan: Sendable, Hashable, Codable {
    case ok(contactSLinkData_: ContactShortLinkData?)
    case ownLink
    case connecting(contact_: Contact?)
    case known(contact: Contact)


    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        switch try c.tag() {
        case "ok": self = try .ok(contactSLinkData_: c.opt("contactSLinkData_"))
        case "ownLink": self = .ownLink
        case "connecting": self = try .connecting(contact_: c.opt("contact_"))
        case "known": self = try .known(contact: c.v("contact"))
        case let t: throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "unknown InvitationLinkPlan \(t)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONKey.self)
        switch self {
        case .ok(let contactSLinkData_):
            try c.tag("ok")
            try c.put(contactSLinkData_, "contactSLinkData_")
        case .ownLink: try c.tag("ownLink")
        case .connecting(let contact_):
            try c.tag("connecting")
            try c.put(contact_, "contact_")
        case .known(let contact):
            try c.tag("known")
            try c.put(contact, "contact")
        }
    }
}

/// TYPES.md ContactAddressPlan.
public enum ContactAddressPlan: Sendable, Hashable, Codable {
    case ok(contactSLinkData_: ContactShortLinkData?)
    case ownLink
    case connectingConfirmReconnect
    case connectingProhibit(contact: Contact)
    case known(contact: Contact)
    case contactViaAddress(contact: Contact)


    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        switch try c.tag() {
        case "ok": self = try .ok(contactSLinkData_: c.opt("contactSLinkData_"))
        case "ownLink": self = .ownLink
        case "connectingConfirmReconnect": self = .connectingConfirmReconnect
        case "connectingProhibit": self = try .connectingProhibit(contact: c.v("contact"))
        case "known": self = try .known(contact: c.v("contact"))
        case "contactViaAddress": self = try .contactViaAddress(contact: c.v("contact"))
        case let t: throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "unknown ContactAddressPlan \(t)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONKey.self)
        switch self {
        case .ok(let contactSLinkData_):
            try c.tag("ok")
            try c.put(contactSLinkData_, "contactSLinkData_")
        case .ownLink: try c.tag("ownLink")
        case .connectingConfirmReconnect: try c.tag("connectingConfirmReconnect")
        case .connectingProhibit(let contact):
            try c.tag("connectingProhibit")
            try c.put(contact, "contact")
        case .known(let contact):
            try c.tag("known")
            try c.put(contact, "contact")
        case .contactViaAddress(let contact):
            try c.tag("contactViaAddress")
            try c.put(contact, "contact")
        }
    }
}

/// TYPES.md GroupLinkPlan.
public enum GroupLinkPlan: Sendable, Hashable, Codable {
    case ok(groupSLinkData_: GroupShortLinkData?)
    case ownLink(groupInfo: GroupInfo)
    case connectingConfirmReconnect
    case connectingProhibit(groupInfo_: GroupInfo?)
    case known(groupInfo: GroupInfo)


    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        switch try c.tag() {
        case "ok": self = try .ok(groupSLinkData_: c.opt("groupSLinkData_"))
        case "ownLink": self = try .ownLink(groupInfo: c.v("groupInfo"))
        case "connectingConfirmReconnect": self = .connectingConfirmReconnect
        case "connectingProhibit": self = try .connectingProhibit(groupInfo_: c.opt("groupInfo_"))
        case "known": self = try .known(groupInfo: c.v("groupInfo"))
        case let t: throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "unknown GroupLinkPlan \(t)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONKey.self)
        switch self {
        case .ok(let groupSLinkData_):
            try c.tag("ok")
            try c.put(groupSLinkData_, "groupSLinkData_")
        case .ownLink(let groupInfo):
            try c.tag("ownLink")
            try c.put(groupInfo, "groupInfo")
        case .connectingConfirmReconnect: try c.tag("connectingConfirmReconnect")
        case .connectingProhibit(let groupInfo_):
            try c.tag("connectingProhibit")
            try c.put(groupInfo_, "groupInfo_")
        case .known(let groupInfo):
            try c.tag("known")
            try c.put(groupInfo, "groupInfo")
        }
    }
}

/// The profile (and welcome message) stored with a short contact link (TYPES.md ContactShortLinkData).
public struct ContactShortLinkData: Codable, Sendable, Hashable {
    public var profile: Profile
    public var message: MsgContent?
    public var business: Bool

    public init(profile: Profile, message: MsgContent? = nil, business: Bool = false) {
        self.profile = profile
        self.message = message
        self.business = business
    }
}
