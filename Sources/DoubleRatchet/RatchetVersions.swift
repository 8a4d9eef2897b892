/// E2E encryption ("ratchet") versions of simplexmq's Ratchet.hs. We implement 2 and 3:
/// 2 = KDF in X3DH (the oldest simplexmq still accepts), 3 = PQ KEM in params and headers.
public enum E2EVersion {
    /// Version 2: `kdfX3DHE2EEncryptVersion`.
    public static let kdfX3DH: UInt16 = 2
    /// Version 3: `pqRatchetE2EEncryptVersion`, KEM params and 2-byte header lengths.
    public static let pqRatchet: UInt16 = 3
    /// `currentE2EEncryptVersion`.
    public static let current: UInt16 = 3
    /// `supportedE2EEncryptVRange`.
    public static let supported: ClosedRange<UInt16> = kdfX3DH...current
}

/// The version a ratchet encrypts with and the highest it advertises in headers; `current`
/// rises when the peer's headers advertise more (never above `maxSupported`).
public struct RatchetVersions: Sendable, Hashable {
    public var current: UInt16
    public var maxSupported: UInt16

    public init(current: UInt16, maxSupported: UInt16) {
        self.current = current
        self.maxSupported = maxSupported
    }

    /// Both at `E2EVersion.current`.
    public static let latest = RatchetVersions(current: E2EVersion.current, maxSupported: E2EVersion.current)

    func validate() throws(RatchetError) {
        guard E2EVersion.supported.contains(current) else { throw .unsupportedVersion(current) }
        guard maxSupported >= current, maxSupported <= E2EVersion.current else { throw .unsupportedVersion(maxSupported) }
    }
}
