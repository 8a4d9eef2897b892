import SimplexFoundation

/// One direction's secretbox chain key (simplexmq `SbChainKey`) of the v11 encrypted blocks:
/// each block takes the next (key, nonce) and moves the chain forward, so a key leaked later
/// cannot open earlier blocks.
public struct SecretBoxChainKey: Sendable, Equatable {
    /// The 32-byte chain key.
    public private(set) var rawRepresentation: [UInt8]

    public init(rawRepresentation raw: [UInt8]) throws(CryptoError) {
        guard raw.count == 32 else { throw .badLength("secretbox chain key of \(raw.count) bytes") }
        rawRepresentation = raw
    }

    /// `sbcInit salt secret`.
    public static func initial(salt: [UInt8], secret: [UInt8]) throws(CryptoError) -> (SecretBoxChainKey, SecretBoxChainKey) {
        let (a, b) = try SecretBoxChain.initKeys(salt: salt, secret: secret)
        return (try SecretBoxChainKey(rawRepresentation: a), try SecretBoxChainKey(rawRepresentation: b))
    }

    /// `sbcHkdf`: the key and nonce for one block; advances the chain.
    public mutating func next() throws(CryptoError) -> (key: [UInt8], nonce: [UInt8]) {
        let s = try SecretBoxChain.step(rawRepresentation)
        rawRepresentation = s.chainKey
        return (s.key, s.nonce)
    }

    public static func == (a: SecretBoxChainKey, b: SecretBoxChainKey) -> Bool {
        a.rawRepresentation == b.rawRepresentation
    }
}
