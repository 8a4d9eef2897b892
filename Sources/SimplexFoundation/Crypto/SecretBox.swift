import CSodium
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

/// The XSalsa20-Poly1305 construction (libsodium's `crypto_secretbox`, detached tag in front);
/// callers have checked key and nonce lengths.
enum XSalsa20Poly1305 {
    static func seal(key: [UInt8], nonce: [UInt8], plaintext: [UInt8]) -> [UInt8] {
        let n = plaintext.count
        return [UInt8](unsafeUninitializedCapacity: 16 + n) { out, count in
            plaintext.withUnsafeBytes { m in
                seal(key: key, nonce: nonce, plaintext: m, into: UnsafeMutableRawBufferPointer(out))
            }
            count = 16 + n
        }
    }

    static func open(key: [UInt8], nonce: [UInt8], box: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard box.count >= 16 else { throw .badLength("box of \(box.count) bytes is shorter than its 16-byte tag") }
        let n = box.count - 16
        var ok = false
        let plain = [UInt8](unsafeUninitializedCapacity: n) { out, count in
            ok = box.withUnsafeBytes { b in
                open(key: key, nonce: nonce, box: b, into: UnsafeMutableRawBufferPointer(out))
            }
            count = ok ? n : 0
        }
        guard ok else { throw .decryptionFailed }
        return plain
    }

    /// tag(16) ++ ciphertext of `plaintext` written to `into` (16 + plaintext.count bytes).
    static func seal(key: [UInt8], nonce: [UInt8], plaintext m: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer) {
        precondition(out.count == 16 + m.count)
        Sodium.ensureInitialized()
        let o = out.baseAddress!.assumingMemoryBound(to: UInt8.self)
        withNonEmpty(m) { mp in
            _ = crypto_secretbox_detached(o + 16, o, mp, UInt64(m.count), nonce, key)
        }
    }

    /// Checks the tag (constant time) and writes the plaintext of `box` (tag ++ ciphertext) to
    /// `into` (box.count - 16 bytes); false, with nothing usable written, for a bad tag.
    static func open(key: [UInt8], nonce: [UInt8], box b: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer) -> Bool {
        guard b.count >= 16, out.count == b.count - 16 else { return false }
        Sodium.ensureInitialized()
        let bp = b.baseAddress!.assumingMemoryBound(to: UInt8.self)
        return withNonEmpty(UnsafeRawBufferPointer(out)) { op in
            crypto_secretbox_open_detached(UnsafeMutablePointer(mutating: op), bp + 16, bp, UInt64(b.count - 16), nonce, key) == 0
        }
    }

    /// libsodium wants a valid pointer even for zero bytes.
    private static func withNonEmpty<R>(_ p: UnsafeRawBufferPointer, _ body: (UnsafePointer<UInt8>) -> R) -> R {
        if let base = p.baseAddress { return body(base.assumingMemoryBound(to: UInt8.self)) }
        var zero: UInt8 = 0
        return withUnsafePointer(to: &zero) { body($0) }
    }
}

extension SecretBox {
    /// `seal` into caller-owned memory (`into.count == 16 + plaintext.count`): the transport seals
    /// every 16 KB block straight into its outgoing buffer.
    public static func seal(key: [UInt8], nonce: [UInt8], plaintext: UnsafeRawBufferPointer,
                            into: UnsafeMutableRawBufferPointer) throws(CryptoError) {
        try checkKeyNonce(key, nonce)
        guard into.count == 16 + plaintext.count else { throw .badLength("secretbox output of \(into.count) bytes") }
        XSalsa20Poly1305.seal(key: key, nonce: nonce, plaintext: plaintext, into: into)
    }

    /// `open` into caller-owned memory (`into.count == box.count - 16`); throws
    /// `decryptionFailed` for any altered byte or wrong key/nonce.
    public static func open(key: [UInt8], nonce: [UInt8], box: UnsafeRawBufferPointer,
                            into: UnsafeMutableRawBufferPointer) throws(CryptoError) {
        try checkKeyNonce(key, nonce)
        guard box.count >= 16 else { throw .badLength("box of \(box.count) bytes is shorter than its 16-byte tag") }
        guard into.count == box.count - 16 else { throw .badLength("secretbox output of \(into.count) bytes") }
        guard XSalsa20Poly1305.open(key: key, nonce: nonce, box: box, into: into) else { throw .decryptionFailed }
    }
}
