import Foundation
import NIOCore
import NIOPosix
import SMPProtocol
import SimplexFoundation
import XCTest

@testable import SMPTransport

/// Echoes every block back: the smallest possible "upper layer" for a server.
final class EchoBlockHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.writeAndFlush(data, promise: nil)
    }
}

/// What the test server saw: completed sessions and handshake failures.
final class ServerLog: @unchecked Sendable {
    private let lock = NSLock()
    private var _sessions: [SMPServerSession] = []
    private var _failures: [SMPServerHandshakeFailure] = []

    var sessions: [SMPServerSession] { lock.withLock { _sessions } }
    var failures: [SMPServerHandshakeFailure] { lock.withLock { _failures } }

    func record(_ s: SMPServerSession) { lock.withLock { _sessions.append(s) } }
    func record(_ f: SMPServerHandshakeFailure) { lock.withLock { _failures.append(f) } }
}

/// A test server on 127.0.0.1 port 0 that echoes blocks and logs sessions and failures.
func startEchoServer(
    credentials: ServerCredentials,
    group: any EventLoopGroup,
    log: ServerLog,
    versions: SMPVersionRange = SMPVersion.supported,
    handshakeTimeout: TimeAmount = .seconds(15)
) async throws -> SMPTransportServer {
    let config = SMPTransportServer.Configuration(
        versions: versions,
        handshakeTimeout: handshakeTimeout,
        onHandshakeFailure: { failure, _ in log.record(failure) }
    )
    return try await SMPTransportServer.start(
        host: "127.0.0.1", port: 0, credentials: credentials, configuration: config, group: group
    ) { session in
        log.record(session)
        return EchoBlockHandler()
    }
}

/// Polls `condition` until it holds or `seconds` pass.
func eventually(_ seconds: Double = 5, _ condition: @Sendable () -> Bool) async -> Bool {
    let end = Date().addingTimeInterval(seconds)
    while Date() < end {
        if condition() { return true }
        try? await Task.sleep(nanoseconds: 20_000_000)
    }
    return condition()
}

/// Fails the test unless `condition` holds within `seconds`.
func assertEventually(
    _ seconds: Double = 5,
    _ condition: @Sendable () -> Bool,
    file: StaticString = #filePath,
    line: UInt = #line
) async {
    let ok = await eventually(seconds, condition)
    XCTAssertTrue(ok, "condition not met within \(seconds) s", file: file, line: line)
}

/// A padded block of 16384 bytes whose payload is 100 copies of `byte` (upper layers only ever
/// write padded blocks; from v11 the transport re-pads them inside the encryption).
func block(_ byte: UInt8) -> ByteBuffer {
    ByteBuffer(bytes: try! Padding.pad([UInt8](repeating: byte, count: 100), to: TransportBlock.size))
}

/// A plain TCP connection to the server, wrapped for async reads and writes of raw bytes.
func rawTCP(port: Int, group: any EventLoopGroup) async throws -> NIOAsyncChannel<ByteBuffer, ByteBuffer> {
    try await ClientBootstrap(group: group).connect(host: "127.0.0.1", port: port) { channel in
        channel.eventLoop.makeCompletedFuture {
            try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
        }
    }
}

/// A TLS connection with block framing but no SMP handshake handler and no certificate checks,
/// to act as a misbehaving client. `events` receives the TLS handshake outcome.
func rawTLS(
    port: Int,
    group: any EventLoopGroup,
    configure: (inout TLSConfiguration) -> Void = { _ in },
    events: TLSEventLog? = nil
) async throws -> NIOAsyncChannel<ByteBuffer, ByteBuffer> {
    var config = TLSConfiguration.smp
    configure(&config)
    let context = try TLSContext(clientConfiguration: config)
    return try await ClientBootstrap(group: group).connect(host: "127.0.0.1", port: port) { channel in
        channel.eventLoop.makeCompletedFuture {
            let sync = channel.pipeline.syncOperations
            try sync.addHandler(TLSHandler(context: context, verifier: { _ in true }))
            if let events { try sync.addHandler(TLSEventRecorder(log: events)) }
            try sync.addHandler(SMPBlockDecoder.handler())
            try sync.addHandler(SMPBlockEncoder())
            return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
        }
    }
}

/// TLS outcomes seen by a raw client.
final class TLSEventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var _completed: [TLSHandshakeCompleted] = []
    private var _errors: [String] = []
    var completed: [TLSHandshakeCompleted] { lock.withLock { _completed } }
    var errors: [String] { lock.withLock { _errors } }
    func record(_ c: TLSHandshakeCompleted) { lock.withLock { _completed.append(c) } }
    func record(error: String) { lock.withLock { _errors.append(error) } }
}

final class TLSEventRecorder: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    let log: TLSEventLog
    init(log: TLSEventLog) { self.log = log }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let c = event as? TLSHandshakeCompleted { log.record(c) }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        log.record(error: "\(error)")
        context.fireErrorCaught(error)
    }
}

/// The 16384-byte block of a handshake message.
func handshakeBlock(_ m: some SMPEncodable) throws -> ByteBuffer {
    ByteBuffer(bytes: try HandshakeBlock.encode(m))
}

/// Reads (and drops) until the peer closes; true if that happened within `seconds`
/// (read errors count as closed). Closes the channel itself when the time is up.
func closesWithin(_ seconds: Double, _ channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>) async -> Bool {
    let giveUp = channel.channel.eventLoop.scheduleTask(in: .milliseconds(Int64(seconds * 1000))) {
        channel.channel.close(promise: nil)
    }
    let start = Date()
    do {
        try await channel.executeThenClose { inbound, _ in
            for try await _ in inbound {}
        }
    } catch {}
    giveUp.cancel()
    return Date().timeIntervalSince(start) < seconds - 0.05
}

/// One credential set shared by the tests that do not care about its identity (key generation is fast,
/// but sharing keeps fingerprints stable within a run).
let sharedCredentials: ServerCredentials = {
    do { return try ServerCredentials.generate(commonName: "test.simplex.local") } catch { fatalError("\(error)") }
}()
