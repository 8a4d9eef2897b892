import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOPosix
import SMPTransport
import XFTPProtocol
import XFTPTransport

/// The XFTP server on the network: TLS (ours, ALPN `xftp/1`, `h2`, `http/1.1`), HTTP/2 on top,
/// each request stream served by `XFTPRequestHandler` against one `XFTPServerCore`, and the
/// periodic expiry of old files (`runHTTP2Server` + `expireFilesThread_`).
public final class XFTPTransportServer: Sendable {
    public struct Configuration: Sendable {
        /// Versions offered in the server handshake.
        public var versions: ClosedRange<UInt16> = XFTPVersion.supported
        public var tls: TLSConfiguration = XFTPTLS.server
        /// HTTP/2 flow-control window per stream: what one upload may have in flight.
        public var streamWindow: Int = 262_144
        public init() {}
    }

    private let serverChannel: any Channel
    public let localAddress: SocketAddress
    public let keyHash: [UInt8]
    private let connections: NIOLockedValueBox<[ObjectIdentifier: any Channel]>
    private let expiry: Task<Void, Never>?

    public var port: Int { localAddress.port ?? 0 }

    private init(serverChannel: any Channel, localAddress: SocketAddress, keyHash: [UInt8],
                 connections: NIOLockedValueBox<[ObjectIdentifier: any Channel]>, expiry: Task<Void, Never>?) {
        self.serverChannel = serverChannel
        self.localAddress = localAddress
        self.keyHash = keyHash
        self.connections = connections
        self.expiry = expiry
    }

    /// Binds `host:port` (0 picks a free port) and serves `core`.
    public static func start(
        core: XFTPServerCore, credentials: ServerCredentials, host: String, port: Int,
        configuration: Configuration = Configuration(), group: any EventLoopGroup
    ) async throws -> XFTPTransportServer {
        let tls = try TLSContext(serverChain: credentials.chain, privateKeyPKCS8: credentials.serverPrivateKey.pkcs8Encoded,
                                 configuration: configuration.tls)
        let handler = XFTPRequestHandler(core: core, credentials: credentials, versions: configuration.versions)
        let connections = NIOLockedValueBox<[ObjectIdentifier: any Channel]>([:])
        let window = configuration.streamWindow
        let inactive = core.config.disconnectInactiveClients
            ? (ttl: core.config.inactiveClientTTL, interval: core.config.inactiveClientCheckInterval) : nil
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                let id = ObjectIdentifier(channel)
                connections.withLockedValue { $0[id] = channel }
                channel.closeFuture.whenComplete { _ in _ = connections.withLockedValue { $0.removeValue(forKey: id) } }
                return channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    try sync.addHandler(TLSHandler(context: tls))
                    try sync.addHandler(HTTP2AfterTLSHandler(mode: .server, window: window, inactive: inactive) { stream, connection in
                        Task { await handler.serve(stream, connection: connection) }
                    })
                }
            }
        let channel = try await bootstrap.bind(host: host, port: port).get()
        guard let address = channel.localAddress else {
            try? await channel.close()
            throw ChannelError.unknownLocalAddress
        }
        var expiry: Task<Void, Never>?
        if core.config.fileExpiration != nil {
            let interval = max(core.config.expirationCheckInterval, 1)
            expiry = Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(interval))
                    if Task.isCancelled { break }
                    core.expireFiles()
                }
            }
        }
        return XFTPTransportServer(serverChannel: channel, localAddress: address, keyHash: credentials.keyHash,
                                   connections: connections, expiry: expiry)
    }

    /// Open client connections.
    public var connectionCount: Int { connections.withLockedValue { $0.count } }

    /// Stops accepting, closes every connection and stops the expiry task.
    public func shutdown() async {
        expiry?.cancel()
        try? await serverChannel.close()
        for c in connections.withLockedValue({ Array($0.values) }) {
            try? await c.close()
            try? await c.closeFuture.get()
        }
    }
}

/// Waits for the TLS handshake, then speaks HTTP/2 on the connection: the session ID and ALPN
/// are only known then. Each stream the client opens is handed over as an async channel.
final class HTTP2AfterTLSHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let mode: NIOHTTP2Handler.ParserMode
    private let window: Int
    private let onStream: @Sendable (HTTP2StreamChannel, XFTPConnection) -> Void
    private let inactive: (ttl: Int64, interval: Int64)?

    init(mode: NIOHTTP2Handler.ParserMode, window: Int, inactive: (ttl: Int64, interval: Int64)?,
         onStream: @escaping @Sendable (HTTP2StreamChannel, XFTPConnection) -> Void) {
        self.mode = mode
        self.window = window
        self.inactive = inactive
        self.onStream = onStream
    }

    /// `expireInactiveClient`: every interval, a connection without a request for `ttl` is closed.
    private func expireInactive(_ channel: any Channel, _ connection: XFTPConnection) {
        guard let (ttl, interval) = inactive else { return }
        let task = channel.eventLoop.scheduleRepeatedTask(initialDelay: .seconds(interval), delay: .seconds(interval)) { task in
            if connection.lastActive < Int64(Date().timeIntervalSince1970) - ttl {
                task.cancel()
                channel.close(promise: nil)
            }
        }
        channel.closeFuture.whenComplete { _ in task.cancel() }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let done = event as? TLSHandshakeCompleted {
            let connection = XFTPConnection(sessionId: done.tlsUnique, alpn: done.alpn)
            expireInactive(context.channel, connection)
            let onStream = onStream
            do {
                var conn = NIOHTTP2Handler.ConnectionConfiguration()
                conn.initialSettings = XFTPHTTP2.initialSettings(window: window)
                // The connection window holds several streams' windows: with the HTTP/2 default
                // (64 KB) parallel chunks would wait on each other's WINDOW_UPDATEs.
                conn.targetWindowSize = window * 8
                var streamConf = NIOHTTP2Handler.StreamConfiguration()
                streamConf.targetWindowSize = window
                _ = try context.pipeline.syncOperations.configureHTTP2Pipeline(
                    mode: mode, connectionConfiguration: conn, streamConfiguration: streamConf
                ) { stream in
                    stream.eventLoop.makeCompletedFuture {
                        let s = try HTTP2StreamChannel(wrappingChannelSynchronously: stream)
                        onStream(s, connection)
                    }
                }
                // Connection-level HTTP/2 errors (a bad preface, a protocol violation) reach the end
                // of the pipeline: the handler has sent GOAWAY, the connection is closed.
                try context.pipeline.syncOperations.addHandler(CloseOnErrorHandler())
            } catch {
                context.close(promise: nil)
            }
        }
        context.fireUserInboundEventTriggered(event)
    }
}

/// Closes the connection on any error that reaches the end of the pipeline.
final class CloseOnErrorHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = Any

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
