import Foundation
import GRDB
import SimplexFoundation
import SMPTransport
import XCTest

@testable import SMPAgent

/// The connection procedures of agent-protocol.md between agents over real relays on loopback.
final class AgentConnectionTests: XCTestCase {
    /// Fast procedure (SKEY by the sender, no HELLO): CONF, INFO, CON, messages both ways,
    /// SENT and delivery receipts (RCVD).
    func testInvitationFlowAndMessagesBothWays() async throws {
        let dir = agentTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let relay = try LocalRelay(dataDirectory: dir + "/relay")
        try await relay.start()
        let alice = try await TestAgent("alice", dir: dir, config: testAgentConfig([try relay.address]))
        let bob = try await TestAgent("bob", dir: dir, config: testAgentConfig([try relay.address]))
        let (a, b) = try await connect(alice, bob)

        let id1 = try await alice.agent.sendMessage(connId: a, body: Array("hello bob".utf8))
        try await receive(bob, b, "hello bob", receipt: Array("rcpt".utf8))
        try await alice.waitFor("SENT") { e -> Bool? in
            if case .sent(let id) = e.kind, id == id1 { return true }
            return nil
        }
        let receipts = try await alice.waitFor("RCVD") { e -> [MsgReceipt]? in
            if e.connId == a, case .rcvd(let r) = e.kind { return r }
            return nil
        }
        XCTAssertEqual(receipts, [MsgReceipt(agentMsgId: id1, ok: true, rcptInfo: Array("rcpt".utf8))])

        _ = try await bob.agent.sendMessage(connId: b, body: Array("hi alice".utf8))
        let meta = try await receive(alice, a, "hi alice")
        XCTAssertEqual(meta.integrity, .ok)
        let summary = try await alice.agent.connection(a)
        XCTAssertEqual(summary.status, "active")
        XCTAssertTrue(summary.pqEncryption, "PQ KEM should be agreed by default")
        await alice.stop()
        await bob.stop()
        await relay.stop()
    }

    /// Standard procedure: the recipient KEYs its queue, then HELLO both ways; PQ off.
    func testStandardProcedureWithHelloAndNoPQ() async throws {
        let dir = agentTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let relay = try LocalRelay(dataDirectory: dir + "/relay")
        try await relay.start()
        var config = testAgentConfig([try relay.address])
        config.senderCanSecure = false
        config.pqSupport = false
        let alice = try await TestAgent("alice", dir: dir, config: config)
        let bob = try await TestAgent("bob", dir: dir, config: config)
        let (a, b) = try await connect(alice, bob)
        let summary = try await bob.agent.connection(b)
        XCTAssertFalse(summary.pqEncryption)
        for i in 0..<5 {
            _ = try await alice.agent.sendMessage(connId: a, body: Array("a\(i)".utf8))
            _ = try await bob.agent.sendMessage(connId: b, body: Array("b\(i)".utf8))
        }
        for i in 0..<5 {
            try await receive(bob, b, "a\(i)")
            try await receive(alice, a, "b\(i)")
        }
        await alice.stop()
        await bob.stop()
        await relay.stop()
    }

    /// The two directions sit on different relays; each agent only created queues on its own.
    func testDirectionsOnDifferentRelays() async throws {
        let dir = agentTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let relay1 = try LocalRelay(dataDirectory: dir + "/relay1")
        let relay2 = try LocalRelay(dataDirectory: dir + "/relay2")
        try await relay1.start()
        try await relay2.start()
        let alice = try await TestAgent("alice", dir: dir, config: testAgentConfig([try relay1.address]))
        let bob = try await TestAgent("bob", dir: dir, config: testAgentConfig([try relay2.address]))
        let (a, b) = try await connect(alice, bob)
        let sa = try await alice.agent.connection(a)
        let sb = try await bob.agent.connection(b)
        XCTAssertEqual(sa.rcvServers, [try relay1.address.description])
        XCTAssertEqual(sa.sndServers, [try relay2.address.description])
        XCTAssertEqual(sb.rcvServers, [try relay2.address.description])
        XCTAssertEqual(sb.sndServers, [try relay1.address.description])
        _ = try await alice.agent.sendMessage(connId: a, body: Array("via relay 2".utf8))
        try await receive(bob, b, "via relay 2")
        XCTAssertEqual(relay1.server?.queueCount, 1)
        XCTAssertEqual(relay2.server?.queueCount, 1)
        await alice.stop()
        await bob.stop()
        await relay1.stop()
        await relay2.stop()
    }

    /// A contact address used by three people: two accepted (duplex connections), one rejected.
    func testContactAddressWithThreeJoinersOneRejected() async throws {
        let dir = agentTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let relay = try LocalRelay(dataDirectory: dir + "/relay")
        try await relay.start()
        let config = testAgentConfig([try relay.address])
        let alice = try await TestAgent("alice", dir: dir, config: config)
        let (addressConn, address) = try await alice.agent.createConnection(mode: .contact)
        XCTAssertTrue(address.uriString.hasPrefix("simplex:/contact#/?"))

        var joiners: [(TestAgent, String)] = []
        for name in ["bob", "carol", "dave"] {
            let j = try await TestAgent(name, dir: dir, config: config)
            let c = try await j.agent.joinConnection(link: address.uriString, connInfo: Array(name.utf8))
            joiners.append((j, c))
        }
        var requests: [String: String] = [:]
        let deadline = Date().addingTimeInterval(10)
        while requests.count < 3, Date() < deadline {
            for e in alice.events {
                if e.connId == addressConn, case .req(let id, let info) = e.kind { requests[String(decoding: info, as: UTF8.self)] = id }
            }
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        XCTAssertEqual(Set(requests.keys), ["bob", "carol", "dave"])

        var aliceConns: [String: String] = [:]
        for name in ["bob", "carol"] {
            aliceConns[name] = try await alice.agent.acceptContact(invitationId: try XCTUnwrap(requests[name]), connInfo: Array("alice".utf8))
        }
        try await alice.agent.rejectContact(invitationId: try XCTUnwrap(requests["dave"]))
        do {
            _ = try await alice.agent.acceptContact(invitationId: try XCTUnwrap(requests["dave"]), connInfo: [])
            XCTFail("accepting a rejected request must fail")
        } catch let e as AgentError {
            guard case .connection(.notFound, _) = e else { return XCTFail("\(e)") }
        }

        // The requesters see the address owner's confirmation and allow it (the chat layer does
        // this automatically for requests it sent).
        for (j, c) in joiners.prefix(2) {
            let confId = try await j.waitFor("CONF") { e -> String? in
                if e.connId == c, case .conf(let id, let info) = e.kind, info == Array("alice".utf8) { return id }
                return nil
            }
            try await j.agent.allowConnection(connId: c, confirmationId: confId, connInfo: Array(j.name.utf8))
            try await j.waitCON(c)
        }
        for name in ["bob", "carol"] { try await alice.waitCON(try XCTUnwrap(aliceConns[name])) }
        for (j, c) in joiners.prefix(2) {
            _ = try await j.agent.sendMessage(connId: c, body: Array("from \(j.name)".utf8))
            try await receive(alice, try XCTUnwrap(aliceConns[j.name]), "from \(j.name)")
        }
        // Dave never hears back.
        try await Task.sleep(nanoseconds: 300_000_000)
        let dave = joiners[2]
        XCTAssertFalse(dave.0.events.contains { if case .conf = $0.kind { true } else { false } })
        XCTAssertFalse(dave.0.events.contains { if case .con = $0.kind { true } else { false } })
        for (j, _) in joiners { await j.stop() }
        await alice.stop()
        await relay.stop()
    }

    /// A 1-time invitation cannot be used twice.
    func testInvitationCannotBeJoinedTwice() async throws {
        let dir = agentTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let relay = try LocalRelay(dataDirectory: dir + "/relay")
        try await relay.start()
        let config = testAgentConfig([try relay.address])
        let alice = try await TestAgent("alice", dir: dir, config: config)
        let bob = try await TestAgent("bob", dir: dir, config: config)
        let eve = try await TestAgent("eve", dir: dir, config: config)
        let (_, link) = try await alice.agent.createConnection()
        _ = try await bob.agent.joinConnection(link: link, connInfo: [])
        do {
            _ = try await eve.agent.joinConnection(link: link, connInfo: [])
            XCTFail("second join must fail")
        } catch let e as AgentError {
            XCTAssertEqual(e, .connection(.notAvailable, "the invitation was already used"))
        }
        for x in [alice, bob, eve] { await x.stop() }
        await relay.stop()
    }

    /// Both agents restart (from their database files) mid-procedure and after it; the
    /// connection completes and keeps working.
    func testRestartsDuringAndAfterTheProcedure() async throws {
        let dir = agentTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let relay = try LocalRelay(dataDirectory: dir + "/relay")
        try await relay.start()
        var config = testAgentConfig([try relay.address])
        config.senderCanSecure = false
        let alice = try await TestAgent("alice", dir: dir, config: config)
        let bob = try await TestAgent("bob", dir: dir, config: config)
        let (a, link) = try await alice.agent.createConnection()
        try await alice.restart()
        let b = try await bob.agent.joinConnection(link: link, connInfo: Array("bob".utf8))
        try await bob.restart()
        let confId = try await alice.waitFor("CONF") { e -> String? in
            if case .conf(let id, _) = e.kind { return id }
            return nil
        }
        try await alice.restart()
        try await alice.agent.allowConnection(connId: a, confirmationId: confId, connInfo: Array("alice".utf8))
        try await alice.waitCON(a)
        try await bob.waitCON(b)
        try await alice.restart()
        try await bob.restart()
        _ = try await alice.agent.sendMessage(connId: a, body: Array("after restart".utf8))
        try await receive(bob, b, "after restart")
        let applied = try await alice.agent.appliedMigrations()
        XCTAssertEqual(applied, AgentMigrations.known)
        await alice.stop()
        await bob.stop()
        await relay.stop()
    }

    /// Receipts acknowledged while none could be sent go out together in one A_RCVD when the
    /// worker runs (here: after a restart), and the sender reports them in one RCVD.
    func testWaitingReceiptsGoInOneAgentMessage() async throws {
        let dir = agentTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let relay = try LocalRelay(dataDirectory: dir + "/relay")
        try await relay.start()
        let alice = try await TestAgent("alice", dir: dir, config: testAgentConfig([try relay.address]))
        let bob = try await TestAgent("bob", dir: dir, config: testAgentConfig([try relay.address]))
        let (a, b) = try await connect(alice, bob)
        var ids: [Int64] = []
        for text in ["one", "two", "three"] {
            ids.append(try await alice.agent.sendMessage(connId: a, body: Array(text.utf8)))
            try await receive(bob, b, text)  // acknowledged without a receipt
        }
        await bob.stop()
        // The receipts bob's user asked for while its agent could not send: queued as
        // ackMessage(receipt:) queues them.
        let q = try DatabaseQueue(path: bob.path)
        try await q.write { db in
            try db.execute(sql: """
                INSERT INTO pending_receipts (conn_id, agent_msg_id, msg_hash, rcpt_info)
                SELECT conn_id, external_snd_id, msg_hash, CAST('r' || external_snd_id AS BLOB) FROM rcv_messages WHERE conn_id = ? ORDER BY internal_id
                """, arguments: [b])
        }
        try q.close()
        try await bob.restart()
        let receipts = try await alice.waitFor("RCVD") { e -> [MsgReceipt]? in
            if e.connId == a, case .rcvd(let r) = e.kind { return r }
            return nil
        }
        XCTAssertEqual(receipts.map(\.agentMsgId), ids, "all three in one RCVD")
        XCTAssertTrue(receipts.allSatisfy(\.ok))
        let left = try await bob.agent.pendingReceiptCount(b)
        XCTAssertEqual(left, 0)
        await alice.stop()
        await bob.stop()
        await relay.stop()
    }

    /// The first receipt after a quiet spell goes at once; the receipts of a burst that follow
    /// wait out `receiptBatchInterval` and go together, and the sender reports every one.
    func testReceiptsOfABurstShareOneAgentMessage() async throws {
        let dir = agentTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let relay = try LocalRelay(dataDirectory: dir + "/relay")
        try await relay.start()
        var config = testAgentConfig([try relay.address])
        config.receiptBatchInterval = 1
        let alice = try await TestAgent("alice", dir: dir, config: config)
        let bob = try await TestAgent("bob", dir: dir, config: config)
        let (a, b) = try await connect(alice, bob)
        var ids: [Int64] = []
        for i in 0..<10 { ids.append(try await alice.agent.sendMessage(connId: a, body: Array("m\(i)".utf8))) }
        for i in 0..<10 { _ = try await receive(bob, b, "m\(i)", receipt: Array("r\(i)".utf8)) }
        func reported() -> [[MsgReceipt]] {
            alice.events.compactMap { e in if e.connId == a, case .rcvd(let r) = e.kind { r } else { nil } }
        }
        let first = try await alice.waitFor("first RCVD") { _ in reported().first }
        XCTAssertEqual(first.map(\.agentMsgId), [ids[0]], "an isolated receipt is not held back")
        _ = try await alice.waitFor("all receipts", timeout: 15) { _ in reported().joined().count >= 10 ? true : nil }
        let batches = reported()
        XCTAssertEqual(batches.joined().map(\.agentMsgId), ids)
        XCTAssertEqual(batches.joined().map(\.rcptInfo), (0..<10).map { Array("r\($0)".utf8) })
        XCTAssertLessThanOrEqual(batches.count, 3, "the burst's receipts share A_RCVD messages: \(batches.map(\.count))")
        let left = try await bob.agent.pendingReceiptCount(b)
        XCTAssertEqual(left, 0)
        await alice.stop()
        await bob.stop()
        await relay.stop()
    }
}
