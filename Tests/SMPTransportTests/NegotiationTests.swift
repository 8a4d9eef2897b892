import NIOCore
import NIOPosix
import SMPProtocol
import SimplexFoundation
import XCTest

@testable import SMPTransport

/// Version negotiation, ALPN and v11 block encryption over real TLS on loopback: our client
/// against our server offering parts of 6-18, as the reference negotiates.
final class NegotiationTests: XCTestCase {
    var group: MultiThreadedEventLoopGroup!
    let credentials = sharedCredentials
    let all = SMPVersionRange(min: 6, max: 18)!

    override func setUp() { group = MultiThreadedEventLoopGroup(numberOfThreads: 2) }
    override func tearDown() async throws { try await group.shutdownGracefully() }

    func connect(_ server: SMPTransportServer, versions: SMPVersionRange, proxyServer: Bool = false,
                 tls: TLSConfiguration = .smp) async throws -> (any Channel, SMPClientSession) {
        try await SMPTransportClient.connect(host: "127.0.0.1", port: server.port, keyHash: credentials.keyHash,
                                             versions: versions, proxyServer: proxyServer, tls: tls, group: group)
    }

    func testClientAgainstServersOfferingPartOfTheRange() async throws {
        for (offered, agreed, encrypted) in [(SMPVersionRange(min: 6, max: 8)!, UInt16(8), false),
                                             (SMPVersionRange(min: 6, max: 10)!, 10, false),
                                             (all, 18, true)] {
            let log = ServerLog()
            let server = try await startEchoServer(credentials: credentials, group: group, log: log, versions: offered)
            let (channel, session) = try await connect(server, versions: all)
            XCTAssertEqual(session.version, agreed)
            XCTAssertEqual(session.serverVersions, offered)
            XCTAssertEqual(session.blockEncryption, encrypted)
            XCTAssertNotNil(session.serverSessionKey)
            await assertEventually { log.sessions.count == 1 }
            XCTAssertEqual(log.sessions.first?.version, agreed)
            XCTAssertEqual(log.sessions.first?.blockEncryption, encrypted)
            // Blocks echo both ways whether encrypted or not.
            try await echo(channel, [5, 6])
            try await channel.close()
            await server.shutdown()
        }
    }

    func testClientWithoutALPNGetsLegacyV6() async throws {
        let log = ServerLog()
        let server = try await startEchoServer(credentials: credentials, group: group, log: log, versions: all)
        var tls = TLSConfiguration.smp
        tls.alpn = []
        let (channel, session) = try await connect(server, versions: SMPVersionRange(6), tls: tls)
        XCTAssertEqual(session.version, 6)
        XCTAssertEqual(session.serverVersions, SMPTransportVersion.legacyRange)
        XCTAssertNil(session.alpn)
        // The legacy hello carries no key (range max < 7), so there is nothing to sign or encrypt.
        XCTAssertNil(session.serverSessionKey)
        XCTAssertFalse(session.blockEncryption)
        await assertEventually { log.sessions.count == 1 }
        XCTAssertNil(log.sessions.first?.alpn)
        try await echo(channel, [9])
        try await channel.close()
        // A client that needs v7+ cannot use a server that did not get ALPN.
        do {
            _ = try await connect(server, versions: SMPVersionRange(min: 7, max: 18)!, tls: tls)
            XCTFail("agreed a version above the legacy range")
        } catch {
            XCTAssertEqual(error as? SMPTransportClientError, .transport(.version))
        }
        await server.shutdown()
    }

    func testProxyClientGetsNoBlockEncryptionAndCapsOldRelays() async throws {
        let log = ServerLog()
        let server = try await startEchoServer(credentials: credentials, group: group, log: log, versions: all)
        let (channel, session) = try await connect(server, versions: all, proxyServer: true)
        XCTAssertEqual(session.version, 18)
        XCTAssertFalse(session.blockEncryption)
        await assertEventually { log.sessions.count == 1 }
        XCTAssertEqual(log.sessions.first?.proxyServer, true)
        XCTAssertEqual(log.sessions.first?.blockEncryption, false)
        try await channel.close()
        await server.shutdown()

        // A relay below v14 gets at most v10 from a proxy.
        let old = try await startEchoServer(credentials: credentials, group: group, log: ServerLog(), versions: SMPVersionRange(min: 6, max: 12)!)
        let (c2, s2) = try await connect(old, versions: all, proxyServer: true)
        XCTAssertEqual(s2.version, 10)
        try await c2.close()
        await old.shutdown()
        XCTAssertEqual(SMPHandshakeRules.clientVersion(client: all, server: SMPVersionRange(min: 6, max: 12)!, proxyServer: false), 12)
    }

    func testEncryptedBlocksLimitPayloadAndAreNotPlainOnTheWire() async throws {
        let log = ServerLog()
        let server = try await startEchoServer(credentials: credentials, group: group, log: log, versions: all)
        let (channel, session) = try await connect(server, versions: all)
        XCTAssertTrue(session.blockEncryption)
        // The largest payload of an encrypted block is 16366 bytes; one more fails the write.
        let fits = try Padding.pad([UInt8](repeating: 7, count: EncryptedBlock.maxPayload), to: TransportBlock.size)
        let tooBig = try Padding.pad([UInt8](repeating: 7, count: EncryptedBlock.maxPayload + 1), to: TransportBlock.size)
        do {
            try await channel.writeAndFlush(ByteBuffer(bytes: tooBig))
            XCTFail("a payload over 16366 bytes was sent encrypted")
        } catch {
            XCTAssertEqual(error as? TransportError, .largeMessage)
        }
        let async = try await channel.eventLoop.submit {
            try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
        }.get()
        try await async.executeThenClose { inbound, outbound in
            var it = inbound.makeAsyncIterator()
            try await outbound.write(ByteBuffer(bytes: fits))
            let back = try await it.next()
            XCTAssertEqual(back.map { Array($0.readableBytesView) }, fits)
        }
        await server.shutdown()
    }

    func testCorruptEncryptedBlockClosesTheConnection() async throws {
        let log = ServerLog()
        let server = try await startEchoServer(credentials: credentials, group: group, log: log, versions: all)
        // A raw client that completes the handshake at v18 with a key, then sends a block that
        // was not sealed with the chain: the server cannot open it and closes.
        let events = TLSEventLog()
        let tls = try await rawTLS(port: server.port, group: group, events: events)
        let key = X25519PrivateKey()
        try await tls.executeThenClose { inbound, outbound in
            var it = inbound.makeAsyncIterator()
            _ = try await it.next()
            try await outbound.write(handshakeBlock(SMPClientHandshake(version: 18, keyHash: credentials.keyHash, authPubKey: key.publicKey)))
            try await outbound.write(block(1))
            do { while try await it.next() != nil {} } catch {}
        }
        await assertEventually { log.sessions.count == 1 }
        XCTAssertEqual(log.sessions.first?.blockEncryption, true)
        // The server still serves others.
        let (c, _) = try await connect(server, versions: all)
        try await c.close()
        await server.shutdown()
    }

    func echo(_ channel: any Channel, _ bytes: [UInt8]) async throws {
        let box = ServerLogBox()
        try await channel.eventLoop.submit {
            try channel.pipeline.syncOperations.addHandler(RecordingHandler(box: box, expectedSession: []))
        }.get()
        for b in bytes {
            let payload = try Padding.pad([b, b, b], to: TransportBlock.size)
            try await channel.writeAndFlush(ByteBuffer(bytes: payload))
        }
        await assertEventually { box.blocks == bytes }
    }
}
