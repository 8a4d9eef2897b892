import SimplexFoundation

/// What a proxy wraps for the destination relay inside RFWD (simplexmq `FwdTransmission`):
/// `shortString(fwdCorrId) fwdVersion(Word16) shortString(fwdKey) transmission` where the
/// transmission is the client's `EncTransmission`, to the end.
public struct FwdTransmission: Sendable, Hashable {
    /// The corrId of the client's PFWD: the nonce of the client's encryption.
    public var corrId: [UInt8]
    /// The SMP version the client encoded the inner transmission in.
    public var version: UInt16
    /// The client's per-command X25519 key (x509).
    public var key: [UInt8]
    /// The client's encrypted, padded transmission.
    public var encryptedTransmission: [UInt8]

    public init(corrId: [UInt8], version: UInt16, key: [UInt8], encryptedTransmission: [UInt8]) {
        self.corrId = corrId
        self.version = version
        self.key = key
        self.encryptedTransmission = encryptedTransmission
    }
}

extension FwdTransmission: SMPEncodable, SMPDecodable {
    public func encode(into e: inout SMPEncoder) throws {
        try e.shortString(corrId)
        e.word16(version)
        try e.shortString(key)
        e.raw(encryptedTransmission)
    }

    /// The key must be an X25519 key (`C.PublicKeyX25519`'s parser).
    public init(from d: inout SMPDecoder) throws {
        corrId = try d.shortString()
        version = try d.word16()
        key = try d.shortString()
        guard (try? X25519PublicKey(x509Encoded: key)) != nil else { throw DecodingError.invalid("bad forwarding key") }
        encryptedTransmission = d.rest()
    }
}

/// The destination's answer inside RRES (simplexmq `FwdResponse`): `shortString(fwdCorrId)`
/// then the response encrypted to the client (`EncResponse`), to the end.
public struct FwdResponse: Sendable, Hashable {
    public var corrId: [UInt8]
    public var encryptedResponse: [UInt8]

    public init(corrId: [UInt8], encryptedResponse: [UInt8]) {
        self.corrId = corrId
        self.encryptedResponse = encryptedResponse
    }
}

extension FwdResponse: SMPEncodable, SMPDecodable {
    public func encode(into e: inout SMPEncoder) throws {
        try e.shortString(corrId)
        e.raw(encryptedResponse)
    }

    public init(from d: inout SMPDecoder) throws {
        corrId = try d.shortString()
        encryptedResponse = d.rest()
    }
}
