import CSodium

/// Cryptographically secure random bytes for keys, nonces and IVs, from the kernel CSPRNG
/// (libsodium's `randombytes_buf` is getrandom on Linux): no generator state to share or seed,
/// and one system call per request (Swift's `SystemRandomNumberGenerator` makes one per 8 bytes,
/// three for every corrId).
public enum SecureRandom {
    /// `n` random bytes (an empty array for `n <= 0`).
    public static func bytes(_ n: Int) -> [UInt8] {
        guard n > 0 else { return [] }
        Sodium.ensureInitialized()
        return [UInt8](unsafeUninitializedCapacity: n) { buf, count in
            randombytes_buf(buf.baseAddress!, n)
            count = n
        }
    }
}

/// Compares two byte strings in time that depends only on their lengths, not on where they
/// differ, so comparing MACs and authenticators leaks nothing to a timing attacker.
public func constantTimeEquals<A: Collection, B: Collection>(_ a: A, _ b: B) -> Bool
where A.Element == UInt8, B.Element == UInt8 {
    guard a.count == b.count else { return false }
    var diff: UInt8 = 0
    for (x, y) in zip(a, b) { diff |= x ^ y }
    return diff == 0
}
