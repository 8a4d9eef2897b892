import NIOCore
import XCTest
@testable import SMPTransport

/// The relay's receive buffers: NIO's pool keeps only the small first buffer, every later read
/// gets a fresh one sized to the traffic (issue 16: memory per idle client).
final class RecvAllocatorTests: XCTestCase {
    func testPoolKeepsOnlyTheSmallFirstBuffer() {
        var pool = NIOPooledRecvBufferAllocator(capacity: 1, recvAllocator: IdleFriendlyRecvAllocator(firstCapacity: 512))
        let allocator = ByteBufferAllocator()
        let (first, _) = pool.buffer(allocator: allocator) { buffer in buffer.writeRepeatingByte(1, count: buffer.writableBytes) }
        XCTAssertLessThan(first.capacity, 2048)
        pool.record(actualReadBytes: first.readableBytes)
        var sizes: [Int] = []
        for _ in 0..<6 {
            let (buffer, _) = pool.buffer(allocator: allocator) { buffer in buffer.writeRepeatingByte(2, count: buffer.writableBytes) }
            sizes.append(buffer.capacity)
            pool.record(actualReadBytes: buffer.readableBytes)
        }
        // Full reads grow the next buffer as NIO's adaptive allocator does (2 KB doubling).
        XCTAssertGreaterThanOrEqual(sizes[0], 2048)
        XCTAssertGreaterThan(sizes[5], sizes[0])
        // Only the first buffer stays in the pool.
        XCTAssertEqual(pool.count, 1)
        let (again, _) = pool.buffer(allocator: allocator) { _ in () }
        XCTAssertGreaterThanOrEqual(again.capacity, sizes[5], "a fresh buffer, not the kept small one")
    }

    func testNoSizeHintAndAlwaysFresh() {
        var a = IdleFriendlyRecvAllocator()
        XCTAssertNil(a.nextBufferSize())
        XCTAssertTrue(a.record(actualReadBytes: 10))
        XCTAssertTrue(a.record(actualReadBytes: 100_000))
    }
}
