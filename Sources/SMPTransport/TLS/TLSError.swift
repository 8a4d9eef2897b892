/// A TLS failure of the OpenSSL engine, with OpenSSL's own reason text.
public enum TLSError: Error, Sendable, Hashable {
    /// The context could not be configured (bad parameters, key or certificate).
    case configuration(String)
    /// The handshake failed: no common cipher or version, bad certificate, not TLS...
    case handshake(String)
    /// A record could not be read or written after the handshake.
    case io(String)
    /// The peer closed the connection before the handshake completed.
    case closedDuringHandshake
}
