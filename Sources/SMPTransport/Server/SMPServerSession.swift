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
    /// tls-unique: the client's TLS Finished; both sides include it in authorized transmission bodies.
    public let sessionId: [UInt8]
    /// The server's per-connection X25519 key; DH with a queue's client key gives the secret
    /// that checks DH authenticators (the spec's "server session key").
    public let serverSessionKey: Curve25519.KeyAgreement.PrivateKey
    /// The client's per-connection X25519 key from its hello, if it sent one.
    public let clientAuthPubKey: Curve25519.KeyAgreement.PublicKey?
    /// The peer's address, for logs and limits.
    public let remoteAddress: SocketAddress?
    /// The client said it is an SMP proxy (v14+): blocks are not encrypted.
    public let proxyServer: Bool
    /// Blocks are encrypted from here on (v11+, not a proxy, the client sent its key); the
    /// transport does it, the upper layer still sees plain padded blocks.
    public let blockEncryption: Bool
    /// The negotiated ALPN name (nil: the legacy v6 range was offered).
    public let alpn: String?

    public init(
        version: UInt16,
        serverVersions: SMPVersionRange,
        sessionId: [UInt8],
        serverSessionKey: Curve25519.KeyAgreement.PrivateKey,
        clientAuthPubKey: Curve25519.KeyAgreement.PublicKey?,
        remoteAddress: SocketAddress?,
        proxyServer: Bool = false,
        blockEncryption: Bool = false,
        alpn: String? = TLSConfiguration.smpALPN
    ) {
        self.version = version
        self.serverVersions = serverVersions
        self.sessionId = sessionId
        self.serverSessionKey = serverSessionKey
        self.clientAuthPubKey = clientAuthPubKey
        self.remoteAddress = remoteAddress
        self.proxyServer = proxyServer
        self.blockEncryption = blockEncryption
        self.alpn = alpn
    }
}
