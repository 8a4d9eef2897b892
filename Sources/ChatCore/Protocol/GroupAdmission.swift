/// Member admission in the group sub-protocol (chat versions 14 and 15): how a host answers a
/// join request through its group link, and why it refuses one.

/// Whether a host admitted a joining member (`accepted` in x.grp.link.inv, `acceptance` in
/// x.grp.link.acpt; Types/Shared.hs GroupAcceptance, StrEncoding).
public enum GroupAcceptance: String, Codable, Sendable, Hashable {
    case accepted
    /// The host's bot (or admin) still has to approve the member ("knocking").
    case pendingApproval = "pending"
    /// Admins review the member in its support chat before it joins the others.
    case pendingReview = "pending_review"

    /// simplex-chat `acceptanceToStatus`: the member status a join starts with; a group that
    /// reviews all members holds even an accepted joiner for review.
    public func initialStatus(admission: GroupMemberAdmission?) -> GroupMemberStatus {
        switch self {
        case .pendingApproval: .pendingApproval
        case .pendingReview: .pendingReview
        case .accepted: admission?.review == .all ? .pendingReview : .accepted
        }
    }
}

/// Why a host refused a join (Types.hs GroupRejectionReason, StrEncoding): reasons this
/// version does not know are kept as text.
public enum GroupRejectionReason: Codable, Sendable, Hashable {
    case longName
    case blockedName
    case unknown(text: String)

    public var text: String {
        switch self {
        case .longName: "long_name"
        case .blockedName: "blocked_name"
        case .unknown(let t): t
        }
    }

    public init(text: String) {
        switch text {
        case "long_name": self = .longName
        case "blocked_name": self = .blockedName
        default: self = .unknown(text: text)
        }
    }

    public init(from decoder: any Decoder) throws {
        self.init(text: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(text)
    }
}

/// `x.grp.link.reject` (chat version 14+): the host's answer, in the connection handshake, to
/// a join it refuses (Types.hs GroupLinkRejection).
public struct GroupLinkRejection: Codable, Sendable, Hashable {
    public var fromMember: MemberIdRole
    public var invitedMember: MemberIdRole
    public var groupProfile: GroupProfile
    public var rejectionReason: GroupRejectionReason

    public init(fromMember: MemberIdRole, invitedMember: MemberIdRole, groupProfile: GroupProfile, rejectionReason: GroupRejectionReason) {
        self.fromMember = fromMember
        self.invitedMember = invitedMember
        self.groupProfile = groupProfile
        self.rejectionReason = rejectionReason
    }
}

/// What a host decides about a join request through its group link (simplex-chat's
/// `acceptMember` chat hook, which bots such as the directory service set).
public enum GroupJoinDecision: Sendable, Hashable {
    case accept(GroupAcceptance, role: GroupMemberRole)
    case reject(GroupRejectionReason)
}
