import CSodium
/// Salsa20/20, HSalsa20 and XSalsa20 (Bernstein): the stream cipher of NaCl crypto_box/secretbox,
/// which SMP uses for every message. Single blocks (HSalsa20, block 0) are computed here; bulk
/// keystream comes from libsodium.
public enum Salsa20 {
    public static let keyLength = 32
    public static let xNonceLength = 24

    /// HSalsa20(key, input16): the 32-byte subkey of XSalsa20 and of crypto_box_beforenm.
    public static func hsalsa20(key: [UInt8], input: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard key.count == 32 else { throw .badLength("HSalsa20 key of \(key.count) bytes") }
        guard input.count == 16 else { throw .badLength("HSalsa20 input of \(input.count) bytes") }
        let sub = key.withUnsafeBytes { k in
            input.withUnsafeBytes { i in SalsaKey(hsalsa: SalsaKey(k.baseAddress!), input16: i.baseAddress!) }
        }
        return sub.bytes
    }

    /// XSalsa20 keystream XORed into `data` (encrypt and decrypt alike), starting at block 0.
    public static func xsalsa20XOR(key: [UInt8], nonce: [UInt8], _ data: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard key.count == 32 else { throw .badLength("XSalsa20 key of \(key.count) bytes") }
        guard nonce.count == 24 else { throw .badLength("XSalsa20 nonce of \(nonce.count) bytes") }
        let (subkey, n0, n1) = SalsaKey.xsalsa(key: key, nonce: nonce)
        return [UInt8](unsafeUninitializedCapacity: data.count) { out, count in
            data.withUnsafeBytes { src in
                if let s = src.baseAddress, let d = out.baseAddress {
                    subkey.xor(nonce0: n0, nonce1: n1, counter: 0, src: s, dst: UnsafeMutableRawPointer(d), count: data.count)
                }
            }
            count = data.count
        }
    }
}

/// A Salsa20 key as eight little-endian words, with the core function over it.
struct SalsaKey {
    var k0, k1, k2, k3, k4, k5, k6, k7: UInt32

    static let c0: UInt32 = 0x6170_7865  // "expand 32-byte k"
    static let c1: UInt32 = 0x3320_646E
    static let c2: UInt32 = 0x7962_2D32
    static let c3: UInt32 = 0x6B20_6574

    /// Loads 32 key bytes.
    init(_ p: UnsafeRawPointer) {
        k0 = load(p, 0); k1 = load(p, 4); k2 = load(p, 8); k3 = load(p, 12)
        k4 = load(p, 16); k5 = load(p, 20); k6 = load(p, 24); k7 = load(p, 28)
    }

    /// HSalsa20 of `key` over the 16 bytes at `p`: the core without the final addition, taking
    /// words 0, 5, 10, 15, 6, 7, 8, 9.
    init(hsalsa key: SalsaKey, input16 p: UnsafeRawPointer) {
        var x0 = SalsaKey.c0, x1 = key.k0, x2 = key.k1, x3 = key.k2
        var x4 = key.k3, x5 = SalsaKey.c1, x6: UInt32 = load(p, 0), x7: UInt32 = load(p, 4)
        var x8: UInt32 = load(p, 8), x9: UInt32 = load(p, 12), x10 = SalsaKey.c2, x11 = key.k4
        var x12 = key.k5, x13 = key.k6, x14 = key.k7, x15 = SalsaKey.c3
        salsaRounds(&x0, &x1, &x2, &x3, &x4, &x5, &x6, &x7, &x8, &x9, &x10, &x11, &x12, &x13, &x14, &x15)
        k0 = x0; k1 = x5; k2 = x10; k3 = x15; k4 = x6; k5 = x7; k6 = x8; k7 = x9
    }

    /// The subkey and the two remaining nonce words of XSalsa20(key, nonce24).
    static func xsalsa(key: [UInt8], nonce: [UInt8]) -> (SalsaKey, UInt32, UInt32) {
        key.withUnsafeBytes { k in
            nonce.withUnsafeBytes { n in
                let sub = SalsaKey(hsalsa: SalsaKey(k.baseAddress!), input16: n.baseAddress!)
                return (sub, load(n.baseAddress!, 16), load(n.baseAddress!, 20))
            }
        }
    }

    var bytes: [UInt8] {
        [UInt8](unsafeUninitializedCapacity: 32) { buf, count in
            let p = UnsafeMutableRawPointer(buf.baseAddress!)
            store(p, 0, k0); store(p, 4, k1); store(p, 8, k2); store(p, 12, k3)
            store(p, 16, k4); store(p, 20, k5); store(p, 24, k6); store(p, 28, k7)
            count = 32
        }
    }

    /// Writes the 64-byte Salsa20 block for (nonce, counter) to `out`.
    @inline(__always)
    func block(nonce0: UInt32, nonce1: UInt32, counter: UInt64, out: UnsafeMutableRawPointer) {
        let j8 = UInt32(truncatingIfNeeded: counter), j9 = UInt32(truncatingIfNeeded: counter >> 32)
        var x0 = SalsaKey.c0, x1 = k0, x2 = k1, x3 = k2
        var x4 = k3, x5 = SalsaKey.c1, x6 = nonce0, x7 = nonce1
        var x8 = j8, x9 = j9, x10 = SalsaKey.c2, x11 = k4
        var x12 = k5, x13 = k6, x14 = k7, x15 = SalsaKey.c3
        salsaRounds(&x0, &x1, &x2, &x3, &x4, &x5, &x6, &x7, &x8, &x9, &x10, &x11, &x12, &x13, &x14, &x15)
        store(out, 0, x0 &+ SalsaKey.c0); store(out, 4, x1 &+ k0); store(out, 8, x2 &+ k1); store(out, 12, x3 &+ k2)
        store(out, 16, x4 &+ k3); store(out, 20, x5 &+ SalsaKey.c1); store(out, 24, x6 &+ nonce0); store(out, 28, x7 &+ nonce1)
        store(out, 32, x8 &+ j8); store(out, 36, x9 &+ j9); store(out, 40, x10 &+ SalsaKey.c2); store(out, 44, x11 &+ k4)
        store(out, 48, x12 &+ k5); store(out, 52, x13 &+ k6); store(out, 56, x14 &+ k7); store(out, 60, x15 &+ SalsaKey.c3)
    }

    /// dst[i] = src[i] ^ keystream[i] for `count` bytes, the keystream starting at block `counter`.
    /// `src` and `dst` may be the same buffer. libsodium's SIMD Salsa20 does the bulk: it runs
    /// over every 16 KB transport block and message, where it is three times the scalar version.
    func xor(nonce0: UInt32, nonce1: UInt32, counter: UInt64, src: UnsafeRawPointer, dst: UnsafeMutableRawPointer, count: Int) {
        guard count > 0 else { return }
        Sodium.ensureInitialized()
        withUnsafeTemporaryAllocation(byteCount: 40, alignment: 16) { buf in
            let kp = buf.baseAddress!
            store(kp, 0, k0); store(kp, 4, k1); store(kp, 8, k2); store(kp, 12, k3)
            store(kp, 16, k4); store(kp, 20, k5); store(kp, 24, k6); store(kp, 28, k7)
            store(kp, 32, nonce0); store(kp, 36, nonce1)
            let k = UnsafeRawPointer(kp).assumingMemoryBound(to: UInt8.self)
            _ = crypto_stream_salsa20_xor_ic(
                dst.assumingMemoryBound(to: UInt8.self), src.assumingMemoryBound(to: UInt8.self),
                UInt64(count), k + 32, counter, k)
            kp.initializeMemory(as: UInt8.self, repeating: 0, count: 40)
        }
    }
}

/// libsodium picks its fastest implementations (SSE2/AVX2) in `sodium_init`; until then it runs
/// its portable ones. Initialisation is idempotent and thread-safe, done once per process.
enum Sodium {
    private static let initialized: Bool = sodium_init() >= 0

    @inline(__always)
    static func ensureInitialized() { _ = initialized }
}

@inline(__always)
private func load(_ p: UnsafeRawPointer, _ offset: Int) -> UInt32 {
    UInt32(littleEndian: p.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
}

@inline(__always)
private func store(_ p: UnsafeMutableRawPointer, _ offset: Int, _ v: UInt32) {
    p.storeBytes(of: v.littleEndian, toByteOffset: offset, as: UInt32.self)
}

@inline(__always)
private func rotl(_ v: UInt32, _ n: UInt32) -> UInt32 { (v &<< n) | (v &>> (32 &- n)) }

/// The 20 Salsa20 rounds (10 column/row double rounds) over the state words.
@inline(__always)
private func salsaRounds(
    _ x0: inout UInt32, _ x1: inout UInt32, _ x2: inout UInt32, _ x3: inout UInt32,
    _ x4: inout UInt32, _ x5: inout UInt32, _ x6: inout UInt32, _ x7: inout UInt32,
    _ x8: inout UInt32, _ x9: inout UInt32, _ x10: inout UInt32, _ x11: inout UInt32,
    _ x12: inout UInt32, _ x13: inout UInt32, _ x14: inout UInt32, _ x15: inout UInt32
) {
    for _ in 0..<10 {
        // columns
        x4 ^= rotl(x0 &+ x12, 7); x8 ^= rotl(x4 &+ x0, 9); x12 ^= rotl(x8 &+ x4, 13); x0 ^= rotl(x12 &+ x8, 18)
        x9 ^= rotl(x5 &+ x1, 7); x13 ^= rotl(x9 &+ x5, 9); x1 ^= rotl(x13 &+ x9, 13); x5 ^= rotl(x1 &+ x13, 18)
        x14 ^= rotl(x10 &+ x6, 7); x2 ^= rotl(x14 &+ x10, 9); x6 ^= rotl(x2 &+ x14, 13); x10 ^= rotl(x6 &+ x2, 18)
        x3 ^= rotl(x15 &+ x11, 7); x7 ^= rotl(x3 &+ x15, 9); x11 ^= rotl(x7 &+ x3, 13); x15 ^= rotl(x11 &+ x7, 18)
        // rows
        x1 ^= rotl(x0 &+ x3, 7); x2 ^= rotl(x1 &+ x0, 9); x3 ^= rotl(x2 &+ x1, 13); x0 ^= rotl(x3 &+ x2, 18)
        x6 ^= rotl(x5 &+ x4, 7); x7 ^= rotl(x6 &+ x5, 9); x4 ^= rotl(x7 &+ x6, 13); x5 ^= rotl(x4 &+ x7, 18)
        x11 ^= rotl(x10 &+ x9, 7); x8 ^= rotl(x11 &+ x10, 9); x9 ^= rotl(x8 &+ x11, 13); x10 ^= rotl(x9 &+ x8, 18)
        x12 ^= rotl(x15 &+ x14, 7); x13 ^= rotl(x12 &+ x15, 9); x14 ^= rotl(x13 &+ x12, 13); x15 ^= rotl(x14 &+ x13, 18)
    }
}
