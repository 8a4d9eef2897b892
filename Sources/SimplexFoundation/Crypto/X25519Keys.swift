import Crypto
import Foundation

/// X25519 public key (32 bytes): SMP queue DH keys, server session keys, crypto_box peers.
public struct X25519PublicKey: Sendable, Hashable {
    public static let algorithm = KeyAlgorithm.x25519
    public let rawRepresentation: [UInt8]

    public init(rawRepresentation raw: [UInt8]) throws(CryptoError) {
        guard raw.count == 32 else { throw .invalidKey("X25519 public key of \(raw.count) bytes") }
        rawRepresentation = raw
    }

    /// Decodes the SMP "x509encoded" form (DER SubjectPublicKeyInfo); any other algorithm throws.
    public init(x509Encoded der: [UInt8]) throws(CryptoError) {
        self = try AnyPublicKey(x509Encoded: der).x25519()
    }

    /// The SMP "x509encoded" form: 30 2a 30 05 06 03 2b 65 6e 03 21 00 + key.
    public var x509Encoded: [UInt8] { KeyEncoding.encodeSPKI(.x25519, raw: rawRepresentation) }
}

/// X25519 private key, backed by swift-crypto; agreement returns the raw shared secret
/// (simplexmq's `DhSecret X25519`), which crypto_box then hashes with HSalsa20.
public struct X25519PrivateKey: Sendable {
    public static let algorithm = KeyAlgorithm.x25519
    let key: Curve25519.KeyAgreement.PrivateKey
    public let publicKey: X25519PublicKey

    /// A new random key.
    public init() {
        self.init(key: Curve25519.KeyAgreement.PrivateKey())
    }

    public init(rawRepresentation raw: [UInt8]) throws(CryptoError) {
        guard raw.count == 32 else { throw .invalidKey("X25519 private key of \(raw.count) bytes") }
        do {
            self.init(key: try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: raw))
        } catch {
            throw .invalidKey("X25519 private key: \(error)")
        }
    }

    /// Decodes PKCS#8 DER as stored by simplexmq; any other algorithm throws.
    public init(pkcs8Encoded der: [UInt8]) throws(CryptoError) {
        self = try AnyPrivateKey(pkcs8Encoded: der).x25519()
    }

    private init(key: Curve25519.KeyAgreement.PrivateKey) {
        self.key = key
        // swift-crypto validated the 32-byte length, so this cannot fail.
        self.publicKey = try! X25519PublicKey(rawRepresentation: Array(key.publicKey.rawRepresentation))
    }

    public var rawRepresentation: [UInt8] { Array(key.rawRepresentation) }

    /// PKCS#8 DER for storage.
    public var pkcs8Encoded: [UInt8] { KeyEncoding.encodePKCS8(.x25519, raw: rawRepresentation) }

    /// Raw 32-byte X25519(self, peer). Throws `invalidKey` for a low-order peer key (all-zero
    /// result), which would give a secret known to everyone.
    public func sharedSecret(with peer: X25519PublicKey) throws(CryptoError) -> [UInt8] {
        let secret: [UInt8]
        do {
            let pk = try Curve25519.KeyAgreement.PublicKey(rawRepresentation: peer.rawRepresentation)
            secret = try key.sharedSecretFromKeyAgreement(with: pk).withUnsafeBytes { Array($0) }
        } catch {
            throw .invalidKey("X25519 agreement: \(error)")
        }
        guard secret.reduce(0, { $0 | $1 }) != 0 else { throw .invalidKey("X25519 low-order public key") }
        return secret
    }
}

extension X25519PrivateKey: Equatable {
    public static func == (a: X25519PrivateKey, b: X25519PrivateKey) -> Bool {
        constantTimeEquals(a.rawRepresentation, b.rawRepresentation)
    }
}
