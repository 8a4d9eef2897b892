/// The user's SMP and XFTP servers, as `/_servers`, `/smp` and `/xftp` report them
/// (simplex-chat `UserOperatorServers`, `UserServer`, `ProtocolTestFailure`). Operators are
/// passed through as JSON: the core does not manage server operators yet.

/// SMP or XFTP, as commands name them.
public enum ServerProtocol: String, Codable, Sendable, Hashable {
    case smp, xftp
}

/// One configured server.
public struct UserServer: Codable, Sendable, Hashable {
    /// Nil for a server not saved yet.
    public var serverId: Int64?
    /// The address, `smp://<fingerprint>[:password]@host[:port]`.
    public var server: String
    public var preset: Bool
    public var tested: Bool?
    public var enabled: Bool
    public var deleted: Bool

    public init(serverId: Int64?, server: String, preset: Bool = false, tested: Bool? = nil, enabled: Bool = true, deleted: Bool = false) {
        self.serverId = serverId
        self.server = server
        self.preset = preset
        self.tested = tested
        self.enabled = enabled
        self.deleted = deleted
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        serverId = try c.opt("serverId")
        server = try c.v("server")
        preset = try c.v("preset", default: false)
        tested = try c.opt("tested")
        enabled = try c.v("enabled", default: true)
        deleted = try c.v("deleted", default: false)
    }
}

/// The servers of one operator (or the user's own, with no operator).
public struct UserOperatorServers: Codable, Sendable, Hashable {
    public var `operator`: JSONValue?
    public var smpServers: [UserServer]
    public var xftpServers: [UserServer]

    public init(operator: JSONValue? = nil, smpServers: [UserServer], xftpServers: [UserServer]) {
        self.operator = `operator`
        self.smpServers = smpServers
        self.xftpServers = xftpServers
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        self.operator = try c.opt("operator")
        smpServers = try c.v("smpServers", default: [])
        xftpServers = try c.v("xftpServers", default: [])
    }
}

/// Where a server test failed, and why.
public struct ProtocolTestFailure: Codable, Sendable, Hashable {
    /// The step (simplex-chat `ProtocolTestStep`: connect, createQueue, secureQueue, ...).
    public var testStep: String
    public var testError: AgentErrorType

    public init(testStep: String, testError: AgentErrorType) {
        self.testStep = testStep
        self.testError = testError
    }
}

/// The status of a set of subscriptions (TYPES.md SubscriptionStatus, from later versions of the docs).
public enum SubscriptionStatus: Sendable, Hashable, Codable {
    case active
    case pending
    case removed(subError: String)
    case noSub
    case unknown(JSONValue)

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        switch try c.tag() {
        case "active": self = .active
        case "pending": self = .pending
        case "removed": self = try .removed(subError: c.v("subError"))
        case "noSub": self = .noSub
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
        case .active: try c.tag("active")
        case .pending: try c.tag("pending")
        case .removed(let e):
            try c.tag("removed")
            try c.put(e, "subError")
        case .noSub: try c.tag("noSub")
        case .unknown: break
        }
    }
}

/// Why items cannot all be forwarded as they are (simplex-chat `ForwardConfirmation`).
public enum ForwardConfirmation: Sendable, Hashable, Codable {
    case filesNotAccepted(fileIds: [Int64])
    case filesInProgress(filesCount: Int)
    case filesMissing(filesCount: Int)
    case filesFailed(filesCount: Int)

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        switch try c.tag() {
        case "filesNotAccepted": self = try .filesNotAccepted(fileIds: c.v("fileIds"))
        case "filesInProgress": self = try .filesInProgress(filesCount: c.v("filesCount"))
        case "filesMissing": self = try .filesMissing(filesCount: c.v("filesCount"))
        case "filesFailed": self = try .filesFailed(filesCount: c.v("filesCount"))
        case let t: throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "unknown ForwardConfirmation \(t)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONKey.self)
        switch self {
        case .filesNotAccepted(let ids):
            try c.tag("filesNotAccepted")
            try c.put(ids, "fileIds")
        case .filesInProgress(let n):
            try c.tag("filesInProgress")
            try c.put(n, "filesCount")
        case .filesMissing(let n):
            try c.tag("filesMissing")
            try c.put(n, "filesCount")
        case .filesFailed(let n):
            try c.tag("filesFailed")
            try c.put(n, "filesCount")
        }
    }
}
