import DoubleRatchet
import Foundation
import GRDB
import SimplexFoundation
import SMPClient
import SMPProtocol
import SMPTransport
import XCTest

@testable import SMPAgent

/// A stand-in for Bob's agent built from Bob's database (while his agent is stopped): it
/// encrypts with a copy of his ratchet and sends with his queue keys, so a test can replay,
/// tamper with and reorder ciphertext that is otherwise valid.
struct CraftedSender {
    var ratchet: PQRatchet
    var lastSndMsgId: Int64
    var lastHash: [UInt8]
    let sq: SndQueueRecord
    let pq: Bool

    init(dbPath: String, connId: String) throws {
        let store = try AgentStore(path: dbPath)
        defer { store.close() }
        let (conn, sq, rr) = try store.read { db in
            (try ConnectionRecord.fetchOne(db, key: connId), try SndQueueRecord.filter(Column("conn_id") == connId).fetchOne(db),
             try RatchetRecord.fetchOne(db, key: connId))
        }
        guard let conn, let sq, let state = rr?.ratchetState else { throw AgentError.internalError("no connection") }
        ratchet = try PQRatchet(serialized: [UInt8](state))
        lastSndMsgId = conn.lastSndMsgId
        lastHash = [UInt8](conn.lastSndMsgHash)
        self.sq = sq
        pq = conn.pqSupport
    }

    mutating func envelope(_ text: String) throws -> [UInt8] {
        let header = APrivHeader(sndMsgId: lastSndMsgId + 1, prevMsgHash: lastHash)
        let plain = try AgentMessage.message(header, .aMsg(Array(text.utf8))).smpEncoded()
        let enc = try ratchet.encrypt(plain, paddedLength: AgentMessageSize.e2eEncAgentMsgLength(pq: pq))
        lastSndMsgId += 1
        lastHash = CryptoHash.sha256(plain)
        return try AgentMsgEnvelope.message(agentVersion: AgentVersion.current, encAgentMessage: enc).smpEncoded()
    }

    func seal(_ envelope: [UInt8]) throws -> [UInt8] {
        try QueueCrypto.seal(ClientMessage(privHeader: .empty, body: envelope), key: try CryptoBoxKey(dhSecret: [UInt8](sq.e2eDhSecret)),
                             version: UInt16(sq.smpClientVersion), senderDhKey: nil)
    }

    func send(_ bytes: [UInt8]) async throws {
        let c = SMPClient(server: try SMPServerAddress(parsing: sq.server), group: AgentTestGroup.shared)
        try await c.send(senderId: [UInt8](sq.sndId), key: try PrivateAuthKey(pkcs8Encoded: [UInt8](sq.sndPrivateKey)), body: bytes)
        await c.close()
    }
}

final class AgentIntegrityTests: XCTestCase {
    /// Replayed, tampered and garbage messages each give an error event and are dropped; the
    /// connection keeps working and the hash chain stays intact.
    func testTamperedReplayedAndGarbageMessagesAreRejected() async throws {
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

        let env1 = try bobCopy.envelope("m1")
        try await bobCopy.send(try bobCopy.seal(env1))
        let i1 = try await receive(alice, a, "m1").integrity
        XCTAssertEqual(i1, .ok)

        /// Sends `bytes` as Bob and expects one new error event on Alice's side.
        func expectError(_ label: String, sending bytes: [UInt8], _ check: (AgentError) -> Bool) async throws {
            let before = alice.errors(a).count
            try await bobCopy.send(bytes)
            try await alice.waitFor(label) { _ -> Bool? in alice.errors(a).count > before ? true : nil }
            let e = alice.errors(a)[before]
            XCTAssertTrue(check(e), "\(label): \(e)")
        }
        // The same ratchet ciphertext again (the queue layer re-encrypted with a new nonce).
        try await expectError("replay error", sending: try bobCopy.seal(env1)) { $0 == .agent(.duplicate) }

        var env2 = try bobCopy.envelope("m2")
        var tampered = env2
        tampered[tampered.count - 100] ^= 0x01
        // A body that fails authentication is DECRYPT_AES: no error event but RSYNC `allowed`
        // (simplexmq `notifySync`), which the next good message resets.
        try await bobCopy.send(try bobCopy.seal(tampered))
        try await alice.waitFor("RSYNC allowed") { e -> Bool? in
            if e.connId == a, case .rsync(.allowed, .decryptAES?, _) = e.kind { return true }
            return nil
        }

        var outer = try bobCopy.seal(env2)
        outer[200] ^= 0x80
        try await expectError("queue layer error", sending: outer) { if case .agent(.crypto) = $0 { true } else { false } }

        try await expectError("garbage error", sending: SecureRandom.bytes(700)) { _ in true }

        // The genuine m2 still decrypts, in sequence.
        try await bobCopy.send(try bobCopy.seal(env2))
        let i2 = try await receive(alice, a, "m2").integrity
        XCTAssertEqual(i2, .ok)
        try await alice.waitFor("RSYNC ok") { e -> Bool? in
            if e.connId == a, case .rsync(.ok, nil, _) = e.kind { return true }
            return nil
        }
        env2 = []
        XCTAssertEqual(alice.messages(a).map(\.1), ["m1", "m2"])

        // Alice's side still sends: Bob's agent (restarted from its file) receives.
        try await bob.restart()
        _ = try await alice.agent.sendMessage(connId: a, body: Array("still works".utf8))
        try await receive(bob, b, "still works")
        await alice.stop()
        await bob.stop()
        await relay.stop()
    }

    /// Messages that arrive out of order decrypt with the ratchet's skipped keys and carry the
    /// integrity error of their position (gap, then ids from the past).
    func testSkippedAndOutOfOrderMessages() async throws {
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
        let first = bobCopy.lastSndMsgId + 1
        let e3 = try bobCopy.envelope("m3"), e4 = try bobCopy.envelope("m4"), e5 = try bobCopy.envelope("m5")
        for e in [e5, e3, e4] { try await bobCopy.send(try bobCopy.seal(e)) }
        let i3 = try await receive(alice, a, "m5").integrity
        XCTAssertEqual(i3, .error(.skipped(from: first, to: first + 1)))
        let i4 = try await receive(alice, a, "m3").integrity
        XCTAssertEqual(i4, .error(.badId(first)))
        let i5 = try await receive(alice, a, "m4").integrity
        XCTAssertEqual(i5, .error(.badId(first + 1)))
        // A gap never filled: m7 without m6.
        _ = try bobCopy.envelope("m6")
        let e7 = try bobCopy.envelope("m7")
        try await bobCopy.send(try bobCopy.seal(e7))
        let i6 = try await receive(alice, a, "m7").integrity
        XCTAssertEqual(i6, .error(.skipped(from: first + 3, to: first + 3)))
        await alice.stop()
        await relay.stop()
    }
}
