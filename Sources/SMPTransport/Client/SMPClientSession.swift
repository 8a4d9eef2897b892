import Crypto
import SMPProtocol

/// What the client's upper layer learns from a completed transport handshake.
public struct SMPClientSession: Sendable {
    /// The negotiated version (the highest both sides speak).
    public let version: UInt16
    /// The range the server offered.
    public let serverVersions: SMPVersionRange
    /// tls-unique (the client's TLS Finished), included in authorized transmission bodies.
    public let sessionId: [UInt8]
    /// The pinned server identity.
    public let keyHash: [UInt8]
    /// The server's per-connection X25519 key, verified against the TLS certificate; DH with a
    /// queue key gives the secret for DH authenticators. Nil when the server sent none (a server
    /// offering only v6).
    public let serverSessionKey: Curve25519.KeyAgreement.PublicKey?
    /// The X25519 key this client sent as `authPubKey` (a session secret with `serverSessionKey`).
    public let clientSessionKey: Curve25519.KeyAgreement.PrivateKey
    /// DER of the server's online (TLS leaf) certificate.
    public let serverCertificate: [UInt8]
    /// This client said it is an SMP proxy: no block encryption.
    public let proxyServer: Bool
    /// Blocks are encrypted from here on (v11+, not a proxy, both keys present); the transport does it.
    public let blockEncryption: Bool
    /// The negotiated ALPN name (nil when the server agreed none).
    public let alpn: String?
    /// The server's certificate chain and signed session key from its hello, as received: a
    /// proxying relay hands it to its clients in PKEY.
    public let serverCertKey: CertChainPubKey?

    public init(
        version: UInt16,
        serverVersions: SMPVersionRange,
        sessionId: [UInt8],
        keyHash: [UInt8],
        serverSessionKey: Curve25519.KeyAgreement.PublicKey?,
        clientSessionKey: Curve25519.KeyAgreement.PrivateKey,
        serverCertificate: [UInt8],
        proxyServer: Bool = false,
        blockEncryption: Bool = false,
        alpn: String? = TLSConfiguration.smpALPN,
        serverCertKey: CertChainPubKey? = nil
    ) {
        self.version = version
        self.serverVersions = serverVersions
        self.sessionId = sessionId
        self.keyHash = keyHash
        self.serverSessionKey = serverSessionKey
        self.clientSessionKey = clientSessionKey
        self.serverCertificate = serverCertificate
        self.proxyServer = proxyServer
        self.blockEncryption = blockEncryption
        self.alpn = alpn
        self.serverCertKey = serverCertKey
    }
}
