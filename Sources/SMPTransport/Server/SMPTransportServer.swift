import Foundation
import NIOCore
import NIOPosix
import SMPProtocol

/// The listening side of SMP transport: accepts TCP connections, runs TLS, block framing and the
/// server handshake, and then hands each connection to the upper layer's handler. From v11 the
/// transport also encrypts blocks, invisibly to the handler.
///
/// Seam for the server module: `handler` is called on the connection's event loop once the
/// handshake is done; the handler it returns is added to the pipeline right after the framing
/// handlers (the channel is already active, so set up in `handlerAdded`). It then reads
/// `ByteBuffer` blocks of exactly 16384 bytes and writes `ByteBuffer` blocks of exactly 16384
/// bytes (anything else fails the write with `TransportError.block`).
public final class SMPTransportServer: Sendable {
    /// Tunables of the listener.
    public struct Configuration: Sendable {
        /// Versions offered in the server hello to clients that agree ALPN "smp/1" (others get
        /// the legacy range 6-6).
        public var versions: SMPVersionRange
        /// TLS parameters (the reference's by default; tests change them).
        public var tls: TLSConfiguration
        /// Time from accept until the SMP handshake must be complete (TLS included).
        public var handshakeTimeout: TimeAmount
        /// Listen backlog.
        public var backlog: Int32
        /// Bound on inbound bytes buffered while a block is incomplete.
        public var maximumBufferSize: Int
        /// Told about every connection dropped during its handshake (for logs and metrics).
        public var onHandshakeFailure: (@Sendable (SMPServerHandshakeFailure, SocketAddress?) -> Void)?

        public init(
            versions: SMPVersionRange = SMPVersion.supported,
            tls: TLSConfiguration = .smp,
            handshakeTimeout: TimeAmount = .seconds(15),
            backlog: Int32 = 256,
            maximumBufferSize: Int = SMPBlockDecoder.defaultMaximumBufferSize,
            onHandshakeFailure: (@Sendable (SMPServerHandshakeFailure, SocketAddress?) -> Void)? = nil
        ) {
            self.versions = versions
            self.tls = tls
            self.handshakeTimeout = handshakeTimeout
            self.backlog = backlog
            self.maximumBufferSize = maximumBufferSize
            self.onHandshakeFailure = onHandshakeFailure
        }
    }

    /// The address the listener is bound to.
    public let localAddress: SocketAddress
    /// The server identity (fingerprint) clients must pin.
    public let keyHash: [UInt8]
    private let serverChannel: any Channel
    private let connections: ConnectionRegistry

    /// The bound port (useful when binding port 0).
    public var port: Int { localAddress.port ?? 0 }

    private init(serverChannel: any Channel, localAddress: SocketAddress, keyHash: [UInt8], connections: ConnectionRegistry) {
        self.serverChannel = serverChannel
        self.localAddress = localAddress
        self.keyHash = keyHash
        self.connections = connections
    }

    /// Binds `host:port` (port 0 picks a free port) and starts accepting connections.
    public static func start(
        host: String,
        port: Int,
        credentials: ServerCredentials,
        configuration: Configuration = Configuration(),
        group: any EventLoopGroup,
        handler: @escaping @Sendable (SMPServerSession) -> any ChannelHandler
    ) async throws -> SMPTransportServer {
        let tlsContext = try TLSContext(serverChain: credentials.chain, privateKeyPKCS8: credentials.serverPrivateKey.pkcs8Encoded,
                                        configuration: configuration.tls)
        let connections = ConnectionRegistry()
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelOption(.backlog, value: configuration.backlog)
            .childChannelOption(.socketOption(.so_keepalive), value: 1)
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            // One socket read per readiness into a fresh, adaptively sized buffer: NIO keeps no
            // large receive buffer for an idle connection (see IdleFriendlyRecvAllocator).
            .childChannelOption(.maxMessagesPerRead, value: 1)
            .childChannelOption(.recvAllocator, value: IdleFriendlyRecvAllocator())
            .childChannelInitializer { channel in
                connections.add(channel)
                return channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    try sync.addHandler(TLSHandler(context: tlsContext))
                    try sync.addHandler(SMPBlockDecoder.handler(maximumBufferSize: configuration.maximumBufferSize))
                    try sync.addHandler(SMPBlockEncoder())
                    try sync.addHandler(
                        ServerHandshakeHandler(
                            credentials: credentials,
                            versions: configuration.versions,
                            timeout: configuration.handshakeTimeout,
                            makeHandler: handler,
                            onFailure: configuration.onHandshakeFailure
                        )
                    )
                }
            }
        let channel = try await bootstrap.bind(host: host, port: port).get()
        guard let address = channel.localAddress else {
            try? await channel.close()
            throw ChannelError.unknownLocalAddress
        }
        return SMPTransportServer(serverChannel: channel, localAddress: address, keyHash: credentials.keyHash, connections: connections)
    }

    /// The address clients use to reach this server at `host`.
    public func address(host: String) throws(SMPServerAddressError) -> SMPServerAddress {
        try SMPServerAddress(keyHash: keyHash, hosts: [host], port: port)
    }

    /// Number of open connections (handshaking or established).
    public var connectionCount: Int { connections.count }

    /// Stops accepting, closes every open connection and waits for them to close.
    public func shutdown() async {
        try? await serverChannel.close()
        for channel in connections.all() {
            try? await channel.close()
            // Its registry entry is removed by an earlier closeFuture callback, so after this
            // wait `connectionCount` no longer counts it.
            try? await channel.closeFuture.get()
        }
    }
}

/// The open child channels, so `shutdown()` can close them. Guarded by a lock because channels
/// on different event loops register and leave concurrently.
final class ConnectionRegistry: @unchecked Sendable {
    private let lock = NSLock()
    private var channels: [ObjectIdentifier: any Channel] = [:]

    func add(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        lock.withLock { channels[id] = channel }
        channel.closeFuture.whenComplete { [self] _ in
            lock.withLock { _ = channels.removeValue(forKey: id) }
        }
    }

    func all() -> [any Channel] { lock.withLock { Array(channels.values) } }

    var count: Int { lock.withLock { channels.count } }
}
