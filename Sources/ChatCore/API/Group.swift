/// Groups as they appear in chat info and chat items (TYPES.md GroupInfo, GroupMember and parts).

public struct GroupInfo: Codable, Sendable, Hashable {
    public var groupId: Int64
    public var useRelays: Bool
    public var localDisplayName: String
    public var groupProfile: GroupProfile
    public var localAlias: String
    public var businessChat: BusinessChatInfo?
    public var fullGroupPreferences: FullGroupPreferences
    /// The user's own membership.
    public var membership: GroupMember
    public var chatSettings: ChatSettings
    public var createdAt: UTCTime
    public var updatedAt: UTCTime
    public var chatTs: UTCTime?
    public var userMemberProfileSentAt: UTCTime?
    public var preparedGroup: PreparedGroup?
    public var chatTags: [Int64]
    public var chatItemTTL: Int64?
    public var uiThemes: UIThemeEntityOverrides?
    public var customData: [String: JSONValue]?
    public var groupSummary: GroupSummary
    public var membersRequireAttention: Int
    public var viaGroupLinkUri: String?

    public init(
        groupId: Int64, localDisplayName: String, groupProfile: GroupProfile, localAlias: String = "",
        fullGroupPreferences: FullGroupPreferences, membership: GroupMember, chatSettings: ChatSettings = ChatSettings(),
        createdAt: UTCTime, updatedAt: UTCTime, chatTs: UTCTime? = nil, groupSummary: GroupSummary, viaGroupLinkUri: String? = nil
    ) {
        self.groupId = groupId
        self.useRelays = false
        self.localDisplayName = localDisplayName
        self.groupProfile = groupProfile
        self.localAlias = localAlias
        self.businessChat = nil
        self.fullGroupPreferences = fullGroupPreferences
        self.membership = membership
        self.chatSettings = chatSettings
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.chatTs = chatTs
        self.userMemberProfileSentAt = nil
        self.preparedGroup = nil
        self.chatTags = []
        self.chatItemTTL = nil
        self.uiThemes = nil
        self.customData = nil
        self.groupSummary = groupSummary
        self.membersRequireAttention = 0
        self.viaGroupLinkUri = viaGroupLinkUri
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        groupId = try c.v("groupId")
        useRelays = try c.v("useRelays", default: false)
        localDisplayName = try c.v("localDisplayName")
        groupProfile = try c.v("groupProfile")
        localAlias = try c.v("localAlias", default: "")
        businessChat = try c.opt("businessChat")
        fullGroupPreferences = try c.v("fullGroupPreferences")
        membership = try c.v("membership")
        chatSettings = try c.v("chatSettings")
        createdAt = try c.v("createdAt")
        updatedAt = try c.v("updatedAt")
        chatTs = try c.opt("chatTs")
        userMemberProfileSentAt = try c.opt("userMemberProfileSentAt")
        preparedGroup = try c.opt("preparedGroup")
        chatTags = try c.v("chatTags", default: [])
        chatItemTTL = try c.opt("chatItemTTL")
        uiThemes = try c.opt("uiThemes")
        customData = try c.opt("customData")
        groupSummary = try c.v("groupSummary", default: GroupSummary(currentMembers: 0))
        membersRequireAttention = try c.v("membersRequireAttention", default: 0)
        viaGroupLinkUri = try c.opt("viaGroupLinkUri")
    }
}

/// TYPES.md GroupProfile.
public struct GroupProfile: Codable, Sendable, Hashable {
    public var displayName: String
    public var fullName: String
    public var shortDescr: String?
    public var description: String?
    public var image: String?
    public var groupPreferences: GroupPreferences?
    public var memberAdmission: GroupMemberAdmission?

    public init(
        displayName: String, fullName: String = "", shortDescr: String? = nil, description: String? = nil,
        image: String? = nil, groupPreferences: GroupPreferences? = nil, memberAdmission: GroupMemberAdmission? = nil
    ) {
        self.displayName = displayName
        self.fullName = fullName
        self.shortDescr = shortDescr
        self.description = description
        self.image = image
        self.groupPreferences = groupPreferences
        self.memberAdmission = memberAdmission
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        displayName = try c.v("displayName")
        fullName = try c.v("fullName", default: "")
        shortDescr = try c.opt("shortDescr")
        description = try c.opt("description")
        image = try c.opt("image")
        groupPreferences = try c.opt("groupPreferences")
        memberAdmission = try c.opt("memberAdmission")
    }
}

public enum GroupFeatureEnabled: String, Codable, Sendable, Hashable {
    case on, off
}

public struct GroupPreference: Codable, Sendable, Hashable {
    public var enable: GroupFeatureEnabled
    public init(enable: GroupFeatureEnabled) { self.enable = enable }
}

public struct RoleGroupPreference: Codable, Sendable, Hashable {
    public var enable: GroupFeatureEnabled
    public var role: GroupMemberRole?
}

public struct TimedMessagesGroupPreference: Codable, Sendable, Hashable {
    public var enable: GroupFeatureEnabled
    public var ttl: Int?
}

/// TYPES.md GroupPreferences (every member optional).
public struct GroupPreferences: Codable, Sendable, Hashable {
    public var timedMessages: TimedMessagesGroupPreference?
    public var directMessages: RoleGroupPreference?
    public var fullDelete: GroupPreference?
    public var reactions: GroupPreference?
    public var voice: RoleGroupPreference?
    public var files: RoleGroupPreference?
    public var simplexLinks: RoleGroupPreference?
    public var reports: GroupPreference?
    public var history: GroupPreference?
    public var sessions: RoleGroupPreference?
    public var commands: [ChatBotCommand]?
}

/// TYPES.md FullGroupPreferences; members a peer omits are left off on re-encoding.
public struct FullGroupPreferences: Codable, Sendable, Hashable {
    public var timedMessages: TimedMessagesGroupPreference
    public var directMessages: RoleGroupPreference
    public var fullDelete: GroupPreference
    public var reactions: GroupPreference
    public var voice: RoleGroupPreference
    public var files: RoleGroupPreference
    public var simplexLinks: RoleGroupPreference
    public var reports: GroupPreference
    public var history: GroupPreference
    public var sessions: RoleGroupPreference?
    public var commands: [ChatBotCommand]?

    /// simplex-chat's defaults for a new group (`defaultGroupPrefs`), with the group's own
    /// preferences laid over them.
    public static func merged(_ p: GroupPreferences?) -> FullGroupPreferences {
        FullGroupPreferences(
            timedMessages: p?.timedMessages ?? TimedMessagesGroupPreference(enable: .off, ttl: 86400),
            directMessages: p?.directMessages ?? RoleGroupPreference(enable: .off, role: nil),
            fullDelete: p?.fullDelete ?? GroupPreference(enable: .off),
            reactions: p?.reactions ?? GroupPreference(enable: .on),
            voice: p?.voice ?? RoleGroupPreference(enable: .on, role: nil),
            files: p?.files ?? RoleGroupPreference(enable: .on, role: nil),
            simplexLinks: p?.simplexLinks ?? RoleGroupPreference(enable: .on, role: nil),
            reports: p?.reports ?? GroupPreference(enable: .on),
            history: p?.history ?? GroupPreference(enable: .on),
            sessions: p?.sessions, commands: p?.commands)
    }
}

/// TYPES.md GroupFeature.
public enum GroupFeature: String, Codable, Sendable, Hashable {
    case timedMessages, directMessages, fullDelete, reactions, voice, files, simplexLinks, reports, history, sessions
}

/// TYPES.md GroupMemberRole (the command syntax also accepts these words).
public enum GroupMemberRole: String, Codable, Sendable, Hashable, CaseIterable, Comparable {
    case observer, author, member, moderator, admin, owner

    /// Roles are ordered as listed: observer < author < member < moderator < admin < owner.
    public static func < (a: GroupMemberRole, b: GroupMemberRole) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

public enum GroupMemberCategory: String, Codable, Sendable, Hashable {
    case user, invitee, host, pre, post
}

/// TYPES.md GroupMemberStatus (note the mixed `pending_approval` / `intro-inv` spellings).
public enum GroupMemberStatus: String, Codable, Sendable, Hashable {
    case rejected, removed, left, deleted, unknown, invited
    case pendingApproval = "pending_approval"
    case pendingReview = "pending_review"
    case introduced
    case introInv = "intro-inv"
    case accepted, announced, connected, complete, creator
}

public struct GroupMemberSettings: Codable, Sendable, Hashable {
    public var showMessages: Bool
    public init(showMessages: Bool = true) { self.showMessages = showMessages }
}

extension GroupMemberStatus {
    /// Members that count and receive messages (simplex-chat `memberCurrent`).
    public var isCurrent: Bool {
        switch self {
        case .introduced, .introInv, .accepted, .announced, .connected, .complete, .creator: true
        default: false
        }
    }

    /// Members that can act in the group (`memberActive`).
    public var isActive: Bool {
        switch self {
        case .pendingApproval, .pendingReview, .connected, .complete, .creator: true
        default: false
        }
    }

    /// Members no longer in the group (`memberRemoved`).
    public var isRemoved: Bool {
        switch self {
        case .rejected, .removed, .left, .deleted: true
        default: false
        }
    }
}

/// Who invited a member (TYPES.md InvitedBy).
public enum InvitedBy: Sendable, Hashable, Codable {
    case contact(byContactId: Int64)
    case user
    case unknown

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        switch try c.tag() {
        case "contact": self = try .contact(byContactId: c.v("byContactId"))
        case "user": self = .user
        default: self = .unknown
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONKey.self)
        switch self {
        case .contact(let id):
            try c.tag("contact")
            try c.put(id, "byContactId")
        case .user: try c.tag("user")
        case .unknown: try c.tag("unknown")
        }
    }
}

public struct GroupSupportChat: Codable, Sendable, Hashable {
    public var chatTs: UTCTime
    public var unread: Int64
    public var memberAttention: Int64
    public var mentions: Int64
    public var lastMsgFromMemberTs: UTCTime?
}

/// TYPES.md GroupMember.
public struct GroupMember: Codable, Sendable, Hashable {
    public var groupMemberId: Int64
    public var groupId: Int64
    public var indexInGroup: Int64
    public var memberId: String
    public var memberRole: GroupMemberRole
    public var memberCategory: GroupMemberCategory
    public var memberStatus: GroupMemberStatus
    public var memberSettings: GroupMemberSettings
    public var blockedByAdmin: Bool
    public var invitedBy: InvitedBy
    public var invitedByGroupMemberId: Int64?
    public var localDisplayName: String
    public var memberProfile: LocalProfile
    public var memberContactId: Int64?
    public var memberContactProfileId: Int64
    public var activeConn: Connection?
    public var memberChatVRange: ChatVersionRange
    public var createdAt: UTCTime
    public var updatedAt: UTCTime
    public var supportChat: GroupSupportChat?

    public init(
        groupMemberId: Int64, groupId: Int64, memberId: String, memberRole: GroupMemberRole, memberCategory: GroupMemberCategory,
        memberStatus: GroupMemberStatus, memberSettings: GroupMemberSettings = GroupMemberSettings(), blockedByAdmin: Bool = false,
        invitedBy: InvitedBy, invitedByGroupMemberId: Int64? = nil, localDisplayName: String, memberProfile: LocalProfile,
        memberContactId: Int64? = nil, memberContactProfileId: Int64, activeConn: Connection? = nil,
        memberChatVRange: ChatVersionRange, createdAt: UTCTime, updatedAt: UTCTime
    ) {
        self.groupMemberId = groupMemberId
        self.groupId = groupId
        self.indexInGroup = groupMemberId
        self.memberId = memberId
        self.memberRole = memberRole
        self.memberCategory = memberCategory
        self.memberStatus = memberStatus
        self.memberSettings = memberSettings
        self.blockedByAdmin = blockedByAdmin
        self.invitedBy = invitedBy
        self.invitedByGroupMemberId = invitedByGroupMemberId
        self.localDisplayName = localDisplayName
        self.memberProfile = memberProfile
        self.memberContactId = memberContactId
        self.memberContactProfileId = memberContactProfileId
        self.activeConn = activeConn
        self.memberChatVRange = memberChatVRange
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.supportChat = nil
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        groupMemberId = try c.v("groupMemberId")
        groupId = try c.v("groupId")
        indexInGroup = try c.v("indexInGroup", default: 0)
        memberId = try c.v("memberId")
        memberRole = try c.v("memberRole")
        memberCategory = try c.v("memberCategory")
        memberStatus = try c.v("memberStatus")
        memberSettings = try c.v("memberSettings")
        blockedByAdmin = try c.v("blockedByAdmin", default: false)
        invitedBy = try c.v("invitedBy")
        invitedByGroupMemberId = try c.opt("invitedByGroupMemberId")
        localDisplayName = try c.v("localDisplayName")
        memberProfile = try c.v("memberProfile")
        memberContactId = try c.opt("memberContactId")
        memberContactProfileId = try c.v("memberContactProfileId")
        activeConn = try c.opt("activeConn")
        memberChatVRange = try c.v("memberChatVRange")
        createdAt = try c.v("createdAt")
        updatedAt = try c.v("updatedAt")
        supportChat = try c.opt("supportChat")
    }
}

public enum MemberCriteria: String, Codable, Sendable, Hashable {
    case all
}

public struct GroupMemberAdmission: Codable, Sendable, Hashable {
    public var review: MemberCriteria?
}

public enum BusinessChatType: String, Codable, Sendable, Hashable {
    case business, customer
}

public struct BusinessChatInfo: Codable, Sendable, Hashable {
    public var chatType: BusinessChatType
    public var businessId: String
    public var customerId: String

    public init(chatType: BusinessChatType, businessId: String, customerId: String) {
        self.chatType = chatType
        self.businessId = businessId
        self.customerId = customerId
    }
}

public struct GroupSummary: Codable, Sendable, Hashable {
    public var currentMembers: Int64
    public init(currentMembers: Int64) { self.currentMembers = currentMembers }
}

/// A group with its members, the user excluded (TYPES.md Group, `/_members`).
public struct Group: Codable, Sendable, Hashable {
    public var groupInfo: GroupInfo
    public var members: [GroupMember]
    public init(groupInfo: GroupInfo, members: [GroupMember]) {
        self.groupInfo = groupInfo
        self.members = members
    }
}

public struct PreparedGroup: Codable, Sendable, Hashable {
    public var connLinkToConnect: CreatedConnLink
    public var connLinkPreparedConnection: Bool
    public var connLinkStartedConnection: Bool
    public var welcomeSharedMsgId: String?
    public var requestSharedMsgId: String?

    public init(connLinkToConnect: CreatedConnLink, connLinkPreparedConnection: Bool, connLinkStartedConnection: Bool) {
        self.connLinkToConnect = connLinkToConnect
        self.connLinkPreparedConnection = connLinkPreparedConnection
        self.connLinkStartedConnection = connLinkStartedConnection
    }
}

/// A sub-chat of a group used in commands (TYPES.md GroupChatScope), syntax `(_support[:<id>])`.
public enum GroupChatScope: Sendable, Hashable, Codable {
    case memberSupport(groupMemberId_: Int64?)

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        switch try c.tag() {
        case "memberSupport": self = try .memberSupport(groupMemberId_: c.opt("groupMemberId_"))
        case let t: throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "unknown GroupChatScope \(t)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONKey.self)
        switch self {
        case .memberSupport(let id):
            try c.tag("memberSupport")
            try c.put(id, "groupMemberId_")
        }
    }

    /// The command form.
    public var commandString: String {
        switch self {
        case .memberSupport(let id): "(_support" + (id.map { ":\($0)" } ?? "") + ")"
        }
    }
}

/// The scope as shown in chat info (TYPES.md GroupChatScopeInfo).
public enum GroupChatScopeInfo: Sendable, Hashable, Codable {
    case memberSupport(groupMember_: GroupMember?)

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        switch try c.tag() {
        case "memberSupport": self = try .memberSupport(groupMember_: c.opt("groupMember_"))
        case let t: throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "unknown GroupChatScopeInfo \(t)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONKey.self)
        switch self {
        case .memberSupport(let m):
            try c.tag("memberSupport")
            try c.put(m, "groupMember_")
        }
    }
}

public struct GroupShortLinkData: Codable, Sendable, Hashable {
    public var groupProfile: GroupProfile
    public init(groupProfile: GroupProfile) { self.groupProfile = groupProfile }
}

/// A group link (TYPES.md GroupLink).
public struct GroupLink: Codable, Sendable, Hashable {
    public var userContactLinkId: Int64
    public var connLinkContact: CreatedConnLink
    public var shortLinkDataSet: Bool
    public var shortLinkLargeDataSet: Bool
    public var groupLinkId: String
    public var acceptMemberRole: GroupMemberRole

    public init(userContactLinkId: Int64, connLinkContact: CreatedConnLink, groupLinkId: String, acceptMemberRole: GroupMemberRole) {
        self.userContactLinkId = userContactLinkId
        self.connLinkContact = connLinkContact
        self.shortLinkDataSet = false
        self.shortLinkLargeDataSet = false
        self.groupLinkId = groupLinkId
        self.acceptMemberRole = acceptMemberRole
    }
}

/// A member named in a connection event (TYPES.md GroupMemberRef).
public struct GroupMemberRef: Codable, Sendable, Hashable {
    public var groupMemberId: Int64
    public var profile: Profile
}

/// The user's notes chat (TYPES.md NoteFolder).
public struct NoteFolder: Codable, Sendable, Hashable {
    public var noteFolderId: Int64
    public var userId: Int64
    public var createdAt: UTCTime
    public var updatedAt: UTCTime
    public var chatTs: UTCTime
    public var favorite: Bool
    public var unread: Bool

    public init(
        noteFolderId: Int64, userId: Int64, createdAt: UTCTime, updatedAt: UTCTime, chatTs: UTCTime,
        favorite: Bool = false, unread: Bool = false
    ) {
        self.noteFolderId = noteFolderId
        self.userId = userId
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.chatTs = chatTs
        self.favorite = favorite
        self.unread = unread
    }
}
