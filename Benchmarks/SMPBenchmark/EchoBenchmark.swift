import Foundation
import NIOCore
import NIOPosix
import SMPProtocol
import SMPTransport
import SimplexFoundation

/// Baseline: 16384-byte blocks echoed over the same transport the relay uses (TLS 1.3 with the
/// SMP configuration, block framing, SMP handshake), with `window` blocks in flight. One echoed
/// block is one block each way, the least any relay delivery can cost.
enum EchoBenchmark {
    struct Result {
        let blocks: Int
        let seconds: Double
        var blocksPerSecond: Double { Double(blocks) / seconds }
        /// Payload megabytes per second in each direction.
        var megabytesPerSecond: Double { blocksPerSecond * Double(TransportBlock.size) / 1e6 }
    }

    /// `versions` picks the block format: up to v10 plain padded blocks, from v11 each block is
    /// also sealed with the connection's secretbox chain (both ways), which is what the second
    /// figure adds.
    static func run(window: Int, warmup: Double, duration: Double, versions: SMPVersionRange = SMPVersion.supported,
                    ownRecordLayer: Bool = true, serverGroup: any EventLoopGroup, group: any EventLoopGroup) async throws -> Result {
        var tls = TLSConfiguration.smp
        tls.ownRecordLayer = ownRecordLayer
        let credentials = try ServerCredentials.generate(commonName: "127.0.0.1")
        let server = try await SMPTransportServer.start(
            host: "127.0.0.1", port: 0, credentials: credentials,
            configuration: SMPTransportServer.Configuration(versions: versions, tls: tls), group: serverGroup
        ) { _ in
            EchoServerHandler()
        }
        let received = Counter()
        let stop = StopFlag()
        let (channel, _) = try await SMPTransportClient.connect(
            host: "127.0.0.1", port: server.port, keyHash: credentials.keyHash, versions: versions, group: group
        ) { _ in
            EchoClientHandler(window: window, received: received, stop: stop)
        }
        await sleep(seconds: warmup)
        let c0 = received.value, t0 = nowNanos()
        await sleep(seconds: duration)
        let c1 = received.value, t1 = nowNanos()
        stop.set()
        try? await channel.close()
        await server.shutdown()
        return Result(blocks: c1 - c0, seconds: Double(t1 - t0) / 1e9)
    }
}

/// Writes every block back.
final class EchoServerHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.write(data, promise: nil)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        context.flush()
    }
}

/// Keeps `window` blocks in flight: sends them when added, and one more for every echo.
final class EchoClientHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let window: Int
    private let received: Counter
    private let stop: StopFlag
    private var block: ByteBuffer?

    init(window: Int, received: Counter, stop: StopFlag) {
        self.window = window
        self.received = received
        self.stop = stop
    }

    func handlerAdded(context: ChannelHandlerContext) {
        // A well-formed block (one PING transmission), so the bytes look like SMP traffic.
        let t = (try? RawTransmission(corrId: SecureRandom.bytes(24), entityId: [], body: Array("PING".utf8)).smpEncoded()) ?? []
        let bytes = (try? TransportBlock.encode([t])) ?? [UInt8](repeating: 0x23, count: TransportBlock.size)
        let buffer = context.channel.allocator.buffer(bytes: bytes)
        block = buffer
        for _ in 0..<window { context.write(wrapOutboundOut(buffer), promise: nil) }
        context.flush()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        received.add()
        if !stop.isSet, let block { context.write(wrapOutboundOut(block), promise: nil) }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        context.flush()
    }
}
