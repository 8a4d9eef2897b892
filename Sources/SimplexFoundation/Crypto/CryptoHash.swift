import COpenSSL
import Crypto
import CSimplexHash

/// The hash functions and KDFs of the SimpleX specs (SHA-256 key hashes, SHA-512 authenticators,
/// HKDF-SHA512 for ratchet and chain keys). SHA-512, HMAC and HKDF run on the system OpenSSL's
/// SHA-512 (AVX2 on any x86-64 with it): an HMAC took half the time of libsodium's portable code
/// when measured, and swift-crypto's BoringSSL takes its vector code on Intel only.
public enum CryptoHash {
    public static let sha256Length = 32
    public static let sha512Length = 64

    /// SHA-256 digest (server key hashes, file digests).
    public static func sha256<C: Collection>(_ data: C) -> [UInt8] where C.Element == UInt8 {
        var h = SHA256()
        update(&h, data)
        return Array(h.finalize())
    }

    /// SHA-512 digest (the body of SMP DH authenticators: every 16 KB SEND is hashed by the sender
    /// and the relay). The system OpenSSL's, which picks AVX2 code on any x86-64 that has it;
    /// swift-crypto's BoringSSL takes its vector code on Intel CPUs only (a quarter slower on AMD).
    public static func sha512<C: Collection>(_ data: C) -> [UInt8] where C.Element == UInt8 {
        var out = [UInt8](repeating: 0, count: sha512Length)
        let ok = withContiguous(data) { p -> Bool in
            var zero: UInt8 = 0
            var length: UInt32 = 0
            return out.withUnsafeMutableBufferPointer { o in
                // OpenSSL rejects no pointer; an empty message still hashes (to SHA-512 of "").
                if let base = p.baseAddress, p.count > 0 {
                    return EVP_Digest(base, p.count, o.baseAddress, &length, EVP_sha512(), nil) == 1
                }
                return EVP_Digest(&zero, 0, o.baseAddress, &length, EVP_sha512(), nil) == 1
            }
        }
        // Allocation failure is the only way it fails, as for StreamDigest.
        precondition(ok, "EVP_Digest(SHA-512) failed")
        return out
    }

    /// HMAC-SHA512 of `message` under `key` (an empty key is 128 zero bytes, as RFC 2104 pads it).
    public static func hmacSHA512<K: Collection, M: Collection>(key: K, message: M) -> [UInt8]
    where K.Element == UInt8, M.Element == UInt8 {
        var out = [UInt8](repeating: 0, count: sha512Length)
        withContiguous(key) { k in
            withContiguous(message) { m in
                out.withUnsafeMutableBufferPointer { o in
                    sxhash_hmac_sha512(k.baseAddress?.assumingMemoryBound(to: UInt8.self), k.count,
                                       m.baseAddress?.assumingMemoryBound(to: UInt8.self), m.count, o.baseAddress)
                }
            }
        }
        return out
    }

    /// HKDF-SHA512 (RFC 5869) as simplexmq's `hkdf salt ikm info n`; an empty salt means 64 zero
    /// bytes, as the RFC says. Throws `badLength` when `count` exceeds 255 * 64 or is negative.
    /// In C (CSimplexHash): every v11 transport block and every ratchet message takes one.
    public static func hkdf(salt: [UInt8], ikm: [UInt8], info: [UInt8], count: Int) throws(CryptoError) -> [UInt8] {
        guard count >= 0, count <= 255 * sha512Length else {
            throw .badLength("HKDF-SHA512 output of \(count) bytes")
        }
        if count == 0 { return [] }
        return [UInt8](unsafeUninitializedCapacity: count) { out, initialized in
            salt.withUnsafeBufferPointer { s in
                ikm.withUnsafeBufferPointer { i in
                    info.withUnsafeBufferPointer { n in
                        _ = sxhash_hkdf_sha512(s.baseAddress, s.count, i.baseAddress, i.count, n.baseAddress, n.count, out.baseAddress, count)
                    }
                }
            }
            initialized = count
        }
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
