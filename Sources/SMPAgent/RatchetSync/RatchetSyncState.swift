/// Where a connection's ratchet re-synchronization stands (simplexmq `RatchetSyncState`); the raw
/// values are the reference's text form, used in the database and in events.
public enum RatchetSyncState: String, Codable, Sendable, Hashable, CaseIterable {
    /// In sync.
    case ok
    /// A decryption error that may be transient: the user may start a re-synchronization.
    case allowed
    /// The ratchet cannot decrypt the peer's messages any more: sending is blocked until it is
    /// re-synchronized.
    case required
    /// We sent new ratchet keys and wait for the peer's.
    case started
    /// Both sides exchanged keys and recreated the ratchet; waiting for the first message (EREADY).
    case agreed

    /// simplexmq `ratchetSyncSendProhibited`: states in which new messages are refused.
    public var sendProhibited: Bool { self == .required || self == .started || self == .agreed }

    /// simplexmq `ratchetSyncAllowed` (without the version condition, checked by the caller).
    public var syncAllowed: Bool { self == .allowed || self == .required }
}

/// Why a message could not be decrypted (simplexmq `AgentCryptoError`); decides the state a
/// connection moves to (`cryptoErrToSyncState`).
public enum AgentCryptoError: Sendable, Hashable, CustomStringConvertible {
    /// The ratchet's AES-GCM body authentication failed.
    case decryptAES
    /// The per-queue (or link data) crypto_box failed.
    case decryptCB
    /// No known header key decrypts the header: the ratchets diverged.
    case ratchetHeader
    /// A message older than the receiving chain's position, its key not kept.
    case ratchetEarlier(UInt32)
    /// Too many messages would have to be skipped.
    case ratchetSkipped(UInt32)
    /// New ratchet keys arrived after the ratchet was already agreed.
    case ratchetSync

    /// simplexmq `cryptoErrToSyncState`.
    public var syncState: RatchetSyncState {
        switch self {
        case .decryptAES, .decryptCB, .ratchetEarlier: .allowed
        case .ratchetHeader, .ratchetSkipped, .ratchetSync: .required
        }
    }

    /// The reference's constructor names (`DECRYPT_AES`, `RATCHET_EARLIER 3`, ...).
    public var description: String {
        switch self {
        case .decryptAES: "DECRYPT_AES"
        case .decryptCB: "DECRYPT_CB"
        case .ratchetHeader: "RATCHET_HEADER"
        case .ratchetEarlier(let n): "RATCHET_EARLIER \(n)"
        case .ratchetSkipped(let n): "RATCHET_SKIPPED \(n)"
        case .ratchetSync: "RATCHET_SYNC"
        }
    }
}
