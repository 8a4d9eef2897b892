import SimplexFoundation

/// The clear header of an SMP message body (simplexmq `PubHeader`): the sender's SMP client
/// version and, only in confirmations, its X25519 key for the per-queue DH.
/// Encoding: `word16 version` then `"0"` or `"1" shortString(x509 key)`.
public struct PubHeader: Sendable, Hashable {
    public let clientVersion: UInt16
    public let senderDhKey: X25519PublicKey?

    public init(clientVersion: UInt16, senderDhKey: X25519PublicKey?) {
        self.clientVersion = clientVersion
        self.senderDhKey = senderDhKey
    }
}

extension PubHeader: SMPEncodable, SMPDecodable {
    public func encode(into e: inout SMPEncoder) throws(EncodingError) {
        e.word16(clientVersion)
        if let senderDhKey {
            e.byte(UInt8(ascii: "1"))
            try AgentWire.shortString(senderDhKey.x509Encoded, into: &e)
        } else {
            e.byte(UInt8(ascii: "0"))
        }
    }

    public init(from d: inout SMPDecoder) throws(DecodingError) {
        clientVersion = try AgentWire.decoding { try d.word16() }
        senderDhKey = try AgentWire.decodeOptional(&d) { (d) throws(DecodingError) in try AgentWire.decodeX25519(&d) }
    }
}

/// What the sender puts in SEND (simplex-messaging.md `smpEncMessage`, simplexmq
/// `ClientMsgEnvelope`): the clear header, a 24-byte nonce and the crypto_box of the padded
/// `ClientMessage`, running to the end.
public struct ClientMsgEnvelope: Sendable, Hashable {
    public let pubHeader: PubHeader
    public let nonce: [UInt8]
    /// tag || ciphertext of the padded `ClientMessage`.
    public let encryptedBody: [UInt8]

    /// Nil when the nonce is not 24 bytes.
    public init?(pubHeader: PubHeader, nonce: [UInt8], encryptedBody: [UInt8]) {
        guard nonce.count == CryptoBox.nonceLength else { return nil }
        self.pubHeader = pubHeader
        self.nonce = nonce
        self.encryptedBody = encryptedBody
    }

    /// The sender's DH key, present only in confirmations.
    public var senderDhKey: X25519PublicKey? { pubHeader.senderDhKey }
    public var clientVersion: UInt16 { pubHeader.clientVersion }

    /// Decrypts and parses the body with the per-queue key.
    public func open(key: CryptoBoxKey) throws(QueueCryptoError) -> ClientMessage {
        let plain: [UInt8]
        do {
            plain = try CryptoBox.cbDecrypt(key: key, nonce: nonce, box: encryptedBody)
        } catch {
            throw .crypto(error)
        }
        do {
            return try ClientMessage.decode(plain)
        } catch {
            throw .malformed(error)
        }
    }

    /// Parses a whole SMP message body.
    public static func decode(_ bytes: [UInt8]) throws(DecodingError) -> ClientMsgEnvelope {
        try AgentWire.decodeAll(bytes) { (d) throws(DecodingError) in try ClientMsgEnvelope(from: &d) }
    }
}

extension ClientMsgEnvelope: SMPEncodable, SMPDecodable {
    public func encode(into e: inout SMPEncoder) throws(EncodingError) {
        try pubHeader.encode(into: &e)
        e.raw(nonce)
        e.raw(encryptedBody)
    }

    public init(from d: inout SMPDecoder) throws(DecodingError) {
        pubHeader = try PubHeader(from: &d)
        nonce = try AgentWire.decoding { try d.take(CryptoBox.nonceLength) }
        encryptedBody = d.rest()
    }
}
