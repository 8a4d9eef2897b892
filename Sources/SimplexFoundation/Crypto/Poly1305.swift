import CSodium
/// Poly1305 one-time authenticator (RFC 8439 / NaCl crypto_onetimeauth); it authenticates every
/// crypto_box of SMP. Tags come from libsodium (SIMD); streams use its incremental state
/// (`SecretBoxStream`).
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

/// libsodium's one-shot Poly1305 over raw memory.
enum Poly1305State {
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
}
