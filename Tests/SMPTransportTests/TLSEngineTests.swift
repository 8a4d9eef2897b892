import NIOCore
import NIOPosix
import SMPProtocol
import SimplexFoundation
import XCTest

@testable import SMPTransport

/// The OpenSSL engine with the reference's TLS parameters, over real TLS on loopback.
final class TLSEngineTests: XCTestCase {
    var group: MultiThreadedEventLoopGroup!
    let credentials = sharedCredentials

    override func setUp() { group = MultiThreadedEventLoopGroup(numberOfThreads: 2) }
    override func tearDown() async throws { try await group.shutdownGracefully() }

    /// Runs a raw TLS client to the server hello and returns what TLS and the server said.
    func rawHandshake(_ server: SMPTransportServer, configure: (inout TLSConfiguration) -> Void = { _ in })
        async throws -> (TLSHandshakeCompleted?, SMPServerHandshake?) {
        let events = TLSEventLog()
        let tls = try await rawTLS(port: server.port, group: group, configure: configure, events: events)
        var hello: SMPServerHandshake?
        try await tls.executeThenClose { inbound, _ in
            var it = inbound.makeAsyncIterator()
            if let b = try? await it.next() {
                hello = try HandshakeBlock.decode(SMPServerHandshake.self, block: b.readableBytesView)
            }
        }
        return (events.completed.first, hello)
    }

    func testTLS13WithChaChaAndX448AndTLSUniqueIsTheClientFinished() async throws {
        let log = ServerLog()
        let server = try await startEchoServer(credentials: credentials, group: group, log: log)
        let (tls, hello) = try await rawHandshake(server)
        let info = try XCTUnwrap(tls)
        XCTAssertEqual(info.protocolVersion, 0x0304)
        XCTAssertEqual(info.cipher, "TLS_CHACHA20_POLY1305_SHA256")
        XCTAssertEqual(info.group, "X448")
        XCTAssertEqual(info.alpn, "smp/1")
        XCTAssertFalse(info.sessionReused)
        XCTAssertEqual(info.peerCertificates, credentials.chain)
        // The server's session ID is its peer's (the client's) Finished: what the client has as its own.
        XCTAssertEqual(hello?.sessionId, info.tlsUnique)
        XCTAssertEqual(info.tlsUnique.count, 32)
        XCTAssertEqual(hello?.authPubKey?.chain, credentials.chain)
        await server.shutdown()
    }

    /// Writes with no promise of their own, flushed together, all arrive, also when the last of
    /// them fills a 64 KB ciphertext piece exactly and nothing is left for the flush itself (a
    /// version that passed such pieces on unflushed lost the flush and the transfer stalled).
    func testWritesWithoutPromisesAreAllFlushed() async throws {
        let received = ByteCounter()
        let serverContext = try TLSContext(serverChain: credentials.chain, privateKeyPKCS8: credentials.serverPrivateKey.pkcs8Encoded)
        let listener = try await ServerBootstrap(group: group)
            .childChannelInitializer { ch in
                ch.eventLoop.makeCompletedFuture {
                    try ch.pipeline.syncOperations.addHandler(TLSHandler(context: serverContext))
                    try ch.pipeline.syncOperations.addHandler(ByteCountingHandler(counter: received))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let clientContext = try TLSContext(clientConfiguration: .smp)
        let client = try await ClientBootstrap(group: group)
            .channelInitializer { ch in
                ch.eventLoop.makeCompletedFuture {
                    try ch.pipeline.syncOperations.addHandler(TLSHandler(context: clientContext, verifier: { _ in true }))
                }
            }
            .connect(host: "127.0.0.1", port: listener.localAddress!.port!).get()
        var total = 0
        for pieces in [4, 7, 1, 12] {
            // Each piece is one 16 KB record: four of them fill a 64 KB ciphertext piece.
            for _ in 0..<pieces {
                client.write(ByteBuffer(bytes: [UInt8](repeating: 7, count: 16_384 - 17)), promise: nil)
            }
            client.flush()
            total += pieces * (16_384 - 17)
            let expected = total
            await assertEventually(5) { received.value == expected }
        }
        try await client.close()
        try await listener.close()
    }

    func testTLS12WithChaChaAndTLSUniqueAgrees() async throws {
        let log = ServerLog()
        let server = try await startEchoServer(credentials: credentials, group: group, log: log)
        let (tls, hello) = try await rawHandshake(server) { $0.maximumVersion = .tls12 }
        let info = try XCTUnwrap(tls)
        XCTAssertEqual(info.protocolVersion, 0x0303)
        XCTAssertEqual(info.cipher, "ECDHE-ECDSA-CHACHA20-POLY1305")
        XCTAssertEqual(info.tlsUnique.count, 12)
        XCTAssertEqual(hello?.sessionId, info.tlsUnique)
        // And through the SMP client: both sessions carry the same 12-byte tls-unique.
        var config = TLSConfiguration.smp
        config.maximumVersion = .tls12
        let (channel, session) = try await SMPTransportClient.connect(
            host: "127.0.0.1", port: server.port, keyHash: credentials.keyHash, tls: config, group: group)
        await assertEventually { log.sessions.count == 1 }
        XCTAssertEqual(session.sessionId.count, 12)
        XCTAssertEqual(log.sessions.first?.sessionId, session.sessionId)
        try await channel.close()
        await server.shutdown()
    }

    func testClientOfferingOnlyAESGCMOrOtherGroupsIsRefused() async throws {
        let log = ServerLog()
        let server = try await startEchoServer(credentials: credentials, group: group, log: log)
        let refused: [(inout TLSConfiguration) -> Void] = [
            { $0.cipherSuites = "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384" },
            { $0.maximumVersion = .tls12; $0.cipherList = "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384" },
            { $0.groups = "P-256:P-384" },
        ]
        for (i, configure) in refused.enumerated() {
            let (tls, hello) = try await rawHandshake(server, configure: configure)
            XCTAssertNil(tls, "case \(i)")
            XCTAssertNil(hello, "case \(i)")
            await assertEventually { log.failures.count == i + 1 }
            guard case .tls = log.failures.last else { return XCTFail("\(log.failures)") }
        }
        // X25519 alone is fine.
        let (tls, _) = try await rawHandshake(server) { $0.groups = "X25519" }
        XCTAssertEqual(tls?.group, "X25519")
        XCTAssertTrue(log.sessions.isEmpty)
        await server.shutdown()
    }

    func testNoSessionResumptionAndNoTickets() async throws {
        let server = try await startEchoServer(credentials: credentials, group: group, log: ServerLog())
        for maximum in [TLSConfiguration.Version.tls13, .tls12] {
            for _ in 0..<2 {
                let (tls, _) = try await rawHandshake(server) { $0.maximumVersion = maximum }
                XCTAssertEqual(tls?.sessionReused, false)
            }
            // By the time the server hello arrives, a TLS 1.3 NewSessionTicket (sent right after
            // the handshake) or a TLS 1.2 one (inside it) would have been read.
            let raw = try await rawTLS(port: server.port, group: group) { $0.maximumVersion = maximum }
            try await raw.executeThenClose { inbound, _ in
                var it = inbound.makeAsyncIterator()
                _ = try await it.next()
                let ticket = try await raw.channel.eventLoop.submit {
                    try raw.channel.pipeline.syncOperations.handler(type: TLSHandler.self).receivedSessionTicket
                }.get()
                XCTAssertFalse(ticket, "\(maximum)")
            }
        }
        await server.shutdown()
    }

    func testEd448AndEd25519Servers() async throws {
        for algorithm in SignAlgorithm.allCases {
            let creds = try ServerCredentials.generate(commonName: "127.0.0.1", algorithm: algorithm)
            XCTAssertEqual(creds.algorithm, algorithm)
            XCTAssertEqual(try creds.caCertificate.publicKey().algorithm, algorithm == .ed448 ? .ed448 : .ed25519)
            let log = ServerLog()
            let server = try await startEchoServer(credentials: creds, group: group, log: log)
            let (channel, session) = try await SMPTransportClient.connect(
                host: "127.0.0.1", port: server.port, keyHash: creds.keyHash, group: group)
            XCTAssertEqual(session.serverCertificate, creds.serverCertificateDER)
            XCTAssertNotNil(session.serverSessionKey)
            await assertEventually { log.sessions.count == 1 }
            try await channel.close()
            await server.shutdown()
        }
    }

    func testCertificateRotationKeepsTheIdentity() async throws {
        let creds = try ServerCredentials.generate(commonName: "smp.example.com")
        let rotated = try creds.rotatingOnlineCertificate(algorithm: .ed448)
        XCTAssertEqual(rotated.keyHash, creds.keyHash)
        XCTAssertEqual(rotated.caCertificateDER, creds.caCertificateDER)
        XCTAssertNotEqual(rotated.serverCertificateDER, creds.serverCertificateDER)
        XCTAssertEqual(rotated.serverCertificate.commonName, "smp.example.com")
        XCTAssertEqual(rotated.algorithm, .ed448)
        XCTAssertThrowsError(try creds.withoutCAKey().rotatingOnlineCertificate())
        let server = try await startEchoServer(credentials: rotated, group: group, log: ServerLog())
        // A client that pinned the identity before the rotation still connects.
        let (channel, session) = try await SMPTransportClient.connect(
            host: "127.0.0.1", port: server.port, keyHash: creds.keyHash, group: group)
        XCTAssertEqual(session.serverCertificate, rotated.serverCertificateDER)
        try await channel.close()
        await server.shutdown()
    }

    func testServiceInClientHelloGetsBadAuthResponse() async throws {
        let log = ServerLog()
        let server = try await startEchoServer(credentials: credentials, group: group, log: log,
                                               versions: SMPVersionRange(min: 6, max: 18)!)
        let tls = try await rawTLS(port: server.port, group: group)
        let signed = try SignedPublicKey.sign(.ed25519(Ed25519PrivateKey().publicKey), with: credentials.serverPrivateKey)
        let service = SMPClientHandshakeService(role: .messaging, certKey: CertChainPubKey(chain: credentials.chain, signedKey: signed))
        var response: SMPServerHandshakeResponse?
        try await tls.executeThenClose { inbound, outbound in
            var it = inbound.makeAsyncIterator()
            _ = try await it.next()
            try await outbound.write(handshakeBlock(SMPClientHandshake(
                version: 18, keyHash: credentials.keyHash, authPubKey: X25519PrivateKey().publicKey, clientService: service)))
            if let b = try? await it.next() {
                response = try? HandshakeBlock.decode(SMPServerHandshakeResponse.self, block: b.readableBytesView)
            }
            do { while try await it.next() != nil {} } catch {}
        }
        XCTAssertEqual(response, .error(.handshake(.badAuth)))
        await assertEventually { log.failures == [.transport(.handshake(.badAuth))] }
        XCTAssertTrue(log.sessions.isEmpty)
        await server.shutdown()
    }

    func testMalformedClientHellosNeverCrashTheServer() async throws {
        let log = ServerLog()
        let server = try await startEchoServer(credentials: credentials, group: group, log: log,
                                               versions: SMPVersionRange(min: 6, max: 18)!)
        let k = credentials.keyHash
        let hellos: [([UInt8], SMPServerHandshakeFailure)] = [
            ([], .transport(.handshake(.parse))),
            ([0, 18], .transport(.handshake(.parse))),
            ([0, 18, 32] + k, .transport(.handshake(.parse))),  // v14+ needs the proxy flag
            ([0, 18, 32] + k + [UInt8(ascii: "F")], .transport(.handshake(.parse))),  // v16+ needs the service
            ([0, 18, 32] + k + [UInt8(ascii: "X"), UInt8(ascii: "0")], .transport(.handshake(.parse))),
            ([0, 18, 32] + k + [UInt8(ascii: "F"), UInt8(ascii: "2")], .transport(.handshake(.parse))),
            ([0, 18, 32] + k + [UInt8(ascii: "F"), UInt8(ascii: "1"), UInt8(ascii: "M"), 0], .transport(.handshake(.parse))),
            ([0, 19, 32] + k + [UInt8(ascii: "F"), UInt8(ascii: "0")], .transport(.version)),
            ([0, 9, 31] + k.dropLast(), .transport(.handshake(.identity))),
        ]
        for (i, (bytes, failure)) in hellos.enumerated() {
            let tls = try await rawTLS(port: server.port, group: group)
            try await tls.executeThenClose { inbound, outbound in
                var it = inbound.makeAsyncIterator()
                _ = try await it.next()
                try await outbound.write(ByteBuffer(bytes: Padding.pad(bytes, to: TransportBlock.size)))
                do { while try await it.next() != nil {} } catch {}
            }
            await assertEventually { log.failures.count == i + 1 }
            XCTAssertEqual(log.failures.last, failure, "case \(i)")
        }
        // A bad key is treated as absent (the reference's optional parser): v9 with junk instead
        // of the key still connects, without a client key.
        let tls = try await rawTLS(port: server.port, group: group)
        try await tls.executeThenClose { inbound, outbound in
            var it = inbound.makeAsyncIterator()
            _ = try await it.next()
            try await outbound.write(ByteBuffer(bytes: Padding.pad([0, 9, 32] + k + [3, 1, 2, 3], to: TransportBlock.size)))
            try await outbound.write(block(4))
            _ = try await it.next()
        }
        await assertEventually { log.sessions.count == 1 }
        XCTAssertNil(log.sessions.first?.clientAuthPubKey)
        XCTAssertEqual(log.sessions.first?.version, 9)
        await server.shutdown()
    }
}

/// Bytes a channel received, read from the test.
final class ByteCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func add(_ n: Int) { lock.withLock { count += n } }
}

final class ByteCountingHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    let counter: ByteCounter
    init(counter: ByteCounter) { self.counter = counter }
    func channelRead(context: ChannelHandlerContext, data: NIOAny) { counter.add(unwrapInboundIn(data).readableBytes) }
}
