import XCTest
@testable import XFTPClient

/// Chunks in flight on one session share its bandwidth, so each one's timeout counts the bytes
/// beside it (the FileFlow flake: parallel 1 MB FPUTs on a loaded machine each got the time of
/// one chunk, timed out together, and every retry started its chunk over).
final class ChunkAllowanceTests: XCTestCase {
    let config = XFTPClientConfig(requestTimeout: 15, timeoutPerKB: 0.005)
    let mb: UInt32 = 1 << 20

    func testAChunkAloneGetsTheReferenceChunkTimeout() {
        let a = ChunkAllowance(config: config)
        XCTAssertEqual(a.begin(mb), 15 + 1024 * 0.005, accuracy: 1e-9)
        a.end(mb)
        XCTAssertEqual(a.begin(nil), 15)
    }

    func testParallelChunksCountTheBytesBesideThem() {
        let a = ChunkAllowance(config: config)
        XCTAssertEqual(a.begin(mb), 15 + 1024 * 0.005, accuracy: 1e-9)
        XCTAssertEqual(a.begin(mb), 15 + 2048 * 0.005, accuracy: 1e-9)
        XCTAssertEqual(a.begin(mb / 4), 15 + 2304 * 0.005, accuracy: 1e-9)
        // A request without a chunk is not slowed by them.
        XCTAssertEqual(a.begin(nil), 15)
        a.end(mb)
        a.end(mb / 4)
        XCTAssertEqual(a.begin(mb), 15 + 2048 * 0.005, accuracy: 1e-9)
    }

    /// The window is read at each check: a chunk started alone gets the time of the chunks that
    /// started beside it later (their bytes may be queued ahead of its next one), and back.
    func testTheWindowFollowsTheBytesInFlightNow() {
        let a = ChunkAllowance(config: config)
        a.begin(mb)
        XCTAssertEqual(a.window(mb), 15 + 1024 * 0.005, accuracy: 1e-9)
        a.begin(mb)
        a.begin(mb / 4)
        XCTAssertEqual(a.window(mb), 15 + 2304 * 0.005, accuracy: 1e-9)
        XCTAssertEqual(a.window(nil), 15)
        a.end(mb)
        a.end(mb / 4)
        XCTAssertEqual(a.window(mb), 15 + 1024 * 0.005, accuracy: 1e-9)
    }
}
