import Foundation
import GRDB
import SimplexFoundation
import SMPProtocol
import SMPTransport
import XCTest

@testable import SMPAgent

/// Sender keys are X25519 (deniable DH authenticators) with relays at SMP v7+, Ed25519 when the
/// agent is configured so, and the two kinds of peers talk to each other.
final class SenderAuthKeyTests: XCTestCase {
    func testX25519SenderKeysByDefaultAndEd25519PeersInterwork() async throws {
        let dir = agentTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let relay = try LocalRelay(dataDirectory: dir + "/relay")
        try await relay.start()
        let alice = try await TestAgent("alice", dir: dir, config: testAgentConfig([try relay.address]))
        var oldConfig = testAgentConfig([try relay.address])
        oldConfig.senderAuthAlgorithm = .ed25519
        let bob = try await TestAgent("bob", dir: dir, config: oldConfig)
        let (a, b) = try await connect(alice, bob)
        for i in 0..<3 {
            _ = try await alice.agent.sendMessage(connId: a, body: Array("to bob \(i)".utf8))
            try await receive(bob, b, "to bob \(i)")
            _ = try await bob.agent.sendMessage(connId: b, body: Array("to alice \(i)".utf8))
            try await receive(alice, a, "to alice \(i)")
        }
        await alice.stop()
        await bob.stop()
        XCTAssertEqual(try senderKeyAlgorithms(alice.path), [.x25519])
        XCTAssertEqual(try senderKeyAlgorithms(bob.path), [.ed25519])
        await relay.stop()
    }

    /// Key types of the connection's stored sender keys.
    private func senderKeyAlgorithms(_ path: String) throws -> [KeyAlgorithm] {
        let store = try AgentStore(path: path)
        defer { store.close() }
        let queues = try store.read { db in try SndQueueRecord.fetchAll(db) }
        return try queues.map { q in
            switch try PrivateAuthKey(pkcs8Encoded: [UInt8](q.sndPrivateKey)) {
            case .ed25519: .ed25519
            case .ed448: .ed448
            case .x25519: .x25519
            }
        }
    }
}
