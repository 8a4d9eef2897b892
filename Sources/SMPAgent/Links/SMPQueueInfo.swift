import SMPTransport
import SimplexFoundation

/// A queue address at one agreed SMP client version, as agents send it to each other (reply
/// queues in confirmations, QKEY). simplexmq `SMPQueueInfo`.
public struct SMPQueueInfo: Sendable, Hashable {
    public let clientVersion: UInt16
    public let server: SMPServerAddress
    public let senderId: [UInt8]
    public let dhPublicKey: X25519PublicKey
    /// Messaging or contact queue; nil when unknown. Versions below 3 cannot carry it.
    public let queueMode: QueueMode?

    /// simplexmq `senderCanSecure`; the agent uses it only from client version 3.
    public var senderCanSecure: Bool { QueueMode.senderCanSecure(queueMode) }

    public init(clientVersion: UInt16, server: SMPServerAddress, senderId: [UInt8], dhPublicKey: X25519PublicKey, queueMode: QueueMode?) {
        self.clientVersion = clientVersion
        self.server = server
        self.senderId = senderId
        self.dhPublicKey = dhPublicKey
        self.queueMode = queueMode
    }

    /// A queue described only by whether its sender secures it (messaging) or not (contact).
    public init(clientVersion: UInt16, server: SMPServerAddress, senderId: [UInt8], dhPublicKey: X25519PublicKey, senderCanSecure: Bool) {
        self.init(
            clientVersion: clientVersion, server: server, senderId: senderId, dhPublicKey: dhPublicKey,
            queueMode: QueueMode(senderCanSecure: senderCanSecure))
    }

    /// The URI form with a version range (by default just this version).
    public func uri(clientVersions: VersionRange? = nil) -> SMPQueueURI {
        SMPQueueURI(self, clientVersions: clientVersions ?? VersionRange(clientVersion))
    }
}

/// simplexmq's binary `SMPQueueInfo`: `clientVersion smpServer senderId dhPublicKey`, then from
/// version 4 the queue mode ("M"/"C", nothing when unknown), at version 3 "T" when the sender
/// can secure the queue; version 1 has the legacy one-host server and nothing after the key.
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
        if clientVersion >= SMPClientVersion.shortLinks {
            if let queueMode { e.byte(queueMode.binaryTag) }
        } else if clientVersion >= SMPClientVersion.senderAuthKey, senderCanSecure {
            e.bool(true)
        }
    }

    /// Version 1 addresses get a preset server's onion host back (`updateSMPServerHosts`).
    public init(from d: inout SMPDecoder) throws(DecodingError) {
        let v = try AgentWire.decoding { try d.word16() }
        let server =
            v > SMPClientVersion.initial ? try SMPServerAddress(from: &d) : PresetServerHosts.update(try SMPServerAddress.decodeLegacy(&d))
        let senderId = try AgentWire.decoding { try d.shortString() }
        let dh = try AgentWire.decodeX25519(&d)
        self.init(clientVersion: v, server: server, senderId: senderId, dhPublicKey: dh, queueMode: QueueMode.decodeOptional(&d))
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
