import SimplexFoundation

/// The three HKDF-SHA512 derivations of Ratchet.hs (`hkdf3`, `pqX3dh`, `rootKdf`, `chainKdf`):
/// each takes 96 bytes of output and splits it 32/32/32.
enum RatchetKDF {
    static let x3dhInfo = Array("SimpleXX3DH".utf8)
    static let rootInfo = Array("SimpleXRootRatchet".utf8)
    static let chainInfo = Array("SimpleXChainRatchet".utf8)

    /// `hkdf3 salt ikm info`: HKDF-SHA512 to 96 bytes, split in three 32-byte parts.
    static func hkdf3(salt: [UInt8], ikm: [UInt8], info: [UInt8]) throws(RatchetError) -> ([UInt8], [UInt8], [UInt8]) {
        let out: [UInt8]
        do {
            out = try CryptoHash.hkdf(salt: salt, ikm: ikm, info: info, count: 96)
        } catch {
            throw .kem("HKDF: \(error)")  // unreachable: 96 bytes is within HKDF-SHA512's limit
        }
        return (Array(out[0..<32]), Array(out[32..<64]), Array(out[64..<96]))
    }

    /// X3DH of `pqX3dh`: `(hk, nhk, sk) = hkdf3(64 zero bytes, dh1 || dh2 || dh3 || kemSS, "SimpleXX3DH")`.
    static func x3dh(dh1: [UInt8], dh2: [UInt8], dh3: [UInt8], kemSecret: KEMSharedSecret?) throws(RatchetError)
        -> (headerKey: [UInt8], nextHeaderKey: [UInt8], rootKey: [UInt8]) {
        let ikm = dh1 + dh2 + dh3 + (kemSecret?.bytes ?? [])
        let (hk, nhk, sk) = try hkdf3(salt: [UInt8](repeating: 0, count: 64), ikm: ikm, info: x3dhInfo)
        return (hk, nhk, sk)
    }

    /// `KDF_RK_HE(rk, DH(..) || ss)`: `(rk', ck, nhk) = hkdf3(rk, dhOut || kemSS, "SimpleXRootRatchet")`;
    /// without a KEM secret the input is the DH output alone (no separator, no zero padding).
    static func root(rootKey: [UInt8], dhOutput: [UInt8], kemSecret: KEMSharedSecret?) throws(RatchetError)
        -> (rootKey: [UInt8], chainKey: [UInt8], nextHeaderKey: [UInt8]) {
        let (rk, ck, nhk) = try hkdf3(salt: rootKey, ikm: dhOutput + (kemSecret?.bytes ?? []), info: rootInfo)
        return (rk, ck, nhk)
    }

    /// `KDF_CK(ck)`: `(ck', mk, iv || headerIV) = hkdf3("", ck, "SimpleXChainRatchet")`; the message
    /// uses `iv`, the header of the same message `headerIV` (both 16 bytes).
    static func chain(_ chainKey: [UInt8]) throws(RatchetError)
        -> (chainKey: [UInt8], messageKey: [UInt8], iv: [UInt8], headerIV: [UInt8]) {
        let (ck, mk, ivs) = try hkdf3(salt: [], ikm: chainKey, info: chainInfo)
        return (ck, mk, Array(ivs[0..<16]), Array(ivs[16..<32]))
    }
}
