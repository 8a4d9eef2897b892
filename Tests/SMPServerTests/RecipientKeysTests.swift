import Foundation
import SimplexFoundation
import SMPClient
import SMPProtocol
import SMPServer
import XCTest

/// RKEY (simplexmq `updateKeys`): a contact queue's recipient keys are replaced by a list, any of
/// which then signs recipient commands (`verifiedWithKeys`); messaging queues refuse it with AUTH
/// (`checkMode QMContact`); the keys survive a restart through the store log.
final class RecipientKeysTests: XCTestCase {
    func testContactQueueTakesSeveralRecipientKeysAndKeepsThem() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var relay = try await TestRelay.start(dataDirectory: dir)
        let creds = relay.credentials
        var alice = relay.client()
        let bob = relay.client()
        let original = try PrivateAuthKey.generate(.ed25519)
        let corrId = SecureRandom.bytes(24)
        let sid = QueueRequestData.senderId(corrId: corrId)
        let q = try await alice.createQueue(recipientKey: original, dhKey: X25519PrivateKey(), subscribe: false, senderCanSecure: false,
                                            queueData: .contact(linkId: SecureRandom.bytes(24), senderId: sid, data: linkData()), corrId: corrId)
        let k1 = try PrivateAuthKey.generate(.ed25519), k2 = try PrivateAuthKey.generate(.x25519)
        try await alice.replaceRecipientKeys(recipientId: q.recipientId, key: original, recipientKeys: [k1.publicKey, k2.publicKey])
        // The old key is replaced; each new key signs (an Ed25519 signature and an X25519 authenticator).
        await assertServerError(.auth) { try await alice.queueInfo(recipientId: q.recipientId, key: original) }
        _ = try await alice.queueInfo(recipientId: q.recipientId, key: k1)
        _ = try await alice.queueInfo(recipientId: q.recipientId, key: k2)
        try await bob.send(senderId: sid, key: nil, body: Array("request".utf8))
        let m = try await alice.get(recipientId: q.recipientId, key: k2, rcvDhSecret: q.rcvDhSecret)
        XCTAssertEqual(m?.body, Array("request".utf8))
        await alice.close()
        await bob.close()
        await relay.server.shutdown()

        relay = try await TestRelay.start(credentials: creds, dataDirectory: dir)
        alice = relay.client()
        _ = try await alice.queueInfo(recipientId: q.recipientId, key: k1)
        await assertServerError(.auth) { try await alice.queueInfo(recipientId: q.recipientId, key: original) }
        await alice.close()
        await relay.server.shutdown()
    }

    func testMessagingQueueRefusesRKEY() async throws {
        let relay = try await TestRelay.start()
        let alice = relay.client()
        let key = try PrivateAuthKey.generate(.ed25519)
        let q = try await alice.createQueue(recipientKey: key, dhKey: X25519PrivateKey(), subscribe: false)
        await assertServerError(.auth) {
            try await alice.replaceRecipientKeys(recipientId: q.recipientId, key: key, recipientKeys: [try PrivateAuthKey.generate(.ed25519).publicKey])
        }
        // The queue is unchanged.
        _ = try await alice.queueInfo(recipientId: q.recipientId, key: key)
        await alice.close()
        await relay.server.shutdown()
    }

    private func linkData() -> QueueLinkData {
        QueueLinkData(fixedData: SecureRandom.bytes(40), userData: SecureRandom.bytes(40))
    }
}
