/// Ed448 public key (57 bytes), accepted by SMP as an auth and signature key, via the system OpenSSL.
public struct Ed448PublicKey: Sendable, Hashable {
    public static let algorithm = KeyAlgorithm.ed448
    public static let signatureLength = 114
    public let rawRepresentation: [UInt8]

    public init(rawRepresentation raw: [UInt8]) throws(CryptoError) {
        guard raw.count == 57 else { throw .invalidKey("Ed448 public key of \(raw.count) bytes") }
        rawRepresentation = raw
    }

    /// Decodes the "x509encoded" form (DER SubjectPublicKeyInfo); any other algorithm throws.
    public init(x509Encoded der: [UInt8]) throws(CryptoError) {
        self = try AnyPublicKey(x509Encoded: der).ed448()
    }

    /// DER SubjectPublicKeyInfo: 30 43 30 05 06 03 2b 65 71 03 3a 00 + key.
    public var x509Encoded: [UInt8] { KeyEncoding.encodeSPKI(.ed448, raw: rawRepresentation) }

    /// True when `signature` is a valid RFC 8032 Ed448 signature (empty context) of `message`;
    /// false for any bad input.
    public func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        guard signature.count == Self.signatureLength else { return false }
        return OpenSSLEVP.verify(.ed448, publicKey: rawRepresentation, signature: signature, message: message)
    }
}

/// Ed448 private key (57-byte seed), with its OpenSSL key object built once.
public struct Ed448PrivateKey: Sendable {
    public static let algorithm = KeyAlgorithm.ed448
    public let rawRepresentation: [UInt8]
    public let publicKey: Ed448PublicKey
    let handle: PrivateKeyHandle

    /// A new random key (an Ed448 private key is any 57-byte seed).
    public init() {
        try! self.init(rawRepresentation: SecureRandom.bytes(57))
    }

    public init(rawRepresentation raw: [UInt8]) throws(CryptoError) {
        guard raw.count == 57 else { throw .invalidKey("Ed448 private key of \(raw.count) bytes") }
        rawRepresentation = raw
        handle = try PrivateKeyHandle(.ed448, raw: raw)
        publicKey = try Ed448PublicKey(rawRepresentation: OpenSSLEVP.publicKey(handle, length: 57))
    }

    /// Decodes PKCS#8 DER; any other algorithm throws.
    public init(pkcs8Encoded der: [UInt8]) throws(CryptoError) {
        self = try AnyPrivateKey(pkcs8Encoded: der).ed448()
    }

    /// PKCS#8 DER for storage.
    public var pkcs8Encoded: [UInt8] { KeyEncoding.encodePKCS8(.ed448, raw: rawRepresentation) }

    /// 114-byte signature of `message` (pure Ed448, empty context).
    public func sign(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        try OpenSSLEVP.sign(privateKey: handle, message: message, length: 114)
    }
}

extension Ed448PrivateKey: Equatable {
    public static func == (a: Ed448PrivateKey, b: Ed448PrivateKey) -> Bool {
        constantTimeEquals(a.rawRepresentation, b.rawRepresentation)
    }
}
