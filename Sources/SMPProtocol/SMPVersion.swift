/// SMP protocol versions this implementation speaks, as agreed in the transport handshake.
/// v7 dropped the session ID from transmissions and added DH authenticators; v9 added SKEY.
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

    public var description: String { min == max ? "\(min)" : "\(min)-\(max)" }
}

public enum SMPVersion {
    /// Session ID no longer sent in transmissions; X25519 authenticators allowed.
    public static let authCommands: UInt16 = 7
    /// Sender can secure the queue with SKEY.
    public static let senderSecure: UInt16 = 9
    public static let supported = SMPVersionRange(min: 7, max: 9)!
    /// Largest SEND body (smpEncMessage) at the supported versions.
    public static let maxMessageLength = 16064
    /// `rcvMsgBody` adds an 8-byte timestamp and up to 8 bytes of flags and space.
    public static let maxRcvMessageLength = maxMessageLength + 16
}
