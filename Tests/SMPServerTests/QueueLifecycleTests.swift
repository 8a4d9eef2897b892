import Foundation
import SimplexFoundation
import SMPClient
import SMPProtocol
import SMPServer
import XCTest

/// Alice (recipient) creates a queue; Bob (sender) sends through it; the relay never learns
/// more than the two queue IDs.
final class QueueLifecycleTests: XCTestCase {
    func testFullQueueLifecycleWithRecipientSecuring() async throws {
        let relay = try await TestRelay.start()
        let alice = relay.client(), bob = relay.client()
        let aliceEvents = EventCollector(alice)
        let q = try await TestQueue.create(alice)
        XCTAssertEqual(q.queue.recipientId.count, 24)
        XCTAssertNotEqual(q.queue.recipientId, q.queue.senderId)

        // Bob's confirmation goes unauthorized: the queue is not secured yet.
        let bobKey = try PrivateAuthKey.generate(.ed25519)
        try await bob.send(senderId: q.queue.senderId, key: nil, body: Array("confirmation".utf8))
        let first = await aliceEvents.waitForMessages(1)
        XCTAssertEqual(first[0].body, Array("confirmation".utf8))
        XCTAssertEqual(first[0].recipientId, q.queue.recipientId)

        // Alice secures the queue with Bob's key (KEY), then acknowledges.
        try await alice.secure(recipientId: q.queue.recipientId, key: q.recipientKey, senderKey: bobKey.publicKey)
        try await alice.ack(recipientId: q.queue.recipientId, key: q.recipientKey, msgId: first[0].msgId)

        // Unauthorized SEND is now refused; authorized SEND is delivered.
        await assertServerError(.auth) { try await bob.send(senderId: q.queue.senderId, key: nil, body: [1]) }
        try await bob.send(senderId: q.queue.senderId, key: bobKey, body: Array("hello".utf8))
        let second = await aliceEvents.waitForMessages(2)
        XCTAssertEqual(second[1].body, Array("hello".utf8))
        try await alice.ack(recipientId: q.queue.recipientId, key: q.recipientKey, msgId: second[1].msgId)

        // A second ACK of the same message is NO_MSG.
        await assertServerError(.noMessage) {
            try await alice.ack(recipientId: q.queue.recipientId, key: q.recipientKey, msgId: second[1].msgId)
        }

        let info = try await alice.queueInfo(recipientId: q.queue.recipientId, key: q.recipientKey)
        XCTAssertTrue(info.contains("\"qiSnd\":true"), info)
        XCTAssertTrue(info.contains("\"qiSize\":0"), info)

        // OFF: the sender is refused; DEL: the queue is gone for everyone.
        try await alice.suspend(recipientId: q.queue.recipientId, key: q.recipientKey)
        try await alice.suspend(recipientId: q.queue.recipientId, key: q.recipientKey)
        await assertServerError(.auth) { try await bob.send(senderId: q.queue.senderId, key: bobKey, body: [1]) }
        try await alice.delete(recipientId: q.queue.recipientId, key: q.recipientKey)
        await assertServerError(.auth) {
            try await alice.subscribe(recipientId: q.queue.recipientId, key: q.recipientKey, rcvDhSecret: q.queue.rcvDhSecret)
        }
        await alice.close()
        await bob.close()
        await relay.server.shutdown()
    }

    func testSenderSecuresQueueWithSKEY() async throws {
        let relay = try await TestRelay.start()
        let alice = relay.client(), bob = relay.client()
        let events = EventCollector(alice)
        let q = try await TestQueue.create(alice)
        XCTAssertTrue(q.queue.senderCanSecure)
        let bobKey = try PrivateAuthKey.generate(.ed25519)
        try await bob.senderSecure(senderId: q.queue.senderId, key: bobKey)
        // Repeating SKEY with the same key is fine (lost response); another key is not.
        try await bob.senderSecure(senderId: q.queue.senderId, key: bobKey)
        await assertServerError(.auth) { try await bob.senderSecure(senderId: q.queue.senderId, key: try PrivateAuthKey.generate()) }
        await assertServerError(.auth) { try await bob.send(senderId: q.queue.senderId, key: nil, body: [1]) }
        try await bob.send(senderId: q.queue.senderId, key: bobKey, body: Array("fast".utf8))
        let m = await events.waitForMessages(1)
        XCTAssertEqual(m[0].body, Array("fast".utf8))
        await alice.close()
        await bob.close()
        await relay.server.shutdown()
    }

    func testMessagesAreDeliveredOneAtATimeUntilAck() async throws {
        let relay = try await TestRelay.start()
        let alice = relay.client(), bob = relay.client()
        let events = EventCollector(alice)
        let q = try await TestQueue.create(alice)
        for i in 0..<5 { try await bob.send(senderId: q.queue.senderId, key: nil, body: [UInt8(i)]) }
        var received: [[UInt8]] = []
        for i in 0..<5 {
            let msgs = await events.waitForMessages(i + 1)
            // Nothing more arrives before the ACK.
            try await Task.sleep(nanoseconds: 50_000_000)
            XCTAssertEqual(events.messages.count, i + 1)
            received.append(msgs[i].body ?? [])
            try await alice.ack(recipientId: q.queue.recipientId, key: q.recipientKey, msgId: msgs[i].msgId)
        }
        XCTAssertEqual(received, (0..<5).map { [UInt8($0)] })
        await alice.close()
        await bob.close()
        await relay.server.shutdown()
    }

    func testGetWithoutSubscription() async throws {
        let relay = try await TestRelay.start()
        let alice = relay.client(), bob = relay.client()
        let q = try await TestQueue.create(alice, subscribe: false)
        let empty = try await alice.get(recipientId: q.queue.recipientId, key: q.recipientKey, rcvDhSecret: q.queue.rcvDhSecret)
        XCTAssertNil(empty)
        try await bob.send(senderId: q.queue.senderId, key: nil, body: Array("polled".utf8))
        let m = try await alice.get(recipientId: q.queue.recipientId, key: q.recipientKey, rcvDhSecret: q.queue.rcvDhSecret)
        XCTAssertEqual(m?.body, Array("polled".utf8))
        try await alice.ack(recipientId: q.queue.recipientId, key: q.recipientKey, msgId: m!.msgId)
        let again = try await alice.get(recipientId: q.queue.recipientId, key: q.recipientKey, rcvDhSecret: q.queue.rcvDhSecret)
        XCTAssertNil(again)
        await alice.close()
        await bob.close()
        await relay.server.shutdown()
    }

    func testSecondSubscriberTakesOverAndFirstGetsEND() async throws {
        let relay = try await TestRelay.start()
        let alice1 = relay.client(), alice2 = relay.client(), bob = relay.client()
        let events1 = EventCollector(alice1), events2 = EventCollector(alice2)
        let q = try await TestQueue.create(alice1)
        try await alice2.subscribe(recipientId: q.queue.recipientId, key: q.recipientKey, rcvDhSecret: q.queue.rcvDhSecret)
        await events1.waitFor { $0.all.contains { if case .end = $0 { true } else { false } } }
        try await bob.send(senderId: q.queue.senderId, key: nil, body: [7])
        let m = await events2.waitForMessages(1)
        XCTAssertEqual(m[0].body, [7])
        XCTAssertEqual(events1.messages.count, 0)
        for c in [alice1, alice2, bob] { await c.close() }
        await relay.server.shutdown()
    }

    func testWrongKeyGetsAUTH() async throws {
        let relay = try await TestRelay.start()
        let alice = relay.client(), mallory = relay.client()
        let q = try await TestQueue.create(alice)
        let wrong = try PrivateAuthKey.generate(.ed25519)
        await assertServerError(.auth) {
            try await mallory.subscribe(recipientId: q.queue.recipientId, key: wrong, rcvDhSecret: nil)
        }
        await assertServerError(.auth) { try await mallory.delete(recipientId: q.queue.recipientId, key: wrong) }
        // The sender ID does not work for recipient commands, nor the recipient ID for SEND.
        await assertServerError(.auth) {
            try await alice.subscribe(recipientId: q.queue.senderId, key: q.recipientKey, rcvDhSecret: nil)
        }
        await assertServerError(.auth) { try await mallory.send(senderId: q.queue.recipientId, key: nil, body: [1]) }
        // Unknown queue IDs are AUTH too, of any length.
        await assertServerError(.auth) { try await mallory.send(senderId: [1, 2, 3], key: nil, body: [1]) }
        // The real key still works afterwards.
        try await alice.suspend(recipientId: q.queue.recipientId, key: q.recipientKey)
        await alice.close()
        await mallory.close()
        await relay.server.shutdown()
    }

    func testDeniableX25519AndEd448Keys() async throws {
        let relay = try await TestRelay.start()
        let alice = relay.client(), bob = relay.client()
        let events = EventCollector(alice)
        // Recipient commands authorized by the crypto_box authenticator (X25519 queue key).
        let q = try await TestQueue.create(alice, key: try PrivateAuthKey.generate(.x25519))
        let bobKey = try PrivateAuthKey.generate(.ed448)
        try await bob.senderSecure(senderId: q.queue.senderId, key: bobKey)
        try await bob.send(senderId: q.queue.senderId, key: bobKey, body: Array("deniable".utf8))
        let m = await events.waitForMessages(1)
        XCTAssertEqual(m[0].body, Array("deniable".utf8))
        try await alice.ack(recipientId: q.queue.recipientId, key: q.recipientKey, msgId: m[0].msgId)
        await assertServerError(.auth) {
            try await alice.ack(recipientId: q.queue.recipientId, key: try PrivateAuthKey.generate(.x25519), msgId: m[0].msgId)
        }
        await alice.close()
        await bob.close()
        await relay.server.shutdown()
    }

    func testQuotaThenQuotaMarkerAfterDrain() async throws {
        var config = SMPServerConfig()
        config.queueQuota = 3
        let relay = try await TestRelay.start(config: config)
        let alice = relay.client(), bob = relay.client()
        let q = try await TestQueue.create(alice, subscribe: false)
        for i in 0..<3 { try await bob.send(senderId: q.queue.senderId, key: nil, body: [UInt8(i)]) }
        await assertServerError(.quota) { try await bob.send(senderId: q.queue.senderId, key: nil, body: [9]) }
        await assertServerError(.quota) { try await bob.send(senderId: q.queue.senderId, key: nil, body: [9]) }
        var bodies: [[UInt8]?] = []
        while let m = try await alice.get(recipientId: q.queue.recipientId, key: q.recipientKey, rcvDhSecret: q.queue.rcvDhSecret) {
            bodies.append(m.body)
            try await alice.ack(recipientId: q.queue.recipientId, key: q.recipientKey, msgId: m.msgId)
        }
        // Three messages, then the relay's marker (no body) that the sender hit the quota.
        XCTAssertEqual(bodies, [[0], [1], [2], nil])
        try await bob.send(senderId: q.queue.senderId, key: nil, body: [10])
        await alice.close()
        await bob.close()
        await relay.server.shutdown()
    }

    func testLargeMessageIsRefusedAndConnectionKeepsWorking() async throws {
        let relay = try await TestRelay.start()
        let alice = relay.client(), bob = relay.client()
        let events = EventCollector(alice)
        let q = try await TestQueue.create(alice)
        // The client and relay agree on v18: the largest body is 16048 (v11+).
        let limit = SMPVersion.maxMessageLength(SMPVersion.current)
        XCTAssertEqual(limit, 16048)
        let tooLarge = [UInt8](repeating: 1, count: limit + 1)
        await assertServerError(.largeMessage) { try await bob.send(senderId: q.queue.senderId, key: nil, body: tooLarge) }
        let largest = [UInt8](repeating: 2, count: limit)
        try await bob.send(senderId: q.queue.senderId, key: nil, body: largest)
        let m = await events.waitForMessages(1)
        XCTAssertEqual(m[0].body, largest)
        await alice.close()
        await bob.close()
        await relay.server.shutdown()
    }

    func testMessagesExpireAfterTTL() async throws {
        var config = SMPServerConfig()
        config.messageTTL = 60
        let relay = try await TestRelay.start(config: config)
        let alice = relay.client(), bob = relay.client()
        let q = try await TestQueue.create(alice, subscribe: false)
        try await bob.send(senderId: q.queue.senderId, key: nil, body: [1])
        XCTAssertEqual(relay.server.expireMessages(), 0)
        XCTAssertEqual(relay.server.expireMessages(now: Int64(Date().timeIntervalSince1970) + 61), 1)
        let m = try await alice.get(recipientId: q.queue.recipientId, key: q.recipientKey, rcvDhSecret: q.queue.rcvDhSecret)
        XCTAssertNil(m)
        await alice.close()
        await bob.close()
        await relay.server.shutdown()
    }

    func testNotifierReceivesNMSGWithoutContent() async throws {
        let relay = try await TestRelay.start()
        let alice = relay.client(), bob = relay.client(), notifier = relay.client()
        let ntfEvents = EventCollector(notifier)
        let q = try await TestQueue.create(alice, subscribe: false)
        let ntfKey = try PrivateAuthKey.generate(.ed25519)
        let ntfDh = X25519PrivateKey()
        let (nid, serverNtfDh) = try await alice.enableNotifications(recipientId: q.queue.recipientId, key: q.recipientKey,
                                                                       notifierKey: ntfKey.publicKey, dhKey: ntfDh.publicKey)
        try await notifier.subscribeNotifications(notifierId: nid, key: ntfKey)
        try await bob.send(senderId: q.queue.senderId, key: nil, notification: true, body: Array("secret".utf8))
        await ntfEvents.waitFor { $0.all.contains { if case .notification = $0 { true } else { false } } }
        guard case .notification(let id, let nonce, let meta) = ntfEvents.all.first(where: { if case .notification = $0 { true } else { false } }) else {
            return XCTFail("no notification")
        }
        XCTAssertEqual(id, nid)
        XCTAssertFalse(meta.indices.contains { meta[$0...].starts(with: Array("secret".utf8)) })
        // Only the recipient can read the metadata: message ID and timestamp.
        let key = try CryptoBox.sharedKey(publicKey: try X25519PublicKey(x509Encoded: serverNtfDh), privateKey: ntfDh)
        let plain = try CryptoBox.cbDecrypt(key: key, nonce: nonce, box: meta)
        var d = SMPDecoder(plain)
        XCTAssertEqual(try d.shortString().count, 24)
        XCTAssertGreaterThan(try d.int64(), 1_700_000_000)
        try await alice.disableNotifications(recipientId: q.queue.recipientId, key: q.recipientKey)
        await assertServerError(.auth) { try await notifier.subscribeNotifications(notifierId: nid, key: ntfKey) }
        for c in [alice, bob, notifier] { await c.close() }
        await relay.server.shutdown()
    }

    func testBasicAuthForQueueCreation() async throws {
        var config = SMPServerConfig()
        config.createPassword = "s3cret"
        let relay = try await TestRelay.start(config: config)
        let client = relay.client()
        await assertServerError(.auth) {
            try await client.createQueue(recipientKey: try PrivateAuthKey.generate(), dhKey: X25519PrivateKey())
        }
        await assertServerError(.auth) {
            try await client.createQueue(recipientKey: try PrivateAuthKey.generate(), dhKey: X25519PrivateKey(), basicAuth: Array("wrong".utf8))
        }
        _ = try await client.createQueue(recipientKey: try PrivateAuthKey.generate(), dhKey: X25519PrivateKey(), basicAuth: Array("s3cret".utf8))
        await client.close()
        await relay.server.shutdown()
    }
}
