/// A local user profile (TYPES.md User): one of possibly several identities in the same database.
public struct User: Codable, Sendable, Hashable {
    public var userId: Int64
    public var agentUserId: AgentUserId
    /// The contact record that represents the user.
    public var userContactId: Int64
    public var localDisplayName: String
    public var profile: LocalProfile
    public var fullPreferences: FullPreferences
    public var activeUser: Bool
    public var activeOrder: Int64
    /// Set for hidden users.
    public var viewPwdHash: UserPwdHash?
    public var showNtfs: Bool
    public var sendRcptsContacts: Bool
    public var sendRcptsSmallGroups: Bool
    public var autoAcceptMemberContacts: Bool
    public var userMemberProfileUpdatedAt: UTCTime?
    public var clientService: Bool
    public var uiThemes: UIThemeEntityOverrides?

    public init(
        userId: Int64, agentUserId: AgentUserId, userContactId: Int64, localDisplayName: String, profile: LocalProfile,
        fullPreferences: FullPreferences = .defaults, activeUser: Bool, activeOrder: Int64 = 0,
        viewPwdHash: UserPwdHash? = nil, showNtfs: Bool = true, sendRcptsContacts: Bool = true,
        sendRcptsSmallGroups: Bool = true, autoAcceptMemberContacts: Bool = false,
        userMemberProfileUpdatedAt: UTCTime? = nil, clientService: Bool = false, uiThemes: UIThemeEntityOverrides? = nil
    ) {
        self.userId = userId
        self.agentUserId = agentUserId
        self.userContactId = userContactId
        self.localDisplayName = localDisplayName
        self.profile = profile
        self.fullPreferences = fullPreferences
        self.activeUser = activeUser
        self.activeOrder = activeOrder
        self.viewPwdHash = viewPwdHash
        self.showNtfs = showNtfs
        self.sendRcptsContacts = sendRcptsContacts
        self.sendRcptsSmallGroups = sendRcptsSmallGroups
        self.autoAcceptMemberContacts = autoAcceptMemberContacts
        self.userMemberProfileUpdatedAt = userMemberProfileUpdatedAt
        self.clientService = clientService
        self.uiThemes = uiThemes
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        userId = try c.v("userId")
        agentUserId = try c.v("agentUserId")
        userContactId = try c.v("userContactId")
        localDisplayName = try c.v("localDisplayName")
        profile = try c.v("profile")
        fullPreferences = try c.v("fullPreferences")
        activeUser = try c.v("activeUser")
        activeOrder = try c.v("activeOrder", default: 0)
        viewPwdHash = try c.opt("viewPwdHash")
        showNtfs = try c.v("showNtfs")
        sendRcptsContacts = try c.v("sendRcptsContacts")
        sendRcptsSmallGroups = try c.v("sendRcptsSmallGroups")
        // Members added in later versions: absent from older peers' JSON.
        autoAcceptMemberContacts = try c.v("autoAcceptMemberContacts", default: false)
        userMemberProfileUpdatedAt = try c.opt("userMemberProfileUpdatedAt")
        clientService = try c.v("clientService", default: false)
        uiThemes = try c.opt("uiThemes")
    }
}

/// The hash and salt of a hidden user's password (TYPES.md UserPwdHash).
public struct UserPwdHash: Codable, Sendable, Hashable {
    public var hash: String
    public var salt: String
    public init(hash: String, salt: String) {
        self.hash = hash
        self.salt = salt
    }
}

/// A user with its unread count, for the users list (TYPES.md UserInfo).
public struct UserInfo: Codable, Sendable, Hashable {
    public var user: User
    public var unreadCount: Int
    public init(user: User, unreadCount: Int) {
        self.user = user
        self.unreadCount = unreadCount
    }
}

/// The argument of `/_create user` (TYPES.md NewUser).
public struct NewUser: Codable, Sendable, Hashable {
    public var profile: Profile?
    public var pastTimestamp: Bool
    public var clientService: Bool

    public init(profile: Profile?, pastTimestamp: Bool = false, clientService: Bool = false) {
        self.profile = profile
        self.pastTimestamp = pastTimestamp
        self.clientService = clientService
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        profile = try c.opt("profile")
        // SDKs send only the profile; simplex-chat defaults both flags to false.
        pastTimestamp = try c.v("pastTimestamp", default: false)
        clientService = try c.v("clientService", default: false)
    }
}

/// How a profile update reached the user's contacts (TYPES.md UserProfileUpdateSummary).
public struct UserProfileUpdateSummary: Codable, Sendable, Hashable {
    public var updateSuccesses: Int
    public var updateFailures: Int
    public var changedContacts: [Contact]
    public init(updateSuccesses: Int, updateFailures: Int, changedContacts: [Contact]) {
        self.updateSuccesses = updateSuccesses
        self.updateFailures = updateFailures
        self.changedContacts = changedContacts
    }
}

/// The agent's user id as simplex-chat writes it in JSON: a string of the decimal number
/// (`AgentUserId`'s StrEncoding); a number is accepted when reading.
public struct AgentUserId: Codable, Sendable, Hashable, ExpressibleByIntegerLiteral {
    public var value: Int64
    public init(_ value: Int64) { self.value = value }
    public init(integerLiteral value: Int64) { self.value = value }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let n = try? c.decode(Int64.self) {
            value = n
        } else if let v = Int64(try c.decode(String.self)) {
            value = v
        } else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "agentUserId is not a number")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(String(value))
    }
}
