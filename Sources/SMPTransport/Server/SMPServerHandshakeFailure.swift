import SMPProtocol

/// Why the server dropped a connection before its handshake completed (reported through
/// `SMPTransportServer.Configuration.onHandshakeFailure`; as in the reference, the client is told
/// nothing except for a refused service, which gets an `'E'` handshake response).
public enum SMPServerHandshakeFailure: Error, Sendable, Hashable {
    /// TLS and the SMP handshake did not finish within the handshake timeout.
    case timeout
    /// TLS failed (not a TLS client, no common cipher or version...).
    case tls(String)
    /// The client hello was malformed (`.handshake(.parse)`, `.largeMessage`), expected another
    /// server (`.handshake(.identity)`), chose a version outside the range (`.version`) or sent a
    /// service without a TLS client certificate (`.handshake(.badAuth)`).
    case transport(TransportError)
    /// The peer closed the connection during the handshake.
    case closed
}
