/// simplexmq's secretbox chains (`sbcInit`, `sbcHkdf`): a pair of chain keys from a salt and a
/// shared secret, then one (key, nonce) per message with the chain key moved forward, so each
/// message of a chain has its own key. Used for SMP transport block encryption (v11+).
public enum SecretBoxChain {
    /// `sbcInit salt secret`: HKDF-SHA512(salt, secret, "SimpleXSbChainInit", 64) split 32/32.
    public static func initKeys(salt: [UInt8], secret: [UInt8]) throws(CryptoError) -> (first: [UInt8], second: [UInt8]) {
        let out = try CryptoHash.hkdf(salt: salt, ikm: secret, info: Array("SimpleXSbChainInit".utf8), count: 64)
        return (Array(out[0..<32]), Array(out[32..<64]))
    }

    /// `sbcHkdf ck`: HKDF-SHA512("", ck, "SimpleXSbChain", 88) = next chain key (32) ++ secretbox
    /// key (32) ++ nonce (24).
    public static func step(_ chainKey: [UInt8]) throws(CryptoError) -> (chainKey: [UInt8], key: [UInt8], nonce: [UInt8]) {
        let out = try CryptoHash.hkdf(salt: [], ikm: chainKey, info: Array("SimpleXSbChain".utf8), count: 88)
        return (Array(out[0..<32]), Array(out[32..<64]), Array(out[64..<88]))
    }
}
