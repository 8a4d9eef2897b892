/// The user's long-term contact address and what happens to requests sent to it
/// (TYPES.md UserContactLink, AddressSettings, AutoAccept).
public struct UserContactLink: Codable, Sendable, Hashable {
    public var userContactLinkId: Int64
    public var connLinkContact: CreatedConnLink
    public var shortLinkDataSet: Bool
    public var shortLinkLargeDataSet: Bool
    public var addressSettings: AddressSettings

    public init(
        userContactLinkId: Int64, connLinkContact: CreatedConnLink, shortLinkDataSet: Bool = false,
        shortLinkLargeDataSet: Bool = false, addressSettings: AddressSettings = AddressSettings()
    ) {
        self.userContactLinkId = userContactLinkId
        self.connLinkContact = connLinkContact
        self.shortLinkDataSet = shortLinkDataSet
        self.shortLinkLargeDataSet = shortLinkLargeDataSet
        self.addressSettings = addressSettings
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        userContactLinkId = try c.v("userContactLinkId")
        connLinkContact = try c.v("connLinkContact")
        shortLinkDataSet = try c.v("shortLinkDataSet", default: false)
        shortLinkLargeDataSet = try c.v("shortLinkLargeDataSet", default: false)
        addressSettings = try c.v("addressSettings")
    }
}

/// Address settings: business address, automatic acceptance and the automatic reply (welcome
/// message) sent to new contacts (TYPES.md AddressSettings).
public struct AddressSettings: Codable, Sendable, Hashable {
    public var businessAddress: Bool
    /// Nil: requests wait for `/_accept`.
    public var autoAccept: AutoAccept?
    public var autoReply: MsgContent?

    public init(businessAddress: Bool = false, autoAccept: AutoAccept? = nil, autoReply: MsgContent? = nil) {
        self.businessAddress = businessAddress
        self.autoAccept = autoAccept
        self.autoReply = autoReply
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        businessAddress = try c.v("businessAddress", default: false)
        autoAccept = try c.opt("autoAccept")
        autoReply = try c.opt("autoReply")
    }
}

/// TYPES.md AutoAccept.
public struct AutoAccept: Codable, Sendable, Hashable {
    /// Accept with a new random profile instead of the user's.
    public var acceptIncognito: Bool

    public init(acceptIncognito: Bool = false) { self.acceptIncognito = acceptIncognito }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        acceptIncognito = try c.v("acceptIncognito", default: false)
    }
}
