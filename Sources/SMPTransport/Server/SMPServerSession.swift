import Crypto
import NIOCore
import SMPProtocol

/// What the server's upper layer learns from a completed transport handshake. It is handed to
/// the handler factory of `SMPTransportServer`, so per-connection state can start from it.
public struct SMPServerSession: Sendable {
    /// The version the client chose (within the server's range).
    public let version: UInt16
    /// The range the server offered.
    public let serverVersions: SMPVersionRange
    /// The session identifier both sides include in authorized transmission bodies.
    public let sessionId: [UInt8]
    /// The server's per-connection X25519 key; DH with a queue's client key gives the secret
    /// that checks DH authenticators (the spec's "server session key").
    public let serverSessionKey: Curve25519.KeyAgreement.PrivateKey
    /// The client's per-connection X25519 key from its hello, if it sent one.
    public let clientAuthPubKey: Curve25519.KeyAgreement.PublicKey?
    /// The peer's address, for logs and limits.
    public let remoteAddress: SocketAddress?

    public init(
        version: UInt16,
        serverVersions: SMPVersionRange,
        sessionId: [UInt8],
        serverSessionKey: Curve25519.KeyAgreement.PrivateKey,
        clientAuthPubKey: Curve25519.KeyAgreement.PublicKey?,
        remoteAddress: SocketAddress?
    ) {
        self.version = version
        self.serverVersions = serverVersions
        self.sessionId = sessionId
        self.serverSessionKey = serverSessionKey
        self.clientAuthPubKey = clientAuthPubKey
        self.remoteAddress = remoteAddress
    }
}

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
