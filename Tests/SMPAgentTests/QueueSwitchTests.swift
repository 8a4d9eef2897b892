import Foundation
import SimplexFoundation
import SMPProtocol
import SMPTransport
import XCTest

@testable import SMPAgent

extension CraftedSender {
    /// Any agent message as Bob's next one (ids, hash chain, ratchet).
    mutating func envelope(_ msg: AMessage) throws -> [UInt8] {
        let header = APrivHeader(sndMsgId: lastSndMsgId + 1, prevMsgHash: lastHash)
        let plain = try AgentMessage.message(header, msg).smpEncoded()
        let enc = try ratchet.encrypt(plain, paddedLength: AgentMessageSize.e2eEncAgentMsgLength(pq: pq))
        lastSndMsgId += 1
        lastHash = CryptoHash.sha256(plain)
        return try AgentMsgEnvelope.message(agentVersion: AgentVersion.current, encAgentMessage: enc).smpEncoded()
    }
}

/// Queue rotation between two agents over two real relays on loopback: the recipient moves its
/// receiving queue to the other relay (QADD, QKEY, QUSE, QTEST) and messages keep flowing.
final class QueueSwitchTests: XCTestCase {
    func phases(_ agent: TestAgent, _ connId: String, _ dir: QueueDirection) -> [SwitchPhase] {
        agent.events.compactMap { e in
            if e.connId == connId, case .switchProgress(let d, let p, _) = e.kind, d == dir { return p }
            return nil
        }
    }

    func waitPhase(_ agent: TestAgent, _ connId: String, _ dir: QueueDirection, _ phase: SwitchPhase,
                   file: StaticString = #filePath, line: UInt = #line) async throws -> ConnectionStats {
        try await agent.waitFor("SWITCH \(dir) \(phase)", timeout: 15, file: file, line: line) { e -> ConnectionStats? in
            if e.connId == connId, case .switchProgress(let d, let p, let s) = e.kind, d == dir, p == phase { return s }
            return nil
        }
    }

    func exchange(_ alice: TestAgent, _ a: String, _ bob: TestAgent, _ b: String, _ tag: String) async throws {
        _ = try await alice.agent.sendMessage(connId: a, body: Array("a-\(tag)".utf8))
        let mb = try await receive(bob, b, "a-\(tag)")
        XCTAssertEqual(mb.integrity, .ok, tag)
        _ = try await bob.agent.sendMessage(connId: b, body: Array("b-\(tag)".utf8))
        let ma = try await receive(alice, a, "b-\(tag)")
        XCTAssertEqual(ma.integrity, .ok, tag)
    }

    func testSwitchToAnotherRelayAndKeepMessaging() async throws {
        let dir = agentTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let relay1 = try LocalRelay(dataDirectory: dir + "/relay1")
        let relay2 = try LocalRelay(dataDirectory: dir + "/relay2")
        try await relay1.start()
        try await relay2.start()
        // Everything starts on relay 1; relay 2 is where Alice's queue moves.
        let alice = try await TestAgent("alice", dir: dir, config: testAgentConfig([try relay1.address]))
        let bob = try await TestAgent("bob", dir: dir, config: testAgentConfig([try relay1.address]))
        let (a, b) = try await connect(alice, bob)
        try await exchange(alice, a, bob, b, "before")
        await alice.stop()
        let alice2 = try await TestAgent("alice", dir: dir, config: testAgentConfig([try relay1.address, try relay2.address]))
        let before = try await alice2.agent.connection(a)
        XCTAssertEqual(before.rcvServers, [try relay1.address.description])

        let stats = try await alice2.agent.switchConnection(connId: a)
        XCTAssertEqual(stats.rcvQueuesInfo.count, 2)
        XCTAssertEqual(stats.rcvQueuesInfo.first?.rcvSwitchStatus, .sendingQADD)
        XCTAssertEqual(stats.rcvQueuesInfo.first?.canAbortSwitch, true)
        XCTAssertEqual(stats.rcvQueuesInfo.last?.rcvServer, try relay2.address.description)
        do {
            _ = try await alice2.agent.switchConnection(connId: a)
            XCTFail("a second switch must be refused")
        } catch {
            XCTAssertEqual(error, .command(.prohibited, "switchConnection: already switching"))
        }

        let done = try await waitPhase(alice2, a, .rcv, .completed)
        XCTAssertEqual(done.rcvQueuesInfo.map(\.rcvServer), [try relay2.address.description])
        XCTAssertNil(done.rcvQueuesInfo.first?.rcvSwitchStatus)
        _ = try await waitPhase(bob, b, .snd, .completed)
        XCTAssertEqual(phases(alice2, a, .rcv), [.started, .confirmed, .secured, .completed])
        XCTAssertEqual(phases(bob, b, .snd), [.started, .confirmed, .secured, .completed])
        let bobSide = try await bob.agent.connection(b)
        XCTAssertEqual(bobSide.sndServers, [try relay2.address.description])
        XCTAssertTrue(alice2.errors(a).isEmpty, "\(alice2.errors(a))")
        XCTAssertTrue(bob.errors(b).isEmpty, "\(bob.errors(b))")

        // The hash chain and ratchet are untouched: messages keep flowing with integrity ok.
        try await exchange(alice2, a, bob, b, "after")
        try await alice2.restart()
        try await bob.restart()
        try await exchange(alice2, a, bob, b, "restarted")
        // The old queue is gone from relay 1: stopping it changes nothing for Alice's receiving.
        await relay1.stop()
        _ = try await bob.agent.sendMessage(connId: b, body: Array("via relay 2".utf8))
        try await receive(alice2, a, "via relay 2")
        await alice2.stop()
        await bob.stop()
        await relay2.stop()
    }

    /// Both agents restart in the middle of a switch (each step is committed before it is sent):
    /// the switch completes and messages flow.
    func testSwitchSurvivesRestarts() async throws {
        let dir = agentTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let relay = try LocalRelay(dataDirectory: dir + "/relay")
        try await relay.start()
        let config = testAgentConfig([try relay.address])
        let alice = try await TestAgent("alice", dir: dir, config: config)
        let bob = try await TestAgent("bob", dir: dir, config: config)
        let (a, b) = try await connect(alice, bob)
        await bob.stop()
        _ = try await alice.agent.switchConnection(connId: a)
        try await alice.restart()
        try await bob.restart()
        _ = try await waitPhase(bob, b, .snd, .started)
        await bob.stop()
        try await bob.restart()
        _ = try await waitPhase(alice, a, .rcv, .completed)
        _ = try await waitPhase(bob, b, .snd, .completed)
        let stats = try await alice.agent.connectionStats(connId: a)
        XCTAssertEqual(stats.rcvQueuesInfo.count, 1)
        XCTAssertEqual(stats.rcvQueuesInfo.first?.status, "active")
        try await exchange(alice, a, bob, b, "after restarts")
        await alice.stop()
        await bob.stop()
        await relay.stop()
    }

    /// An abort before QUSE deletes the new queue; the peer's late QKEY then names a queue the
    /// connection no longer has (A_QUEUE, as simplexmq), and the connection goes on.
    func testAbortSwitch() async throws {
        let dir = agentTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let relay = try LocalRelay(dataDirectory: dir + "/relay")
        try await relay.start()
        let config = testAgentConfig([try relay.address])
        let alice = try await TestAgent("alice", dir: dir, config: config)
        let bob = try await TestAgent("bob", dir: dir, config: config)
        let (a, b) = try await connect(alice, bob)
        await bob.stop()
        let started = try await alice.agent.switchConnection(connId: a)
        XCTAssertEqual(started.rcvQueuesInfo.count, 2)
        let aborted = try await alice.agent.abortConnectionSwitch(connId: a)
        XCTAssertEqual(aborted.rcvQueuesInfo.count, 1)
        XCTAssertNil(aborted.rcvQueuesInfo[0].rcvSwitchStatus)
        do {
            _ = try await alice.agent.abortConnectionSwitch(connId: a)
            XCTFail("nothing to abort")
        } catch {
            XCTAssertEqual(error, .command(.prohibited, "abortConnectionSwitch: not allowed"))
        }
        try await bob.restart()
        let e = try await alice.waitFor("ERR QKEY") { ev -> AgentError? in
            if ev.connId == a, case .err(let e) = ev.kind { return e }
            return nil
        }
        XCTAssertEqual(e, .agent(.queue("QKEY: queue address not found in connection")))
        try await exchange(alice, a, bob, b, "after abort")
        await alice.stop()
        await bob.stop()
        await relay.stop()
    }

    /// Rotation messages that name queues the connection does not have get simplexmq's A_QUEUE
    /// errors; the messages still count in the hash chain and the connection goes on.
    func testBadRotationMessages() async throws {
        let dir = agentTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let relay = try LocalRelay(dataDirectory: dir + "/relay")
        try await relay.start()
        let config = testAgentConfig([try relay.address])
        let alice = try await TestAgent("alice", dir: dir, config: config)
        let bob = try await TestAgent("bob", dir: dir, config: config)
        let (a, b) = try await connect(alice, bob)
        await bob.stop()
        var bobCopy = try CraftedSender(dbPath: bob.path, connId: b)
        let nowhere = SndQAddr(server: try relay.address, senderId: SecureRandom.bytes(24))
        let uri = SMPQueueURI(server: try relay.address, senderId: SecureRandom.bytes(24), dhPublicKey: X25519PrivateKey().publicKey, senderCanSecure: true)
        let info = SMPQueueInfo(clientVersion: 4, server: try relay.address, senderId: SecureRandom.bytes(24),
                                dhPublicKey: X25519PrivateKey().publicKey, senderCanSecure: true)
        let cases: [(AMessage, String)] = [
            (.qAdd([QueueAddition(queue: uri, replaces: nowhere)]), "QADD: replaced queue address is not found in connection"),
            (.qAdd([QueueAddition(queue: uri, replaces: nil)]), "adding queue without switching is not supported"),
            (.qKey([QueueSenderKey(queue: info, senderKey: try PrivateAuthKey.generate(.ed25519).publicKey)]), "QKEY: queue address not found in connection"),
            (.qUse([QueueUse(queue: nowhere, primary: true)]), "QUSE: switched queue address not found in connection"),
        ]
        for (msg, expected) in cases {
            let before = alice.errors(a).count
            try await bobCopy.send(try bobCopy.seal(try bobCopy.envelope(msg)))
            try await alice.waitFor(expected) { _ -> Bool? in alice.errors(a).count > before ? true : nil }
            XCTAssertEqual(alice.errors(a)[before], .agent(.queue(expected)))
        }
        try await bobCopy.send(try bobCopy.seal(try bobCopy.envelope(.aMsg(Array("still in sequence".utf8)))))
        let meta = try await receive(alice, a, "still in sequence")
        XCTAssertEqual(meta.integrity, .ok)
        let stats = try await alice.agent.connectionStats(connId: a)
        XCTAssertEqual(stats.rcvQueuesInfo.count, 1)
        XCTAssertEqual(stats.sndQueuesInfo.count, 1)
        try await bob.restart()
        _ = try await alice.agent.sendMessage(connId: a, body: Array("to bob".utf8))
        try await receive(bob, b, "to bob")
        await alice.stop()
        await bob.stop()
        await relay.stop()
    }
}
