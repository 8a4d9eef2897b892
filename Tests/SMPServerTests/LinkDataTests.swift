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
        XCTAssertEqual(Array(header), Array("SMPLOG".utf8) + [0, 4])  // rewritten in the current format
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
        // A format-2 log written by hand: one "N" record (queue with the sender-can-secure flag)
        // and one "L" record (24-byte link ID), framed as `length crc32 payload`.
        let rid = SecureRandom.bytes(24), sid = SecureRandom.bytes(24), lid = SecureRandom.bytes(24)
        let key = try PrivateAuthKey.generate()
        func frame(_ payload: [UInt8]) -> [UInt8] {
            var e = SMPEncoder()
            e.word32(UInt32(payload.count))
            e.word32(CRC32.checksum(payload))
            e.raw(payload)
            return e.bytes
        }
        var n = SMPEncoder()
        n.byte(UInt8(ascii: "N"))
        n.raw(rid)
        n.raw(sid)
        try n.shortString(key.publicKey.x509Encoded)
        n.raw(SecureRandom.bytes(32))
        n.bool(false)
        var l = SMPEncoder()
        l.byte(UInt8(ascii: "L"))
        l.raw(rid)
        l.raw(lid)
        try QueueLinkData(fixedData: [1], userData: [2]).encode(into: &l)
        let path = dir + "/" + SMPRelayServer.storeLogFile
        let file: [UInt8] = Array("SMPLOG".utf8) + [0, 2] + frame(n.bytes) + frame(l.bytes)
        try Data(file).write(to: URL(fileURLWithPath: path))

        let relay = try await TestRelay.start(dataDirectory: dir)
        XCTAssertEqual(relay.server.queueCount, 1)
        let alice = relay.client()
        // A format-2 queue without the flag has no mode: a contact queue until secured, so LGET works.
        let got = try await alice.getLink(linkId: lid)
        XCTAssertEqual(got.senderId, sid)
        try await alice.send(senderId: sid, key: nil, body: [1])
        await alice.close()
        await relay.server.shutdown()
        let header = try XCTUnwrap(FileManager.default.contents(atPath: path)).prefix(8)
        XCTAssertEqual(Array(header), Array("SMPLOG".utf8) + [0, 4])  // rewritten in the current format
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
        // A well-sized signature that verifies nothing (other sizes are ERR BLOCK, tested elsewhere).
        let sig = SecureRandom.bytes(64)
        let goodKey = try PrivateAuthKey.generate().publicKey.x509Encoded
        func raw(_ body: [UInt8], entity: [UInt8] = [], auth: [UInt8] = []) throws -> [UInt8] {
            try RawTransmission(authorization: auth, corrId: corr, entityId: entity, body: body).encoded(conn.params)
        }
        let cases: [(String, [UInt8], ErrorType)] = [
            ("LSET without arguments", try raw(Array("LSET".utf8), entity: q.recipientId, auth: sig), .cmd(.syntax)),
            ("LSET with a truncated large string", try raw(Array("LSET ".utf8) + [24] + [UInt8](repeating: 1, count: 24) + [0xFF, 0xFF, 1, 2],
                                                          entity: q.recipientId, auth: sig), .cmd(.syntax)),
            ("LKEY without a key", try raw(Array("LKEY".utf8), entity: [1], auth: sig), .cmd(.syntax)),
            // The reference parses the key with the command: a key that is not a key is SYNTAX.
            ("LKEY with a key that is not a key", try raw(Array("LKEY ".utf8) + [3, 1, 2, 3], entity: [1], auth: sig), .cmd(.syntax)),
            ("LKEY without authorization", try raw(Array("LKEY ".utf8) + [UInt8(goodKey.count)] + goodKey, entity: [1]), .cmd(.noAuth)),
            ("LKEY without link ID", try raw(Array("LKEY ".utf8) + [UInt8(goodKey.count)] + goodKey, auth: sig), .cmd(.noAuth)),
            ("LKEY of an unknown link", try raw(Array("LKEY ".utf8) + [UInt8(goodKey.count)] + goodKey, entity: [1], auth: sig), .auth),
            ("LGET without link ID", try raw(Array("LGET".utf8)), .cmd(.noEntity)),
            ("LGET with authorization", try raw(Array("LGET".utf8), entity: [1], auth: sig), .cmd(.hasAuth)),
            ("LGET of an unknown link ID", try raw(Array("LGET".utf8), entity: [1, 2, 3]), .auth),
            ("LDEL without authorization", try raw(Array("LDEL".utf8), entity: q.recipientId), .cmd(.noAuth)),
            ("LDEL with a bad signature", try raw(Array("LDEL".utf8), entity: q.recipientId, auth: sig), .auth),
            ("LDEL with an authorization of a bad size", try raw(Array("LDEL".utf8), entity: q.recipientId, auth: [1, 2]), .block),
            ("NEW with a bad queue request tag", try raw(Array("NEW ".utf8) + [0, 0] + Array("0S1X".utf8), auth: sig), .cmd(.syntax)),
            ("NEW with truncated link data", try raw(Array("NEW ".utf8) + [0, 0] + Array("0S1M1".utf8) + [24, 1, 2], auth: sig), .cmd(.syntax)),
            ("NEW with a bad maybe tag", try raw(Array("NEW ".utf8) + [0, 0] + Array("0S1C7".utf8), auth: sig), .cmd(.syntax)),
        ]
        for (name, t, expected) in cases {
            try await conn.writeBlock(try TransmissionBatch.blocks([t])[0])
            let r = try await conn.nextTransmissions()
            XCTAssertEqual(try BrokerMessage.parse(r[0].body, version: conn.session.version), .err(expected), name)
        }
        // Link IDs of any length are accepted (the reference sets no size).
        let short = try await conn.command(.lset(linkId: [1, 2, 3], data: linkData(1)), entityId: q.recipientId, key: key)
        XCTAssertEqual(short, .ok)
        let pong = try await conn.command(.ping)
        XCTAssertEqual(pong, .pong)
        // The link ID cannot change; the user data can.
        let other = try await conn.command(.lset(linkId: SecureRandom.bytes(24), data: linkData(1)), entityId: q.recipientId, key: key)
        XCTAssertEqual(other, .err(.auth))
        let ok = try await conn.command(.lset(linkId: [1, 2, 3], data: linkData(1, user: 5)), entityId: q.recipientId, key: key)
        XCTAssertEqual(ok, .ok)
        await conn.close()
        await relay.server.shutdown()
    }

    /// NEW's last field and IDS in the v9 and v15+ forms.
    func testNewAndIdsEncodings() throws {
        let k = Array("key".utf8)
        let v9 = NewQueueRequest(recipientAuthKey: k, recipientDhKey: k, senderCanSecure: true)
        XCTAssertEqual(try SMPCommand.parse(try SMPCommand.new(v9).smpEncoded(version: 9), version: 9), .new(v9))
        XCTAssertEqual(Array(try SMPCommand.new(v9).smpEncoded(version: 9).suffix(3)), Array("0ST".utf8))
        let withLink = NewQueueRequest(recipientAuthKey: k, recipientDhKey: k, queueData: .contact(linkId: [1], senderId: [2], data: linkData(5)))
        let enc = try SMPCommand.new(withLink).smpEncoded(version: 15)
        XCTAssertEqual(try SMPCommand.parse(enc, version: 15), .new(withLink))
        XCTAssertFalse(withLink.senderCanSecure)
        let ids = QueueIDs(recipientId: [1], senderId: [2], serverDhKey: [3], queueMode: .messaging, linkId: [4])
        XCTAssertEqual(try BrokerMessage.parse(try BrokerMessage.ids(ids).smpEncoded(version: 15), version: 15), .ids(ids))
        XCTAssertEqual(Array(try BrokerMessage.ids(ids).smpEncoded(version: 15).suffix(5)), Array("1M1".utf8) + [1, 4])
        let lnk = BrokerMessage.lnk(senderId: [7], data: linkData(6))
        XCTAssertEqual(try BrokerMessage.smpDecode(try lnk.smpEncoded()), lnk)
    }
}
