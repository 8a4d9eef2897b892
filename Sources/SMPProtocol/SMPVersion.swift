/// SMP protocol versions this implementation speaks, as agreed in the transport handshake.
public struct SMPVersionRange: Sendable, Hashable, CustomStringConvertible {
    public let min: UInt16
    public let max: UInt16

    public init?(min: UInt16, max: UInt16) {
        guard min <= max else { return nil }
        self.min = min
        self.max = max
    }

    public init(_ v: UInt16) {
        min = v
        max = v
    }

    /// The highest version both ranges contain.
    public func compatible(with other: SMPVersionRange) -> UInt16? {
        let hi = Swift.min(max, other.max)
        return hi >= Swift.max(min, other.min) ? hi : nil
    }

    public func contains(_ v: UInt16) -> Bool { v >= min && v <= max }

    /// `compatibleVRange`: the versions both ranges contain, nil when they do not meet.
    public func intersection(_ other: SMPVersionRange) -> SMPVersionRange? {
        SMPVersionRange(min: Swift.max(min, other.min), max: Swift.min(max, other.max))
    }

    public var description: String { min == max ? "\(min)" : "\(min)-\(max)" }
}

/// The SMP versions of simplexmq 6.5.5.0 (`Simplex.Messaging.Transport`) and what each one
/// changed on the wire; encoders and the relay switch on these, never on bare numbers.
public enum SMPVersion {
    /// Initial version of this range: NEW with 'A' basic auth and subscription mode.
    public static let subscriptionMode: UInt16 = 6
    /// Session ID no longer sent in transmissions; X25519 authenticators allowed.
    public static let authCommands: UInt16 = 7
    /// Private message routing (PRXY/PFWD/RFWD); smaller largest message.
    public static let sendingProxy: UInt16 = 8
    /// Sender can secure the queue with SKEY; NEW/IDS carry the sender-can-secure flag.
    public static let senderSecure: UInt16 = 9
    /// DELD event to a subscriber when its queue is deleted (END before).
    public static let deletedEvent: UInt16 = 10
    /// Transport blocks encrypted inside TLS (secretbox chain); smaller largest message.
    public static let encryptedBlock: UInt16 = 11
    /// ERR BLOCKED for blocked queues (ERR AUTH before).
    public static let blockedEntity: UInt16 = 12
    /// Proxy flag in the client handshake.
    public static let proxyServerHandshake: UInt16 = 14
    /// Short links: NEW with `QueueReqData`, IDS with queue mode and link ID, LSET/LDEL/LKEY/LGET.
    public static let shortLinks: UInt16 = 15
    /// Client service certificates: service signature byte in transmissions, SOK, IDS service ID.
    public static let serviceCerts: UInt16 = 16
    /// Notifier credentials in NEW and IDS.
    public static let newNtfCreds: UInt16 = 17
    /// Client notices inside BLOCKED errors.
    public static let clientNotices: UInt16 = 18

    /// What the reference's client and server offer (`supportedClientSMPRelayVRange` /
    /// `supportedServerSMPRelayVRange`).
    public static let supported = SMPVersionRange(min: 6, max: 18)!
    /// The range a server offers to a client that did not negotiate ALPN (`legacyServerSMPRelayVRange`).
    public static let legacy = SMPVersionRange(6)
    /// The range a proxying relay reports for its destination (`proxiedSMPRelayVRange`): from
    /// the first version with private routing to v17, so destinations cannot tell clients apart
    /// by the newest version they speak.
    public static let proxied = SMPVersionRange(min: 8, max: 17)!
    /// The version `smpEncoded()` uses when no version is given: the newest.
    public static let current: UInt16 = 18

    /// Largest SEND body at version `v` (`maxMessageLength`): what fits a block once the
    /// transmission framing of that version (and from v11 the block's auth tag) is taken.
    public static func maxMessageLength(_ v: UInt16) -> Int {
        if v >= encryptedBlock { return 16048 }
        if v >= sendingProxy { return 16064 }
        return 16088
    }

    /// The largest body every version accepts (the v11+ limit): what a sender that does not
    /// know the relay's version yet can always send.
    public static let maxMessageLength = 16048
    /// `MaxRcvMessageLen`: `MaxMessageLen` (16088, the largest body of any version) plus an
    /// 8-byte timestamp and up to 8 bytes of flags and space; MSG bodies are padded to this + 2.
    public static let maxRcvMessageLength = 16088 + 16
}
