import CSodium
/// Poly1305 one-time authenticator (RFC 8439 / NaCl crypto_onetimeauth); it authenticates every
/// crypto_box of SMP. One-shot tags come from libsodium; the incremental state (64-bit limbs, for
/// streamed files) is ours.
public enum Poly1305 {
    public static let keyLength = 32
    public static let tagLength = 16

    /// The 16-byte tag of `message` under a one-time 32-byte key.
    public static func authenticate(key: [UInt8], message: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard key.count == keyLength else { throw .badLength("Poly1305 key of \(key.count) bytes") }
        return [UInt8](unsafeUninitializedCapacity: tagLength) { tag, count in
            key.withUnsafeBytes { k in
                message.withUnsafeBytes { m in
                    Poly1305State.tag(key: k.baseAddress!, message: m.baseAddress, count: m.count,
                                      out: UnsafeMutableRawPointer(tag.baseAddress!))
                }
            }
            count = tagLength
        }
    }

    /// Constant-time check of a tag.
    public static func verify(key: [UInt8], message: [UInt8], tag: [UInt8]) throws(CryptoError) -> Bool {
        guard tag.count == tagLength else { return false }
        return constantTimeEquals(try authenticate(key: key, message: message), tag)
    }
}

/// Poly1305 accumulator: h (130 bits in h0, h1, h2) and the clamped r, in radix 2^64.
struct Poly1305State {
    private let r0, r1, s1, pad0, pad1: UInt64
    private var h0: UInt64 = 0, h1: UInt64 = 0, h2: UInt64 = 0

    init(key: UnsafeRawPointer) {
        r0 = le64(key, 0) & 0x0FFF_FFFC_0FFF_FFFF
        r1 = le64(key, 8) & 0x0FFF_FFFC_0FFF_FFFC
        s1 = r1 &+ (r1 &>> 2)  // r1 * 5 / 4: the 2^130 = 5 reduction folded into r1
        pad0 = le64(key, 16)
        pad1 = le64(key, 24)
    }

    /// Tag of `count` bytes at `message` (may be nil when count is 0), written to `out[0..<16]`.
    /// One-shot tags (every crypto_box and transport block) use libsodium's SIMD Poly1305.
    static func tag(key: UnsafeRawPointer, message: UnsafeRawPointer?, count: Int, out: UnsafeMutableRawPointer) {
        Sodium.ensureInitialized()
        withUnsafeTemporaryAllocation(byteCount: 1, alignment: 1) { empty in
            let m = (message ?? UnsafeRawPointer(empty.baseAddress!)).assumingMemoryBound(to: UInt8.self)
            _ = crypto_onetimeauth_poly1305(
                out.assumingMemoryBound(to: UInt8.self), m, UInt64(count), key.assumingMemoryBound(to: UInt8.self))
        }
    }

    /// Absorbs `count` bytes (a multiple of 16); `padbit` is the 2^128 bit of each full block.
    mutating func blocks(_ p: UnsafeRawPointer, count: Int, padbit: UInt64) {
        var h0 = self.h0, h1 = self.h1, h2 = self.h2
        let r0 = self.r0, r1 = self.r1, s1 = self.s1
        var off = 0
        while off < count {
            // h += m
            let (a0, c0) = h0.addingReportingOverflow(le64(p, off))
            let (a1, c1) = h1.addingReportingOverflow(le64(p, off + 8))
            let (b1, c2) = a1.addingReportingOverflow(bit(c0))
            h0 = a0
            h1 = b1
            h2 = h2 &+ bit(c1) &+ bit(c2) &+ padbit

            // d0 = h0*r0 + h1*s1; d1 = h0*r1 + h1*r0 + h2*s1; h2 = h2*r0  (partial product mod 2^130 - 5)
            let (m00h, m00l) = h0.multipliedFullWidth(by: r0)
            let (m11h, m11l) = h1.multipliedFullWidth(by: s1)
            let (d0l, e0) = m00l.addingReportingOverflow(m11l)
            let d0h = m00h &+ m11h &+ bit(e0)

            let (m01h, m01l) = h0.multipliedFullWidth(by: r1)
            let (m10h, m10l) = h1.multipliedFullWidth(by: r0)
            let (t1l, e1) = m01l.addingReportingOverflow(m10l)
            let (d1l, e2) = t1l.addingReportingOverflow(h2 &* s1)
            var d1h = m01h &+ m10h &+ bit(e1) &+ bit(e2)
            h2 = h2 &* r0

            // h = d0 + d1 << 64 + h2 << 128
            h0 = d0l
            let (u1, e3) = d1l.addingReportingOverflow(d0h)
            h1 = u1
            d1h = d1h &+ bit(e3)
            h2 = h2 &+ d1h

            // fold the bits above 2^130 back in, times 5
            let c = (h2 &>> 2) &+ (h2 & ~3)
            h2 &= 3
            let (v0, e4) = h0.addingReportingOverflow(c)
            let (v1, e5) = h1.addingReportingOverflow(bit(e4))
            h0 = v0
            h1 = v1
            h2 = h2 &+ bit(e5)
            off += 16
        }
        self.h0 = h0
        self.h1 = h1
        self.h2 = h2
    }

    /// Final reduction mod 2^130 - 5 (constant time), plus the pad, to 16 bytes at `out`.
    func finish(_ out: UnsafeMutableRawPointer) {
        let (g0, c0) = h0.addingReportingOverflow(5)
        let (g1, c1) = h1.addingReportingOverflow(bit(c0))
        let g2 = h2 &+ bit(c1)
        let mask = 0 &- (g2 &>> 2)  // all ones when h + 5 >= 2^130, i.e. h >= p
        let f0 = (h0 & ~mask) | (g0 & mask)
        let f1 = (h1 & ~mask) | (g1 & mask)
        let (t0, c2) = f0.addingReportingOverflow(pad0)
        let t1 = f1 &+ pad1 &+ bit(c2)
        out.storeBytes(of: t0.littleEndian, toByteOffset: 0, as: UInt64.self)
        out.storeBytes(of: t1.littleEndian, toByteOffset: 8, as: UInt64.self)
    }
}

@inline(__always)
private func le64(_ p: UnsafeRawPointer, _ offset: Int) -> UInt64 {
    UInt64(littleEndian: p.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
}

@inline(__always)
private func bit(_ b: Bool) -> UInt64 { b ? 1 : 0 }
