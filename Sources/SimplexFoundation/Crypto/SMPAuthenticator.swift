/// SMP's repudiable command authenticator (simplex-messaging.md, "crypto_box authenticator"):
/// crypto_box(sha512(authorized), secret = dh(queue key, server session key), nonce = corrId),
/// 16-byte tag || 64-byte ciphertext = 80 bytes. Unlike a signature, either party could forge it.
public enum SMPAuthenticator {
    public static let length = CryptoHash.sha512Length + CryptoBox.tagLength  // 80

    /// Client side: authenticator of `authorized` from the queue's X25519 private key and the
    /// server's session public key; `nonce` is the 24-byte correlation ID.
    public static func authenticate(
        authorized: [UInt8], nonce: [UInt8], serverPublicKey: X25519PublicKey, queuePrivateKey: X25519PrivateKey
    ) throws(CryptoError) -> [UInt8] {
        try authenticate(authorized: authorized, nonce: nonce,
                         key: CryptoBox.sharedKey(publicKey: serverPublicKey, privateKey: queuePrivateKey))
    }

    /// Authenticator with a precomputed crypto_box key (either side of the DH).
    public static func authenticate(authorized: [UInt8], nonce: [UInt8], key: CryptoBoxKey) throws(CryptoError) -> [UInt8] {
        try CryptoBox.seal(key: key, nonce: nonce, plaintext: CryptoHash.sha512(authorized))
    }

    /// Server side: true when `authenticator` is valid for `authorized`, using the server's
    /// session private key and the queue's X25519 public key. Any bad input is `false`; the tag
    /// and the digest are compared in constant time.
    public static func verify(
        _ authenticator: [UInt8], authorized: [UInt8], nonce: [UInt8],
        queuePublicKey: X25519PublicKey, serverPrivateKey: X25519PrivateKey
    ) -> Bool {
        guard let key = try? CryptoBox.sharedKey(publicKey: queuePublicKey, privateKey: serverPrivateKey) else { return false }
        return verify(authenticator, authorized: authorized, nonce: nonce, key: key)
    }

    /// Verification with a precomputed crypto_box key.
    public static func verify(_ authenticator: [UInt8], authorized: [UInt8], nonce: [UInt8], key: CryptoBoxKey) -> Bool {
        guard authenticator.count == length,
              let digest = try? CryptoBox.open(key: key, nonce: nonce, box: authenticator)
        else { return false }
        return constantTimeEquals(digest, CryptoHash.sha512(authorized))
    }
}
