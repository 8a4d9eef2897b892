import NIOCore
import NIOPosix
import SMPProtocol
import SimplexFoundation
import XCTest

@testable import SMPTransport

/// Block framing over a plain TCP loopback connection (no TLS), fed in irregular chunks.
final class FramingTests: XCTestCase {
    var group: MultiThreadedEventLoopGroup!

    override func setUp() {
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    }

    override func tearDown() async throws {
        try await group.shutdownGracefully()
    }

    /// Collects the blocks and errors the framing delivers.
    final class Sink: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer
        private let lock = NSLock()
        private var _blocks: [[UInt8]] = []
        private var _errors: [String] = []
        var blocks: [[UInt8]] { lock.withLock { _blocks } }
        var errors: [String] { lock.withLock { _errors } }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let b = unwrapInboundIn(data)
            lock.withLock { _blocks.append(Array(b.readableBytesView)) }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            lock.withLock { _errors.append(String(describing: error)) }
            context.close(promise: nil)
        }
    }

    func framingServer(sink: Sink, maximumBufferSize: Int = SMPBlockDecoder.defaultMaximumBufferSize) async throws -> any Channel {
        try await ServerBootstrap(group: group)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(SMPBlockDecoder.handler(maximumBufferSize: maximumBufferSize))
                    try channel.pipeline.syncOperations.addHandler(sink)
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
    }

    func testStreamIsCutIntoExactBlocks() async throws {
        let sink = Sink()
        let server = try await framingServer(sink: sink)
        let client = try await rawTCP(port: server.localAddress?.port ?? 0, group: group)
        var stream: [UInt8] = []
        for b: UInt8 in 1...3 { stream += [UInt8](repeating: b, count: TransportBlock.size) }
        stream += [UInt8](repeating: 9, count: 100)  // an incomplete fourth block
        let chunkSizes = [1, 7, 16383, 2, 5000, 11000, 3, 40000]
        var offset = 0
        var i = 0
        while offset < stream.count {
            let n = min(chunkSizes[i % chunkSizes.count], stream.count - offset)
            try await client.channel.writeAndFlush(ByteBuffer(bytes: stream[offset..<(offset + n)]))
            offset += n
            i += 1
        }
        await assertEventually { sink.blocks.count == 3 }
        XCTAssertEqual(sink.blocks.map(\.count), [16384, 16384, 16384])
        XCTAssertEqual(sink.blocks.map(\.first), [1, 2, 3])
        XCTAssertTrue(sink.blocks.allSatisfy { Set($0).count == 1 })
        try await client.channel.close()
        try await Task.sleep(nanoseconds: 100_000_000)
        XCTAssertEqual(sink.blocks.count, 3, "partial block at EOF is dropped")
        XCTAssertEqual(sink.errors, [])
        try await server.close()
    }

    func testBufferedDataIsBounded() async throws {
        let sink = Sink()
        let server = try await framingServer(sink: sink, maximumBufferSize: 1000)
        let client = try await rawTCP(port: server.localAddress?.port ?? 0, group: group)
        try await client.channel.writeAndFlush(ByteBuffer(bytes: [UInt8](repeating: 1, count: 5000)))
        let closed = await closesWithin(5, client)
        XCTAssertTrue(closed)
        XCTAssertEqual(sink.blocks.count, 0)
        XCTAssertEqual(sink.errors.count, 1)
        try await server.close()
    }

    func testEncoderPassesOnlyExactBlocks() async throws {
        let server = try await framingServer(sink: Sink())
        let channel = try await ClientBootstrap(group: group).connect(host: "127.0.0.1", port: server.localAddress?.port ?? 0).get()
        try await channel.eventLoop.submit {
            try channel.pipeline.syncOperations.addHandler(SMPBlockEncoder())
        }.get()
        try await channel.writeAndFlush(block(1))
        for size in [0, 1, 16383, 16385, 32768] {
            do {
                try await channel.writeAndFlush(ByteBuffer(bytes: [UInt8](repeating: 0, count: size)))
                XCTFail("\(size)-byte block was written")
            } catch {
                XCTAssertEqual(error as? TransportError, .block)
            }
        }
        try await channel.close()
        try await server.close()
    }
}
