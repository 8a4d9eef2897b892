import Foundation
import GRDB
import SimplexFoundation
import SMPProtocol
import SMPTransport
import XCTest

@testable import SMPAgent

/// Sender and recipient keys are X25519 (DH authenticators) with relays at SMP v7+, Ed25519 when
/// the agent is configured so, and the two kinds of peers talk to each other.
final class SenderAuthKeyTests: XCTestCase {
    func testX25519SenderKeysByDefaultAndEd25519PeersInterwork() async throws {
        let dir = agentTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let relay = try LocalRelay(dataDirectory: dir + "/relay")
        try await relay.start()
        let alice = try await TestAgent("alice", dir: dir, config: testAgentConfig([try relay.address]))
        var oldConfig = testAgentConfig([try relay.address])
        oldConfig.senderAuthAlgorithm = .ed25519
        oldConfig.recipientAuthAlgorithm = .ed25519
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
        XCTAssertEqual(try keyAlgorithms(alice.path), [.x25519, .x25519])
        XCTAssertEqual(try keyAlgorithms(bob.path), [.ed25519, .ed25519])
        await relay.stop()
    }

    /// Key types of the connection's stored sender and recipient keys.
    private func keyAlgorithms(_ path: String) throws -> [KeyAlgorithm] {
        let store = try AgentStore(path: path)
        defer { store.close() }
        let keys = try store.read { db in
            try SndQueueRecord.fetchAll(db).map(\.sndPrivateKey) + RcvQueueRecord.fetchAll(db).map(\.rcvPrivateKey)
        }
        return try keys.map { k in
            switch try PrivateAuthKey(pkcs8Encoded: [UInt8](k)) {
            case .ed25519: .ed25519
            case .ed448: .ed448
            case .x25519: .x25519
            }
        }
    }
}
