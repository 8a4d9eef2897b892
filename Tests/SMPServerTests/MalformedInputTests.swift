import Foundation
import SimplexFoundation
import SMPClient
import SMPProtocol
import SMPServer
import SMPTransport
import XCTest

/// Bad bytes from a client get an ERR and never cost the connection or the relay.
final class MalformedInputTests: XCTestCase {
    func testGarbageBlocksGetErrBlockAndConnectionKeepsWorking() async throws {
        let relay = try await TestRelay.start()
        // Plain blocks (v10): from v11 every block is sealed, and a block that does not open ends the
        // connection as in the reference (SMPTransportTests covers that case).
        let conn = try await RawConnection(relay: relay, versions: SMPVersionRange(min: 6, max: 10)!)
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<20 {
            let garbage = (0..<TransportBlock.size).map { _ in UInt8.random(in: 0...255, using: &rng) }
            try await conn.writeBlock(garbage)
            let r = try await conn.nextTransmissions()
            XCTAssertEqual(r.count, 1)
            XCTAssertEqual(try BrokerMessage.parse(r[0].body, version: conn.session.version), .err(.block))
            XCTAssertEqual(r[0].corrId, [])
        }
        let pong = try await conn.command(.ping)
        XCTAssertEqual(pong, .pong)
        await conn.close()
        await relay.server.shutdown()
    }

    func testMalformedTransmissionsInsideValidBlocks() async throws {
        let relay = try await TestRelay.start()
        let conn = try await RawConnection(relay: relay)
        let corr = SecureRandom.bytes(24)
        // A well-sized (Ed25519) signature that verifies nothing, and sizes no key makes.
        let sig = SecureRandom.bytes(64)
        func transmission(_ body: [UInt8], corrId: [UInt8]? = nil, entity: [UInt8] = [], auth: [UInt8] = []) throws -> [UInt8] {
            try RawTransmission(authorization: auth, corrId: corrId ?? corr, entityId: entity, body: body).encoded(conn.params)
        }
        func transmission(_ body: String, corrId: [UInt8]? = nil, entity: [UInt8] = [], auth: [UInt8] = []) throws -> [UInt8] {
            try transmission(Array(body.utf8), corrId: corrId, entity: entity, auth: auth)
        }
        let key = try PrivateAuthKey.generate()
        let newBody = try SMPCommand.new(NewQueueRequest(recipientAuthKey: key.publicKey.x509Encoded, recipientDhKey: X25519PrivateKey().publicKey.x509Encoded))
            .smpEncoded(version: conn.session.version)
        let queueId = Array(repeating: UInt8(2), count: 24)
        let pfwd = try SMPCommand.pfwd(version: 18, publicKey: X25519PrivateKey().publicKey.x509Encoded, encryptedTransmission: [1, 2, 3])
            .smpEncoded(version: conn.session.version)
        // (name, transmission, expected error, whether the ERR carries the corrId)
        let cases: [(String, [UInt8], ErrorType, Bool)] = [
            ("unknown command", try transmission("HELLO"), .cmd(.unknown), true),
            ("lowercase command", try transmission("ping"), .cmd(.unknown), true),
            ("NEW without arguments", try transmission("NEW", auth: sig), .cmd(.syntax), true),
            ("NEW with garbage keys", try transmission("NEW \u{3}abc\u{3}abc0S0", auth: sig), .cmd(.syntax), true),
            ("NEW with a queue ID", try transmission(newBody, entity: [1], auth: sig), .cmd(.hasAuth), true),
            ("NEW without authorization", try transmission(newBody), .cmd(.noAuth), true),
            ("SUB without queue ID", try transmission("SUB", auth: sig), .cmd(.noAuth), true),
            ("SUB without authorization", try transmission("SUB", entity: queueId), .cmd(.noAuth), true),
            ("PING with credentials", try transmission("PING", auth: sig), .cmd(.hasAuth), true),
            ("PING with a queue ID", try transmission("PING", entity: queueId), .cmd(.hasAuth), true),
            ("LGET without link ID", try transmission("LGET"), .cmd(.noEntity), true),
            ("SEND without queue ID", try transmission("SEND T hi"), .cmd(.noEntity), true),
            ("SEND glued to its flag", try transmission("SENDT", entity: [1]), .cmd(.unknown), true),
            ("SEND with bad flag", try transmission("SEND X body", entity: [1]), .cmd(.syntax), true),
            ("ACK without msgId", try transmission("ACK", entity: [1], auth: sig), .cmd(.syntax), true),
            ("SEND to unknown queue", try transmission("SEND T hi", entity: [9, 9]), .auth, true),
            ("SUB with a bad signature", try transmission("SUB", entity: queueId, auth: sig), .auth, true),
            ("authorization of a size no key makes", try transmission("SUB", entity: queueId, auth: [1, 2, 3]), .block, true),
            ("81-byte authorization", try transmission("SUB", entity: queueId, auth: SecureRandom.bytes(81)), .block, true),
            ("service commands without a service", try transmission("SUBS", entity: queueId, auth: sig), .service, true),
            ("PRXY with a malformed server", try transmission("PRXY xyz"), .cmd(.syntax), true),
            ("PFWD without a proxy session", try transmission(pfwd, entity: [5]), .proxy(.noSession), true),
            ("PFWD with a bad key", try transmission(Array("PFWD ".utf8) + [0, 18, 0], entity: [5]), .cmd(.syntax), true),
        ]
        for (name, t, expected, hasCorrId) in cases {
            try await conn.writeBlock(try TransmissionBatch.blocks([t])[0])
            let r = try await conn.nextTransmissions()
            XCTAssertEqual(try BrokerMessage.parse(r[0].body, version: conn.session.version), .err(expected), name)
            XCTAssertEqual(r[0].corrId, hasCorrId ? corr : [], name)
        }
        // The reference takes any corrId: a short or empty one is answered with the same corrId.
        for c in [[1, 2, 3], []] as [[UInt8]] {
            try await conn.writeBlock(try TransmissionBatch.blocks([try transmission("PING", corrId: c)])[0])
            let r = try await conn.nextTransmissions()
            XCTAssertEqual(r[0].corrId, c)
            XCTAssertEqual(try BrokerMessage.parse(r[0].body, version: conn.session.version), .pong)
        }
        // Framing that lies about lengths: count says 3, one transmission present.
        var lying = [UInt8(3), 0, 4] + Array("PING".utf8)
        lying = try Padding.pad(lying, to: TransportBlock.size)
        try await conn.writeBlock(lying)
        let resp = try await conn.nextResponse()
        XCTAssertEqual(resp, .err(.block))
        // A transmission whose shortString lengths run past its end.
        try await conn.writeBlock(try TransportBlock.encode([[200, 1, 2]]))
        let resp2 = try await conn.nextResponse()
        XCTAssertEqual(resp2, .err(.block))
        // Several transmissions in one block, good and bad, each answered in order.
        let good = try transmission("PING")
        try await conn.writeBlock(try TransmissionBatch.blocks([good, try transmission("NOPE"), good])[0])
        let batch = try await conn.nextTransmissions()
        XCTAssertEqual(try batch.map { try BrokerMessage.parse($0.body, version: conn.session.version) }, [.pong, .err(.cmd(.unknown)), .pong])
        let pong = try await conn.command(.ping)
        XCTAssertEqual(pong, .pong)
        await conn.close()
        await relay.server.shutdown()
    }

    func testOversizedSendInRawTransmission() async throws {
        let relay = try await TestRelay.start()
        let conn = try await RawConnection(relay: relay)
        let key = try PrivateAuthKey.generate()
        let ids = try await conn.command(.new(NewQueueRequest(recipientAuthKey: key.publicKey.x509Encoded,
                                                              recipientDhKey: X25519PrivateKey().publicKey.x509Encoded, subscribe: false)), key: key)
        guard case .ids(let q) = ids else { return XCTFail("\(ids)") }
        // The largest body of the negotiated version is accepted; one byte more is LARGE_MSG.
        let limit = SMPVersion.maxMessageLength(conn.session.version)
        let tooBig = try await conn.command(.send(flags: MsgFlags(notification: false), body: [UInt8](repeating: 7, count: limit + 1)), entityId: q.senderId)
        XCTAssertEqual(tooBig, .err(.largeMessage))
        let largest = try await conn.command(.send(flags: MsgFlags(notification: false), body: [UInt8](repeating: 7, count: limit)), entityId: q.senderId)
        XCTAssertEqual(largest, .ok)
        let small = try await conn.command(.send(flags: MsgFlags(notification: false), body: [1]), entityId: q.senderId)
        XCTAssertEqual(small, .ok)
        await conn.close()
        await relay.server.shutdown()
    }

    func testRelayServesOthersWhileOneClientSendsGarbage() async throws {
        let relay = try await TestRelay.start()
        let alice = relay.client(), bob = relay.client()
        let events = EventCollector(alice)
        let q = try await TestQueue.create(alice)
        let noisy = try await RawConnection(relay: relay)
        async let flood: Void = {
            for _ in 0..<50 { try? await noisy.writeBlock(SecureRandom.bytes(TransportBlock.size)) }
        }()
        for i in 0..<20 { try await bob.send(senderId: q.queue.senderId, key: nil, body: [UInt8(i)]) }
        var got: [UInt8] = []
        for i in 0..<20 {
            let m = await events.waitForMessages(i + 1)
            got.append(m[i].body?.first ?? 255)
            try await alice.ack(recipientId: q.queue.recipientId, key: q.recipientKey, msgId: m[i].msgId)
        }
        _ = await flood
        XCTAssertEqual(got, (0..<20).map { UInt8($0) })
        await noisy.close()
        await alice.close()
        await bob.close()
        await relay.server.shutdown()
    }
}
