import Foundation
import GRDB
import XCTest

@testable import SMPAgent

/// A sent message's status, a received message's acknowledgement and its receipt are deferred
/// writes: they ride in the agent's next transaction, and a clean stop writes what still waits.
final class DeferredWriteTests: XCTestCase {
    func testSendingAndAcknowledgingCommitOneTransactionPerMessageEachSide() async throws {
        let dir = agentTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let relay = try LocalRelay(dataDirectory: dir + "/relay")
        try await relay.start()
        let alice = try await TestAgent("alice", dir: dir, config: testAgentConfig([try relay.address]))
        let bob = try await TestAgent("bob", dir: dir, config: testAgentConfig([try relay.address]))
        let (a, b) = try await connect(alice, bob)
        _ = try await alice.agent.sendMessage(connId: a, body: Array("warm-up".utf8))
        try await receive(bob, b, "warm-up")
        let aliceBefore = alice.agent.databaseWrites, bobBefore = bob.agent.databaseWrites
        let n = 20
        var ids: [Int64] = []
        for i in 0..<n {
            ids.append(try await alice.agent.sendMessage(connId: a, body: Array("m\(i)".utf8)))
            try await receive(bob, b, "m\(i)")
        }
        let last = try XCTUnwrap(ids.last)
        try await alice.waitFor("SENT") { e -> Bool? in
            if e.connId == a, case .sent(let id) = e.kind, id == last { true } else { nil }
        }
        let aliceWrites = alice.agent.databaseWrites - aliceBefore, bobWrites = bob.agent.databaseWrites - bobBefore
        // One transaction per message queued (alice) and per message received (bob); the marks
        // ride in them (the flush after a quiet second may add one or two). Committed on their
        // own, they were 2 per message on each side.
        XCTAssertLessThanOrEqual(aliceWrites, n + 3, "alice's write transactions for \(n) messages")
        XCTAssertLessThanOrEqual(bobWrites, n + 3, "bob's write transactions for \(n) messages")
        XCTAssertEqual(alice.messages(a).count, 0)
        XCTAssertEqual(bob.messages(b).map(\.1), ["warm-up"] + (0..<n).map { "m\($0)" })

        // A clean stop writes the marks still waiting.
        await alice.stop()
        await bob.stop()
        let aliceDB = try DatabaseQueue(path: alice.path), bobDB = try DatabaseQueue(path: bob.path)
        let pending = try await aliceDB.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM snd_messages WHERE conn_id = ? AND msg_type = 'message' AND status != 'sent'", arguments: [a])
        }
        let unacknowledged = try await bobDB.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM rcv_messages WHERE conn_id = ? AND user_ack = 0", arguments: [b])
        }
        XCTAssertEqual(pending, 0)
        XCTAssertEqual(unacknowledged, 0)
        try aliceDB.close()
        try bobDB.close()

        // Nothing is sent twice after the restart, and the conversation goes on.
        try await alice.restart()
        try await bob.restart()
        _ = try await alice.agent.sendMessage(connId: a, body: Array("after".utf8))
        try await receive(bob, b, "after")
        XCTAssertEqual(bob.messages(b).map(\.1).filter { $0 == "m\(n - 1)" }.count, 1)
        await alice.stop()
        await bob.stop()
        await relay.stop()
    }

    /// Deferred marks wait at most `deferredWriteDelay` when no other transaction comes.
    func testAQuietAgentWritesItsDeferredMarksAfterTheDelay() async throws {
        let dir = agentTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let relay = try LocalRelay(dataDirectory: dir + "/relay")
        try await relay.start()
        var config = testAgentConfig([try relay.address])
        config.deferredWriteDelay = 0.2
        let alice = try await TestAgent("alice", dir: dir, config: config)
        let bob = try await TestAgent("bob", dir: dir, config: config)
        let (a, b) = try await connect(alice, bob)
        let id = try await alice.agent.sendMessage(connId: a, body: Array("one".utf8))
        let meta = try await receive(bob, b, "one")
        try await alice.waitFor("SENT") { e -> Bool? in
            if e.connId == a, case .sent(let s) = e.kind, s == id { true } else { nil }
        }
        try await Task.sleep(nanoseconds: 1_500_000_000)
        // Written while the agents run (through their own connections: the files are theirs alone).
        XCTAssertEqual(alice.agent.store.deferredWriteCount, 0)
        XCTAssertEqual(bob.agent.store.deferredWriteCount, 0)
        let status = try alice.agent.store.read { db in
            try String.fetchOne(db, sql: "SELECT status FROM snd_messages WHERE conn_id = ? AND internal_id = ?", arguments: [a, id])
        }
        let ack = try bob.agent.store.read { db in
            try Bool.fetchOne(db, sql: "SELECT user_ack FROM rcv_messages WHERE conn_id = ? AND internal_id = ?", arguments: [b, meta.agentMsgId])
        }
        await alice.stop()
        await bob.stop()
        XCTAssertEqual(status, "sent")
        XCTAssertEqual(ack, true)
        await relay.stop()
    }

    /// A receipt deferred for a connection deleted before it was written is dropped; the agent's
    /// next transactions succeed.
    func testADeferredReceiptOfADeletedConnectionIsDropped() async throws {
        let dir = agentTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let relay = try LocalRelay(dataDirectory: dir + "/relay")
        try await relay.start()
        var config = testAgentConfig([try relay.address])
        config.deferredWriteDelay = 30
        config.receiptBatchInterval = 30
        let alice = try await TestAgent("alice", dir: dir, config: config)
        let bob = try await TestAgent("bob", dir: dir, config: config)
        let (a, b) = try await connect(alice, bob)
        // The first receipt goes at once (A_RCVD), the second waits for the batch interval.
        _ = try await alice.agent.sendMessage(connId: a, body: Array("one".utf8))
        try await receive(bob, b, "one", receipt: Array("r1".utf8))
        _ = try await alice.agent.sendMessage(connId: a, body: Array("two".utf8))
        try await receive(bob, b, "two", receipt: Array("r2".utf8))
        try await bob.agent.deleteConnection(connId: b)
        // Bob's next transactions carry the dropped receipt and still commit.
        let (a2, b2) = try await connect(alice, bob)
        _ = try await alice.agent.sendMessage(connId: a2, body: Array("three".utf8))
        try await receive(bob, b2, "three")
        let ids = try await bob.agent.connectionIds()
        XCTAssertFalse(ids.contains(b))
        XCTAssertTrue(ids.contains(b2))
        await alice.stop()
        await bob.stop()
        await relay.stop()
    }
}
