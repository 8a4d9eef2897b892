import SimplexFoundation

/// The encrypted data of a short link as the relay stores it (simplexmq `QueueLinkData`): the
/// fixed part (set once, it hashes to the link key) and the user part (the owner may replace it
/// with LSET). The relay never sees the plaintext. Each is `Large` (2-byte length) on the wire.
public struct QueueLinkData: Sendable, Hashable {
    public var fixedData: [UInt8]
    public var userData: [UInt8]

    public init(fixedData: [UInt8], userData: [UInt8]) {
        self.fixedData = fixedData
        self.userData = userData
    }

    public func encode(into e: inout SMPEncoder) throws {
        try e.largeString(fixedData)
        try e.largeString(userData)
    }

    public static func decode(from d: inout SMPDecoder) throws -> QueueLinkData {
        let f = try d.largeString()
        return QueueLinkData(fixedData: f, userData: try d.largeString())
    }
}

/// simplexmq `QueueMode`: a messaging queue (one sender, who may secure it with SKEY/LKEY) or a
/// contact queue (anyone may send; its link data is public via LGET).
public enum QueueMode: Sendable, Hashable {
    case messaging, contact

    public var tag: UInt8 { self == .messaging ? UInt8(ascii: "M") : UInt8(ascii: "C") }

    public static func decode(from d: inout SMPDecoder) throws -> QueueMode {
        switch try d.byte() {
        case UInt8(ascii: "M"): return .messaging
        case UInt8(ascii: "C"): return .contact
        case let b: throw DecodingError.invalid("bad queue mode \(b)")
        }
    }
}

/// simplexmq `QueueReqData`, sent in NEW to create a queue together with its short link data.
/// The sender ID is chosen by the client and must be the first 24 bytes of SHA3-384 of the NEW
/// transmission's corrId (so the full link inside the fixed data can name it before the queue
/// exists, and NEW cannot be used to probe which IDs exist). A contact link's ID is derived from
/// its link key by the client; a messaging (invitation) link's ID is chosen by the relay.
public enum QueueRequestData: Sendable, Hashable {
    case messaging(senderId: [UInt8], data: QueueLinkData)
    case contact(linkId: [UInt8], senderId: [UInt8], data: QueueLinkData)

    public var mode: QueueMode {
        switch self {
        case .messaging: .messaging
        case .contact: .contact
        }
    }

    public var senderId: [UInt8] {
        switch self {
        case .messaging(let s, _), .contact(_, let s, _): s
        }
    }

    public var data: QueueLinkData {
        switch self {
        case .messaging(_, let d), .contact(_, _, let d): d
        }
    }

    /// The sender ID a NEW with this corrId must carry: `take 24 (sha3_384 corrId)`.
    public static func senderId(corrId: [UInt8]) -> [UInt8] { Array(CryptoHash.sha3_384(corrId).prefix(24)) }
}

/// `NewNtfCreds` of NEW (v17): the notifier's command key and the recipient's DH key for
/// notification metadata, so a queue gets its notifier in the same round trip.
public struct NewNtfCreds: Sendable, Hashable {
    public var notifierKey: [UInt8]
    public var recipientNtfDhKey: [UInt8]
    public init(notifierKey: [UInt8], recipientNtfDhKey: [UInt8]) {
        self.notifierKey = notifierKey
        self.recipientNtfDhKey = recipientNtfDhKey
    }
}

/// `ServerNtfCreds` of IDS (v17): the notifier ID and the server's DH key for NMSG metadata.
public struct ServerNtfCreds: Sendable, Hashable {
    public var notifierId: [UInt8]
    public var serverNtfDhKey: [UInt8]
    public init(notifierId: [UInt8], serverNtfDhKey: [UInt8]) {
        self.notifierId = notifierId
        self.serverNtfDhKey = serverNtfDhKey
    }
}
