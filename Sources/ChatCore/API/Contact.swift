/// A direct-chat contact (TYPES.md Contact).
public struct Contact: Codable, Sendable, Hashable {
    public var contactId: Int64
    public var localDisplayName: String
    public var profile: LocalProfile
    public var activeConn: Connection?
    public var contactUsed: Bool
    public var contactStatus: ContactStatus
    public var chatSettings: ChatSettings
    /// The user's per-contact overrides.
    public var userPreferences: Preferences
    public var mergedPreferences: ContactUserPreferences
    public var createdAt: UTCTime
    public var updatedAt: UTCTime
    public var chatTs: UTCTime?
    public var preparedContact: PreparedContact?
    public var contactRequestId: Int64?
    public var contactGroupMemberId: Int64?
    public var contactGrpInvSent: Bool
    public var groupDirectInv: GroupDirectInvitation?
    public var chatTags: [Int64]
    public var chatItemTTL: Int64?
    public var uiThemes: UIThemeEntityOverrides?
    public var chatDeleted: Bool
    public var customData: [String: JSONValue]?

    public init(
        contactId: Int64, localDisplayName: String, profile: LocalProfile, activeConn: Connection?,
        contactUsed: Bool = false, contactStatus: ContactStatus = .active, chatSettings: ChatSettings = ChatSettings(),
        userPreferences: Preferences = Preferences(), mergedPreferences: ContactUserPreferences, createdAt: UTCTime,
        updatedAt: UTCTime, chatTs: UTCTime? = nil, preparedContact: PreparedContact? = nil,
        contactRequestId: Int64? = nil, contactGroupMemberId: Int64? = nil, contactGrpInvSent: Bool = false,
        groupDirectInv: GroupDirectInvitation? = nil, chatTags: [Int64] = [], chatItemTTL: Int64? = nil,
        uiThemes: UIThemeEntityOverrides? = nil, chatDeleted: Bool = false, customData: [String: JSONValue]? = nil
    ) {
        self.contactId = contactId
        self.localDisplayName = localDisplayName
        self.profile = profile
        self.activeConn = activeConn
        self.contactUsed = contactUsed
        self.contactStatus = contactStatus
        self.chatSettings = chatSettings
        self.userPreferences = userPreferences
        self.mergedPreferences = mergedPreferences
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.chatTs = chatTs
        self.preparedContact = preparedContact
        self.contactRequestId = contactRequestId
        self.contactGroupMemberId = contactGroupMemberId
        self.contactGrpInvSent = contactGrpInvSent
        self.groupDirectInv = groupDirectInv
        self.chatTags = chatTags
        self.chatItemTTL = chatItemTTL
        self.uiThemes = uiThemes
        self.chatDeleted = chatDeleted
        self.customData = customData
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        contactId = try c.v("contactId")
        localDisplayName = try c.v("localDisplayName")
        profile = try c.v("profile")
        activeConn = try c.opt("activeConn")
        contactUsed = try c.v("contactUsed")
        contactStatus = try c.v("contactStatus")
        chatSettings = try c.v("chatSettings")
        userPreferences = try c.v("userPreferences")
        mergedPreferences = try c.v("mergedPreferences")
        createdAt = try c.v("createdAt")
        updatedAt = try c.v("updatedAt")
        chatTs = try c.opt("chatTs")
        preparedContact = try c.opt("preparedContact")
        contactRequestId = try c.opt("contactRequestId")
        contactGroupMemberId = try c.opt("contactGroupMemberId")
        contactGrpInvSent = try c.v("contactGrpInvSent", default: false)
        groupDirectInv = try c.opt("groupDirectInv")
        chatTags = try c.v("chatTags", default: [])
        chatItemTTL = try c.opt("chatItemTTL")
        uiThemes = try c.opt("uiThemes")
        chatDeleted = try c.v("chatDeleted", default: false)
        customData = try c.opt("customData")
    }
}

/// TYPES.md ContactStatus.
public enum ContactStatus: String, Codable, Sendable, Hashable {
    case active, deleted, deletedByUser
}

/// Which messages notify (TYPES.md MsgFilter).
public enum MsgFilter: String, Codable, Sendable, Hashable {
    case none, all, mentions
}

/// Per-chat settings (TYPES.md ChatSettings).
public struct ChatSettings: Codable, Sendable, Hashable {
    public var enableNtfs: MsgFilter
    public var sendRcpts: Bool?
    public var favorite: Bool

    public init(enableNtfs: MsgFilter = .all, sendRcpts: Bool? = nil, favorite: Bool = false) {
        self.enableNtfs = enableNtfs
        self.sendRcpts = sendRcpts
        self.favorite = favorite
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        enableNtfs = try c.v("enableNtfs")
        sendRcpts = try c.opt("sendRcpts")
        favorite = try c.v("favorite", default: false)
    }
}

/// A contact created from a link before connecting (TYPES.md PreparedContact).
public struct PreparedContact: Codable, Sendable, Hashable {
    public var connLinkToConnect: CreatedConnLink
    public var uiConnLinkType: ConnectionLinkMode
    public var welcomeSharedMsgId: String?
    public var requestSharedMsgId: String?
}

/// An invitation to connect directly, received from a group member (TYPES.md GroupDirectInvitation).
public struct GroupDirectInvitation: Codable, Sendable, Hashable {
    public var groupDirectInvLink: String
    public var fromGroupId_: Int64?
    public var fromGroupMemberId_: Int64?
    public var fromGroupMemberConnId_: Int64?
    public var groupDirectInvStartedConnection: Bool
}

/// A request received via the user's address (TYPES.md UserContactRequest).
public struct UserContactRequest: Codable, Sendable, Hashable {
    public var contactRequestId: Int64
    public var agentInvitationId: String
    public var contactId_: Int64?
    public var businessGroupId_: Int64?
    public var userContactLinkId_: Int64?
    public var cReqChatVRange: ChatVersionRange
    public var localDisplayName: String
    public var profileId: Int64
    public var profile: Profile
    public var createdAt: UTCTime
    public var updatedAt: UTCTime
    public var xContactId: String?
    public var pqSupport: Bool
    public var welcomeSharedMsgId: String?
    public var requestSharedMsgId: String?

    public init(
        contactRequestId: Int64, agentInvitationId: String, contactId_: Int64? = nil, businessGroupId_: Int64? = nil,
        userContactLinkId_: Int64? = nil, cReqChatVRange: ChatVersionRange, localDisplayName: String,
        profileId: Int64, profile: Profile, createdAt: UTCTime, updatedAt: UTCTime, xContactId: String? = nil,
        pqSupport: Bool = false, welcomeSharedMsgId: String? = nil, requestSharedMsgId: String? = nil
    ) {
        self.contactRequestId = contactRequestId
        self.agentInvitationId = agentInvitationId
        self.contactId_ = contactId_
        self.businessGroupId_ = businessGroupId_
        self.userContactLinkId_ = userContactLinkId_
        self.cReqChatVRange = cReqChatVRange
        self.localDisplayName = localDisplayName
        self.profileId = profileId
        self.profile = profile
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.xContactId = xContactId
        self.pqSupport = pqSupport
        self.welcomeSharedMsgId = welcomeSharedMsgId
        self.requestSharedMsgId = requestSharedMsgId
    }
}

/// The user's address (or a group link) as a connection entity (TYPES.md UserContact).
public struct UserContact: Codable, Sendable, Hashable {
    public var userContactLinkId: Int64
    public var connReqContact: String
    public var groupId: Int64?
}
