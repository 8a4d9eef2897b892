import Foundation
import SimplexFoundation
import SMPClient
import SMPProtocol
import SMPServer
import SMPTransport
import XCTest

/// Short link data at the relay: NEW with link data, LSET, LDEL, LKEY, LGET and LNK, their
/// rules, their persistence, and ERR (never a crash) for malformed link commands.
final class LinkDataTests: XCTestCase {
    private func linkData(_ fill: UInt8, user: UInt8 = 0) -> QueueLinkData {
        QueueLinkData(fixedData: [UInt8](repeating: fill, count: 2048), userData: [UInt8](repeating: user, count: 13824))
    }

    /// Alice creates a contact queue with link data in one NEW; anyone reads it with LGET by the
    /// link ID; Alice replaces the user part (LSET), cannot change the fixed part, then deletes it.
    func testContactLinkCreateGetUpdateDelete() async throws {
        let relay = try await TestRelay.start()
        let alice = relay.client(), bob = relay.client()
        let key = try PrivateAuthKey.generate(.ed25519)
        let corrId = SecureRandom.bytes(24)
        let sid = QueueRequestData.senderId(corrId: corrId)
        let lid = SecureRandom.bytes(24)
        let q = try await alice.createQueue(recipientKey: key, dhKey: X25519PrivateKey(), senderCanSecure: false,
                                            queueData: .contact(linkId: lid, senderId: sid, data: linkData(1)), corrId: corrId)
        XCTAssertEqual(q.senderId, sid)
        XCTAssertEqual(q.linkId, lid)
        XCTAssertFalse(q.senderCanSecure)

        let got = try await bob.getLink(linkId: lid)
        XCTAssertEqual(got.senderId, sid)
        XCTAssertEqual(got.data, linkData(1))

        try await alice.setLink(recipientId: q.recipientId, key: key, linkId: lid, data: linkData(1, user: 9))
        let got2 = try await bob.getLink(linkId: lid)
        XCTAssertEqual(got2.data, linkData(1, user: 9))
        // The fixed data and the link ID are set once.
        await assertServerError(.auth) { try await alice.setLink(recipientId: q.recipientId, key: key, linkId: lid, data: self.linkData(2)) }
        await assertServerError(.auth) {
            try await alice.setLink(recipientId: q.recipientId, key: key, linkId: SecureRandom.bytes(24), data: self.linkData(1))
        }
        // LKEY is for invitations only; LGET of an unknown link is AUTH.
        await assertServerError(.auth) { try await bob.secureGetLink(linkId: lid, key: try PrivateAuthKey.generate(.ed25519)) }
        await assertServerError(.auth) { try await bob.getLink(linkId: SecureRandom.bytes(24)) }

        try await alice.deleteLink(recipientId: q.recipientId, key: key)
        await assertServerError(.auth) { try await bob.getLink(linkId: lid) }
        // The queue itself still works for contact requests.
        try await bob.send(senderId: sid, key: nil, body: [1])
        await alice.close()
        await bob.close()
        await relay.server.shutdown()
    }

    /// An invitation queue's link data is returned by LKEY, which secures the queue with the
    /// caller's key: the same caller may repeat it, anyone else gets AUTH, and LGET never works.
    func testInvitationLinkResolvesOnceWithLKEY() async throws {
        let relay = try await TestRelay.start()
        let alice = relay.client(), bob = relay.client(), eve = relay.client()
        let key = try PrivateAuthKey.generate(.ed25519)
        let corrId = SecureRandom.bytes(24)
        let sid = QueueRequestData.senderId(corrId: corrId)
        let q = try await alice.createQueue(recipientKey: key, dhKey: X25519PrivateKey(), queueData: .messaging(senderId: sid, data: linkData(3)),
                                            corrId: corrId)
        let lid = try XCTUnwrap(q.linkId)
        XCTAssertTrue(q.senderCanSecure)
        await assertServerError(.auth) { try await eve.getLink(linkId: lid) }

        let bobKey = try PrivateAuthKey.generate(.ed25519)
        let got = try await bob.secureGetLink(linkId: lid, key: bobKey)
        XCTAssertEqual(got.senderId, sid)
        XCTAssertEqual(got.data, linkData(3))
        let again = try await bob.secureGetLink(linkId: lid, key: bobKey)
        XCTAssertEqual(again.data, linkData(3))
        await assertServerError(.auth) { try await eve.secureGetLink(linkId: lid, key: try PrivateAuthKey.generate(.ed25519)) }
        // The queue is secured with Bob's key: unsigned SEND fails, Bob's signed SEND works.
        await assertServerError(.auth) { try await eve.send(senderId: sid, key: nil, body: [1]) }
        try await bob.send(senderId: sid, key: bobKey, body: [2])
        // A secured messaging queue takes no new link data.
        await assertServerError(.auth) { try await alice.setLink(recipientId: q.recipientId, key: key, linkId: lid, data: self.linkData(3, user: 1)) }
        for c in [alice, bob, eve] { await c.close() }
        await relay.server.shutdown()
    }

    /// NEW with a client sender ID that is not the hash of its corrId is CMD PROHIBITED; a sender
    /// ID or link ID already in use is AUTH (never retried with other IDs).
    func testClientChosenIdsAreChecked() async throws {
        let relay = try await TestRelay.start()
        let alice = relay.client()
        let key = try PrivateAuthKey.generate(.ed25519)
        await assertServerError(.cmd(.prohibited)) {
            try await alice.createQueue(recipientKey: key, dhKey: X25519PrivateKey(),
                                        queueData: .messaging(senderId: SecureRandom.bytes(24), data: self.linkData(1)), corrId: SecureRandom.bytes(24))
        }
        let corrId = SecureRandom.bytes(24)
        let sid = QueueRequestData.senderId(corrId: corrId)
        let lid = SecureRandom.bytes(24)
        _ = try await alice.createQueue(recipientKey: key, dhKey: X25519PrivateKey(), queueData: .contact(linkId: lid, senderId: sid, data: linkData(1)),
                                        corrId: corrId)
        await assertServerError(.auth) {
            try await alice.createQueue(recipientKey: key, dhKey: X25519PrivateKey(), queueData: .contact(linkId: lid, senderId: sid, data: self.linkData(1)),
                                        corrId: corrId)
        }
        let corr2 = SecureRandom.bytes(24)
        await assertServerError(.auth) {
            try await alice.createQueue(recipientKey: key, dhKey: X25519PrivateKey(),
                                        queueData: .contact(linkId: lid, senderId: QueueRequestData.senderId(corrId: corr2), data: self.linkData(1)), corrId: corr2)
        }
        // A NEW without link data still gets the v9 IDS.
        let plain = try await alice.createQueue(recipientKey: key, dhKey: X25519PrivateKey())
        XCTAssertNil(plain.linkId)
        await alice.close()
        await relay.server.shutdown()
    }

    /// Link data survives a restart (store log format 2); LDEL and DEL are persisted too.
    func testLinkDataSurvivesRestart() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var relay = try await TestRelay.start(dataDirectory: dir)
        let creds = relay.credentials
        var alice = relay.client()
        let key = try PrivateAuthKey.generate(.ed25519)
        var lids: [[UInt8]] = []
        var rids: [[UInt8]] = []
        for i in 0..<3 {
            let corrId = SecureRandom.bytes(24)
            let lid = SecureRandom.bytes(24)
            let q = try await alice.createQueue(recipientKey: key, dhKey: X25519PrivateKey(), subscribe: false,
                                                queueData: .contact(linkId: lid, senderId: QueueRequestData.senderId(corrId: corrId), data: linkData(UInt8(i))),
                                                corrId: corrId)
            lids.append(lid)
            rids.append(q.recipientId)
        }
        try await alice.setLink(recipientId: rids[0], key: key, linkId: lids[0], data: linkData(0, user: 7))
        try await alice.deleteLink(recipientId: rids[1], key: key)
        try await alice.delete(recipientId: rids[2], key: key)
        await alice.close()
        await relay.server.shutdown()

        let header = try XCTUnwrap(FileManager.default.contents(atPath: dir + "/" + SMPRelayServer.storeLogFile)).prefix(8)
        XCTAssertEqual(Array(header), Array("SMPLOG".utf8) + [0, 2])
        relay = try await TestRelay.start(credentials: creds, dataDirectory: dir)
        alice = relay.client()
        let got = try await alice.getLink(linkId: lids[0])
        XCTAssertEqual(got.data, linkData(0, user: 7))
        await assertServerError(.auth) { try await alice.getLink(linkId: lids[1]) }
        await assertServerError(.auth) { try await alice.getLink(linkId: lids[2]) }
        await alice.close()
        await relay.server.shutdown()
    }

    /// A format-1 store log (written before short links) loads and is rewritten as format 2.
    func testFormat1StoreLogIsMigrated() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var relay = try await TestRelay.start(dataDirectory: dir)
        let creds = relay.credentials
        var alice = relay.client()
        let q = try await TestQueue.create(alice, subscribe: false)
        await alice.close()
        await relay.server.shutdown()
        // Rewrite the header as format 1: the records of a queue without link data are format-1 records.
        let path = dir + "/" + SMPRelayServer.storeLogFile
        var bytes = try XCTUnwrap(FileManager.default.contents(atPath: path))
        bytes[7] = 1
        try bytes.write(to: URL(fileURLWithPath: path))

        relay = try await TestRelay.start(credentials: creds, dataDirectory: dir)
        XCTAssertEqual(relay.server.queueCount, 1)
        alice = relay.client()
        try await alice.send(senderId: q.queue.senderId, key: nil, body: [1])
        await alice.close()
        await relay.server.shutdown()
        let header = try XCTUnwrap(FileManager.default.contents(atPath: path)).prefix(8)
        XCTAssertEqual(Array(header), Array("SMPLOG".utf8) + [0, 2])
    }

    /// Malformed link commands get ERR and the connection keeps working.
    func testMalformedLinkCommandsGetErr() async throws {
        let relay = try await TestRelay.start()
        let conn = try await RawConnection(relay: relay)
        let key = try PrivateAuthKey.generate(.ed25519)
        let ids = try await conn.command(.new(NewQueueRequest(recipientAuthKey: key.publicKey.x509Encoded,
                                                              recipientDhKey: X25519PrivateKey().publicKey.x509Encoded, subscribe: false)), key: key)
        guard case .ids(let q) = ids else { return XCTFail("\(ids)") }
        let corr = SecureRandom.bytes(24)
        func raw(_ body: [UInt8], entity: [UInt8] = [], auth: [UInt8] = []) throws -> [UInt8] {
            try RawTransmission(authorization: auth, corrId: corr, entityId: entity, body: body).smpEncoded()
        }
        let cases: [(String, [UInt8], ErrorType)] = [
            ("LSET without arguments", try raw(Array("LSET".utf8), entity: q.recipientId, auth: [1]), .cmd(.syntax)),
            ("LSET with a truncated large string", try raw(Array("LSET ".utf8) + [24] + [UInt8](repeating: 1, count: 24) + [0xFF, 0xFF, 1, 2],
                                                          entity: q.recipientId, auth: [1]), .cmd(.syntax)),
            ("LKEY without a key", try raw(Array("LKEY".utf8), entity: [1], auth: [1]), .cmd(.syntax)),
            ("LKEY with a key that is not a key", try raw(Array("LKEY ".utf8) + [3, 1, 2, 3], entity: [1], auth: [1]), .auth),
            ("LKEY without authorization", try raw(Array("LKEY ".utf8) + [3, 1, 2, 3], entity: [1]), .cmd(.noAuth)),
            ("LKEY without link ID", try raw(Array("LKEY ".utf8) + [3, 1, 2, 3], auth: [1]), .cmd(.noEntity)),
            ("LGET without link ID", try raw(Array("LGET".utf8)), .cmd(.noEntity)),
            ("LGET with authorization", try raw(Array("LGET".utf8), entity: [1], auth: [1]), .cmd(.hasAuth)),
            ("LGET of a short link ID", try raw(Array("LGET".utf8), entity: [1, 2, 3]), .auth),
            ("LDEL without authorization", try raw(Array("LDEL".utf8), entity: q.recipientId), .cmd(.noAuth)),
            ("LDEL with a bad signature", try raw(Array("LDEL".utf8), entity: q.recipientId, auth: [1, 2]), .auth),
            ("NEW with a bad queue request tag", try raw(Array("NEW ".utf8) + [0, 0] + Array("0S1X".utf8), auth: [1]), .cmd(.syntax)),
            ("NEW with truncated link data", try raw(Array("NEW ".utf8) + [0, 0] + Array("0S1M1".utf8) + [24, 1, 2], auth: [1]), .cmd(.syntax)),
            ("NEW with a bad maybe tag", try raw(Array("NEW ".utf8) + [0, 0] + Array("0S1C7".utf8), auth: [1]), .cmd(.syntax)),
        ]
        for (name, t, expected) in cases {
            try await conn.writeBlock(try TransportBlock.encode([t]))
            let r = try await conn.nextTransmissions()
            XCTAssertEqual(try BrokerMessage.smpDecode(r[0].body), .err(expected), name)
        }
        // Signed but malformed: a link ID that is not 24 bytes is CMD SYNTAX.
        let bad = try await conn.command(.lset(linkId: [1, 2, 3], data: linkData(1)), entityId: q.recipientId, key: key)
        XCTAssertEqual(bad, .err(.cmd(.syntax)))
        let pong = try await conn.command(.ping)
        XCTAssertEqual(pong, .pong)
        // A good LSET on the same connection still works.
        let ok = try await conn.command(.lset(linkId: SecureRandom.bytes(24), data: linkData(1)), entityId: q.recipientId, key: key)
        XCTAssertEqual(ok, .ok)
        await conn.close()
        await relay.server.shutdown()
    }

    /// Both forms of NEW's last field and of IDS round-trip.
    func testNewAndIdsEncodings() throws {
        let k = Array("key".utf8)
        let v9 = NewQueueRequest(recipientAuthKey: k, recipientDhKey: k, senderCanSecure: true)
        XCTAssertEqual(try SMPCommand.smpDecode(try SMPCommand.new(v9).smpEncoded()), .new(v9))
        XCTAssertEqual(Array(try SMPCommand.new(v9).smpEncoded().suffix(3)), Array("0ST".utf8))
        let withLink = NewQueueRequest(recipientAuthKey: k, recipientDhKey: k, queueData: .contact(linkId: [1], senderId: [2], data: linkData(5)))
        let enc = try SMPCommand.new(withLink).smpEncoded()
        XCTAssertEqual(try SMPCommand.smpDecode(enc), .new(withLink))
        XCTAssertFalse(withLink.senderCanSecure)
        let ids = QueueIDs(recipientId: [1], senderId: [2], serverDhKey: [3], senderCanSecure: true, linkId: [4])
        XCTAssertEqual(try BrokerMessage.smpDecode(try BrokerMessage.ids(ids).smpEncoded()), .ids(ids))
        XCTAssertEqual(Array(try BrokerMessage.ids(ids).smpEncoded().suffix(5)), Array("1M1".utf8) + [1, 4])
        let lnk = BrokerMessage.lnk(senderId: [7], data: linkData(6))
        XCTAssertEqual(try BrokerMessage.smpDecode(try lnk.smpEncoded()), lnk)
    }
}
