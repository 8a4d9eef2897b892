/// A chat-level connection record (TYPES.md Connection): one agent connection and what it is for.
public struct Connection: Codable, Sendable, Hashable {
    public var connId: Int64
    public var agentConnId: String
    public var connChatVersion: Int
    public var peerChatVRange: ChatVersionRange
    /// 0 for direct connections, higher for connections made via group members.
    public var connLevel: Int
    public var viaContact: Int64?
    public var viaUserContactLink: Int64?
    public var viaGroupLink: Bool
    public var groupLinkId: String?
    public var xContactId: String?
    public var customUserProfileId: Int64?
    public var connType: ConnType
    public var connStatus: ConnStatus
    public var contactConnInitiated: Bool
    public var localAlias: String
    public var entityId: Int64?
    public var connectionCode: SecurityCode?
    public var pqSupport: Bool
    public var pqEncryption: Bool
    public var pqSndEnabled: Bool?
    public var pqRcvEnabled: Bool?
    public var authErrCounter: Int
    public var quotaErrCounter: Int
    public var createdAt: UTCTime

    public init(
        connId: Int64, agentConnId: String, connChatVersion: Int, peerChatVRange: ChatVersionRange, connLevel: Int = 0,
        viaContact: Int64? = nil, viaUserContactLink: Int64? = nil, viaGroupLink: Bool = false,
        groupLinkId: String? = nil, xContactId: String? = nil, customUserProfileId: Int64? = nil,
        connType: ConnType, connStatus: ConnStatus, contactConnInitiated: Bool = false, localAlias: String = "",
        entityId: Int64? = nil, connectionCode: SecurityCode? = nil, pqSupport: Bool = false,
        pqEncryption: Bool = false, pqSndEnabled: Bool? = nil, pqRcvEnabled: Bool? = nil, authErrCounter: Int = 0,
        quotaErrCounter: Int = 0, createdAt: UTCTime
    ) {
        self.connId = connId
        self.agentConnId = agentConnId
        self.connChatVersion = connChatVersion
        self.peerChatVRange = peerChatVRange
        self.connLevel = connLevel
        self.viaContact = viaContact
        self.viaUserContactLink = viaUserContactLink
        self.viaGroupLink = viaGroupLink
        self.groupLinkId = groupLinkId
        self.xContactId = xContactId
        self.customUserProfileId = customUserProfileId
        self.connType = connType
        self.connStatus = connStatus
        self.contactConnInitiated = contactConnInitiated
        self.localAlias = localAlias
        self.entityId = entityId
        self.connectionCode = connectionCode
        self.pqSupport = pqSupport
        self.pqEncryption = pqEncryption
        self.pqSndEnabled = pqSndEnabled
        self.pqRcvEnabled = pqRcvEnabled
        self.authErrCounter = authErrCounter
        self.quotaErrCounter = quotaErrCounter
        self.createdAt = createdAt
    }
}

/// A chat protocol version range (TYPES.md VersionRange; renamed so it does not clash with the agent's).
public struct ChatVersionRange: Codable, Sendable, Hashable {
    public var minVersion: Int
    public var maxVersion: Int
    public init(minVersion: Int, maxVersion: Int) {
        self.minVersion = minVersion
        self.maxVersion = maxVersion
    }
}

/// A verified security code (TYPES.md SecurityCode).
public struct SecurityCode: Codable, Sendable, Hashable {
    public var securityCode: String
    public var verifiedAt: UTCTime
    public init(securityCode: String, verifiedAt: UTCTime) {
        self.securityCode = securityCode
        self.verifiedAt = verifiedAt
    }
}

/// What a connection belongs to (TYPES.md ConnType).
public enum ConnType: String, Codable, Sendable, Hashable {
    case contact
    case member
    case userContact = "user_contact"
}

/// TYPES.md ConnStatus (note the hyphen in `snd-ready`).
public enum ConnStatus: String, Codable, Sendable, Hashable {
    case new, prepared, joined, requested, accepted
    case sndReady = "snd-ready"
    case ready, deleted
}

/// Whether a link is a one-time invitation or an address (TYPES.md ConnectionMode).
public enum ConnectionLinkMode: String, Codable, Sendable, Hashable {
    case inv, con
}

/// A link the core created or was given: the full link and, when there is one, the short link
/// (TYPES.md CreatedConnLink). Its command syntax is `<full>[ <short>]`.
public struct CreatedConnLink: Codable, Sendable, Hashable {
    public var connFullLink: String
    public var connShortLink: String?

    public init(connFullLink: String, connShortLink: String? = nil) {
        self.connFullLink = connFullLink
        self.connShortLink = connShortLink
    }

    /// The form commands take.
    public var commandString: String {
        connFullLink + (connShortLink.map { " " + $0 } ?? "")
    }
}

/// A connection that is not yet a contact: an invitation we created or accepted, or a request
/// sent to an address (TYPES.md PendingContactConnection).
public struct PendingContactConnection: Codable, Sendable, Hashable {
    public var pccConnId: Int64
    public var pccAgentConnId: String
    public var pccConnStatus: ConnStatus
    public var viaContactUri: Bool
    public var viaUserContactLink: Int64?
    public var groupLinkId: String?
    public var customUserProfileId: Int64?
    public var connLinkInv: CreatedConnLink?
    public var localAlias: String
    public var createdAt: UTCTime
    public var updatedAt: UTCTime

    public init(
        pccConnId: Int64, pccAgentConnId: String, pccConnStatus: ConnStatus, viaContactUri: Bool,
        viaUserContactLink: Int64? = nil, groupLinkId: String? = nil, customUserProfileId: Int64? = nil,
        connLinkInv: CreatedConnLink? = nil, localAlias: String = "", createdAt: UTCTime, updatedAt: UTCTime
    ) {
        self.pccConnId = pccConnId
        self.pccAgentConnId = pccAgentConnId
        self.pccConnStatus = pccConnStatus
        self.viaContactUri = viaContactUri
        self.viaUserContactLink = viaUserContactLink
        self.groupLinkId = groupLinkId
        self.customUserProfileId = customUserProfileId
        self.connLinkInv = connLinkInv
        self.localAlias = localAlias
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}
