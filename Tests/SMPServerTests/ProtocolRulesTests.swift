import Foundation
import SimplexFoundation
import SMPClient
import SMPProtocol
import SMPServer
import SMPTransport
import XCTest

/// The relay's answers, their order and forms per negotiated version, as simplexmq's Server.hs
/// gives them, checked on the wire below the client library.
final class ProtocolRulesTests: XCTestCase {
    /// Versions the tests negotiate (the transport of this build speaks 7 and up).
    let testVersions: [UInt16] = [7, 9, 11, 15, 18]

    struct RawQueue {
        let key: PrivateAuthKey
        let dh: X25519PrivateKey
        let ids: QueueIDs
    }

    func newQueue(_ conn: RawConnection, subscribe: Bool = false, ntf: NewNtfCreds? = nil) async throws -> RawQueue {
        let key = try PrivateAuthKey.generate()
        let dh = X25519PrivateKey()
        let req = NewQueueRequest(recipientAuthKey: key.publicKey.x509Encoded, recipientDhKey: dh.publicKey.x509Encoded,
                                  subscribe: subscribe, senderCanSecure: true, ntfCreds: ntf)
        let r = try await conn.command(.new(req), key: key)
        guard case .ids(let ids) = r else { throw XCTSkip("NEW answered \(r)") }
        return RawQueue(key: key, dh: dh, ids: ids)
    }

    func testIDSFormPerVersion() async throws {
        let relay = try await TestRelay.start()
        for v in testVersions {
            let conn = try await RawConnection(relay: relay, versions: SMPVersionRange(v))
            XCTAssertEqual(conn.session.version, v)
            let q = try await newQueue(conn)
            // The mode goes on the wire from v9 (a flag) and v15 (Maybe QueueMode).
            XCTAssertEqual(q.ids.queueMode, v >= 9 ? .messaging : nil, "v\(v)")
            XCTAssertNil(q.ids.linkId)
            await conn.close()
        }
        await relay.server.shutdown()
    }

    func testSUBOnAQueueWithAMessageAnswersOKThenMSG() async throws {
        let relay = try await TestRelay.start()
        for v in testVersions {
            let conn = try await RawConnection(relay: relay, versions: SMPVersionRange(v))
            let q = try await newQueue(conn)
            let sent = try await conn.command(.send(flags: MsgFlags(notification: false), body: Array("hi".utf8)), entityId: q.ids.senderId)
            XCTAssertEqual(sent, .ok)
            // SUB: the response (OK, SOK from v16) with the corrId, then MSG without corrId in the same block.
            let corrId = SecureRandom.bytes(24)
            let body = try SMPCommand.sub.smpEncoded(version: v)
            let authorized = try RawTransmission.authorizedBytes(sessionId: conn.session.sessionId, corrId: corrId, entityId: q.ids.recipientId, body: body)
            let auth = try TransmissionAuth.authorize(key: q.key, authorized: authorized, corrId: corrId, serverSessionKey: nil)
            let t = try RawTransmission(authorization: auth, corrId: corrId, entityId: q.ids.recipientId, body: body).encoded(conn.params)
            try await conn.writeBlock(try TransmissionBatch.blocks([t])[0])
            let block = try await conn.nextTransmissions()
            XCTAssertEqual(block.count, 2, "v\(v)")
            XCTAssertEqual(block[0].corrId, corrId)
            XCTAssertEqual(block[0].body, Array((v >= 16 ? "SOK 0" : "OK").utf8), "v\(v)")
            XCTAssertEqual(block[1].corrId, [])
            XCTAssertEqual(block[1].entityId, q.ids.recipientId)
            guard case .msg(let msgId, let enc) = try BrokerMessage.parse(block[1].body, version: v) else { return XCTFail("v\(v): no MSG") }
            let secret = try CryptoBox.sharedKey(publicKey: try X25519PublicKey(x509Encoded: q.ids.serverDhKey), privateKey: q.dh).rawRepresentation
            let m = try SMPClient.decrypt(recipientId: q.ids.recipientId, msgId: msgId, encryptedBody: enc, secret: secret)
            XCTAssertEqual(m.body, Array("hi".utf8))
            // ACK answers OK (no more messages); a second ACK has nothing to acknowledge.
            let ack = try await conn.command(.ack(msgId: msgId), entityId: q.ids.recipientId, key: q.key)
            XCTAssertEqual(ack, .ok)
            let again = try await conn.command(.ack(msgId: msgId), entityId: q.ids.recipientId, key: q.key)
            XCTAssertEqual(again, .err(.noMessage))
            await conn.close()
        }
        await relay.server.shutdown()
    }

    func testGETAndSUBOnOneConnectionAreExclusive() async throws {
        let relay = try await TestRelay.start()
        let conn = try await RawConnection(relay: relay)
        let q = try await newQueue(conn)
        let empty = try await conn.command(.get, entityId: q.ids.recipientId, key: q.key)
        XCTAssertEqual(empty, .ok)
        _ = try await conn.command(.send(flags: MsgFlags(notification: false), body: [1]), entityId: q.ids.senderId)
        _ = try await conn.command(.send(flags: MsgFlags(notification: false), body: [2]), entityId: q.ids.senderId)
        // GET answers MSG with the corrId; ACK of a GET message answers OK without the next one.
        let got = try await conn.command(.get, entityId: q.ids.recipientId, key: q.key)
        guard case .msg(let id1, _) = got else { return XCTFail("\(got)") }
        let ack = try await conn.command(.ack(msgId: id1), entityId: q.ids.recipientId, key: q.key)
        XCTAssertEqual(ack, .ok)
        let sub = try await conn.command(.sub, entityId: q.ids.recipientId, key: q.key)
        XCTAssertEqual(sub, .err(.cmd(.prohibited)))
        // Another connection subscribes; GET there is prohibited.
        let other = try await RawConnection(relay: relay)
        let sub2 = try await other.command(.sub, entityId: q.ids.recipientId, key: q.key)
        XCTAssertEqual(sub2, .sok(serviceId: nil))
        let get2 = try await other.command(.get, entityId: q.ids.recipientId, key: q.key)
        XCTAssertEqual(get2, .err(.cmd(.prohibited)))
        await other.close()
        await conn.close()
        await relay.server.shutdown()
    }

    func testDeletingASubscribedQueueSendsDELDOrENDBeforeV10() async throws {
        let relay = try await TestRelay.start()
        for (v, expected) in [(UInt16(9), "END"), (18, "DELD")] {
            let owner = try await RawConnection(relay: relay)
            let q = try await newQueue(owner)
            let subscriber = try await RawConnection(relay: relay, versions: SMPVersionRange(v))
            let sub = try await subscriber.command(.sub, entityId: q.ids.recipientId, key: q.key)
            XCTAssertEqual(sub, v >= 16 ? .sok(serviceId: nil) : .ok)
            let del = try await owner.command(.del, entityId: q.ids.recipientId, key: q.key)
            XCTAssertEqual(del, .ok)
            let event = try await subscriber.nextTransmissions()
            XCTAssertEqual(event[0].corrId, [])
            XCTAssertEqual(event[0].entityId, q.ids.recipientId)
            XCTAssertEqual(event[0].body, Array(expected.utf8), "v\(v)")
            await owner.close()
            await subscriber.close()
        }
        await relay.server.shutdown()
    }

    func testBlockedQueuesPerVersion() async throws {
        let relay = try await TestRelay.start()
        let owner = try await RawConnection(relay: relay)
        let q = try await newQueue(owner)
        let info = BlockingInfo(reason: .spam, notice: .init(ttl: 60))
        XCTAssertTrue(relay.server.blockQueue(entityId: q.ids.senderId, info))
        for v in testVersions {
            let conn = try await RawConnection(relay: relay, versions: SMPVersionRange(v))
            let send = try await conn.command(.send(flags: MsgFlags(notification: false), body: [1]), entityId: q.ids.senderId)
            let sub = try await conn.command(.sub, entityId: q.ids.recipientId, key: q.key)
            let expected: ErrorType = v < 12 ? .auth : v < 18 ? .blocked(BlockingInfo(reason: .spam)) : .blocked(info)
            XCTAssertEqual(send, .err(expected), "v\(v)")
            XCTAssertEqual(sub, .err(expected), "v\(v)")
            await conn.close()
        }
        // The recipient may still delete a blocked queue.
        let del = try await owner.command(.del, entityId: q.ids.recipientId, key: q.key)
        XCTAssertEqual(del, .ok)
        XCTAssertFalse(relay.server.blockQueue(entityId: q.ids.senderId, info))
        await owner.close()
        await relay.server.shutdown()
    }

    func testUnblockingRestoresTheQueueAndSurvivesRestart() async throws {
        let dir = temporaryDirectory()
        var relay = try await TestRelay.start(dataDirectory: dir)
        let conn = try await RawConnection(relay: relay)
        let q = try await newQueue(conn)
        await conn.close()
        XCTAssertTrue(relay.server.blockQueue(entityId: q.ids.recipientId, BlockingInfo(reason: .content)))
        await relay.server.shutdown()
        relay = try await TestRelay.start(credentials: relay.credentials, dataDirectory: dir)
        let c2 = try await RawConnection(relay: relay)
        let blocked = try await c2.command(.send(flags: MsgFlags(notification: false), body: [1]), entityId: q.ids.senderId)
        XCTAssertEqual(blocked, .err(.blocked(BlockingInfo(reason: .content))))
        XCTAssertTrue(relay.server.blockQueue(entityId: q.ids.recipientId, nil))
        let sent = try await c2.command(.send(flags: MsgFlags(notification: false), body: [1]), entityId: q.ids.senderId)
        XCTAssertEqual(sent, .ok)
        await c2.close()
        await relay.server.shutdown()
    }

    func testNotifierCredentialsInNEWFromV17() async throws {
        let relay = try await TestRelay.start()
        let conn = try await RawConnection(relay: relay)
        XCTAssertEqual(conn.session.version, 18)
        let nkey = try PrivateAuthKey.generate()
        let ndh = X25519PrivateKey()
        let q = try await newQueue(conn, ntf: NewNtfCreds(notifierKey: nkey.publicKey.x509Encoded, recipientNtfDhKey: ndh.publicKey.x509Encoded))
        guard let creds = q.ids.serverNtfCreds else { return XCTFail("IDS without notifier credentials") }
        // NSUB with the notifier key answers SOK (v16+), and a SEND with notification gives NMSG.
        let ntfConn = try await RawConnection(relay: relay)
        let nsub = try await ntfConn.command(.nsub, entityId: creds.notifierId, key: nkey)
        XCTAssertEqual(nsub, .sok(serviceId: nil))
        _ = try await conn.command(.send(flags: MsgFlags(notification: true), body: [1]), entityId: q.ids.senderId)
        let ev = try await ntfConn.nextTransmissions()
        guard case .nmsg(let nonce, let meta) = try BrokerMessage.parse(ev[0].body, version: 18) else { return XCTFail("no NMSG") }
        let secret = try CryptoBox.sharedKey(publicKey: try X25519PublicKey(x509Encoded: creds.serverNtfDhKey), privateKey: ndh)
        var d = SMPDecoder(try CryptoBox.cbDecrypt(key: secret, nonce: nonce, box: meta))
        XCTAssertEqual(try d.shortString().count, 24)
        await ntfConn.close()
        await conn.close()
        await relay.server.shutdown()
    }

    func testMessageSizeLimitPerVersion() async throws {
        let relay = try await TestRelay.start()
        for v in testVersions {
            let conn = try await RawConnection(relay: relay, versions: SMPVersionRange(v))
            let q = try await newQueue(conn)
            let limit = SMPVersion.maxMessageLength(v)
            let ok = try await conn.command(.send(flags: MsgFlags(notification: false), body: [UInt8](repeating: 1, count: limit)), entityId: q.ids.senderId)
            XCTAssertEqual(ok, .ok, "v\(v)")
            let large = try await conn.command(.send(flags: MsgFlags(notification: false), body: [UInt8](repeating: 1, count: limit + 1)), entityId: q.ids.senderId)
            XCTAssertEqual(large, .err(.largeMessage), "v\(v)")
            await conn.close()
        }
        await relay.server.shutdown()
    }

    func testShortLinkIDsOfAnyLengthFromV15() async throws {
        let relay = try await TestRelay.start()
        let conn = try await RawConnection(relay: relay, versions: SMPVersionRange(15))
        let q = try await newQueue(conn)
        // A 16-byte link ID (no 24-byte rule) on a not yet secured queue.
        let lid = SecureRandom.bytes(16)
        let set = try await conn.command(.lset(linkId: lid, data: QueueLinkData(fixedData: [1], userData: [2])), entityId: q.ids.recipientId, key: q.key)
        XCTAssertEqual(set, .ok)
        // LKEY secures the messaging queue and returns the data.
        let skey = try PrivateAuthKey.generate()
        let lnk = try await conn.command(.lkey(senderKey: skey.publicKey.x509Encoded), entityId: lid, key: skey)
        XCTAssertEqual(lnk, .lnk(senderId: q.ids.senderId, data: QueueLinkData(fixedData: [1], userData: [2])))
        // LGET is for contact queues only.
        let get = try await conn.command(.lget, entityId: lid)
        XCTAssertEqual(get, .err(.auth))
        await conn.close()
        await relay.server.shutdown()
    }

    func testClientWorksWithRelaysOfferingPartOfTheRange() async throws {
        for range in [SMPVersionRange(min: 7, max: 8)!, SMPVersionRange(min: 7, max: 10)!, SMPVersionRange(min: 7, max: 18)!] {
            var config = SMPServerConfig()
            config.versions = range
            let relay = try await TestRelay.start(config: config)
            let alice = relay.client(), bob = relay.client()
            let events = EventCollector(alice)
            let q = try await TestQueue.create(alice)
            let skey = try PrivateAuthKey.generate()
            if range.max >= SMPVersion.senderSecure {
                try await bob.senderSecure(senderId: q.queue.senderId, key: skey)
            } else {
                try await alice.secure(recipientId: q.queue.recipientId, key: q.recipientKey, senderKey: skey.publicKey)
            }
            try await bob.send(senderId: q.queue.senderId, key: skey, body: Array("v\(range.max)".utf8))
            let m = await events.waitForMessages(1)
            XCTAssertEqual(m.first?.body, Array("v\(range.max)".utf8))
            if let id = m.first?.msgId { try await alice.ack(recipientId: q.queue.recipientId, key: q.recipientKey, msgId: id) }
            await alice.close()
            await bob.close()
            await relay.server.shutdown()
        }
    }
}
