/// User inbound event fired by `TLSHandler` once the TLS handshake is done, before any
/// application data of the connection is passed on.
public struct TLSHandshakeCompleted: Sendable {
    /// The negotiated ALPN name, nil when none was agreed.
    public let alpn: String?
    /// tls-unique (RFC 5929) as simplexmq takes it: the verify_data of the CLIENT's Finished
    /// message, on both sides (server: `getPeerFinished`, client: `getFinished`).
    public let tlsUnique: [UInt8]
    /// The peer's certificate chain, DER, leaf first (empty on the server: clients send none).
    public let peerCertificates: [[UInt8]]
    /// The negotiated protocol version (0x0303 TLS 1.2, 0x0304 TLS 1.3).
    public let protocolVersion: Int
    /// The cipher suite name (OpenSSL's).
    public let cipher: String
    /// The key exchange group (OpenSSL's short name).
    public let group: String
    /// True if the session was resumed (never, with resumption off; tests check it).
    public let sessionReused: Bool
}
