import Crypto
import Foundation
import SimplexFoundation

/// KEM encapsulation (public) key as it travels in ratchet headers and E2E params.
public struct KEMPublicKey: Sendable, Hashable {
    public let bytes: [UInt8]
    public init(_ bytes: [UInt8]) { self.bytes = bytes }
}

/// KEM decapsulation key, in the KEM's compact storage form (for ML-KEM the 64-byte seed d||z).
public struct KEMSecretKey: Sendable, Equatable {
    public let bytes: [UInt8]
    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public static func == (a: KEMSecretKey, b: KEMSecretKey) -> Bool { constantTimeEquals(a.bytes, b.bytes) }
}

/// An encapsulated shared secret (the `ct` of pqdr.md).
public struct KEMCiphertext: Sendable, Hashable {
    public let bytes: [UInt8]
    public init(_ bytes: [UInt8]) { self.bytes = bytes }
}

/// The KEM shared secret (`PQRss`) that is appended to the DH output in the root KDF.
public struct KEMSharedSecret: Sendable, Equatable {
    public let bytes: [UInt8]
    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public static func == (a: KEMSharedSecret, b: KEMSharedSecret) -> Bool { constantTimeEquals(a.bytes, b.bytes) }
}

/// A KEM key pair (`PQRs` of pqdr.md).
public struct KEMKeyPair: Sendable, Equatable {
    public let publicKey: KEMPublicKey
    public let secretKey: KEMSecretKey
    public init(publicKey: KEMPublicKey, secretKey: KEMSecretKey) {
        self.publicKey = publicKey
        self.secretKey = secretKey
    }
}

/// The post-quantum KEM the ratchet runs beside DH (pqdr.md: "any PQ KEM algorithm").
/// Stateless: keys travel as bytes so the ratchet state stays a plain persistable value.
public protocol RatchetKEM: Sendable {
    /// Name for diagnostics ("ML-KEM-768").
    static var name: String { get }
    static var publicKeyLength: Int { get }
    static var secretKeyLength: Int { get }
    static var ciphertextLength: Int { get }
    static var sharedSecretLength: Int { get }
    /// Padded length of a ratchet header that may carry `ct` and the next encapsulation key
    /// (simplexmq `paddedHeaderLen` for PQ support on, 2310 with sntrup761).
    static var paddedHeaderLength: Int { get }

    /// `GENERATE_PQKEM()`.
    static func generateKeyPair() throws(RatchetError) -> KEMKeyPair
    /// `PQKEM-ENC(pk)`: a fresh shared secret and its encapsulation.
    static func encapsulate(_ publicKey: KEMPublicKey) throws(RatchetError) -> (ciphertext: KEMCiphertext, sharedSecret: KEMSharedSecret)
    /// `PQKEM-DEC(sk, ct)`.
    static func decapsulate(_ ciphertext: KEMCiphertext, secretKey: KEMSecretKey) throws(RatchetError) -> KEMSharedSecret
}

/// ML-KEM-768 (FIPS 203) from swift-crypto, standing in for the spec's sntrup761, which has no
/// Swift package. Sizes: public key 1184, ciphertext 1088, shared secret 32, stored secret 64 (seed).
public enum MLKEM768RatchetKEM: RatchetKEM {
    public static let name = "ML-KEM-768"
    public static let publicKeyLength = 1184
    public static let secretKeyLength = 64
    public static let ciphertextLength = 1088
    public static let sharedSecretLength = 32
    /// Largest header: 2 (max version) + 1+68 (X448 DER key) + 1+1 (Maybe, 'A') + 2+1088 (ct)
    /// + 2+1184 (key) + 4+4 (PN, N) = 2357, +2 padding length = 2359; 25 bytes reserve as simplexmq keeps.
    public static let paddedHeaderLength = 2384

    public static func generateKeyPair() throws(RatchetError) -> KEMKeyPair {
        do {
            let sk = try MLKEM768.PrivateKey()
            return KEMKeyPair(
                publicKey: KEMPublicKey(Array(sk.publicKey.rawRepresentation)),
                secretKey: KEMSecretKey(Array(sk.seedRepresentation)))
        } catch {
            throw .kem("\(name) key generation: \(error)")
        }
    }

    public static func encapsulate(_ publicKey: KEMPublicKey) throws(RatchetError) -> (ciphertext: KEMCiphertext, sharedSecret: KEMSharedSecret) {
        guard publicKey.bytes.count == publicKeyLength else {
            throw .kem("\(name) public key of \(publicKey.bytes.count) bytes")
        }
        do {
            let pk = try MLKEM768.PublicKey(rawRepresentation: publicKey.bytes)
            let r = try pk.encapsulate()
            return (KEMCiphertext(Array(r.encapsulated)), KEMSharedSecret(r.sharedSecret.withUnsafeBytes { Array($0) }))
        } catch {
            throw .kem("\(name) encapsulation: \(error)")
        }
    }

    public static func decapsulate(_ ciphertext: KEMCiphertext, secretKey: KEMSecretKey) throws(RatchetError) -> KEMSharedSecret {
        guard ciphertext.bytes.count == ciphertextLength else {
            throw .kem("\(name) ciphertext of \(ciphertext.bytes.count) bytes")
        }
        guard secretKey.bytes.count == secretKeyLength else {
            throw .kem("\(name) secret key of \(secretKey.bytes.count) bytes")
        }
        do {
            let sk = try MLKEM768.PrivateKey(seedRepresentation: secretKey.bytes, publicKey: nil)
            let ss = try sk.decapsulate(ciphertext.bytes)
            return KEMSharedSecret(ss.withUnsafeBytes { Array($0) })
        } catch {
            throw .kem("\(name) decapsulation: \(error)")
        }
    }
}
