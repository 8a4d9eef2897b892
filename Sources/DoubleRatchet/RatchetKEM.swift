import Foundation
import SimplexFoundation

/// KEM encapsulation (public) key as it travels in ratchet headers and E2E params.
public struct KEMPublicKey: Sendable, Hashable {
    public let bytes: [UInt8]
    public init(_ bytes: [UInt8]) { self.bytes = bytes }
}

/// KEM decapsulation key as the KEM stores it (sntrup761: 1763 bytes, the public key inside).
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

/// The post-quantum KEM the ratchet runs beside DH (pqdr.md: "any PQ KEM algorithm"; SimpleX
/// uses sntrup761). Stateless: keys travel as bytes so the ratchet state stays a plain value.
/// Randomness is a byte source, so recorded key generations and encapsulations can be replayed.
public protocol RatchetKEM: Sendable {
    /// Name for diagnostics and in persisted states ("sntrup761").
    static var name: String { get }
    static var publicKeyLength: Int { get }
    static var secretKeyLength: Int { get }
    static var ciphertextLength: Int { get }
    static var sharedSecretLength: Int { get }
    /// Padded length of a ratchet header that may carry `ct` and the next encapsulation key
    /// (simplexmq `paddedHeaderLen` for PQ support on: 2310 with sntrup761).
    static var paddedHeaderLength: Int { get }

    /// `GENERATE_PQKEM()`.
    static func generateKeyPair(random: (Int) -> [UInt8]) throws(RatchetError) -> KEMKeyPair
    /// `PQKEM-ENC(pk)`: a fresh shared secret and its encapsulation.
    static func encapsulate(_ publicKey: KEMPublicKey, random: (Int) -> [UInt8]) throws(RatchetError)
        -> (ciphertext: KEMCiphertext, sharedSecret: KEMSharedSecret)
    /// `PQKEM-DEC(sk, ct)`.
    static func decapsulate(_ ciphertext: KEMCiphertext, secretKey: KEMSecretKey) throws(RatchetError) -> KEMSharedSecret
}

extension RatchetKEM {
    /// With the system CSPRNG.
    public static func generateKeyPair() throws(RatchetError) -> KEMKeyPair {
        try generateKeyPair(random: BufferedSystemRandom().next)
    }

    /// With the system CSPRNG.
    public static func encapsulate(_ publicKey: KEMPublicKey) throws(RatchetError) -> (ciphertext: KEMCiphertext, sharedSecret: KEMSharedSecret) {
        try encapsulate(publicKey, random: BufferedSystemRandom().next)
    }
}

/// The KEM of SimpleX's ratchet, for code that sizes or parses KEM fields (links, envelopes).
public typealias PQRatchetKEM = SNTRUP761RatchetKEM
