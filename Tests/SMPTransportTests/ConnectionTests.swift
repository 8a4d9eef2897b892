import NIOCore
import NIOPosix
import SMPProtocol
import SimplexFoundation
import XCTest

@testable import SMPTransport

/// Real TLS over loopback: an SMP transport server with an echo "upper layer", and clients.
final class ConnectionTests: XCTestCase {
    var group: MultiThreadedEventLoopGroup!
    let credentials = sharedCredentials

    override func setUp() {
        group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
    }

    override func tearDown() async throws {
        try await group.shutdownGracefully()
    }

    func testHandshakeAgreesOnVersionAndSession() async throws {
        let log = ServerLog()
        let server = try await startEchoServer(credentials: credentials, group: group, log: log)
        let (channel, session) = try await SMPTransportClient.connect(
            host: "127.0.0.1", port: server.port, keyHash: credentials.keyHash, group: group
        )
        await assertEventually { log.sessions.count == 1 }
        let serverSession = try XCTUnwrap(log.sessions.first)
        XCTAssertEqual(session.version, SMPVersion.supported.max)
        XCTAssertEqual(serverSession.version, SMPVersion.supported.max)
        XCTAssertEqual(session.serverVersions, SMPVersion.supported)
        // tls-unique of TLS 1.3 (HMAC-SHA256 verify_data), the same on both sides.
        XCTAssertEqual(session.sessionId.count, 32)
        XCTAssertEqual(session.sessionId, serverSession.sessionId)
        XCTAssertEqual(session.keyHash, credentials.keyHash)
        XCTAssertEqual(session.serverCertificate, credentials.serverCertificateDER)
        XCTAssertEqual(session.serverSessionKey?.rawRepresentation, serverSession.serverSessionKey.publicKey.rawRepresentation)
        XCTAssertEqual(serverSession.clientAuthPubKey?.rawRepresentation, session.clientSessionKey.publicKey.rawRepresentation)
        // Both sides derive the same session secret from the exchanged keys.
        let clientSecret = try session.clientSessionKey.sharedSecretFromKeyAgreement(with: XCTUnwrap(session.serverSessionKey))
        let serverSecret = try serverSession.serverSessionKey.sharedSecretFromKeyAgreement(with: XCTUnwrap(serverSession.clientAuthPubKey))
        XCTAssertEqual(clientSecret, serverSecret)
        XCTAssertTrue(log.failures.isEmpty)

        // A second connection gets a fresh session ID and session key.
        let (channel2, session2) = try await SMPTransportClient.connect(
            host: "127.0.0.1", port: server.port, keyHash: credentials.keyHash, group: group
        )
        XCTAssertNotEqual(session2.sessionId, session.sessionId)
        XCTAssertNotEqual(session2.serverSessionKey?.rawRepresentation, session.serverSessionKey?.rawRepresentation)
        XCTAssertEqual(server.connectionCount, 2)

        try await channel.close()
        try await channel2.close()
        await server.shutdown()
    }

    func testVersionIsHighestCommon() async throws {
        let log = ServerLog()
        let server = try await startEchoServer(
            credentials: credentials, group: group, log: log, versions: SMPVersionRange(min: 7, max: 8)!
        )
        let (channel, session) = try await SMPTransportClient.connect(
            host: "127.0.0.1", port: server.port, keyHash: credentials.keyHash,
            versions: SMPVersionRange(min: 8, max: 12)!, group: group
        )
        XCTAssertEqual(session.version, 8)
        await assertEventually { log.sessions.first?.version == 8 }
        try await channel.close()
        await server.shutdown()
    }

    func testBlocksEchoThroughUpperHandlers() async throws {
        let log = ServerLog()
        let server = try await startEchoServer(credentials: credentials, group: group, log: log)
        let address = try server.address(host: "127.0.0.1")
        let (channel, _) = try await SMPTransportClient.connect(to: address, group: group)
        let async = try await channel.eventLoop.submit {
            try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
        }.get()
        try await async.executeThenClose { inbound, outbound in
            var it = inbound.makeAsyncIterator()
            for byte: UInt8 in [1, 2, 3] {
                try await outbound.write(block(byte))
            }
            let packed = try TransportBlock.encode([Array("hello".utf8), Array("world".utf8)])
            try await outbound.write(ByteBuffer(bytes: packed))
            for byte: UInt8 in [1, 2, 3] {
                let echoed = try await it.next()
                XCTAssertEqual(echoed, block(byte))
            }
            let echoedNext = try await it.next()
            let echoed = try XCTUnwrap(echoedNext)
            XCTAssertEqual(try TransportBlock.decode(Array(echoed.readableBytesView)), [Array("hello".utf8), Array("world".utf8)])
            // Short blocks never reach the wire.
            do {
                try await channel.writeAndFlush(ByteBuffer(bytes: [1, 2, 3]))
                XCTFail("short block was written")
            } catch {
                XCTAssertEqual(error as? TransportError, .block)
            }
        }
        await server.shutdown()
    }

    func testBlockSentWithClientHelloReachesUpperHandler() async throws {
        let log = ServerLog()
        let server = try await startEchoServer(credentials: credentials, group: group, log: log)
        let tls = try await rawTLS(port: server.port, group: group)
        try await tls.executeThenClose { inbound, outbound in
            var it = inbound.makeAsyncIterator()
            _ = try await it.next()
            let hello = SMPClientHandshake(version: 9, keyHash: credentials.keyHash, authPubKey: nil)
            // Hello and the first block leave in one flush, so they arrive in one read.
            tls.channel.write(try handshakeBlock(hello), promise: nil)
            try await tls.channel.writeAndFlush(block(77))
            let echoed = try await it.next()
            XCTAssertEqual(echoed, block(77))
            _ = outbound
        }
        XCTAssertNil(log.sessions.first?.clientAuthPubKey)
        XCTAssertEqual(log.sessions.first?.version, 9)
        await server.shutdown()
    }

    func testClientHandlerVariantInstallsHandlerAtHandshake() async throws {
        let log = ServerLog()
        let server = try await startEchoServer(credentials: credentials, group: group, log: log)
        let received = ServerLogBox()
        let (channel, session) = try await SMPTransportClient.connect(
            host: "127.0.0.1", port: server.port, keyHash: credentials.keyHash, group: group
        ) { session in
            RecordingHandler(box: received, expectedSession: session.sessionId)
        }
        XCTAssertEqual(session.version, SMPVersion.supported.max)
        try await channel.writeAndFlush(block(42))
        await assertEventually { received.blocks == [42] }
        try await channel.close()
        await server.shutdown()
    }

    func testWrongFingerprintIsRejected() async throws {
        let log = ServerLog()
        let server = try await startEchoServer(credentials: credentials, group: group, log: log)
        let other = try ServerCredentials.generate(commonName: "someone else")
        do {
            _ = try await SMPTransportClient.connect(host: "127.0.0.1", port: server.port, keyHash: other.keyHash, group: group)
            XCTFail("connected to a server with another identity")
        } catch {
            XCTAssertEqual(error, .transport(.handshake(.identity)))
        }
        XCTAssertTrue(log.sessions.isEmpty)
        await server.shutdown()
    }

    func testVersionMismatchIsTypedError() async throws {
        let log = ServerLog()
        let server = try await startEchoServer(credentials: credentials, group: group, log: log)
        do {
            _ = try await SMPTransportClient.connect(
                host: "127.0.0.1", port: server.port, keyHash: credentials.keyHash,
                versions: SMPVersionRange(min: SMPVersion.supported.max + 1, max: SMPVersion.supported.max + 3)!, group: group
            )
            XCTFail("connected without a common version")
        } catch {
            XCTAssertEqual(error, .transport(.version))
        }
        // The server drops the client that never answered.
        await assertEventually { log.failures == [.closed] }
        await server.shutdown()
    }

    func testGarbageInsteadOfTLSClosesOnlyThatConnection() async throws {
        let log = ServerLog()
        let server = try await startEchoServer(credentials: credentials, group: group, log: log)
        let raw = try await rawTCP(port: server.port, group: group)
        try await raw.channel.writeAndFlush(ByteBuffer(bytes: Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8) + [UInt8](repeating: 0xAB, count: 600)))
        let closed = await closesWithin(5, raw)
        XCTAssertTrue(closed)
        await assertEventually {
            if case .tls = log.failures.first { return true } else { return false }
        }
        // The server still accepts and serves new connections.
        let (channel, session) = try await SMPTransportClient.connect(
            host: "127.0.0.1", port: server.port, keyHash: credentials.keyHash, group: group
        )
        XCTAssertEqual(session.version, SMPVersion.supported.max)
        try await channel.close()
        await server.shutdown()
    }

    func testGarbageClientHelloClosesOnlyThatConnection() async throws {
        let log = ServerLog()
        let server = try await startEchoServer(credentials: credentials, group: group, log: log)
        let tls = try await rawTLS(port: server.port, group: group)
        try await tls.executeThenClose { inbound, outbound in
            var it = inbound.makeAsyncIterator()
            let helloNext = try await it.next()
            let hello = try XCTUnwrap(helloNext)
            let parsed = try HandshakeBlock.decode(SMPServerHandshake.self, block: hello.readableBytesView)
            XCTAssertEqual(parsed.versions, SMPVersion.supported)
            // Length 0xFFFF does not unpad: LARGE_MSG, as tGetBlock reports it.
            try await outbound.write(ByteBuffer(bytes: [UInt8](repeating: 0xFF, count: TransportBlock.size)))
            // The server closes: the stream ends (or errors) without any block.
            do {
                let next = try await it.next()
                XCTAssertNil(next)
            } catch {}
        }
        await assertEventually { log.failures == [.transport(.largeMessage)] }
        let (channel, _) = try await SMPTransportClient.connect(
            host: "127.0.0.1", port: server.port, keyHash: credentials.keyHash, group: group
        )
        try await channel.close()
        await server.shutdown()
    }

    func testServerChecksClientKeyHashAndVersion() async throws {
        let log = ServerLog()
        let server = try await startEchoServer(credentials: credentials, group: group, log: log, versions: SMPVersionRange(min: 7, max: 9)!)
        let cases: [(SMPClientHandshake, SMPServerHandshakeFailure)] = [
            (SMPClientHandshake(version: 9, keyHash: [UInt8](repeating: 1, count: 32), authPubKey: nil), .transport(.handshake(.identity))),
            (SMPClientHandshake(version: SMPVersion.supported.max + 1, keyHash: credentials.keyHash, authPubKey: nil), .transport(.version)),
            (SMPClientHandshake(version: 6, keyHash: credentials.keyHash, authPubKey: nil), .transport(.version)),
        ]
        for (index, (reply, failure)) in cases.enumerated() {
            let tls = try await rawTLS(port: server.port, group: group)
            try await tls.executeThenClose { inbound, outbound in
                var it = inbound.makeAsyncIterator()
                _ = try await it.next()
                try await outbound.write(try handshakeBlock(reply))
                do { while try await it.next() != nil {} } catch {}
            }
            await assertEventually { log.failures.count == index + 1 }
            XCTAssertEqual(log.failures.last, failure)
        }
        XCTAssertTrue(log.sessions.isEmpty)
        await server.shutdown()
    }

    func testHandshakeTimeoutClosesIdleConnections() async throws {
        let log = ServerLog()
        let server = try await startEchoServer(credentials: credentials, group: group, log: log, handshakeTimeout: .milliseconds(300))
        // Idle before TLS.
        let raw = try await rawTCP(port: server.port, group: group)
        let closedRaw = await closesWithin(5, raw)
        XCTAssertTrue(closedRaw)
        // TLS done, server hello received, but no client hello.
        let tls = try await rawTLS(port: server.port, group: group)
        let closedTLS = await closesWithin(5, tls)
        XCTAssertTrue(closedTLS)
        await assertEventually { log.failures == [.timeout, .timeout] }
        // A completed handshake is not affected by the timer.
        let (channel, _) = try await SMPTransportClient.connect(
            host: "127.0.0.1", port: server.port, keyHash: credentials.keyHash, group: group
        )
        try await Task.sleep(nanoseconds: 600_000_000)
        XCTAssertTrue(channel.isActive)
        try await channel.close()
        await server.shutdown()
    }

    func testClientTimesOutOnSilentServer() async throws {
        // Accepts TCP and never says anything.
        let silent = try await ServerBootstrap(group: group).bind(host: "127.0.0.1", port: 0).get()
        let port = try XCTUnwrap(silent.localAddress?.port)
        let start = Date()
        do {
            _ = try await SMPTransportClient.connect(
                host: "127.0.0.1", port: port, keyHash: credentials.keyHash, group: group, timeout: .milliseconds(300)
            )
            XCTFail("connected to a silent server")
        } catch {
            XCTAssertEqual(error, .timeout)
        }
        XCTAssertLessThan(Date().timeIntervalSince(start), 3)
        try await silent.close()
    }

    func testCancellationClosesAndReportsCancelled() async throws {
        let silent = try await ServerBootstrap(group: group).bind(host: "127.0.0.1", port: 0).get()
        let port = try XCTUnwrap(silent.localAddress?.port)
        let keyHash = credentials.keyHash
        let group = self.group!
        let task = Task {
            try await SMPTransportClient.connect(host: "127.0.0.1", port: port, keyHash: keyHash, group: group, timeout: .seconds(30))
        }
        try await Task.sleep(nanoseconds: 200_000_000)
        let start = Date()
        task.cancel()
        do {
            _ = try await task.value
            XCTFail("connected to a silent server")
        } catch {
            XCTAssertEqual(error as? SMPTransportClientError, .cancelled)
        }
        XCTAssertLessThan(Date().timeIntervalSince(start), 3)
        try await silent.close()
    }

    func testConnectionRefusedIsNetworkError() async throws {
        let probe = try await ServerBootstrap(group: group).bind(host: "127.0.0.1", port: 0).get()
        let port = try XCTUnwrap(probe.localAddress?.port)
        try await probe.close()
        do {
            _ = try await SMPTransportClient.connect(host: "127.0.0.1", port: port, keyHash: credentials.keyHash, group: group)
            XCTFail("connected to a closed port")
        } catch {
            guard case .network = error else { return XCTFail("\(error)") }
        }
    }

    func testShutdownClosesConnections() async throws {
        let log = ServerLog()
        let server = try await startEchoServer(credentials: credentials, group: group, log: log)
        let (channel, _) = try await SMPTransportClient.connect(
            host: "127.0.0.1", port: server.port, keyHash: credentials.keyHash, group: group
        )
        await server.shutdown()
        try await channel.closeFuture.get()
        XCTAssertEqual(server.connectionCount, 0)
        do {
            _ = try await SMPTransportClient.connect(host: "127.0.0.1", port: server.port, keyHash: credentials.keyHash, group: group)
            XCTFail("connected after shutdown")
        } catch {}
    }
}

/// Blocks the client-side test handler saw (first byte of each).
final class ServerLogBox: @unchecked Sendable {
    private let lock = NSLock()
    private var _blocks: [UInt8] = []
    var blocks: [UInt8] { lock.withLock { _blocks } }
    func append(_ b: UInt8) { lock.withLock { _blocks.append(b) } }
}

final class RecordingHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    let box: ServerLogBox
    let expectedSession: [UInt8]

    init(box: ServerLogBox, expectedSession: [UInt8]) {
        self.box = box
        self.expectedSession = expectedSession
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let b = unwrapInboundIn(data)
        if b.readableBytes == TransportBlock.size, let first = b.getInteger(at: b.readerIndex + 2, as: UInt8.self) {
            box.append(first)
        }
    }
}
