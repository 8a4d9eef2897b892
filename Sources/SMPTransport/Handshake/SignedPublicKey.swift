import SimplexFoundation

/// An X.509 `SignedExact PubKey` as simplexmq's `C.signX509 key (C.publicToX509 pub)` makes it:
/// `SEQUENCE { SEQUENCE { SubjectPublicKeyInfo }, AlgorithmIdentifier, BIT STRING signature }`,
/// the signature (Ed25519 or Ed448) covering the DER of the first element. The server signs its
/// per-connection X25519 key with its online certificate key this way. The received bytes are kept
/// as they are, so a re-encoding is byte-identical.
public struct SignedPublicKey: Sendable, Hashable {
    /// The whole DER.
    public let der: [UInt8]
    /// The DER of the signed part (`SEQUENCE { SPKI }`).
    public let signedData: [UInt8]
    /// The DER SubjectPublicKeyInfo inside.
    public let subjectPublicKeyInfo: [UInt8]
    /// The DER AlgorithmIdentifier of the signature.
    public let algorithmIdentifier: [UInt8]
    /// The signature bytes (the BIT STRING without its unused-bits byte).
    public let signature: [UInt8]

    /// `30 05 06 03 2b 65 70` / `... 71`: the AlgorithmIdentifiers of Ed25519 and Ed448.
    static func algorithmIdentifier(_ algorithm: KeyAlgorithm) -> [UInt8]? {
        switch algorithm {
        case .ed25519: [0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70]
        case .ed448: [0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x71]
        default: nil
        }
    }

    /// Parses the DER (the whole input must be one well-formed signed object).
    public init(der: [UInt8]) throws(DecodingError) {
        guard let outer = DER.read(der[...]), outer.tag == DER.sequence, outer.encoded.count == der.count,
              let parts = DER.readAll(outer.content), parts.count == 3,
              parts[0].tag == DER.sequence, parts[1].tag == DER.sequence, parts[2].tag == DER.bitString,
              let inner = DER.readAll(parts[0].content), inner.count == 1, inner[0].tag == DER.sequence,
              let bits = parts[2].content.first, bits == 0
        else { throw .invalid("bad signed public key") }
        self.der = der
        signedData = Array(parts[0].encoded)
        subjectPublicKeyInfo = Array(inner[0].encoded)
        algorithmIdentifier = Array(parts[1].encoded)
        signature = Array(parts[2].content.dropFirst())
    }

    /// Signs `publicKey` (any algorithm) with `signingKey` (Ed25519 or Ed448).
    public static func sign(_ publicKey: AnyPublicKey, with signingKey: AnyPrivateKey) throws -> SignedPublicKey {
        guard let alg = algorithmIdentifier(signingKey.algorithm) else {
            throw CryptoError.unsupportedAlgorithm("\(signingKey.algorithm.rawValue) cannot sign")
        }
        let signed = DER.encode(tag: DER.sequence, publicKey.x509Encoded)
        let signature = try signingKey.sign(signed)
        let der = DER.encode(tag: DER.sequence, signed + alg + DER.encode(tag: DER.bitString, [0] + signature))
        return try SignedPublicKey(der: der)
    }

    /// `C.verifyX509 key` then `x509ToPublic'`: the signature algorithm must be the key's, the
    /// signature must verify, and the signed key must decode. Returns the signed key.
    public func verify(with key: AnyPublicKey) -> AnyPublicKey? {
        guard let alg = Self.algorithmIdentifier(key.algorithm), alg == algorithmIdentifier,
              key.isValidSignature(signature, for: signedData)
        else { return nil }
        return try? AnyPublicKey(x509Encoded: subjectPublicKeyInfo)
    }
}
