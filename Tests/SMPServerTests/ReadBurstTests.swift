import SimplexFoundation
import SMPProtocol
import SMPTransport
import XCTest

/// The relay flushes the responses to one socket read once, at the end of the read: every
/// response of a burst must still go out, in order, and the connection must keep answering.
final class ReadBurstTests: XCTestCase {
    func testEveryResponseToABurstOfBlocksArrivesInOrder() async throws {
        let relay = try await TestRelay.start()
        let conn = try await RawConnection(relay: relay)
        let corrIds = (0..<48).map { _ in SecureRandom.bytes(24) }
        let ping = try SMPCommand.ping.smpEncoded(version: conn.session.version)
        let blocks = try corrIds.map { c in
            try TransmissionBatch.blocks([try RawTransmission(authorization: [], corrId: c, entityId: [], body: ping).encoded(conn.params)])[0]
        }
        var responseBlocks = 0
        for round in 0..<3 {
            try await conn.writeBlocks(blocks)
            var received: [[UInt8]] = []
            while received.count < corrIds.count {
                responseBlocks += 1
                for t in try await conn.nextTransmissions() {
                    XCTAssertEqual(try BrokerMessage.parse(t.body, version: conn.session.version), .pong, "round \(round)")
                    received.append(t.corrId)
                }
            }
            XCTAssertEqual(received, corrIds, "round \(round)")
        }
        // The responses to the blocks of one read share blocks: 48 blocks arrive in a few reads
        // of up to 64 KB, so far fewer than one response block per command block come back.
        XCTAssertLessThan(responseBlocks, 3 * corrIds.count / 2, "response blocks for \(3 * corrIds.count) command blocks")
        // A single command after the bursts is answered at once, not held for a later read.
        let pong = try await conn.command(.ping)
        XCTAssertEqual(pong, .pong)
        await conn.close()
        await relay.server.shutdown()
    }
}
