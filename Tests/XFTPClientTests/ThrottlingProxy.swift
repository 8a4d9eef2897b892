import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A TCP relay on loopback between XFTP clients and a server that passes, holds back or drips
/// the bytes of each direction, as a slow or dead network would (TLS and HTTP/2 run through it).
final class ThrottlingProxy: Sendable {
    enum Mode: Sendable, Equatable {
        case pass
        /// Nothing goes through (the bytes wait).
        case stall
        /// `bytes` at a time, one step every `everyMs` milliseconds.
        case drip(bytes: Int, everyMs: Int64)
    }

    enum Direction: Sendable { case toServer, toClient }

    private let modes = NIOLockedValueBox<[Direction: Mode]>([.toServer: .pass, .toClient: .pass])
    private let channel: any Channel
    let port: Int

    func set(_ d: Direction, _ m: Mode) { modes.withLockedValue { $0[d] = m } }
    func mode(_ d: Direction) -> Mode { modes.withLockedValue { $0[d] ?? .pass } }

    private init(channel: any Channel, port: Int) {
        self.channel = channel
        self.port = port
    }

    static func start(to targetPort: Int, group: any EventLoopGroup) async throws -> ThrottlingProxy {
        let box = NIOLockedValueBox<ThrottlingProxy?>(nil)
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { client in
                let toServer = Relay(direction: .toServer, modes: { d in box.withLockedValue { $0?.mode(d) ?? .pass } })
                let toClient = Relay(direction: .toClient, modes: { d in box.withLockedValue { $0?.mode(d) ?? .pass } })
                let loop = client.eventLoop
                return loop.makeCompletedFuture {
                    try client.pipeline.syncOperations.addHandler(toServer)
                }.flatMap {
                    ClientBootstrap(group: loop)
                        .channelInitializer { server in
                            server.eventLoop.makeCompletedFuture { try server.pipeline.syncOperations.addHandler(toClient) }
                        }
                        .connect(host: "127.0.0.1", port: targetPort)
                }.map { server in
                    toServer.attach(peer: server)
                    toClient.attach(peer: client)
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let proxy = ThrottlingProxy(channel: channel, port: channel.localAddress?.port ?? 0)
        box.withLockedValue { $0 = proxy }
        return proxy
    }

    func stop() async { try? await channel.close() }
}

/// Reads one side and writes the other, at the pace of its direction's mode. Both sides of a
/// relayed connection are on one event loop, so its state is only touched there.
private final class Relay: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer

    let direction: ThrottlingProxy.Direction
    let modes: @Sendable (ThrottlingProxy.Direction) -> ThrottlingProxy.Mode
    private var peer: (any Channel)?
    private var pending = ByteBuffer()
    private var waiting = false
    private var own: (any Channel)?

    init(direction: ThrottlingProxy.Direction, modes: @escaping @Sendable (ThrottlingProxy.Direction) -> ThrottlingProxy.Mode) {
        self.direction = direction
        self.modes = modes
    }

    func handlerAdded(context: ChannelHandlerContext) { own = context.channel }

    func attach(peer: any Channel) {
        self.peer = peer
        pump()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var b = unwrapInboundIn(data)
        pending.writeBuffer(&b)
        pump()
    }

    func channelInactive(context: ChannelHandlerContext) {
        peer?.close(promise: nil)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    private func pump() {
        guard let peer, peer.isActive, let loop = own?.eventLoop, !waiting, pending.readableBytes > 0 else { return }
        switch modes(direction) {
        case .pass:
            peer.writeAndFlush(pending.readSlice(length: pending.readableBytes)!, promise: nil)
            pending.discardReadBytes()
        case .stall:
            later(loop, ms: 20)
        case .drip(let bytes, let every):
            peer.writeAndFlush(pending.readSlice(length: min(bytes, pending.readableBytes))!, promise: nil)
            pending.discardReadBytes()
            later(loop, ms: every)
        }
    }

    private func later(_ loop: any EventLoop, ms: Int64) {
        waiting = true
        loop.scheduleTask(in: .milliseconds(ms)) {
            self.waiting = false
            self.pump()
        }
    }
}
