import Crypto
import CSodium

/// The hash functions and KDFs of the SimpleX specs (SHA-256 key hashes, SHA-512 authenticators,
/// HKDF-SHA512 for ratchet and chain keys). HMAC and HKDF run on libsodium's HMAC-SHA512 state:
/// every v11 transport block takes an HKDF step, and swift-crypto's generic HKDF cost 20 us there.
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
        var state = crypto_auth_hmacsha512_state()
        withContiguous(key) { k in
            var zero: UInt8 = 0
            if let p = k.baseAddress, k.count > 0 {
                _ = crypto_auth_hmacsha512_init(&state, p.assumingMemoryBound(to: UInt8.self), k.count)
            } else {
                _ = crypto_auth_hmacsha512_init(&state, &zero, 0)  // an empty key is 128 zero bytes
            }
        }
        withContiguous(message) { m in
            guard let p = m.baseAddress, m.count > 0 else { return }
            _ = crypto_auth_hmacsha512_update(&state, p.assumingMemoryBound(to: UInt8.self), UInt64(m.count))
        }
        var out = [UInt8](repeating: 0, count: sha512Length)
        _ = crypto_auth_hmacsha512_final(&state, &out)
        return out
    }

    /// HKDF-SHA512 (RFC 5869) as simplexmq's `hkdf salt ikm info n`; an empty salt means 64 zero
    /// bytes, as the RFC says. Throws `badLength` when `count` exceeds 255 * 64 or is negative.
    public static func hkdf(salt: [UInt8], ikm: [UInt8], info: [UInt8], count: Int) throws(CryptoError) -> [UInt8] {
        guard count >= 0, count <= 255 * sha512Length else {
            throw .badLength("HKDF-SHA512 output of \(count) bytes")
        }
        if count == 0 { return [] }
        let prk = hmacSHA512(key: salt.isEmpty ? [UInt8](repeating: 0, count: sha512Length) : salt, message: ikm)
        // Expand: T(i) = HMAC(PRK, T(i-1) || info || i), with PRK's keyed state made once.
        var keyed = crypto_auth_hmacsha512_state()
        _ = crypto_auth_hmacsha512_init(&keyed, prk, prk.count)
        var out = [UInt8]()
        out.reserveCapacity(count)
        var block = [UInt8](repeating: 0, count: sha512Length)
        var counter: UInt8 = 1
        while out.count < count {
            var state = keyed
            if counter > 1 { _ = crypto_auth_hmacsha512_update(&state, block, UInt64(block.count)) }
            if !info.isEmpty { _ = crypto_auth_hmacsha512_update(&state, info, UInt64(info.count)) }
            _ = crypto_auth_hmacsha512_update(&state, &counter, 1)
            _ = crypto_auth_hmacsha512_final(&state, &block)
            out.append(contentsOf: block.prefix(count - out.count))
            counter &+= 1
        }
        sodium_memzero(&keyed, MemoryLayout<crypto_auth_hmacsha512_state>.size)
        return out
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
