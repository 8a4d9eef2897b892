import SimplexFoundation

/// The authorization a transmission carries (`TransmissionAuth`): a signature by an Ed25519/Ed448
/// key, or an 80-byte crypto_box authenticator by an X25519 key (XFTP v2+).
public enum TransmissionAuth: Sendable, Hashable {
    case signature(algorithm: KeyAlgorithm, bytes: [UInt8])
    case authenticator([UInt8])

    /// `decodeTAuthBytes`: empty means none, 80 bytes an authenticator, 64 or 114 bytes an
    /// Ed25519 or Ed448 signature; any other length is a malformed block.
    static func decode(_ bytes: [UInt8]) -> Result<TransmissionAuth?, XFTPErrorType> {
        switch bytes.count {
        case 0: .success(nil)
        case SMPAuthenticator.length: .success(.authenticator(bytes))
        case 64: .success(.signature(algorithm: .ed25519, bytes: bytes))
        case 114: .success(.signature(algorithm: .ed448, bytes: bytes))
        default: .failure(.block)
        }
    }

    public var bytes: [UInt8] {
        switch self {
        case .signature(_, let b): b
        case .authenticator(let b): b
        }
    }

    /// Authorizes `authorized` with `key` (`authTransmission`): signatures for Ed keys; for an
    /// X25519 key, `cbAuthenticate` with the server's session key and the corrId as nonce.
    public static func make(
        key: AnyPrivateKey, authorized: [UInt8], corrId: [UInt8], serverSessionKey: X25519PublicKey?
    ) throws -> TransmissionAuth {
        switch key {
        case .ed25519(let k): return .signature(algorithm: .ed25519, bytes: try k.sign(authorized))
        case .ed448(let k): return .signature(algorithm: .ed448, bytes: try k.sign(authorized))
        case .x25519(let k):
            guard let serverSessionKey else { throw XFTPTransmissionError.noServerAuth }
            return .authenticator(try SMPAuthenticator.authenticate(
                authorized: authorized, nonce: CryptoBox.nonce(from: corrId),
                serverPublicKey: serverSessionKey, queuePrivateKey: k))
        case .x448: throw XFTPTransmissionError.unsupportedKey
        }
    }

    /// `verifyCmdAuthorization`: the signature must be of the key's algorithm; an authenticator
    /// needs an X25519 key and the server's session private key.
    public func verify(
        key: AnyPublicKey, authorized: [UInt8], corrId: [UInt8], serverSessionKey: X25519PrivateKey?
    ) -> Bool {
        switch self {
        case .signature(let alg, let sig):
            guard key.algorithm == alg else {
                _ = DummyKeys.verify(self, authorized: authorized, corrId: corrId, serverSessionKey: serverSessionKey)
                return false
            }
            return key.isValidSignature(sig, for: authorized)
        case .authenticator(let a):
            guard case .x25519(let k) = key, let serverSessionKey else {
                _ = DummyKeys.verify(self, authorized: authorized, corrId: corrId, serverSessionKey: serverSessionKey)
                return false
            }
            return SMPAuthenticator.verify(a, authorized: authorized, nonce: CryptoBox.nonce(from: corrId),
                                           queuePublicKey: k, serverPrivateKey: serverSessionKey)
        }
    }
}

/// `dummyVerifyCmd`: the server runs a verification of the same cost when a file does not exist,
/// so response time does not tell whether an ID is in use.
public enum DummyKeys {
    static let ed25519 = AnyPublicKey.fromBase64("MCowBQYDK2VwAyEA139Oqs4QgpqbAmB0o7rZf6T19ryl7E65k4AYe0kE3Qs=")
    static let ed448 = AnyPublicKey.fromBase64("MEMwBQYDK2VxAzoA6ibQc9XpkSLtwrf7PLvp81qW/etiumckVFImCMRdftcG/XopbOSaq9qyLhrgJWKOLyNrQPNVvpMA")
    static let x25519 = AnyPublicKey.fromBase64("MCowBQYDK2VuAyEA4JGSMYht18H4mas/jHeBwfcM7jLwNYJNOAhi2/g4RXg=")

    /// Always false; costs what a real verification costs.
    @discardableResult
    public static func verify(
        _ auth: TransmissionAuth?, authorized: [UInt8], corrId: [UInt8], serverSessionKey: X25519PrivateKey?
    ) -> Bool {
        guard let auth else { return false }
        switch auth {
        case .signature(let alg, let sig):
            let k = alg == .ed448 ? ed448 : ed25519
            _ = k?.isValidSignature(sig, for: authorized)
        case .authenticator(let a):
            if case .x25519(let k)? = x25519, let serverSessionKey {
                _ = SMPAuthenticator.verify(a, authorized: authorized, nonce: CryptoBox.nonce(from: corrId),
                                            queuePublicKey: k, serverPrivateKey: serverSessionKey)
            }
        }
        return false
    }
}

extension AnyPublicKey {
    /// A DER key from standard or URL base64 (fixed keys in code).
    static func fromBase64(_ s: String) -> AnyPublicKey? {
        Base64URL.decode(s).flatMap { try? AnyPublicKey(x509Encoded: $0) }
    }
}

public enum XFTPTransmissionError: Error, Sendable, Equatable {
    /// An X25519 key needs the server's session key from the handshake (`TENoServerAuth`).
    case noServerAuth
    case unsupportedKey
    /// The transmission does not fit one block (`TELargeMsg`).
    case largeMessage
}
