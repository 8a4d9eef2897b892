/// The params of the group sub-protocol (`x.grp.*`, simplex-chat.md "Sub-protocol for chat groups"
/// and its JTD schema), with simplex-chat's field names.

/// A member named by ID and role (`memberIdRole`).
public struct MemberIdRole: Codable, Sendable, Hashable {
    public var memberId: MemberId
    public var memberRole: GroupMemberRole

    public init(memberId: MemberId, memberRole: GroupMemberRole) {
        self.memberId = memberId
        self.memberRole = memberRole
    }
}

/// A member as introduced to others (`memberInfo`): ID, role, chat versions and profile.
public struct MemberInfo: Codable, Sendable, Hashable {
    public var memberId: MemberId
    public var memberRole: GroupMemberRole
    /// The member's chat protocol versions, as "min-max" (omitted by old clients).
    public var v: String?
    public var profile: Profile

    public init(memberId: MemberId, memberRole: GroupMemberRole, v: String? = nil, profile: Profile) {
        self.memberId = memberId
        self.memberRole = memberRole
        self.v = v
        self.profile = profile
    }
}

/// The links a new member makes for an existing one (`introInvitation`): the group member
/// connection and, from older clients, a direct one.
public struct IntroInvitation: Codable, Sendable, Hashable {
    public var groupConnReq: String
    public var directConnReq: String?

    public init(groupConnReq: String, directConnReq: String? = nil) {
        self.groupConnReq = groupConnReq
        self.directConnReq = directConnReq
    }
}

/// Restrictions an admin puts on a member (`x.grp.mem.restrict`, `x.grp.mem.intro`).
public struct MemberRestrictions: Codable, Sendable, Hashable {
    public enum Restriction: String, Codable, Sendable, Hashable {
        case blocked, unrestricted
    }

    public var restriction: Restriction

    public init(restriction: Restriction) { self.restriction = restriction }
}

/// `x.grp.inv`: an invitation to a group sent over a direct connection.
public struct GroupInvitation: Codable, Sendable, Hashable {
    public var fromMember: MemberIdRole
    public var fromMemberProfile: Profile?
    public var invitedMember: MemberIdRole
    /// The inviting member's invitation link for the group member connection.
    public var connRequest: String
    public var groupProfile: GroupProfile
    public var business: BusinessChatInfo?
    /// Set when the invitation answers a join through the group link.
    public var groupLinkId: String?
    public var groupSize: Int?

    public init(
        fromMember: MemberIdRole, fromMemberProfile: Profile? = nil, invitedMember: MemberIdRole, connRequest: String,
        groupProfile: GroupProfile, business: BusinessChatInfo? = nil, groupLinkId: String? = nil, groupSize: Int? = nil
    ) {
        self.fromMember = fromMember
        self.fromMemberProfile = fromMemberProfile
        self.invitedMember = invitedMember
        self.connRequest = connRequest
        self.groupProfile = groupProfile
        self.business = business
        self.groupLinkId = groupLinkId
        self.groupSize = groupSize
    }
}

/// `x.grp.link.inv`: sent by the host, in the connection handshake, to a member joining through
/// the group link.
public struct GroupLinkInvitation: Codable, Sendable, Hashable {
    public var fromMember: MemberIdRole
    public var fromMemberName: String
    public var invitedMember: MemberIdRole
    public var groupProfile: GroupProfile
    public var accepted: String?
    public var business: BusinessChatInfo?
    public var groupSize: Int?

    public init(
        fromMember: MemberIdRole, fromMemberName: String, invitedMember: MemberIdRole, groupProfile: GroupProfile,
        accepted: String? = nil, business: BusinessChatInfo? = nil, groupSize: Int? = nil
    ) {
        self.fromMember = fromMember
        self.fromMemberName = fromMemberName
        self.invitedMember = invitedMember
        self.groupProfile = groupProfile
        self.accepted = accepted
        self.business = business
        self.groupSize = groupSize
    }
}
