import XCTest
@testable import DoubleRatchet

/// The read-ahead system randomness behind sntrup761's per-word requests: each request gets the
/// bytes it asked for, no byte is served twice (a new block once one is used up), and requests
/// larger than a block go to the CSPRNG directly.
final class BufferedSystemRandomTests: XCTestCase {
    func testWordsComeFromFreshBlocks() {
        let source = BufferedSystemRandom()
        let words = BufferedSystemRandom.blockSize / 4
        var first: [UInt8] = [], second: [UInt8] = []
        for _ in 0..<words { first += source.next(4) }
        for _ in 0..<words { second += source.next(4) }
        XCTAssertEqual(first.count, BufferedSystemRandom.blockSize)
        XCTAssertEqual(second.count, BufferedSystemRandom.blockSize)
        // A source serving one block twice (or zeros) fails here.
        XCTAssertNotEqual(first, second)
        XCTAssertGreaterThan(Set(first).count, 200)
    }

    func testOddAndLargeRequests() {
        let source = BufferedSystemRandom()
        _ = source.next(BufferedSystemRandom.blockSize - 10)
        // Does not fit what is left of the block: a new one.
        XCTAssertEqual(source.next(191).count, 191)
        XCTAssertEqual(source.next(BufferedSystemRandom.blockSize + 1).count, BufferedSystemRandom.blockSize + 1)
        XCTAssertEqual(source.next(0).count, 0)
    }
}
