import Foundation
import NIOCore
import NIOPosix
import SimplexFoundation
import SMPClient
import SMPProtocol
import SMPServer
import XCTest

/// The relay queues what it writes to a connection in one outbox per connection: a message
/// delivered from another connection's command shares a block with the responses the
/// recipient's own commands got in the same turn of its event loop.
final class RelayOutboxTests: XCTestCase {
    func testDeliveryRidesWithTheRecipientsResponse() async throws {
        let (server, relayLoop) = try await TestRelay.startOnOwnLoop()
        let recipient = SMPClient(server: server.address, group: TestGroup.shared)
        let sender = SMPClient(server: server.address, group: TestGroup.shared)
        let events = EventCollector(recipient)
        let a = try await TestQueue.create(recipient), b = try await TestQueue.create(recipient)
        let ka = try PrivateAuthKey.generate(.ed25519), kb = try PrivateAuthKey.generate(.ed25519)
        try await sender.senderSecure(senderId: a.queue.senderId, key: ka)
        try await sender.senderSecure(senderId: b.queue.senderId, key: kb)
        try await sender.send(senderId: a.queue.senderId, key: ka, body: Array("first".utf8))
        guard let first = await events.waitForMessages(1).first else { return }

        // The relay's only event loop is held while the recipient ACKs (queue A is then empty:
        // the answer is OK) and the sender SENDs to queue B: both are read in one loop turn.
        let gate = DispatchSemaphore(value: 0), held = DispatchSemaphore(value: 0)
        relayLoop.next().execute {
            held.signal()
            gate.wait()
        }
        held.wait()
        let before = server.blockStatistics.sent
        async let acked: Void = recipient.ack(recipientId: a.queue.recipientId, key: a.recipientKey, msgId: first.msgId)
        async let sent: Void = sender.send(senderId: b.queue.senderId, key: kb, body: Array("second".utf8))
        try await Task.sleep(nanoseconds: 300_000_000)
        gate.signal()
        try await acked
        try await sent
        let messages = await events.waitForMessages(2)
        XCTAssertEqual(messages.last?.recipientId, b.queue.recipientId)
        XCTAssertEqual(messages.last?.body ?? nil, Array("second".utf8))
        // The sender's OK, then the recipient's OK and MSG together: 2 blocks (3 when the MSG
        // went in a block of its own).
        XCTAssertEqual(server.blockStatistics.sent - before, 2, "blocks the relay wrote for one ACK and one SEND")
        // Both connections carry on.
        try await recipient.ping()
        try await sender.ping()
        await recipient.close()
        await sender.close()
        await server.shutdown()
        try await relayLoop.shutdownGracefully()
    }
}
