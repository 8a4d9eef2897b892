import Crypto
import SMPProtocol

/// What the client's upper layer learns from a completed transport handshake.
public struct SMPClientSession: Sendable {
    /// The negotiated version (the highest both sides speak).
    public let version: UInt16
    /// The range the server offered.
    public let serverVersions: SMPVersionRange
    /// The session identifier to include in authorized transmission bodies.
    public let sessionId: [UInt8]
    /// The pinned server identity.
    public let keyHash: [UInt8]
    /// The server's per-connection X25519 key, verified against the TLS certificate; DH with a
    /// queue key gives the secret for DH authenticators.
    public let serverSessionKey: Curve25519.KeyAgreement.PublicKey
    /// The X25519 key this client sent as `authPubKey` (a session secret with `serverSessionKey`).
    public let clientSessionKey: Curve25519.KeyAgreement.PrivateKey
    /// DER of the server's online (TLS leaf) certificate.
    public let serverCertificate: [UInt8]

    public init(
        version: UInt16,
        serverVersions: SMPVersionRange,
        sessionId: [UInt8],
        keyHash: [UInt8],
        serverSessionKey: Curve25519.KeyAgreement.PublicKey,
        clientSessionKey: Curve25519.KeyAgreement.PrivateKey,
        serverCertificate: [UInt8]
    ) {
        self.version = version
        self.serverVersions = serverVersions
        self.sessionId = sessionId
        self.keyHash = keyHash
        self.serverSessionKey = serverSessionKey
        self.clientSessionKey = clientSessionKey
        self.serverCertificate = serverCertificate
    }
}

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
