/// NaCl crypto_secretbox (XSalsa20-Poly1305) with libsodium's "easy" layout, as simplexmq sends
/// it: 16-byte Poly1305 tag first, then the ciphertext; no nonce inside.
public enum SecretBox {
    public static let keyLength = 32
    public static let nonceLength = 24
    public static let tagLength = 16

    /// tag(16) || XSalsa20(key, nonce) ^ plaintext.
    public static func seal(key: [UInt8], nonce: [UInt8], plaintext: [UInt8]) throws(CryptoError) -> [UInt8] {
        try checkKeyNonce(key, nonce)
        return XSalsa20Poly1305.seal(key: key, nonce: nonce, plaintext: plaintext)
    }

    /// Checks the tag in constant time, then decrypts. Throws `badLength` for a box shorter than
    /// the tag and `decryptionFailed` for any altered byte or wrong key/nonce.
    public static func open(key: [UInt8], nonce: [UInt8], box: [UInt8]) throws(CryptoError) -> [UInt8] {
        try checkKeyNonce(key, nonce)
        return try XSalsa20Poly1305.open(key: key, nonce: nonce, box: box)
    }

    static func checkKeyNonce(_ key: [UInt8], _ nonce: [UInt8]) throws(CryptoError) {
        guard key.count == keyLength else { throw .badLength("secretbox key of \(key.count) bytes") }
        guard nonce.count == nonceLength else { throw .badLength("secretbox nonce of \(nonce.count) bytes") }
    }
}

/// The XSalsa20-Poly1305 construction over raw buffers; callers have checked key and nonce lengths.
enum XSalsa20Poly1305 {
    static func seal(key: [UInt8], nonce: [UInt8], plaintext: [UInt8]) -> [UInt8] {
        let n = plaintext.count
        return [UInt8](unsafeUninitializedCapacity: 16 + n) { out, count in
            let o = UnsafeMutableRawPointer(out.baseAddress!)
            plaintext.withUnsafeBytes { m in
                withStream(key: key, nonce: nonce) { sub, n0, n1, block0 in
                    let c = o + 16
                    if let mp = m.baseAddress {
                        // Bytes 32..<64 of block 0 encrypt the first 32 message bytes; blocks 1...
                        // the rest. Bytes 0..<32 are the Poly1305 key.
                        let first = min(32, n)
                        let mb = mp.assumingMemoryBound(to: UInt8.self), cb = c.assumingMemoryBound(to: UInt8.self)
                        let kb = block0.assumingMemoryBound(to: UInt8.self)
                        for i in 0..<first { cb[i] = mb[i] ^ kb[32 + i] }
                        if n > 32 { sub.xor(nonce0: n0, nonce1: n1, counter: 1, src: mp + 32, dst: c + 32, count: n - 32) }
                    }
                    Poly1305State.tag(key: UnsafeRawPointer(block0), message: UnsafeRawPointer(c), count: n, out: o)
                }
            }
            count = 16 + n
        }
    }

    static func open(key: [UInt8], nonce: [UInt8], box: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard box.count >= 16 else { throw .badLength("box of \(box.count) bytes is shorter than its 16-byte tag") }
        let n = box.count - 16
        var ok = false
        let plain = [UInt8](unsafeUninitializedCapacity: n) { out, count in
            box.withUnsafeBytes { b in
                withStream(key: key, nonce: nonce) { sub, n0, n1, block0 in
                    let bp = b.baseAddress!
                    let c = bp + 16
                    var tag: (UInt64, UInt64) = (0, 0)
                    withUnsafeMutableBytes(of: &tag) { t in
                        Poly1305State.tag(key: UnsafeRawPointer(block0), message: c, count: n, out: t.baseAddress!)
                    }
                    let expected = (bp.loadUnaligned(as: UInt64.self), bp.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
                    ok = ((tag.0 ^ expected.0) | (tag.1 ^ expected.1)) == 0
                    guard ok, n > 0, let o = out.baseAddress else { return }
                    let first = min(32, n)
                    let cb = c.assumingMemoryBound(to: UInt8.self), kb = block0.assumingMemoryBound(to: UInt8.self)
                    for i in 0..<first { o[i] = cb[i] ^ kb[32 + i] }
                    if n > 32 { sub.xor(nonce0: n0, nonce1: n1, counter: 1, src: c + 32, dst: UnsafeMutableRawPointer(o + 32), count: n - 32) }
                }
            }
            count = ok ? n : 0
        }
        guard ok else { throw .decryptionFailed }
        return plain
    }

    /// Runs `body` with the XSalsa20 subkey, the last two nonce words and keystream block 0 (in a
    /// scratch buffer that is wiped afterwards).
    private static func withStream(
        key: [UInt8], nonce: [UInt8],
        _ body: (SalsaKey, UInt32, UInt32, UnsafeMutableRawPointer) -> Void
    ) {
        let (sub, n0, n1) = SalsaKey.xsalsa(key: key, nonce: nonce)
        withUnsafeTemporaryAllocation(byteCount: 64, alignment: 16) { buf in
            let b0 = buf.baseAddress!
            sub.block(nonce0: n0, nonce1: n1, counter: 0, out: b0)
            body(sub, n0, n1, b0)
            b0.initializeMemory(as: UInt8.self, repeating: 0, count: 64)
        }
    }
}
