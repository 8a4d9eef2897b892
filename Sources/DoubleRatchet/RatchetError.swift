import SimplexFoundation

/// Why a ratchet operation failed (simplexmq `CryptoError` ratchet cases). Every failure of
/// `Ratchet.decrypt` leaves the state unchanged, so the agent can report it and carry on.
public enum RatchetError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The header did not decrypt with any known header key (`CERatchetHeader`): not for this
    /// ratchet, tampered, or the ratchets are out of sync.
    case header
    /// A message, header or parameter did not parse (`CryptoHeaderError`).
    case badEncoding(String)
    /// The message number was already received (`CERatchetDuplicateMessage`).
    case duplicateMessage
    /// A message older than the last received one whose key is not kept (`CERatchetEarlierMessage`).
    case earlierMessage(UInt32)
    /// More than `Ratchet.maxSkip` messages would have to be skipped (`CERatchetTooManySkipped`).
    case tooManySkipped(UInt32)
    /// The message body failed authentication (`AESDecryptError`).
    case decrypt
    /// Encrypting before the ratchet has a sending chain (`CERatchetState`).
    case noSendingChain
    /// KEM ciphertext received without a decapsulation key, or KEM parameters that do not match
    /// the agreement (`CERatchetKEMState`).
    case pqMismatch
    /// The message does not fit the padded length (`CryptoLargeMsgError`).
    case messageTooLarge
    /// An E2E version outside the supported range.
    case unsupportedVersion(UInt16)
    /// A DH key that is not X448 or gives a degenerate agreement.
    case invalidKey(String)
    /// The KEM library failed or was given bytes of the wrong size.
    case kem(String)

    public var description: String {
        switch self {
        case .header: "ratchet header decryption failed"
        case .badEncoding(let why): "bad ratchet encoding: \(why)"
        case .duplicateMessage: "duplicate message"
        case .earlierMessage(let n): "earlier message (\(n) before the last received)"
        case .tooManySkipped(let n): "too many skipped messages (\(n))"
        case .decrypt: "message decryption failed"
        case .noSendingChain: "no sending chain in ratchet state"
        case .pqMismatch: "post-quantum KEM state mismatch"
        case .messageTooLarge: "message too large for padded length"
        case .unsupportedVersion(let v): "unsupported e2e encryption version \(v)"
        case .invalidKey(let why): "invalid ratchet key: \(why)"
        case .kem(let why): "KEM: \(why)"
        }
    }
}
