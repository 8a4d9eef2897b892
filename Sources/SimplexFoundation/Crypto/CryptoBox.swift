/// NaCl crypto_box (X25519 + XSalsa20-Poly1305) as simplexmq uses it: the secretbox key is
/// HSalsa20(X25519 shared secret, 16 zero bytes) (crypto_box_beforenm), the layout is tag || ciphertext.
/// Servers precompute a `CryptoBoxKey` per queue and seal each message with it.
public struct CryptoBoxKey: Sendable, Equatable {
    /// The 32-byte secretbox key.
    public let rawRepresentation: [UInt8]

    /// Wraps an already derived secretbox key.
    public init(rawRepresentation raw: [UInt8]) throws(CryptoError) {
        guard raw.count == 32 else { throw .badLength("crypto_box key of \(raw.count) bytes") }
        rawRepresentation = raw
    }

    /// crypto_box_beforenm from a raw 32-byte X25519 shared secret (simplexmq's `DhSecret X25519`).
    public init(dhSecret: [UInt8]) throws(CryptoError) {
        guard dhSecret.count == 32 else { throw .badLength("X25519 shared secret of \(dhSecret.count) bytes") }
        rawRepresentation = try Salsa20.hsalsa20(key: dhSecret, input: [UInt8](repeating: 0, count: 16))
    }

    public static func == (a: CryptoBoxKey, b: CryptoBoxKey) -> Bool {
        constantTimeEquals(a.rawRepresentation, b.rawRepresentation)
    }
}

public enum CryptoBox {
    public static let nonceLength = 24
    public static let tagLength = 16

    /// crypto_box_beforenm(pk, sk): precompute once per peer, then seal/open many messages.
    public static func sharedKey(publicKey: X25519PublicKey, privateKey: X25519PrivateKey) throws(CryptoError) -> CryptoBoxKey {
        try CryptoBoxKey(dhSecret: privateKey.sharedSecret(with: publicKey))
    }

    /// tag(16) || ciphertext with a precomputed key (crypto_box_easy_afternm).
    public static func seal(key: CryptoBoxKey, nonce: [UInt8], plaintext: [UInt8]) throws(CryptoError) -> [UInt8] {
        try SecretBox.seal(key: key.rawRepresentation, nonce: nonce, plaintext: plaintext)
    }

    /// Opens tag(16) || ciphertext; `decryptionFailed` on any tampering.
    public static func open(key: CryptoBoxKey, nonce: [UInt8], box: [UInt8]) throws(CryptoError) -> [UInt8] {
        try SecretBox.open(key: key.rawRepresentation, nonce: nonce, box: box)
    }

    /// `seal` into caller-owned memory (`into.count == 16 + plaintext.count`), for 16 KB blocks.
    public static func seal(key: CryptoBoxKey, nonce: [UInt8], plaintext: UnsafeRawBufferPointer,
                            into: UnsafeMutableRawBufferPointer) throws(CryptoError) {
        try SecretBox.seal(key: key.rawRepresentation, nonce: nonce, plaintext: plaintext, into: into)
    }

    /// `open` into caller-owned memory (`into.count == box.count - 16`).
    public static func open(key: CryptoBoxKey, nonce: [UInt8], box: UnsafeRawBufferPointer,
                            into: UnsafeMutableRawBufferPointer) throws(CryptoError) {
        try SecretBox.open(key: key.rawRepresentation, nonce: nonce, box: box, into: into)
    }

    /// One-shot crypto_box_easy(plaintext, nonce, publicKey, privateKey).
    public static func seal(publicKey: X25519PublicKey, privateKey: X25519PrivateKey, nonce: [UInt8], plaintext: [UInt8]) throws(CryptoError) -> [UInt8] {
        try seal(key: sharedKey(publicKey: publicKey, privateKey: privateKey), nonce: nonce, plaintext: plaintext)
    }

    /// One-shot crypto_box_open_easy.
    public static func open(publicKey: X25519PublicKey, privateKey: X25519PrivateKey, nonce: [UInt8], box: [UInt8]) throws(CryptoError) -> [UInt8] {
        try open(key: sharedKey(publicKey: publicKey, privateKey: privateKey), nonce: nonce, box: box)
    }

    /// simplexmq `cbEncrypt`: crypto_box of `Padding.pad(message, paddedLength)`, so every box
    /// of one kind has the same size; output is 16 + paddedLength bytes.
    public static func cbEncrypt(key: CryptoBoxKey, nonce: [UInt8], message: [UInt8], paddedLength: Int) throws(CryptoError) -> [UInt8] {
        let padded: [UInt8]
        do {
            padded = try Padding.pad(message, to: paddedLength)
        } catch {
            throw .invalidPadding("\(message.count) bytes do not fit padded length \(paddedLength)")
        }
        return try seal(key: key, nonce: nonce, plaintext: padded)
    }

    /// simplexmq `cbDecrypt`: opens, then removes the padding.
    public static func cbDecrypt(key: CryptoBoxKey, nonce: [UInt8], box: [UInt8]) throws(CryptoError) -> [UInt8] {
        let padded = try open(key: key, nonce: nonce, box: box)
        do {
            return try Padding.unpad(padded)
        } catch {
            throw .invalidPadding("\(error)")
        }
    }

    /// `cbEncrypt` keyed by a raw X25519 shared secret, as simplexmq's signature has it.
    public static func cbEncrypt(dhSecret: [UInt8], nonce: [UInt8], message: [UInt8], paddedLength: Int) throws(CryptoError) -> [UInt8] {
        try cbEncrypt(key: CryptoBoxKey(dhSecret: dhSecret), nonce: nonce, message: message, paddedLength: paddedLength)
    }

    /// `cbDecrypt` keyed by a raw X25519 shared secret.
    public static func cbDecrypt(dhSecret: [UInt8], nonce: [UInt8], box: [UInt8]) throws(CryptoError) -> [UInt8] {
        try cbDecrypt(key: CryptoBoxKey(dhSecret: dhSecret), nonce: nonce, box: box)
    }

    /// simplexmq `sbEncrypt` with a 32-byte `SbKey`: note that simplexmq's xSalsa20 also runs
    /// HSalsa20(key, 0) first, so this is `cbEncrypt` with the SbKey as the secret, not plain
    /// crypto_secretbox(key).
    public static func sbEncrypt(sbKey: [UInt8], nonce: [UInt8], message: [UInt8], paddedLength: Int) throws(CryptoError) -> [UInt8] {
        try cbEncrypt(dhSecret: sbKey, nonce: nonce, message: message, paddedLength: paddedLength)
    }

    /// simplexmq `sbDecrypt` (see `sbEncrypt`).
    public static func sbDecrypt(sbKey: [UInt8], nonce: [UInt8], box: [UInt8]) throws(CryptoError) -> [UInt8] {
        try cbDecrypt(dhSecret: sbKey, nonce: nonce, box: box)
    }

    /// simplexmq `cbNonce`: a 24-byte nonce from any bytes (a message ID), truncated or padded
    /// with zero bytes on the right.
    public static func nonce<C: Collection>(from bytes: C) -> [UInt8] where C.Element == UInt8 {
        var n = Array(bytes.prefix(nonceLength))
        if n.count < nonceLength { n.append(contentsOf: repeatElement(0, count: nonceLength - n.count)) }
        return n
    }
}
