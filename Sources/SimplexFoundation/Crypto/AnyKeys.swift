/// A public key of any SimpleX algorithm, recognized from its DER encoding. SMP commands carry
/// "Ed25519 or Ed448 or X25519" auth keys, so the protocol layer decodes with this and then
/// narrows with `allowing:` or the typed accessors.
public enum AnyPublicKey: Sendable, Hashable {
    case ed25519(Ed25519PublicKey)
    case ed448(Ed448PublicKey)
    case x25519(X25519PublicKey)
    case x448(X448PublicKey)

    /// The SMP auth key algorithms (simplex-messaging.md: Ed25519, Ed448 or X25519).
    public static let authAlgorithms: Set<KeyAlgorithm> = [.ed25519, .ed448, .x25519]

    /// Decodes a DER SubjectPublicKeyInfo of any of the four algorithms; anything else throws
    /// `unsupportedAlgorithm`, malformed DER throws `invalidEncoding`, a wrong length `invalidKey`.
    public init(x509Encoded der: [UInt8]) throws(CryptoError) {
        let (algorithm, raw) = try KeyEncoding.decodeSPKI(der)
        try self.init(algorithm: algorithm, rawRepresentation: raw)
    }

    /// Decodes as above and requires the algorithm to be one of `allowed`.
    public init(x509Encoded der: [UInt8], allowing allowed: Set<KeyAlgorithm>) throws(CryptoError) {
        try self.init(x509Encoded: der)
        guard allowed.contains(algorithm) else { throw .unsupportedAlgorithm("\(algorithm.rawValue) key not allowed here") }
    }

    public init(algorithm: KeyAlgorithm, rawRepresentation raw: [UInt8]) throws(CryptoError) {
        switch algorithm {
        case .ed25519: self = .ed25519(try Ed25519PublicKey(rawRepresentation: raw))
        case .ed448: self = .ed448(try Ed448PublicKey(rawRepresentation: raw))
        case .x25519: self = .x25519(try X25519PublicKey(rawRepresentation: raw))
        case .x448: self = .x448(try X448PublicKey(rawRepresentation: raw))
        }
    }

    public var algorithm: KeyAlgorithm {
        switch self {
        case .ed25519: .ed25519
        case .ed448: .ed448
        case .x25519: .x25519
        case .x448: .x448
        }
    }

    public var rawRepresentation: [UInt8] {
        switch self {
        case .ed25519(let k): k.rawRepresentation
        case .ed448(let k): k.rawRepresentation
        case .x25519(let k): k.rawRepresentation
        case .x448(let k): k.rawRepresentation
        }
    }

    /// The SMP "x509encoded" form.
    public var x509Encoded: [UInt8] { KeyEncoding.encodeSPKI(algorithm, raw: rawRepresentation) }

    /// Signature check for Ed25519/Ed448 keys; always false for DH keys or a signature of the
    /// other algorithm's length.
    public func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        switch self {
        case .ed25519(let k): k.isValidSignature(signature, for: message)
        case .ed448(let k): k.isValidSignature(signature, for: message)
        case .x25519, .x448: false
        }
    }

    public func ed25519() throws(CryptoError) -> Ed25519PublicKey {
        guard case .ed25519(let k) = self else { throw mismatch(.ed25519) }
        return k
    }

    public func ed448() throws(CryptoError) -> Ed448PublicKey {
        guard case .ed448(let k) = self else { throw mismatch(.ed448) }
        return k
    }

    public func x25519() throws(CryptoError) -> X25519PublicKey {
        guard case .x25519(let k) = self else { throw mismatch(.x25519) }
        return k
    }

    public func x448() throws(CryptoError) -> X448PublicKey {
        guard case .x448(let k) = self else { throw mismatch(.x448) }
        return k
    }

    private func mismatch(_ expected: KeyAlgorithm) -> CryptoError {
        .unsupportedAlgorithm("expected \(expected.rawValue) key, found \(algorithm.rawValue)")
    }
}

/// A private key of any SimpleX algorithm, as stored (PKCS#8 DER) by agents and servers.
public enum AnyPrivateKey: Sendable, Equatable {
    case ed25519(Ed25519PrivateKey)
    case ed448(Ed448PrivateKey)
    case x25519(X25519PrivateKey)
    case x448(X448PrivateKey)

    /// A new random key of `algorithm`.
    public static func generate(_ algorithm: KeyAlgorithm) -> AnyPrivateKey {
        switch algorithm {
        case .ed25519: .ed25519(Ed25519PrivateKey())
        case .ed448: .ed448(Ed448PrivateKey())
        case .x25519: .x25519(X25519PrivateKey())
        case .x448: .x448(X448PrivateKey())
        }
    }

    /// Decodes PKCS#8 DER of any of the four algorithms; anything else is a typed error.
    public init(pkcs8Encoded der: [UInt8]) throws(CryptoError) {
        let (algorithm, raw) = try KeyEncoding.decodePKCS8(der)
        try self.init(algorithm: algorithm, rawRepresentation: raw)
    }

    public init(algorithm: KeyAlgorithm, rawRepresentation raw: [UInt8]) throws(CryptoError) {
        switch algorithm {
        case .ed25519: self = .ed25519(try Ed25519PrivateKey(rawRepresentation: raw))
        case .ed448: self = .ed448(try Ed448PrivateKey(rawRepresentation: raw))
        case .x25519: self = .x25519(try X25519PrivateKey(rawRepresentation: raw))
        case .x448: self = .x448(try X448PrivateKey(rawRepresentation: raw))
        }
    }

    public var algorithm: KeyAlgorithm {
        switch self {
        case .ed25519: .ed25519
        case .ed448: .ed448
        case .x25519: .x25519
        case .x448: .x448
        }
    }

    public var rawRepresentation: [UInt8] {
        switch self {
        case .ed25519(let k): k.rawRepresentation
        case .ed448(let k): k.rawRepresentation
        case .x25519(let k): k.rawRepresentation
        case .x448(let k): k.rawRepresentation
        }
    }

    public var publicKey: AnyPublicKey {
        switch self {
        case .ed25519(let k): .ed25519(k.publicKey)
        case .ed448(let k): .ed448(k.publicKey)
        case .x25519(let k): .x25519(k.publicKey)
        case .x448(let k): .x448(k.publicKey)
        }
    }

    /// PKCS#8 DER for storage.
    public var pkcs8Encoded: [UInt8] { KeyEncoding.encodePKCS8(algorithm, raw: rawRepresentation) }

    /// Signs with an Ed25519/Ed448 key; a DH key throws `unsupportedAlgorithm`.
    public func sign(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        switch self {
        case .ed25519(let k): try k.sign(message)
        case .ed448(let k): try k.sign(message)
        case .x25519, .x448: throw .unsupportedAlgorithm("\(algorithm.rawValue) key cannot sign")
        }
    }

    public func ed25519() throws(CryptoError) -> Ed25519PrivateKey {
        guard case .ed25519(let k) = self else { throw mismatch(.ed25519) }
        return k
    }

    public func ed448() throws(CryptoError) -> Ed448PrivateKey {
        guard case .ed448(let k) = self else { throw mismatch(.ed448) }
        return k
    }

    public func x25519() throws(CryptoError) -> X25519PrivateKey {
        guard case .x25519(let k) = self else { throw mismatch(.x25519) }
        return k
    }

    public func x448() throws(CryptoError) -> X448PrivateKey {
        guard case .x448(let k) = self else { throw mismatch(.x448) }
        return k
    }

    private func mismatch(_ expected: KeyAlgorithm) -> CryptoError {
        .unsupportedAlgorithm("expected \(expected.rawValue) key, found \(algorithm.rawValue)")
    }
}
