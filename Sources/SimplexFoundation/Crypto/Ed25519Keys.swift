import CSodium
import Crypto
import Foundation

/// Ed25519 public key (32 bytes): SMP command authorization and agent message signatures.
public struct Ed25519PublicKey: Sendable, Hashable {
    public static let algorithm = KeyAlgorithm.ed25519
    public static let signatureLength = 64
    public let rawRepresentation: [UInt8]

    public init(rawRepresentation raw: [UInt8]) throws(CryptoError) {
        guard raw.count == 32 else { throw .invalidKey("Ed25519 public key of \(raw.count) bytes") }
        rawRepresentation = raw
    }

    /// Decodes the SMP "x509encoded" form (DER SubjectPublicKeyInfo); any other algorithm throws.
    public init(x509Encoded der: [UInt8]) throws(CryptoError) {
        self = try AnyPublicKey(x509Encoded: der).ed25519()
    }

    /// The SMP "x509encoded" form: 30 2a 30 05 06 03 2b 65 70 03 21 00 + key.
    public var x509Encoded: [UInt8] { KeyEncoding.encodeSPKI(.ed25519, raw: rawRepresentation) }

    /// True when `signature` is a valid RFC 8032 signature of `message`; false for any bad input
    /// (wrong length, point not on the curve, small-order key or R, non-canonical S).
    /// libsodium's verification: a third faster here than swift-crypto's portable one, and the
    /// relay verifies every SEND and ACK (docs/protocol-notes.md, "Ed25519 verification").
    public func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        guard signature.count == Self.signatureLength, rawRepresentation.count == 32 else { return false }
        Sodium.ensureInitialized()
        return signature.withUnsafeBufferPointer { sig in
            message.withUnsafeBufferPointer { msg in
                rawRepresentation.withUnsafeBufferPointer { pk in
                    crypto_sign_ed25519_verify_detached(sig.baseAddress!, msg.baseAddress, UInt64(msg.count), pk.baseAddress!) == 0
                }
            }
        }
    }
}

/// Ed25519 private key (32-byte seed), backed by swift-crypto.
public struct Ed25519PrivateKey: Sendable {
    public static let algorithm = KeyAlgorithm.ed25519
    let key: Curve25519.Signing.PrivateKey
    public let publicKey: Ed25519PublicKey

    /// A new random key.
    public init() {
        self.init(key: Curve25519.Signing.PrivateKey())
    }

    public init(rawRepresentation raw: [UInt8]) throws(CryptoError) {
        guard raw.count == 32 else { throw .invalidKey("Ed25519 private key of \(raw.count) bytes") }
        do {
            self.init(key: try Curve25519.Signing.PrivateKey(rawRepresentation: raw))
        } catch {
            throw .invalidKey("Ed25519 private key: \(error)")
        }
    }

    /// Decodes PKCS#8 DER as stored by simplexmq; any other algorithm throws.
    public init(pkcs8Encoded der: [UInt8]) throws(CryptoError) {
        self = try AnyPrivateKey(pkcs8Encoded: der).ed25519()
    }

    private init(key: Curve25519.Signing.PrivateKey) {
        self.key = key
        // swift-crypto always produces 32-byte public keys.
        self.publicKey = try! Ed25519PublicKey(rawRepresentation: Array(key.publicKey.rawRepresentation))
    }

    /// The 32-byte seed.
    public var rawRepresentation: [UInt8] { Array(key.rawRepresentation) }

    /// PKCS#8 DER for storage.
    public var pkcs8Encoded: [UInt8] { KeyEncoding.encodePKCS8(.ed25519, raw: rawRepresentation) }

    /// 64-byte signature of `message`.
    public func sign(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        do {
            return Array(try key.signature(for: message))
        } catch {
            throw .invalidKey("Ed25519 signing: \(error)")
        }
    }
}

extension Ed25519PrivateKey: Equatable {
    public static func == (a: Ed25519PrivateKey, b: Ed25519PrivateKey) -> Bool {
        constantTimeEquals(a.rawRepresentation, b.rawRepresentation)
    }
}
