import NIOCore
import NIOPosix
import SMPClient
import SMPProtocol
import SMPServer
import XCTest

/// SMPClient packs the commands its callers send at about the same time into shared blocks, and
/// times commands out with one timer per connection.
final class ClientBlockSharingTests: XCTestCase {
    /// Commands sent while the connection's event loop is busy go out together in one block.
    func testCommandsSentTogetherShareABlock() async throws {
        let relay = try await TestRelay.start()
        let loop = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let client = SMPClient(server: relay.server.address, group: loop)
        try await client.connect()
        let before = relay.server.blockStatistics.received
        // Hold the client's only event loop until all 16 commands are queued.
        let gate = DispatchSemaphore(value: 0)
        let held = DispatchSemaphore(value: 0)
        loop.next().execute {
            held.signal()
            gate.wait()
        }
        held.wait()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<16 { group.addTask { try await client.ping() } }
            try await Task.sleep(nanoseconds: 300_000_000)
            gate.signal()
            try await group.waitForAll()
        }
        XCTAssertEqual(relay.server.blockStatistics.received - before, 1, "16 PINGs queued together")
        await client.close()
        await relay.server.shutdown()
        try await loop.shutdownGracefully()
    }

    /// A relay that stops answering: each command fails with `.timeout` at its own deadline,
    /// including one sent after the timer was armed for an earlier command.
    func testUnansweredCommandsTimeOutEachAtItsDeadline() async throws {
        let (server, relayLoop) = try await TestRelay.startOnOwnLoop()
        var clientConfig = SMPClientConfig()
        clientConfig.commandTimeout = 0.5
        clientConfig.pingInterval = 0
        let client = SMPClient(server: server.address, config: clientConfig, group: TestGroup.shared)
        try await client.connect()
        try await client.ping()
        // The relay's only event loop stops for 2 s: nothing is answered meanwhile.
        let gate = DispatchSemaphore(value: 0)
        let stopped = DispatchSemaphore(value: 0)
        relayLoop.next().execute {
            stopped.signal()
            _ = gate.wait(timeout: .now() + 2)
        }
        // Only once the loop is held: NIO handles a read ready in the same loop turn first.
        stopped.wait()
        let start = ContinuousClock.now
        async let first: Void = client.ping()
        try await Task.sleep(nanoseconds: 250_000_000)
        let secondStart = ContinuousClock.now
        do {
            try await client.ping()
            XCTFail("answered while the relay was stopped")
        } catch {
            XCTAssertEqual(error, .timeout)
        }
        let second = ContinuousClock.now - secondStart
        do {
            try await first
            XCTFail("answered while the relay was stopped")
        } catch {
            XCTAssertEqual(error as? SMPClientError, .timeout)
        }
        XCTAssertGreaterThanOrEqual(second, .milliseconds(450))
        XCTAssertLessThan(second, .milliseconds(1500))
        XCTAssertLessThan(ContinuousClock.now - start, .milliseconds(1900))
        gate.signal()
        // Answers arriving after the timeouts are dropped; the connection carries on.
        try await client.ping()
        await client.close()
        await server.shutdown()
        try await relayLoop.shutdownGracefully()
    }
}
