/// XFTP protocol versions (simplexmq `Simplex.FileTransfer.Transport`): the version changes how a
/// server encodes some responses, so every encoder takes the negotiated one.
public enum XFTPVersion {
    /// The first version; command authorization by signatures only.
    public static let initial: UInt16 = 1
    /// X25519 keys may authorize commands (crypto_box authenticators).
    public static let authCommands: UInt16 = 2
    /// `ERR BLOCKED` exists; older clients get `ERR AUTH` for a blocked file.
    public static let blockedFiles: UInt16 = 3
    public static let current: UInt16 = 3
    public static let supported: ClosedRange<UInt16> = initial...current

    /// ALPN protocol name of the XFTP handshake (`xftpALPNv1`).
    public static let alpn = "xftp/1"
    /// Size of every command and response block on the wire (`xftpBlockSize`).
    public static let blockSize = 16384
}
