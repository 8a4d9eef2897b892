import Crypto
import SMPProtocol
import SimplexFoundation

/// `serverHello` of the spec, the first block on a connection:
/// `minVersion(word16) maxVersion(word16) sessionId(shortString) [serverCertAndKey] ignoredPart`.
/// The signed key is sent only when the offered range reaches v7 (DH authenticators need it).
public struct SMPServerHandshake: Sendable, Hashable, SMPEncodable, SMPDecodable {
    /// Versions the server speaks.
    public var versions: SMPVersionRange
    /// Per-connection session identifier (32 random bytes here: NIOSSL exposes no tls-unique).
    public var sessionId: [UInt8]
    /// The online certificate and the per-connection X25519 key it signs; required from v7.
    public var serverKey: SignedServerKey?

    public init(versions: SMPVersionRange, sessionId: [UInt8], serverKey: SignedServerKey?) {
        self.versions = versions
        self.sessionId = sessionId
        self.serverKey = serverKey
    }

    public func encode(into e: inout SMPEncoder) throws {
        e.word16(versions.min)
        e.word16(versions.max)
        try e.shortString(sessionId)
        if versions.max >= SMPVersion.authCommands, let serverKey {
            try serverKey.encode(into: &e)
        }
    }

    /// Parses a hello and ignores whatever follows the known fields (the spec's `ignoredPart`).
    public init(from d: inout SMPDecoder) throws {
        let lo = try d.word16()
        let hi = try d.word16()
        guard let range = SMPVersionRange(min: lo, max: hi) else {
            throw DecodingError.invalid("version range \(lo)-\(hi)")
        }
        versions = range
        sessionId = try d.shortString()
        if range.max >= SMPVersion.authCommands, !d.isAtEnd {
            serverKey = try SignedServerKey(from: &d)
        } else {
            serverKey = nil
        }
        _ = d.rest()
    }

    /// The 16384-byte `paddedServerHello` block.
    public func encodeBlock() throws -> [UInt8] {
        try Padding.pad(smpEncoded(), to: TransportBlock.size)
    }

    /// Parses a `paddedServerHello` block; any malformation is a `DecodingError`.
    public static func decode<C: Collection>(block: C) throws -> SMPServerHandshake where C.Element == UInt8, C.Index == Int {
        guard block.count == TransportBlock.size else { throw DecodingError.invalid("block of \(block.count) bytes") }
        return try smpDecode(Padding.unpad(block))
    }
}

/// `serverCert signedServerKey` of the server hello, in this implementation's format:
/// `originalLength certificateDER originalLength (x25519SPKI ed25519Signature)`, where the signature
/// is the online certificate key's Ed25519 signature over the SPKI DER bytes. (simplexmq sends the
/// whole chain and an X.509 SignedExact here; see the protocol notes.)
public struct SignedServerKey: Sendable, Hashable, SMPEncodable, SMPDecodable {
    /// DER of the online (TLS leaf) certificate whose key made `signature`.
    public var certificate: [UInt8]
    /// DER SubjectPublicKeyInfo of the server's per-connection X25519 key.
    public var sessionKey: [UInt8]
    /// Ed25519 signature of `sessionKey` by the online certificate's key.
    public var signature: [UInt8]

    public init(certificate: [UInt8], sessionKey: [UInt8], signature: [UInt8]) {
        self.certificate = certificate
        self.sessionKey = sessionKey
        self.signature = signature
    }

    /// Signs a fresh session key with the online certificate's private key.
    public static func sign(
        sessionKey: Curve25519.KeyAgreement.PublicKey,
        certificate: [UInt8],
        signingKey: Curve25519.Signing.PrivateKey
    ) throws -> SignedServerKey {
        let spki = TransportKeyEncoding.encodeX25519(sessionKey)
        let signature = try signingKey.signature(for: spki)
        return SignedServerKey(certificate: certificate, sessionKey: spki, signature: Array(signature))
    }

    /// Checks that the signed key was sent with the certificate the TLS session authenticated
    /// (`expectedCertificate`, DER) and that the certificate's Ed25519 key signed it; returns the
    /// server's session X25519 key. Any failure is `TransportError.handshake(.badAuth)`.
    public func verify(expectedCertificate: [UInt8]) throws(TransportError) -> Curve25519.KeyAgreement.PublicKey {
        guard certificate == expectedCertificate else { throw .handshake(.badAuth) }
        guard let verifyKey = try? CertificateInspection.ed25519PublicKey(ofCertificate: certificate),
            verifyKey.isValidSignature(signature, for: sessionKey),
            let key = try? TransportKeyEncoding.decodeX25519(sessionKey)
        else { throw .handshake(.badAuth) }
        return key
    }

    public func encode(into e: inout SMPEncoder) throws {
        try e.largeString(certificate)
        try e.largeString(sessionKey + signature)
    }

    public init(from d: inout SMPDecoder) throws {
        certificate = try d.largeString()
        let signed = try d.largeString()
        guard let keyLength = TransportKeyEncoding.derElementLength(signed[...]), keyLength < signed.count else {
            throw DecodingError.invalid("bad signed server key")
        }
        sessionKey = Array(signed[..<keyLength])
        signature = Array(signed[keyLength...])
    }
}
