/// Settings of XFTP client sessions (`XFTPClientConfig` + the network parts of `NetworkConfig`).
public struct XFTPClientConfig: Sendable {
    /// Versions the client accepts (`supportedFileServerVRange`).
    public var versions: ClosedRange<UInt16>
    /// Connecting, TLS and the XFTP handshake (`tcpConnectTimeout`).
    public var connectTimeout: Double
    /// A request without a chunk (`tcpTimeout`).
    public var requestTimeout: Double
    /// Added per KB of a chunk sent or received (`tcpTimeoutPerKb`, `chunkTimeout`).
    public var timeoutPerKB: Double
    /// HTTP/2 flow-control window per stream: what one download may have in flight.
    public var streamWindow: Int

    public init(versions: ClosedRange<UInt16> = 1...3, connectTimeout: Double = 25, requestTimeout: Double = 15,
                timeoutPerKB: Double = 0.005, streamWindow: Int = 262_144) {
        self.versions = versions
        self.connectTimeout = connectTimeout
        self.requestTimeout = requestTimeout
        self.timeoutPerKB = timeoutPerKB
        self.streamWindow = streamWindow
    }

    /// `chunkTimeout`: the base timeout plus the per-KB allowance for `bytes`.
    func timeout(bytes: Int64?) -> Double {
        requestTimeout + (bytes.map { Double($0 / 1024) * timeoutPerKB } ?? 0)
    }
}
