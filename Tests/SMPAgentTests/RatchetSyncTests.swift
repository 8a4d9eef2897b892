import DoubleRatchet
import Foundation
import GRDB
import SimplexFoundation
import SMPTransport
import XCTest

@testable import SMPAgent

/// Ratchet re-synchronization between two agents over a real relay on loopback: one side's
/// ratchet is rolled back to an old state (as after restoring a backup), decryption fails, the
/// states move as in simplexmq, keys are exchanged, and messages flow both ways again.
final class RatchetSyncTests: XCTestCase {
    struct Pair {
        let relay: LocalRelay
        let alice: TestAgent
        let bob: TestAgent
        let a: String
        let b: String
        let dir: String

        func stop() async {
            await alice.stop()
            await bob.stop()
            await relay.stop()
            try? FileManager.default.removeItem(atPath: dir)
        }
    }

    func connectedPair(_ name: String = #function, pq: Bool = true) async throws -> Pair {
        let dir = agentTempDir(name)
        let relay = try LocalRelay(dataDirectory: dir + "/relay")
        try await relay.start()
        var config = testAgentConfig([try relay.address])
        config.pqSupport = pq
        let alice = try await TestAgent("alice", dir: dir, config: config)
        let bob = try await TestAgent("bob", dir: dir, config: config)
        let (a, b) = try await connect(alice, bob)
        return Pair(relay: relay, alice: alice, bob: bob, a: a, b: b, dir: dir)
    }

    /// The stored ratchet of a stopped agent.
    func ratchetState(_ agent: TestAgent, _ connId: String) throws -> Data {
        let q = try DatabaseQueue(path: agent.path)
        defer { try? q.close() }
        return try q.read { db in try Data.fetchOne(db, sql: "SELECT ratchet_state FROM ratchets WHERE conn_id = ?", arguments: [connId]) }!
    }

    func setRatchetState(_ agent: TestAgent, _ connId: String, _ state: Data) throws {
        let q = try DatabaseQueue(path: agent.path)
        defer { try? q.close() }
        try q.write { db in try db.execute(sql: "UPDATE ratchets SET ratchet_state = ? WHERE conn_id = ?", arguments: [state, connId]) }
    }

    /// Rolls `agent`'s ratchet back to the state it had before a few exchanges with the peer.
    func rollBackRatchet(_ p: Pair, bobSide: Bool = true) async throws {
        let (me, peer, mine, theirs) = bobSide ? (p.bob, p.alice, p.b, p.a) : (p.alice, p.bob, p.a, p.b)
        await me.stop()
        let old = try ratchetState(me, mine)
        try await me.restart()
        for i in 0..<2 {
            _ = try await peer.agent.sendMessage(connId: theirs, body: Array("to-me \(i)".utf8))
            try await receive(me, mine, "to-me \(i)")
            _ = try await me.agent.sendMessage(connId: mine, body: Array("to-peer \(i)".utf8))
            try await receive(peer, theirs, "to-peer \(i)")
        }
        await me.stop()
        try setRatchetState(me, mine, old)
        try await me.restart()
    }

    func rsyncs(_ agent: TestAgent, _ connId: String) -> [(RatchetSyncState, AgentCryptoError?)] {
        agent.events.compactMap { e in
            if e.connId == connId, case .rsync(let s, let err, let stats) = e.kind {
                XCTAssertEqual(stats.ratchetSyncState, s, "stats carry the new state")
                return (s, err)
            }
            return nil
        }
    }

    @discardableResult
    func waitRSYNC(_ agent: TestAgent, _ connId: String, _ state: RatchetSyncState, timeout: Double = 15,
                   file: StaticString = #filePath, line: UInt = #line) async throws -> AgentCryptoError? {
        try await agent.waitFor("RSYNC \(state)", timeout: timeout, file: file, line: line) { e -> AgentCryptoError?? in
            if e.connId == connId, case .rsync(let s, let err, _) = e.kind, s == state { return .some(err) }
            return nil
        }
    }

    /// Messages flow both ways, whatever the integrity after the gap the sync left.
    func exchange(_ p: Pair, _ tag: String) async throws {
        _ = try await p.alice.agent.sendMessage(connId: p.a, body: Array("a-\(tag)".utf8))
        try await receive(p.bob, p.b, "a-\(tag)")
        _ = try await p.bob.agent.sendMessage(connId: p.b, body: Array("b-\(tag)".utf8))
        try await receive(p.alice, p.a, "b-\(tag)")
    }

    /// Bob restores an old ratchet: Alice's next message fails with RATCHET_HEADER, Bob's
    /// connection becomes `required` (sending refused); Bob starts the re-synchronization, both
    /// agree, EREADY completes it and messages flow again.
    func testBrokenSideStartsSync() async throws {
        let p = try await connectedPair()
        try await exchange(p, "before")
        try await rollBackRatchet(p)

        _ = try await p.alice.agent.sendMessage(connId: p.a, body: Array("lost".utf8))
        let err = try await waitRSYNC(p.bob, p.b, .required)
        XCTAssertEqual(err, .ratchetHeader)
        let required = try await p.bob.agent.connectionStats(connId: p.b).ratchetSyncState
        XCTAssertEqual(required, .required)
        do {
            _ = try await p.bob.agent.sendMessage(connId: p.b, body: Array("refused".utf8))
            XCTFail("sending must be refused while the ratchet is out of sync")
        } catch {
            XCTAssertEqual(error, .command(.prohibited, "sendMessagesB: send prohibited"))
        }

        let stats = try await p.bob.agent.synchronizeRatchet(connId: p.b)
        XCTAssertEqual(stats.ratchetSyncState, .started)
        XCTAssertTrue(stats.ratchetSyncSupported)
        XCTAssertEqual(stats.rcvQueuesInfo.count, 1)
        XCTAssertEqual(stats.sndQueuesInfo.count, 1)
        try await waitRSYNC(p.alice, p.a, .agreed)
        try await waitRSYNC(p.bob, p.b, .agreed)
        try await waitRSYNC(p.alice, p.a, .ok)
        try await waitRSYNC(p.bob, p.b, .ok)
        XCTAssertEqual(rsyncs(p.alice, p.a).map(\.0), [.agreed, .ok])
        XCTAssertEqual(rsyncs(p.bob, p.b).map(\.0), [.required, .agreed, .ok])
        try await exchange(p, "after")
        try await exchange(p, "after2")
        XCTAssertEqual(p.alice.messages(p.a).last?.0.integrity, .ok)
        XCTAssertTrue(p.bob.messages(p.b).allSatisfy { $0.1 != "lost" }, "a message of the broken ratchet is not delivered")

        // The ratchet state survives a restart of both agents.
        try await p.alice.restart()
        try await p.bob.restart()
        try await exchange(p, "restarted")
        let ok = try await p.bob.agent.connectionStats(connId: p.b).ratchetSyncState
        XCTAssertEqual(ok, .ok)
        await p.stop()
    }

    /// A re-synchronization survives a restart in `started`: the keys sent are kept in the
    /// database, the peer's answer arriving after the restart completes it.
    func testSyncResumesAfterRestart() async throws {
        let p = try await connectedPair()
        try await exchange(p, "before")
        try await rollBackRatchet(p)
        _ = try await p.alice.agent.sendMessage(connId: p.a, body: Array("lost".utf8))
        try await waitRSYNC(p.bob, p.b, .required)
        await p.alice.stop()
        _ = try await p.bob.agent.synchronizeRatchet(connId: p.b)
        try await p.bob.restart()
        let state = try await p.bob.agent.connectionStats(connId: p.b).ratchetSyncState
        XCTAssertEqual(state, .started)
        try await p.alice.restart()
        try await waitRSYNC(p.bob, p.b, .ok)
        try await waitRSYNC(p.alice, p.a, .ok)
        try await exchange(p, "after")
        await p.stop()
    }

    /// The other role: the side whose ratchet is intact detects the error (Bob's old ratchet
    /// sends from a chain Alice no longer has) and starts the exchange; Bob answers with his keys.
    func testIntactSideStartsSyncWithoutPQ() async throws {
        let p = try await connectedPair(pq: false)
        try await exchange(p, "before")
        try await rollBackRatchet(p)

        _ = try await p.bob.agent.sendMessage(connId: p.b, body: Array("from the past".utf8))
        let err = try await waitRSYNC(p.alice, p.a, .required)
        XCTAssertEqual(err, .ratchetHeader)
        // Not allowed on a connection that is in sync (without force).
        do {
            _ = try await p.bob.agent.synchronizeRatchet(connId: p.b)
            XCTFail("sync must need an error or force")
        } catch {
            XCTAssertEqual(error, .command(.prohibited, "synchronizeRatchet: not allowed"))
        }
        _ = try await p.alice.agent.synchronizeRatchet(connId: p.a)
        try await waitRSYNC(p.bob, p.b, .agreed)
        try await waitRSYNC(p.alice, p.a, .ok)
        try await waitRSYNC(p.bob, p.b, .ok)
        try await exchange(p, "after")
        let pqOff = try await p.alice.agent.connection(p.a).pqEncryption
        XCTAssertFalse(pqOff)
        await p.stop()
    }

    /// Both sides start at once (`force`): each receives the other's keys while `started`, uses
    /// its stored keys (no second reply), and the key-hash order picks one sender.
    func testCrossingSyncRequests() async throws {
        let p = try await connectedPair()
        try await exchange(p, "before")
        async let sa = p.alice.agent.synchronizeRatchet(connId: p.a, force: true)
        async let sb = p.bob.agent.synchronizeRatchet(connId: p.b, force: true)
        let (statsA, statsB) = try await (sa, sb)
        XCTAssertEqual(statsA.ratchetSyncState, .started)
        XCTAssertEqual(statsB.ratchetSyncState, .started)
        try await waitRSYNC(p.alice, p.a, .ok)
        try await waitRSYNC(p.bob, p.b, .ok)
        XCTAssertEqual(rsyncs(p.alice, p.a).map(\.0), [.agreed, .ok])
        XCTAssertEqual(rsyncs(p.bob, p.b).map(\.0), [.agreed, .ok])
        // Exactly one ratchet-key message each: nobody answered keys it had already sent.
        for (agent, connId) in [(p.alice, p.a), (p.bob, p.b)] {
            await agent.stop()
            XCTAssertEqual(try sentTypes(agent, connId).filter { $0 == "ratchetKey" }.count, 1)
            try await agent.restart()
        }
        try await exchange(p, "after")
        let pqOn = try await p.alice.agent.connection(p.a).pqEncryption
        XCTAssertTrue(pqOn, "PQ stays on after the sync")
        await p.stop()
    }

    func sentTypes(_ agent: TestAgent, _ connId: String) throws -> [String] {
        let q = try DatabaseQueue(path: agent.path)
        defer { try? q.close() }
        return try q.read { db in
            try String.fetchAll(db, sql: "SELECT msg_type FROM snd_messages WHERE conn_id = ? ORDER BY internal_id", arguments: [connId])
        }
    }

    /// A repeated AgentRatchetKey (same keys) is ignored; a malformed one gets A_MESSAGE; the
    /// connection stays usable. A tampered ratchet body is DECRYPT_AES: `allowed`, back to `ok`
    /// with the next good message.
    func testDuplicateAndMalformedRatchetKeys() async throws {
        let p = try await connectedPair()
        try await exchange(p, "before")
        _ = try await p.bob.agent.synchronizeRatchet(connId: p.b, force: true)
        try await waitRSYNC(p.alice, p.a, .ok)
        try await waitRSYNC(p.bob, p.b, .ok)
        try await exchange(p, "synced")

        await p.bob.stop()
        let keyEnvelope = try {
            let q = try DatabaseQueue(path: p.bob.path)
            defer { try? q.close() }
            return try q.read { db in
                try Data.fetchOne(db, sql: "SELECT envelope FROM snd_messages WHERE conn_id = ? AND msg_type = 'ratchetKey'", arguments: [p.b])
            }
        }()
        let envelope = try XCTUnwrap(keyEnvelope)
        guard case .ratchetKey(let v, let params, let info) = try AgentMsgEnvelope.decode([UInt8](envelope)) else { return XCTFail("not a ratchet key") }
        XCTAssertEqual(v, AgentVersion.current)
        XCTAssertEqual(info, [UInt8(ascii: "R")], "AgentRatchetInfo \"\"")
        // simplexmq `smpEncode (agentVersion, 'R', e2eEncryption, Tail info)`: word16 7, 'R', the
        // params (version 3, two X448 keys, a proposed sntrup761 key), then "R".
        XCTAssertEqual([UInt8](envelope), [0, 7, UInt8(ascii: "R")] + (try params.encoded()) + [UInt8(ascii: "R")])
        XCTAssertEqual(params.version, 3)
        if case .proposed? = params.kem {} else { XCTFail("PQ on: the keys propose a KEM") }
        var bobCopy = try CraftedSender(dbPath: p.bob.path, connId: p.b)
        let before = p.alice.events.count

        // The same keys again: no event, no new ratchet.
        try await bobCopy.send(try bobCopy.seal([UInt8](envelope)))
        // Malformed: the version, tag and a truncated X448 key.
        var bad = [UInt8](envelope.prefix(40))
        try await bobCopy.send(try bobCopy.seal(bad))
        let e = try await p.alice.waitFor("ERR") { ev -> AgentError? in
            if ev.connId == p.a, case .err(let e) = ev.kind { return e }
            return nil
        }
        if case .agent(.message) = e {} else { XCTFail("malformed ratchet key: \(e)") }
        XCTAssertEqual(p.alice.events.dropFirst(before).filter { if case .rsync = $0.kind { true } else { false } }.count, 0)

        // A tampered ratchet message: DECRYPT_AES, `allowed`; the next good one resets to `ok`.
        var env = try bobCopy.envelope("tampered")
        env[env.count - 100] ^= 0x01
        try await bobCopy.send(try bobCopy.seal(env))
        let allowedErr = try await waitRSYNC(p.alice, p.a, .allowed)
        XCTAssertEqual(allowedErr, .decryptAES)
        bad = try bobCopy.envelope("good")
        try await bobCopy.send(try bobCopy.seal(bad))
        try await receive(p.alice, p.a, "good")
        try await waitRSYNC(p.alice, p.a, .ok)

        try await p.bob.restart()
        _ = try await p.alice.agent.sendMessage(connId: p.a, body: Array("still works".utf8))
        try await receive(p.bob, p.b, "still works")
        await p.stop()
    }

    /// The crypto errors move the state as simplexmq's `cryptoErrToSyncState`; the send
    /// prohibition covers required, started and agreed.
    func testSyncStateRules() {
        XCTAssertEqual(AgentCryptoError.decryptAES.syncState, .allowed)
        XCTAssertEqual(AgentCryptoError.decryptCB.syncState, .allowed)
        XCTAssertEqual(AgentCryptoError.ratchetEarlier(2).syncState, .allowed)
        XCTAssertEqual(AgentCryptoError.ratchetHeader.syncState, .required)
        XCTAssertEqual(AgentCryptoError.ratchetSkipped(600).syncState, .required)
        XCTAssertEqual(AgentCryptoError.ratchetSync.syncState, .required)
        XCTAssertEqual(RatchetSyncState.allCases.filter(\.sendProhibited), [.required, .started, .agreed])
        XCTAssertEqual(RatchetSyncState.allCases.filter(\.syncAllowed), [.allowed, .required])
        XCTAssertEqual(RatchetSyncState.allCases.map(\.rawValue), ["ok", "allowed", "required", "started", "agreed"])
        XCTAssertEqual(AgentError.ratchet(.header), .agent(.crypto(.ratchetHeader)))
        XCTAssertEqual(AgentError.ratchet(.earlierMessage(3)), .agent(.crypto(.ratchetEarlier(3))))
        XCTAssertEqual(AgentError.ratchet(.duplicateMessage), .agent(.duplicate))
    }

    /// The role rule: the side whose SHA-256(k1 || k2) is not greater initialises the receiving
    /// ratchet; the two ratchets then talk (the sender first).
    func testKeyHashOrderPicksOneSender() throws {
        for _ in 0..<4 {
            let x = try PQRatchet.generateReceiverParams(pqSupport: true)
            let y = try PQRatchet.generateReceiverParams(pqSupport: true)
            let hx = SMPAgent.ratchetKeyHash(x.key1.publicKey, x.key2.publicKey)
            let hy = SMPAgent.ratchetKeyHash(y.key1.publicKey, y.key2.publicKey)
            XCTAssertEqual(hx, CryptoHash.sha256(x.key1.publicKey.rawRepresentation + x.key2.publicKey.rawRepresentation))
            let xReceives = !hy.lexicographicallyPrecedes(hx)
            let (rcv, snd) = xReceives ? (x, y) : (y, x)
            let versions = RatchetVersions.latest
            var receiver = try PQRatchet.initReceive(versions: versions, dhRatchetKey: rcv.key2,
                                                     params: try PQRatchet.pqX3dhRcv(rcv, snd.publicParams), pqSupport: true)
            var sender = try PQRatchet.initSend(versions: versions, peerRatchetKey: rcv.key2.publicKey, dhRatchetKey: X448PrivateKey(),
                                                params: try PQRatchet.pqX3dhSnd(snd, rcv.publicParams))
            let m = try sender.encrypt(Array("EREADY".utf8), paddedLength: 200)
            XCTAssertEqual(try receiver.decrypt(m), Array("EREADY".utf8))
            let r = try receiver.encrypt(Array("reply".utf8), paddedLength: 200)
            XCTAssertEqual(try sender.decrypt(r), Array("reply".utf8))
        }
    }
}
