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
        let conn = try await RawConnection(relay: relay)
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<20 {
            let garbage = (0..<TransportBlock.size).map { _ in UInt8.random(in: 0...255, using: &rng) }
            try await conn.writeBlock(garbage)
            let r = try await conn.nextTransmissions()
            XCTAssertEqual(r.count, 1)
            XCTAssertEqual(try BrokerMessage.smpDecode(r[0].body), .err(.block))
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
        func transmission(_ body: String, corrId: [UInt8]? = nil, entity: [UInt8] = [], auth: [UInt8] = []) throws -> [UInt8] {
            try RawTransmission(authorization: auth, corrId: corrId ?? corr, entityId: entity, body: Array(body.utf8)).smpEncoded()
        }
        let cases: [(String, [UInt8], ErrorType)] = [
            ("unknown command", try transmission("HELLO"), .cmd(.unknown)),
            ("lowercase command", try transmission("ping"), .cmd(.unknown)),
            ("NEW without arguments", try transmission("NEW", auth: [1]), .cmd(.syntax)),
            ("NEW with garbage keys", try transmission("NEW \u{3}abc\u{3}abcS", auth: [1]), .cmd(.syntax)),
            ("NEW with a queue ID", try transmission("NEW \u{0}\u{0}0SF", entity: [1], auth: [1]), .cmd(.hasAuth)),
            ("NEW without authorization", try transmission("NEW \u{0}\u{0}0SF"), .cmd(.noAuth)),
            ("SUB without queue ID", try transmission("SUB", auth: [1]), .cmd(.noEntity)),
            ("SUB without authorization", try transmission("SUB", entity: Array(repeating: 1, count: 24)), .cmd(.noAuth)),
            ("SEND glued to its flag", try transmission("SENDT", entity: [1]), .cmd(.unknown)),
            ("SEND with bad flag", try transmission("SEND X body", entity: [1]), .cmd(.syntax)),
            ("ACK without msgId", try transmission("ACK", entity: [1], auth: [1]), .cmd(.syntax)),
            ("SEND to unknown queue", try transmission("SEND T hi", entity: [9, 9]), .auth),
            ("SUB with a bad signature", try transmission("SUB", entity: Array(repeating: 2, count: 24), auth: [1, 2, 3]), .auth),
            ("short corrId: bad framing", try transmission("PING", corrId: [1, 2, 3]), .block),
            ("empty corrId", try transmission("PING", corrId: []), .cmd(.syntax)),
        ]
        for (name, t, expected) in cases {
            try await conn.writeBlock(try TransportBlock.encode([t]))
            let r = try await conn.nextTransmissions()
            XCTAssertEqual(try BrokerMessage.smpDecode(r[0].body), .err(expected), name)
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
        let good = try RawTransmission(corrId: corr, entityId: [], body: Array("PING".utf8)).smpEncoded()
        try await conn.writeBlock(try TransportBlock.encode([good, try transmission("NOPE"), good]))
        let batch = try await conn.nextTransmissions()
        XCTAssertEqual(try batch.map { try BrokerMessage.smpDecode($0.body) }, [.pong, .err(.cmd(.unknown)), .pong])
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
        let big = [UInt8](repeating: 7, count: SMPVersion.maxMessageLength + 100)
        let tooBig = try await conn.command(.send(flags: MsgFlags(notification: false), body: big), entityId: q.senderId)
        XCTAssertEqual(tooBig, .err(.largeMessage))
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
