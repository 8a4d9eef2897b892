import SMPProtocol

/// Why the server dropped a connection before its handshake completed (reported through
/// `SMPTransportServer.Configuration.onHandshakeFailure`; the client is not told).
public enum SMPServerHandshakeFailure: Error, Sendable, Hashable {
    /// TLS and the SMP handshake did not finish within the handshake timeout.
    case timeout
    /// The client did not negotiate ALPN "smp/1" (this server has no v6 fallback).
    case alpn
    /// TLS failed (not a TLS client, bad handshake...).
    case tls(String)
    /// The client hello was malformed (`.handshake(.parse)`), expected another server
    /// (`.handshake(.identity)`) or chose a version outside the range (`.version`).
    case transport(TransportError)
    /// The peer closed the connection during the handshake.
    case closed
}
