import SMPClient
import SMPTransport

/// How an agent runs: where it creates queues, retry timing, PQ defaults.
public struct AgentConfig: Sendable {
    /// Relays for new queues; each new queue picks one at random, so the two directions of a
    /// connection can sit on different relays.
    public var servers: [SMPServerAddress]
    public var smpClient: SMPClientConfig = SMPClientConfig()
    /// Post-quantum KEM in the ratchet for new connections (negotiated per connection).
    public var pqSupport = true
    /// Put the KEM key in 1-time links too; off by default because it makes a link (and its QR
    /// code) about 1.6 KB longer. PQ is then proposed in the joiner's confirmation instead.
    public var pqInInvitation = false
    /// Create queues that the sender secures itself (SKEY, SMP v9): the fast procedure without
    /// HELLO. Off gives the standard procedure: the recipient KEYs, then HELLO both ways.
    public var senderCanSecure = true
    /// First delay before re-sending after a network failure; doubles up to the maximum.
    public var retryInterval: Double = 0.05
    public var maxRetryInterval: Double = 5
    /// Password for relays that require one to create queues.
    public var basicAuth: [UInt8]?

    public init(servers: [SMPServerAddress]) {
        self.servers = servers
    }
}
