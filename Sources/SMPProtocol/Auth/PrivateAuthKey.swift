import SimplexFoundation

/// A queue command key held by a client: Ed25519/Ed448 sign transmissions, X25519 computes a
/// deniable DH authenticator with the server's per-session key.
public enum PrivateAuthKey: Sendable {
    case ed25519(Ed25519PrivateKey)
    case ed448(Ed448PrivateKey)
    case x25519(X25519PrivateKey)

    public var publicKey: AnyPublicKey {
        switch self {
        case .ed25519(let k): .ed25519(k.publicKey)
        case .ed448(let k): .ed448(k.publicKey)
        case .x25519(let k): .x25519(k.publicKey)
        }
    }

    /// A fresh key of the given algorithm.
    public static func generate(_ algorithm: KeyAlgorithm = .ed25519) throws -> PrivateAuthKey {
        switch algorithm {
        case .ed25519: return .ed25519(Ed25519PrivateKey())
        case .ed448: return .ed448(Ed448PrivateKey())
        case .x25519: return .x25519(X25519PrivateKey())
        case .x448: throw CryptoError.unsupportedAlgorithm("X448 is not an SMP auth key")
        }
    }

    /// PKCS#8 DER for storage.
    public var pkcs8Encoded: [UInt8] {
        switch self {
        case .ed25519(let k): k.pkcs8Encoded
        case .ed448(let k): k.pkcs8Encoded
        case .x25519(let k): k.pkcs8Encoded
        }
    }

    public init(pkcs8Encoded der: [UInt8]) throws {
        let any = try AnyPrivateKey(pkcs8Encoded: der)
        switch any {
        case .ed25519(let k): self = .ed25519(k)
        case .ed448(let k): self = .ed448(k)
        case .x25519(let k): self = .x25519(k)
        case .x448: throw CryptoError.unsupportedAlgorithm("X448 is not an SMP auth key")
        }
    }
}

/// Authorization of transmissions as the spec's "Command verification" and "Deniable client
/// authentication scheme" define it.
public enum TransmissionAuth {
    /// Client side: the `authorization` field for a transmission whose authorized bytes are
    /// `authorized` (see `RawTransmission.authorizedBytes`).
    /// `keys` (the session's cache) saves the DH of an X25519 key after its first command.
    public static func authorize(key: PrivateAuthKey, authorized: [UInt8], corrId: [UInt8], serverSessionKey: X25519PublicKey?,
                                 keys: AuthenticatorKeyCache? = nil) throws -> [UInt8] {
        switch key {
        case .ed25519(let k): return try k.sign(authorized)
        case .ed448(let k): return try k.sign(authorized)
        case .x25519(let k):
            guard let serverSessionKey else { throw TransportError.noAuth }
            let derive = { () throws(CryptoError) in try CryptoBox.sharedKey(publicKey: serverSessionKey, privateKey: k) }
            let box = try keys?.key(for: k.publicKey, derive: derive) ?? derive()
            return try SMPAuthenticator.authenticate(authorized: authorized, nonce: cbNonce(corrId), key: box)
        }
    }

    /// Server side: whether `authorization` is valid for `key`. X25519 keys need the server's
    /// session private key of the connection.
    /// `keys` (the session's cache) saves the DH of an X25519 key after its first command.
    public static func verify(key: AnyPublicKey, authorization: [UInt8], authorized: [UInt8], corrId: [UInt8], serverSessionKey: X25519PrivateKey?,
                              keys: AuthenticatorKeyCache? = nil) -> Bool {
        switch key {
        case .ed25519, .ed448:
            return key.isValidSignature(authorization, for: authorized)
        case .x25519(let pub):
            guard let serverSessionKey else { return false }
            let derive = { () throws(CryptoError) in try CryptoBox.sharedKey(publicKey: pub, privateKey: serverSessionKey) }
            guard let box = try? keys?.key(for: pub, derive: derive) ?? derive() else { return false }
            return SMPAuthenticator.verify(authorization, authorized: authorized, nonce: cbNonce(corrId), key: box)
        case .x448:
            return false
        }
    }
}

extension TransmissionAuth {
    /// `cbNonce`: the corrId as a 24-byte crypto_box nonce, cut or zero-padded to 24 bytes.
    public static func cbNonce(_ corrId: [UInt8]) -> [UInt8] {
        if corrId.count >= 24 { return Array(corrId.prefix(24)) }
        return corrId + [UInt8](repeating: 0, count: 24 - corrId.count)
    }
}
