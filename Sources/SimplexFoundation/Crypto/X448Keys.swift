/// X448 public key (56 bytes): the double ratchet's DH keys (pqdr.md), via the system OpenSSL.
public struct X448PublicKey: Sendable, Hashable {
    public static let algorithm = KeyAlgorithm.x448
    public let rawRepresentation: [UInt8]

    public init(rawRepresentation raw: [UInt8]) throws(CryptoError) {
        guard raw.count == 56 else { throw .invalidKey("X448 public key of \(raw.count) bytes") }
        rawRepresentation = raw
    }

    /// Decodes the "x509encoded" form (DER SubjectPublicKeyInfo); any other algorithm throws.
    public init(x509Encoded der: [UInt8]) throws(CryptoError) {
        self = try AnyPublicKey(x509Encoded: der).x448()
    }

    /// DER SubjectPublicKeyInfo: 30 42 30 05 06 03 2b 65 6f 03 39 00 + key.
    public var x509Encoded: [UInt8] { KeyEncoding.encodeSPKI(.x448, raw: rawRepresentation) }
}

/// X448 private key (56-byte scalar), with its OpenSSL key object built once so that each
/// agreement costs one scalar multiplication. A key restored with its known public key (the
/// ratchet's stored state) builds that object only when it first agrees: building it costs a
/// scalar multiplication too, which a state loaded per message should not pay.
public struct X448PrivateKey: Sendable {
    public static let algorithm = KeyAlgorithm.x448
    public let rawRepresentation: [UInt8]
    public let publicKey: X448PublicKey
    let handle: PrivateKeyHandle?

    /// A new random key (any 56 bytes are a valid X448 scalar; RFC 7748 clamps on use).
    public init() {
        // OpenSSL accepts every 56-byte string, so only a broken OpenSSL could fail here.
        try! self.init(rawRepresentation: SecureRandom.bytes(56))
    }

    public init(rawRepresentation raw: [UInt8]) throws(CryptoError) {
        guard raw.count == 56 else { throw .invalidKey("X448 private key of \(raw.count) bytes") }
        rawRepresentation = raw
        let handle = try PrivateKeyHandle(.x448, raw: raw)
        self.handle = handle
        publicKey = try X448PublicKey(rawRepresentation: OpenSSLEVP.publicKey(handle, length: 56))
    }

    /// A key whose public half was computed before and stored beside it by this program (never
    /// from a peer): no scalar multiplication until the key is used.
    public init(rawRepresentation raw: [UInt8], knownPublicKey: X448PublicKey) throws(CryptoError) {
        guard raw.count == 56 else { throw .invalidKey("X448 private key of \(raw.count) bytes") }
        rawRepresentation = raw
        publicKey = knownPublicKey
        handle = nil
    }

    /// Decodes PKCS#8 DER; any other algorithm throws.
    public init(pkcs8Encoded der: [UInt8]) throws(CryptoError) {
        self = try AnyPrivateKey(pkcs8Encoded: der).x448()
    }

    /// PKCS#8 DER for storage.
    public var pkcs8Encoded: [UInt8] { KeyEncoding.encodePKCS8(.x448, raw: rawRepresentation) }

    /// Raw 56-byte X448(self, peer); throws for a low-order peer key (all-zero result).
    public func sharedSecret(with peer: X448PublicKey) throws(CryptoError) -> [UInt8] {
        do {
            let key = try handle ?? PrivateKeyHandle(.x448, raw: rawRepresentation)
            return try OpenSSLEVP.derive(.x448, privateKey: key, publicKey: peer.rawRepresentation, length: 56)
        } catch {
            throw .invalidKey("X448 agreement: \(error)")
        }
    }
}

extension X448PrivateKey: Equatable {
    public static func == (a: X448PrivateKey, b: X448PrivateKey) -> Bool {
        constantTimeEquals(a.rawRepresentation, b.rawRepresentation)
    }
}
