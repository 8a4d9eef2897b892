import SMPTransport
import SimplexFoundation

/// A queue address at one agreed SMP client version, as agents send it to each other (reply
/// queues in confirmations, QKEY). simplexmq `SMPQueueInfo`.
public struct SMPQueueInfo: Sendable, Hashable {
    public let clientVersion: UInt16
    public let server: SMPServerAddress
    public let senderId: [UInt8]
    public let dhPublicKey: X25519PublicKey
    /// Only meaningful from client version 3; below it, it is not encoded.
    public let senderCanSecure: Bool

    public init(clientVersion: UInt16, server: SMPServerAddress, senderId: [UInt8], dhPublicKey: X25519PublicKey, senderCanSecure: Bool) {
        self.clientVersion = clientVersion
        self.server = server
        self.senderId = senderId
        self.dhPublicKey = dhPublicKey
        self.senderCanSecure = senderCanSecure
    }

    /// The URI form with a version range (by default just this version).
    public func uri(clientVersions: VersionRange? = nil) -> SMPQueueURI {
        SMPQueueURI(self, clientVersions: clientVersions ?? VersionRange(clientVersion))
    }

    /// simplexmq `queueModeP` after an address: an optional "M"/"C" (queue mode) or "T"/"F"
    /// (sender can secure). Any other next byte belongs to what follows and is left alone.
    static func decodeQueueMode(_ d: inout SMPDecoder) -> Bool {
        switch d.peek() {
        case UInt8(ascii: "M"), UInt8(ascii: "T"):
            _ = try? d.byte()
            return true
        case UInt8(ascii: "C"), UInt8(ascii: "F"):
            _ = try? d.byte()
            return false
        default:
            return false
        }
    }
}

/// simplexmq's binary `SMPQueueInfo`: `clientVersion smpServer senderId dhPublicKey ["T"]`, the
/// "T" only from version 3 when the sender can secure the queue; version 1 has one host only.
extension SMPQueueInfo: SMPEncodable, SMPDecodable {
    public func encode(into e: inout SMPEncoder) throws(EncodingError) {
        e.word16(clientVersion)
        if clientVersion > SMPClientVersion.initial {
            try server.encode(into: &e)
        } else {
            try server.encodeLegacy(into: &e)
        }
        try AgentWire.shortString(senderId, into: &e)
        try AgentWire.shortString(dhPublicKey.x509Encoded, into: &e)
        if clientVersion >= SMPClientVersion.senderAuthKey, senderCanSecure { e.bool(true) }
    }

    public init(from d: inout SMPDecoder) throws(DecodingError) {
        let v = try AgentWire.decoding { try d.word16() }
        guard v >= SMPClientVersion.initial else { throw .invalid("SMP client version 0") }
        let server = v > SMPClientVersion.initial ? try SMPServerAddress(from: &d) : try SMPServerAddress.decodeLegacy(&d)
        let senderId = try AgentWire.decoding { try d.shortString() }
        guard !senderId.isEmpty else { throw .invalid("empty sender ID") }
        let dh = try AgentWire.decodeX25519(&d)
        let canSecure = Self.decodeQueueMode(&d)
        self.init(clientVersion: v, server: server, senderId: senderId, dhPublicKey: dh, senderCanSecure: canSecure)
    }
}

extension SMPQueueInfo {
    /// A non-empty list as agent messages carry it (count byte, then the items), e.g. to store
    /// reply queues until they are used.
    public static func encodeList(_ queues: [SMPQueueInfo]) throws(EncodingError) -> [UInt8] {
        var e = SMPEncoder()
        try AgentWire.encodeNonEmpty(queues, into: &e) { (e, q) throws(EncodingError) in try q.encode(into: &e) }
        return e.bytes
    }

    /// Parses what `encodeList` produced; all bytes must be used.
    public static func decodeList(_ bytes: [UInt8]) throws(DecodingError) -> [SMPQueueInfo] {
        try AgentWire.decodeAll(bytes) { (d) throws(DecodingError) in
            try AgentWire.decodeNonEmpty(&d) { (d) throws(DecodingError) in try SMPQueueInfo(from: &d) }
        }
    }
}
