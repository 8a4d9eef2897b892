import Crypto

/// The hash functions and KDFs of the SimpleX specs (SHA-256 key hashes, SHA-512 authenticators,
/// HKDF-SHA512 for ratchet and chain keys), backed by swift-crypto.
public enum CryptoHash {
    public static let sha256Length = 32
    public static let sha512Length = 64

    /// SHA-256 digest (server key hashes, file digests).
    public static func sha256<C: Collection>(_ data: C) -> [UInt8] where C.Element == UInt8 {
        var h = SHA256()
        update(&h, data)
        return Array(h.finalize())
    }

    /// SHA-512 digest (the body of SMP DH authenticators).
    public static func sha512<C: Collection>(_ data: C) -> [UInt8] where C.Element == UInt8 {
        var h = SHA512()
        update(&h, data)
        return Array(h.finalize())
    }

    /// HMAC-SHA512 of `message` under `key`.
    public static func hmacSHA512<K: Collection, M: Collection>(key: K, message: M) -> [UInt8]
    where K.Element == UInt8, M.Element == UInt8 {
        var mac = HMAC<SHA512>(key: SymmetricKey(data: Array(key)))
        withContiguous(message) { mac.update(data: $0) }
        return Array(mac.finalize())
    }

    /// HKDF-SHA512 (RFC 5869) as simplexmq's `hkdf salt ikm info n`; an empty salt means 64 zero
    /// bytes, as the RFC says. Throws `badLength` when `count` exceeds 255 * 64 or is negative.
    public static func hkdf(salt: [UInt8], ikm: [UInt8], info: [UInt8], count: Int) throws(CryptoError) -> [UInt8] {
        guard count >= 0, count <= 255 * sha512Length else {
            throw .badLength("HKDF-SHA512 output of \(count) bytes")
        }
        if count == 0 { return [] }
        let key = HKDF<SHA512>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: ikm), salt: salt, info: info, outputByteCount: count)
        return key.withUnsafeBytes { Array($0) }
    }

    private static func update<H: HashFunction, C: Collection>(_ h: inout H, _ data: C) where C.Element == UInt8 {
        withContiguous(data) { h.update(bufferPointer: $0) }
    }

    /// Runs `body` over the bytes of `data` without copying when they are already contiguous.
    private static func withContiguous<C: Collection, R>(_ data: C, _ body: (UnsafeRawBufferPointer) -> R) -> R
    where C.Element == UInt8 {
        if let r = data.withContiguousStorageIfAvailable({ body(UnsafeRawBufferPointer($0)) }) { return r }
        return Array(data).withUnsafeBytes(body)
    }
}
