import SMPProtocol

/// Timeouts and retry policy of one relay connection.
public struct SMPClientConfig: Sendable {
    public var versions: SMPVersionRange = SMPVersion.supported
    /// Seconds to open TLS and finish the SMP handshake.
    public var connectTimeout: Double = 10
    /// Seconds to wait for a command's response.
    public var commandTimeout: Double = 15
    /// First reconnect delay in seconds; it doubles on each failure up to `maxReconnectDelay`.
    public var reconnectDelay: Double = 0.1
    public var maxReconnectDelay: Double = 30
    /// Seconds between keep-alive PINGs when the connection is idle; 0 disables them.
    public var pingInterval: Double = 30
    /// This client is a relay's proxy connection to a destination relay (the handshake's
    /// `proxyServer` flag: no block encryption, the forwarded traffic is already encrypted).
    public var proxyServer: Bool = false

    public init() {}
}
