import SMPProtocol

/// Why `SMPTransportClient.connect` failed. Every failure is one of these; nothing traps.
public enum SMPTransportClientError: Error, Sendable, Hashable {
    /// TCP connect failed or the connection closed before the handshake completed.
    case network(String)
    /// Connect + TLS + SMP handshake took longer than the timeout.
    case timeout
    /// The calling task was cancelled; the connection was closed.
    case cancelled
    /// TLS failed for a reason other than the server's identity.
    case tls(String)
    /// The SMP handshake failed: `.handshake(.identity)` when the certificate chain does not
    /// match the pinned fingerprint, `.handshake(.badAuth)` for a bad chain or session key
    /// signature, `.handshake(.parse)` for a malformed server hello, `.version` when no common
    /// version exists or the server did not confirm ALPN "smp/1".
    case transport(TransportError)
}
