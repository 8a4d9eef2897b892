import Foundation
import XCTest

@testable import SMPAgent

/// Received messages are processed on a lane per receiving queue, off the agent's actor, with
/// the connection's ratchet used on a snapshot (ReceiveLanes). These keep what that must not
/// change: each connection's messages in order and intact, while other connections' messages
/// and our own sends on the same connections (which advance the same ratchets) interleave.
final class ReceiveLaneTests: XCTestCase {
    func testManyConnectionsInterleavedBothWaysKeepEachConnectionsOrder() async throws {
        let dir = agentTempDir()
        let relay = try LocalRelay(dataDirectory: dir + "/relay")
        try await relay.start()
        let config = testAgentConfig([try relay.address])
        let alice = try await TestAgent("alice", dir: dir, config: config)
        let bob = try await TestAgent("bob", dir: dir, config: config)
        var pairs: [(String, String)] = []
        for _ in 0..<5 { pairs.append(try await connect(alice, bob)) }
        let perConn = 30
        // Both sides send on every connection at once, round robin over the connections, and
        // acknowledge what arrives concurrently (with receipts, which each side's ratchet encrypts).
        let aliceSends = Task {
            for i in 0..<perConn {
                for (n, p) in pairs.enumerated() { _ = try await alice.agent.sendMessage(connId: p.0, body: Array("a\(n)-\(i)".utf8)) }
            }
        }
        let bobSends = Task {
            for i in 0..<perConn {
                for (n, p) in pairs.enumerated() { _ = try await bob.agent.sendMessage(connId: p.1, body: Array("b\(n)-\(i)".utf8)) }
            }
        }
        async let aliceAcked: Void = Self.ackAll(alice, pairs.map(\.0), expected: perConn)
        async let bobAcked: Void = Self.ackAll(bob, pairs.map(\.1), expected: perConn)
        try await aliceSends.value
        try await bobSends.value
        try await aliceAcked
        try await bobAcked
        for (n, p) in pairs.enumerated() {
            for (agent, connId, prefix) in [(bob, p.1, "a"), (alice, p.0, "b")] {
                let got = agent.messages(connId)
                XCTAssertEqual(got.map(\.1), (0..<perConn).map { "\(prefix)\(n)-\($0)" }, "\(agent.name) connection \(n): order")
                XCTAssertTrue(got.allSatisfy { $0.0.integrity == .ok }, "\(agent.name) connection \(n): integrity")
                XCTAssertEqual(got.map(\.0.agentMsgId), got.map(\.0.agentMsgId).sorted(), "\(agent.name) connection \(n): ids")
                XCTAssertEqual(agent.errors(connId), [], "\(agent.name) connection \(n): errors")
            }
        }
        // The receipts arrived too: every message sent got its RCVD.
        for (agent, conns) in [(alice, pairs.map(\.0)), (bob, pairs.map(\.1))] {
            try await agent.waitFor("all receipts", timeout: 20) { _ -> Bool? in
                let rcvd = agent.events.reduce(0) { n, e in
                    if conns.contains(e.connId), case .rcvd(let rs) = e.kind { return n + rs.count }
                    return n
                }
                return rcvd >= perConn * conns.count ? true : nil
            }
        }
        await alice.stop()
        await bob.stop()
        await relay.stop()
    }

    /// Acknowledges (with a receipt) every message arriving on `conns`, each as soon as it is
    /// seen, until `expected` arrived on each.
    private static func ackAll(_ agent: TestAgent, _ conns: [String], expected: Int) async throws {
        var acked: Set<String> = []
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            var pending: [(String, Int64)] = []
            for e in agent.events {
                guard conns.contains(e.connId), case .msg(let m, _) = e.kind else { continue }
                let key = "\(e.connId)/\(m.agentMsgId)"
                if acked.insert(key).inserted { pending.append((e.connId, m.agentMsgId)) }
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (c, id) in pending { group.addTask { try await agent.agent.ackMessage(connId: c, msgId: id, receipt: [1]) } }
                try await group.waitForAll()
            }
            if acked.count == expected * conns.count { return }
            try await Task.sleep(nanoseconds: 5_000_000)
        }
        XCTFail("\(agent.name): \(acked.count) of \(expected * conns.count) messages arrived")
    }
}
