import Foundation
import SimplexFoundation
import SMPClient
import SMPProtocol
import XCTest

/// Many queues over one connection: the relay and the client multiplex them.
final class ScaleTests: XCTestCase {
    func testThousandQueuesOnOneConnection() async throws {
        let relay = try await TestRelay.start()
        let alice = relay.client(), bob = relay.client()
        let events = EventCollector(alice)
        let n = 1000
        let queues = try await withThrowingTaskGroup(of: TestQueue.self) { group in
            for _ in 0..<n { group.addTask { try await TestQueue.create(alice, subscribe: false) } }
            var out: [TestQueue] = []
            for try await q in group { out.append(q) }
            return out
        }
        XCTAssertEqual(Set(queues.map(\.queue.recipientId)).count, n)
        // One batched SUB for all of them (several blocks), then one message to each.
        let subs = await alice.subscribeMany(queues.map { ($0.queue.recipientId, $0.recipientKey, $0.queue.rcvDhSecret) })
        XCTAssertEqual(subs.filter { if case .success = $0 { true } else { false } }.count, n)
        let sends = await bob.sendMany(queues.enumerated().map { (senderId: $1.queue.senderId, key: nil, body: Array("to \($0)".utf8)) })
        XCTAssertEqual(sends.filter { if case .success = $0 { true } else { false } }.count, n)
        let msgs = await events.waitForMessages(n, timeout: 60)
        let byQueue = Dictionary(uniqueKeysWithValues: queues.enumerated().map { ($1.queue.recipientId, $0) })
        for m in msgs {
            XCTAssertEqual(m.body, Array("to \(byQueue[m.recipientId]!)".utf8))
        }
        XCTAssertEqual(relay.server.connectionCount, 2)
        await alice.close()
        await bob.close()
        await relay.server.shutdown()
    }
}
