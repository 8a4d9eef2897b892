import SimplexFoundation
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
    /// Seconds a delivery receipt may wait after the connection's last A_RCVD so that receipts
    /// of a burst go together (one A_RCVD lists them all). An isolated receipt goes at once.
    /// 0 sends each as soon as the delivery worker is free.
    public var receiptBatchInterval: Double = 0.1
    /// Seconds a deferred write (a received message's acknowledgement, a sent message's status,
    /// a receipt waiting for its A_RCVD) may wait for the agent's next transaction before it
    /// gets one of its own (Store/DeferredWrites.swift).
    public var deferredWriteDelay: Double = 1
    /// Password for relays that require one to create queues.
    public var basicAuth: [UInt8]?
    /// Agent protocol versions we take part in (simplexmq `smpAgentVRange`): advertised in our
    /// links, negotiated with each peer. Narrower ranges make the agent behave as an older
    /// client does, which is how the behaviour of each version is tested against ours.
    public var agentVersions: VersionRange = AgentVersion.supported
    /// SMP client versions of our queue addresses (simplexmq `smpClientVRange`); below 3 no
    /// queue is secured by its sender (SKEY), so the recipient KEYs it and HELLO follows.
    public var smpClientVersions: VersionRange = SMPClientVersion.supported
    /// Key type of our sender keys (simplexmq `sndAuthAlg`). X25519 gives deniable DH
    /// authenticators, which simplexmq plans to switch to ("replace with X25519 when switching to
    /// v7"); it is used only with relays at SMP v7+, Ed25519 with older ones.
    public var senderAuthAlgorithm: KeyAlgorithm = .x25519
    /// Key type of our recipient keys (simplexmq `rcvAuthAlg`, Ed25519 there). Only we and our
    /// relay ever see them; X25519 (relays at v7+) makes each ACK cheap to authorize and verify.
    public var recipientAuthAlgorithm: KeyAlgorithm = .x25519
    /// Private message routing (simplexmq `NetworkConfig.smpProxyMode`/`smpProxyFallback`):
    /// which sender commands (SEND, SKEY, LGET, LKEY) go through a proxy relay, and whether a
    /// command may then go directly when the proxy or the destination cannot proxy. The
    /// reference's defaults; changed at run time with `SMPAgent.setProxyRouting`.
    public var smpProxyMode: SMPProxyMode = .never
    public var smpProxyFallback: SMPProxyFallback = .allow
    /// Relays that may serve as proxies (simplexmq `proxySrvs`: the user's servers with the
    /// proxy role); nil: the same as `servers`.
    public var proxyServers: [SMPServerAddress]?

    public init(servers: [SMPServerAddress]) {
        self.servers = servers
    }
}
