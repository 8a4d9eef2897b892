import SimplexFoundation

/// The server's first block on a new XFTP session (`XFTPServerHandshake`, sent in answer to an
/// empty POST): its version range, the TLS session ID, its certificate chain with the X25519
/// key that X25519-authorized commands use (signed by the online certificate's key), and, for
/// web clients that sent a challenge, a signature proving the server's identity.
public struct XFTPServerHandshake: Sendable, Equatable {
    public var versionRange: ClosedRange<UInt16>
    public var sessionId: [UInt8]
    /// DER certificates, online (leaf) first, then the CA.
    public var certificateChain: [[UInt8]]
    /// DER of the signed X25519 key (`SignedExact PubKey`).
    public var signedKey: [UInt8]
    /// Signature of `challenge ++ sessionId` (`webIdentityProof`), nil when none was asked for.
    public var webIdentityProof: [UInt8]?

    public init(versionRange: ClosedRange<UInt16>, sessionId: [UInt8], certificateChain: [[UInt8]], signedKey: [UInt8], webIdentityProof: [UInt8]? = nil) {
        self.versionRange = versionRange
        self.sessionId = sessionId
        self.certificateChain = certificateChain
        self.signedKey = signedKey
        self.webIdentityProof = webIdentityProof
    }

    /// `smpEncode (range, sessionId, CertChainPubKey, signatureBytes proof)`; no proof is an empty string.
    public func encoded() throws -> [UInt8] {
        var e = SMPEncoder(capacity: 1024)
        e.word16(versionRange.lowerBound)
        e.word16(versionRange.upperBound)
        try e.shortString(sessionId)
        guard !certificateChain.isEmpty, certificateChain.count <= 255 else { throw EncodingError.tooLarge("certificate chain") }
        e.byte(UInt8(certificateChain.count))
        for c in certificateChain { try e.largeString(c) }
        try e.largeString(signedKey)
        try e.shortString(webIdentityProof ?? [])
        return e.bytes
    }

    /// Parses as the client does: the proof is optional (a string that is not a signature reads as
    /// none), and bytes after it are ignored for later versions (`Tail _compat`).
    public init(decoding bytes: [UInt8]) throws {
        var d = SMPDecoder(bytes)
        let lo = try d.word16(), hi = try d.word16()
        guard lo <= hi else { throw DecodingError.invalid("version range") }
        versionRange = lo...hi
        sessionId = try d.shortString()
        let n = Int(try d.byte())
        guard n > 0 else { throw DecodingError.invalid("empty certificate chain") }
        certificateChain = try (0..<n).map { _ in try d.largeString() }
        signedKey = try d.largeString()
        webIdentityProof = nil
        // `optional (decodeSignature <$?> smpP)`: anything but a signature's length reads as none.
        if let proof = try? d.shortString(), proof.count == 64 || proof.count == 114 {
            webIdentityProof = proof
        }
    }

    /// The padded block the server sends.
    public func block() throws -> [UInt8] { try Padding.pad(encoded(), to: XFTPVersion.blockSize) }
}

/// The client's answer (`XFTPClientHandshake`): the version it chose from the server's range
/// and the key hash (CA fingerprint) it expects the server to have.
public struct XFTPClientHandshake: Sendable, Equatable {
    public var version: UInt16
    public var keyHash: [UInt8]

    public init(version: UInt16, keyHash: [UInt8]) {
        self.version = version
        self.keyHash = keyHash
    }

    public func encoded() throws -> [UInt8] {
        var e = SMPEncoder(capacity: 40)
        e.word16(version)
        try e.shortString(keyHash)
        return e.bytes
    }

    /// Trailing bytes are ignored for later versions (`Tail _compat`).
    public init(decoding bytes: [UInt8]) throws {
        var d = SMPDecoder(bytes)
        version = try d.word16()
        keyHash = try d.shortString()
    }

    public func block() throws -> [UInt8] { try Padding.pad(encoded(), to: XFTPVersion.blockSize) }
}

/// The optional first request body of web clients (`XFTPClientHello`): a 32-byte challenge the
/// server signs to prove its identity without the client checking TLS certificates itself.
public struct XFTPClientHello: Sendable, Equatable {
    public var webChallenge: [UInt8]?

    public init(webChallenge: [UInt8]?) { self.webChallenge = webChallenge }

    public func encoded() throws -> [UInt8] {
        var e = SMPEncoder(capacity: 40)
        try e.optional(webChallenge) { try $0.shortString($1) }
        return e.bytes
    }

    public init(decoding bytes: [UInt8]) throws {
        var d = SMPDecoder(bytes)
        webChallenge = try d.optional { try $0.shortString() }
        if let c = webChallenge, c.count != 32 { throw DecodingError.invalid("bad XFTPClientHello webChallenge") }
    }
}
