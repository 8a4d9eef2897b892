/// Cryptographically secure random bytes for keys, nonces and IVs. `SystemRandomNumberGenerator`
/// reads the kernel CSPRNG (getrandom on Linux), so there is no generator state to share or seed.
public enum SecureRandom {
    /// `n` random bytes (an empty array for `n <= 0`).
    public static func bytes(_ n: Int) -> [UInt8] {
        guard n > 0 else { return [] }
        var rng = SystemRandomNumberGenerator()
        return [UInt8](unsafeUninitializedCapacity: n) { buf, count in
            var i = 0
            while i + 8 <= n {
                let w = rng.next().littleEndian
                withUnsafeBytes(of: w) { src in
                    for j in 0..<8 { buf[i + j] = src[j] }
                }
                i += 8
            }
            if i < n {
                let w = rng.next()
                var shift: UInt64 = 0
                while i < n {
                    buf[i] = UInt8(truncatingIfNeeded: w >> shift)
                    shift += 8
                    i += 1
                }
            }
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
