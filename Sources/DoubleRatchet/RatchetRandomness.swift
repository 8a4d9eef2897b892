import SimplexFoundation

/// Where the ratchet gets its randomness: new X448 keys (E2E params, `DHRs` at each ratchet
/// step), KEM key pairs and KEM encapsulations. simplexmq passes a DRG for the same purpose;
/// injecting it lets a recorded conversation be replayed byte for byte (the reference vectors
/// record the keys and encapsulations each step made). Calls come in the reference's order:
/// E2E params: key1, key2, KEM key pair, encapsulation; ratchet step: encapsulation, KEM key
/// pair, DH key.
public protocol RatchetRandomness {
    mutating func dhPrivateKey() throws(RatchetError) -> X448PrivateKey
    mutating func kemKeyPair<KEM: RatchetKEM>(_ kem: KEM.Type) throws(RatchetError) -> KEMKeyPair
    mutating func kemEncapsulate<KEM: RatchetKEM>(_ kem: KEM.Type, to publicKey: KEMPublicKey) throws(RatchetError)
        -> (ciphertext: KEMCiphertext, sharedSecret: KEMSharedSecret)
}

/// The system CSPRNG (what the agent uses).
public struct SystemRatchetRandomness: RatchetRandomness {
    public init() {}

    public mutating func dhPrivateKey() throws(RatchetError) -> X448PrivateKey { X448PrivateKey() }

    public mutating func kemKeyPair<KEM: RatchetKEM>(_ kem: KEM.Type) throws(RatchetError) -> KEMKeyPair {
        try KEM.generateKeyPair()
    }

    public mutating func kemEncapsulate<KEM: RatchetKEM>(_ kem: KEM.Type, to publicKey: KEMPublicKey) throws(RatchetError)
        -> (ciphertext: KEMCiphertext, sharedSecret: KEMSharedSecret) {
        try KEM.encapsulate(publicKey)
    }
}

/// A deterministic byte stream (SHA-512 in counter mode over a seed) feeding the real key
/// generation and encapsulation: the same seed gives the same conversation, for tests.
public struct SeededRatchetRandomness: RatchetRandomness {
    private let seed: [UInt8]
    private var counter: UInt64 = 0
    private var buffer: [UInt8] = []

    public init(seed: [UInt8]) { self.seed = seed }

    public mutating func bytes(_ n: Int) -> [UInt8] {
        while buffer.count < n {
            var block = seed
            withUnsafeBytes(of: counter.bigEndian) { block.append(contentsOf: $0) }
            buffer += CryptoHash.sha512(block)
            counter += 1
        }
        let out = Array(buffer.prefix(n))
        buffer.removeFirst(n)
        return out
    }

    public mutating func dhPrivateKey() throws(RatchetError) -> X448PrivateKey {
        do {
            return try X448PrivateKey(rawRepresentation: bytes(56))
        } catch {
            throw .invalidKey("\(error)")
        }
    }

    public mutating func kemKeyPair<KEM: RatchetKEM>(_ kem: KEM.Type) throws(RatchetError) -> KEMKeyPair {
        try KEM.generateKeyPair { self.bytes($0) }
    }

    public mutating func kemEncapsulate<KEM: RatchetKEM>(_ kem: KEM.Type, to publicKey: KEMPublicKey) throws(RatchetError)
        -> (ciphertext: KEMCiphertext, sharedSecret: KEMSharedSecret) {
        try KEM.encapsulate(publicKey) { self.bytes($0) }
    }
}
