import Foundation
import NIOPosix
import SimplexFoundation
import SMPClient
import SMPProtocol
import SMPServer
import SMPTransport
import XCTest

/// Our relay as the PROXY of private message routing, over real TLS on loopback: a sender's
/// client → our proxy relay → our destination relay, and the proxy's errors as the reference's.
final class ProxyRelayTests: XCTestCase {
    func testSendThroughProxyArrivesOnTheRecipientsSubscription() async throws {
        let destination = try await TestRelay.start()
        let proxyRelay = try await TestRelay.start()
        let recipient = destination.client()
        let events = EventCollector(recipient)
        let q = try await TestQueue.create(recipient)
        let sender = proxyRelay.client()

        let relay = try await sender.connectProxiedRelay(destination.protocolServer)
        // One session per destination, shared by every request (the destination sees one client).
        let again = try await sender.connectProxiedRelay(destination.protocolServer)
        XCTAssertEqual(relay, again)
        XCTAssertEqual(relay.version, SMPVersion.proxied.max)
        let other = proxyRelay.client()
        let third = try await other.connectProxiedRelay(destination.protocolServer)
        XCTAssertEqual(third.sessionId, relay.sessionId)

        // Unsecured queue, then secured by the sender through the proxy, then signed sends.
        let r1 = try await sender.proxySend(relay, senderId: q.queue.senderId, key: nil, body: Array("hello 1".utf8))
        XCTAssertNoThrow(try r1.get())
        var got = await events.waitForMessages(1)
        XCTAssertEqual(got[0].body, Array("hello 1".utf8))
        try await recipient.ack(recipientId: q.queue.recipientId, key: q.recipientKey, msgId: got[0].msgId)
        for alg in [KeyAlgorithm.ed448, .x25519] {
            let q2 = try await TestQueue.create(recipient)
            let senderKey = try PrivateAuthKey.generate(alg)
            let sk = try await sender.proxyCommand(relay, entityId: q2.queue.senderId, command: .skey(senderKey: senderKey.publicKey.x509Encoded), key: senderKey)
            XCTAssertEqual(try sk.get(), .ok)
            let body = [UInt8](repeating: 0x42, count: SMPVersion.maxMessageLength)
            let r = try await sender.proxySend(relay, senderId: q2.queue.senderId, key: senderKey, body: body)
            XCTAssertNoThrow(try r.get())
        }
        got = await events.waitForMessages(3)
        XCTAssertEqual(got[1].body?.count, SMPVersion.maxMessageLength)
        XCTAssertEqual(got[2].body?.count, SMPVersion.maxMessageLength)

        // The destination's own errors pass through the proxy as the command's answer.
        await assertServerError(.auth) {
            try await sender.proxySend(relay, senderId: SecureRandom.bytes(24), key: nil, body: [1])
        }
        // A session the proxy does not have: its NO_SESSION comes back as a proxy error.
        var bad = relay
        bad = ProxiedRelay(sessionId: Array("bad session".utf8), version: bad.version, basicAuth: nil, serverKey: bad.serverKey)
        let noSession = try await sender.proxySend(bad, senderId: q.queue.senderId, key: nil, body: [1])
        XCTAssertEqual(noSession.failure, .protocolError(.proxy(.noSession)))

        XCTAssertEqual(proxyRelay.server.proxyStatistics.proxySessions, 3)
        XCTAssertEqual(proxyRelay.server.proxyStatistics.proxyForwards, 6)
        XCTAssertEqual(destination.server.proxyStatistics.forwardedIn, 6)
        await sender.close()
        await other.close()
        await recipient.close()
        await proxyRelay.server.shutdown()
        await destination.server.shutdown()
    }

    /// The sender's relay is also the recipient's (the reference's "one server" case): the relay
    /// proxies to itself over its own TLS listener.
    func testProxyToItself() async throws {
        let relay = try await TestRelay.start()
        let recipient = relay.client()
        let events = EventCollector(recipient)
        let q = try await TestQueue.create(recipient)
        let sender = relay.client()
        let session = try await sender.connectProxiedRelay(relay.protocolServer)
        let key = try PrivateAuthKey.generate(.ed25519)
        let sk = try await sender.proxyCommand(session, entityId: q.queue.senderId, command: .skey(senderKey: key.publicKey.x509Encoded), key: key)
        XCTAssertEqual(try sk.get(), .ok)
        let r = try await sender.proxySend(session, senderId: q.queue.senderId, key: key, body: Array("to myself".utf8))
        XCTAssertNoThrow(try r.get())
        let got = await events.waitForMessages(1)
        XCTAssertEqual(got[0].body, Array("to myself".utf8))
        await sender.close()
        await recipient.close()
        await relay.server.shutdown()
    }

    func testProxyErrorsForUnreachableOrWrongDestinations() async throws {
        var config = SMPServerConfig()
        config.proxyConnectTimeout = 3
        let proxyRelay = try await TestRelay.start(config: config)
        let sender = proxyRelay.client()
        // Nothing listens on this port (bound then closed).
        let closedPort = try await Self.unusedPort()
        let nowhere = ProtocolServer(hosts: ["127.0.0.1"], port: String(closedPort), keyHash: SecureRandom.bytes(32))
        await assertServerError(.proxy(.broker(.network))) { try await sender.connectProxiedRelay(nowhere) }
        // A relay that is not the one the fingerprint names: its TLS is refused.
        let destination = try await TestRelay.start()
        var impostor = destination.protocolServer
        impostor.keyHash = SecureRandom.bytes(32)
        await assertServerError(.proxy(.broker(.network))) { try await sender.connectProxiedRelay(impostor) }
        // A destination too old for private routing (v7): the proxy cannot forward to it.
        var oldConfig = SMPServerConfig()
        oldConfig.versions = SMPVersionRange(min: 6, max: 7)!
        let old = try await TestRelay.start(config: oldConfig)
        await assertServerError(.proxy(.broker(.transport(.version)))) { try await sender.connectProxiedRelay(old.protocolServer) }
        // A destination below v14: the proxy caps its own range at v10 in the handshake
        // (no block encryption with it), so PKEY offers 8-10.
        var v12Config = SMPServerConfig()
        v12Config.versions = SMPVersionRange(min: 6, max: 12)!
        let v12 = try await TestRelay.start(config: v12Config)
        let conn = try await RawConnection(relay: proxyRelay)
        let pkey = try await conn.command(.prxy(server: v12.protocolServer, basicAuth: nil))
        guard case .pkey(_, let range, _) = pkey else { return XCTFail("\(pkey)") }
        XCTAssertEqual(range, SMPVersionRange(min: 8, max: 10))
        let viaOld = try await sender.connectProxiedRelay(v12.protocolServer)
        XCTAssertEqual(viaOld.version, 10)
        await conn.close()
        await v12.server.shutdown()
        // The client's connection to its proxy is still fine.
        try await sender.ping()
        let ok = try await sender.connectProxiedRelay(destination.protocolServer)
        XCTAssertEqual(ok.version, SMPVersion.proxied.max)
        await sender.close()
        await proxyRelay.server.shutdown()
        await destination.server.shutdown()
        await old.server.shutdown()
    }

    func testProxyAuthAndDisabledProxy() async throws {
        let destination = try await TestRelay.start()
        var config = SMPServerConfig()
        config.createPassword = "correct"
        let guarded = try await TestRelay.start(config: config)
        let sender = guarded.client()
        await assertServerError(.proxy(.basicAuth)) { try await sender.connectProxiedRelay(destination.protocolServer) }
        await assertServerError(.proxy(.basicAuth)) {
            try await sender.connectProxiedRelay(destination.protocolServer, basicAuth: Array("wrong".utf8))
        }
        let relay = try await sender.connectProxiedRelay(destination.protocolServer, basicAuth: Array("correct".utf8))
        XCTAssertEqual(relay.basicAuth, Array("correct".utf8))

        var off = SMPServerConfig()
        off.allowSMPProxy = false
        let noProxy = try await TestRelay.start(config: off)
        let c = noProxy.client()
        await assertServerError(.proxy(.basicAuth)) { try await c.connectProxiedRelay(destination.protocolServer) }
        let r = try await c.proxySend(relay, senderId: SecureRandom.bytes(24), key: nil, body: [1])
        XCTAssertEqual(r.failure, .protocolError(.proxy(.noSession)))
        await c.close()
        await sender.close()
        await noProxy.server.shutdown()
        await guarded.server.shutdown()
        await destination.server.shutdown()
    }

    /// Malformed PFWD and PRXY bytes at the proxy: the reference's answers, and the connection
    /// goes on.
    func testMalformedProxyCommands() async throws {
        let destination = try await TestRelay.start()
        let proxyRelay = try await TestRelay.start()
        let conn = try await RawConnection(relay: proxyRelay)
        let pkey = try await conn.command(.prxy(server: destination.protocolServer, basicAuth: nil))
        guard case .pkey(let sessionId, let versions, _) = pkey else { return XCTFail("\(pkey)") }
        XCTAssertEqual(versions, SMPVersion.proxied)
        // An encrypted transmission the destination cannot open: its CRYPTO, as the proxy reports it.
        let garbage = SMPCommand.pfwd(version: 17, publicKey: X25519PrivateKey().publicKey.x509Encoded, encryptedTransmission: SecureRandom.bytes(300))
        let r1 = try await conn.command(garbage, entityId: sessionId)
        XCTAssertEqual(r1, .err(.proxy(.proto(.crypto))))
        // PFWD must name a session and carry no authorization.
        let r2 = try await conn.command(garbage)
        XCTAssertEqual(r2, .err(.cmd(.noEntity)))
        // A host no TransportHost parser accepts, and an empty host list: CMD SYNTAX.
        for body in [Array("PRXY ".utf8) + [1, 3] + Array("a/b".utf8) + [0, 1, 7, 48], Array("PRXY ".utf8) + [0, 0, 1, 7, 48]] {
            let corr = SecureRandom.bytes(24)
            let t = try RawTransmission(corrId: corr, entityId: [], body: body).encoded(conn.params)
            try await conn.writeBlock(try TransmissionBatch.blocks([t])[0])
            let r = try await conn.nextTransmissions()
            XCTAssertEqual(try BrokerMessage.parse(r[0].body, version: conn.session.version), .err(.cmd(.syntax)))
        }
        let pong = try await conn.command(.ping)
        XCTAssertEqual(pong, .pong)
        await conn.close()
        await proxyRelay.server.shutdown()
        await destination.server.shutdown()
    }

    /// A destination that dropped the proxy's connection: the old session is gone (NO_SESSION),
    /// and PRXY gives a new one that works.
    func testDestinationRestartGivesNoSessionThenANewSession() async throws {
        let destination = try await TestRelay.start()
        let port = destination.server.port
        let proxyRelay = try await TestRelay.start()
        let sender = proxyRelay.client()
        let relay = try await sender.connectProxiedRelay(destination.protocolServer)
        await destination.server.shutdown()
        let restarted = try await TestRelay.start(credentials: destination.credentials, port: port)
        let recipient = restarted.client()
        let events = EventCollector(recipient)
        let q = try await TestQueue.create(recipient)
        // Until the proxy notices its connection is gone, forwarding fails with a broker error.
        var result: Result<Void, ProxyClientError> = .success(())
        for _ in 0..<200 {
            result = try await sender.proxySend(relay, senderId: q.queue.senderId, key: nil, body: [1])
            if result.failure == .protocolError(.proxy(.noSession)) { break }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        XCTAssertEqual(result.failure, .protocolError(.proxy(.noSession)))
        let fresh = try await sender.connectProxiedRelay(restarted.protocolServer)
        XCTAssertNotEqual(fresh.sessionId, relay.sessionId)
        let sent = try await sender.proxySend(fresh, senderId: q.queue.senderId, key: nil, body: [2])
        XCTAssertNoThrow(try sent.get())
        let got = await events.waitForMessages(1)
        XCTAssertEqual(got[0].body, [2])
        await sender.close()
        await recipient.close()
        await proxyRelay.server.shutdown()
        await restarted.server.shutdown()
    }

    /// A destination that could not be reached is answered with the same error for a while
    /// (30 s in the reference), then tried again.
    func testProxyRemembersAFailedDestination() async throws {
        let port = try await Self.unusedPort()
        let credentials = try ServerCredentials.generate(commonName: "127.0.0.1")
        let target = ProtocolServer(hosts: ["127.0.0.1"], port: String(port), keyHash: credentials.keyHash)
        var config = SMPServerConfig()
        config.proxyPersistErrorInterval = 1.5
        let proxyRelay = try await TestRelay.start(config: config)
        let sender = proxyRelay.client()
        await assertServerError(.proxy(.broker(.network))) { try await sender.connectProxiedRelay(target) }
        let destination = try await TestRelay.start(credentials: credentials, port: port)
        await assertServerError(.proxy(.broker(.network))) { try await sender.connectProxiedRelay(target) }
        try await Task.sleep(nanoseconds: 1_600_000_000)
        let relay = try await sender.connectProxiedRelay(target)
        XCTAssertEqual(relay.version, SMPVersion.proxied.max)
        await sender.close()
        await proxyRelay.server.shutdown()
        await destination.server.shutdown()
    }

    /// Many proxied sends at once from one client with a concurrency of 2: reading pauses and
    /// resumes, and every send is answered and delivered.
    func testManyConcurrentForwardsWithASmallConcurrencyLimit() async throws {
        let destination = try await TestRelay.start()
        var config = SMPServerConfig()
        config.proxyClientConcurrency = 2
        let proxyRelay = try await TestRelay.start(config: config)
        let recipient = destination.client()
        let events = EventCollector(recipient)
        let q = try await TestQueue.create(recipient)
        let sender = proxyRelay.client()
        let relay = try await sender.connectProxiedRelay(destination.protocolServer)
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for i in 0..<40 {
                group.addTask {
                    let r = try await sender.proxySend(relay, senderId: q.queue.senderId, key: nil, body: [UInt8(i)])
                    return (try? r.get()) != nil
                }
            }
            var oks = 0
            for try await ok in group where ok { oks += 1 }
            return oks
        }
        XCTAssertEqual(results, 40)
        var bodies: Set<UInt8> = []
        for i in 0..<40 {
            let m = await events.waitForMessages(i + 1)
            bodies.insert(m[i].body?.first ?? 255)
            try await recipient.ack(recipientId: q.queue.recipientId, key: q.recipientKey, msgId: m[i].msgId)
        }
        XCTAssertEqual(bodies, Set((0..<40).map { UInt8($0) }))
        await sender.close()
        await recipient.close()
        await proxyRelay.server.shutdown()
        await destination.server.shutdown()
    }

    /// Proxying is on by default, as the reference's; the ini switches it off and writes it back.
    func testConfigSwitchesProxying() throws {
        XCTAssertTrue(SMPServerConfig().allowSMPProxy)
        XCTAssertTrue(try SMPServerConfig(ini: SMPServerConfig().ini).allowSMPProxy)
        var c = SMPServerConfig()
        c.allowSMPProxy = false
        XCTAssertEqual(try SMPServerConfig(ini: c.ini), c)
        XCTAssertFalse(try SMPServerConfig(ini: "allow_smp_proxy = false").allowSMPProxy)
        XCTAssertThrowsError(try SMPServerConfig(ini: "allow_smp_proxy = maybe"))
    }

    static func unusedPort() async throws -> Int {
        let channel = try await ServerBootstrap(group: TestGroup.shared).bind(host: "127.0.0.1", port: 0).get()
        let port = channel.localAddress?.port ?? 1
        try await channel.close()
        return port
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let e) = self { return e }
        return nil
    }
}
