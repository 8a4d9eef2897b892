/// Why a cryptographic operation failed: every key decoder, opener and verifier reports one of
/// these instead of trapping, so hostile input becomes a protocol error (ERR AUTH, CMD SYNTAX).
public enum CryptoError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Key bytes are not a valid key of the expected algorithm (wrong length, low-order point...).
    case invalidKey(String)
    /// A signature had the wrong length or did not verify.
    case invalidSignature
    /// Authentication tag mismatch (secretbox, crypto_box, AES-GCM): the ciphertext was altered
    /// or the key/nonce is wrong.
    case decryptionFailed
    /// An input had a length the algorithm does not accept (nonce, IV, key, truncated ciphertext).
    case badLength(String)
    /// A DER key encoding was malformed.
    case invalidEncoding(String)
    /// A well-formed key of an algorithm that this use does not accept (e.g. an X448 key where
    /// an SMP auth key is expected, or an RSA key).
    case unsupportedAlgorithm(String)
    /// A message does not fit the padded length, or a decrypted padded message is malformed.
    case invalidPadding(String)
    /// The system OpenSSL reported an error (X448/Ed448).
    case openssl(String)

    public var description: String {
        switch self {
        case .invalidKey(let why): "invalid key: \(why)"
        case .invalidSignature: "invalid signature"
        case .decryptionFailed: "decryption failed (authentication tag mismatch)"
        case .badLength(let why): "bad length: \(why)"
        case .invalidEncoding(let why): "invalid key encoding: \(why)"
        case .unsupportedAlgorithm(let what): "unsupported algorithm: \(what)"
        case .invalidPadding(let why): "invalid padding: \(why)"
        case .openssl(let why): "OpenSSL: \(why)"
        }
    }
}
