import SimplexFoundation
import XCTest

/// The spec's binary encodings, padding and transport blocks, including every way bad input
/// must fail without trapping.
final class EncodingTests: XCTestCase {
    func testIntegersAreBigEndian() throws {
        var e = SMPEncoder()
        e.word16(0x0102)
        e.word32(0x0304_0506)
        e.int64(-2)
        XCTAssertEqual(e.bytes, [1, 2, 3, 4, 5, 6, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE])
        var d = SMPDecoder(e.bytes)
        XCTAssertEqual(try d.word16(), 0x0102)
        XCTAssertEqual(try d.word32(), 0x0304_0506)
        XCTAssertEqual(try d.int64(), -2)
        XCTAssertThrowsError(try d.byte()) { XCTAssertEqual($0 as? DecodingError, .endOfInput) }
    }

    func testLengthPrefixedStrings() throws {
        var e = SMPEncoder()
        try e.shortString([1, 2, 3])
        try e.largeString(Array(repeating: 9, count: 300))
        XCTAssertThrowsError(try e.shortString(Array(repeating: 0, count: 256)))
        var d = SMPDecoder(e.bytes)
        XCTAssertEqual(try d.shortString(), [1, 2, 3])
        XCTAssertEqual(try d.largeString().count, 300)
        XCTAssertTrue(d.isAtEnd)
        var short = SMPDecoder([5, 1, 2])
        XCTAssertThrowsError(try short.shortString())
    }

    func testMaybeAndBool() throws {
        var e = SMPEncoder()
        e.optional(Optional<UInt8>.none) { $0.byte($1) }
        e.optional(UInt8(7)) { $0.byte($1) }
        e.bool(true)
        XCTAssertEqual(e.bytes, Array("01".utf8) + [7] + Array("T".utf8))
        var d = SMPDecoder(Array("2".utf8))
        XCTAssertThrowsError(try d.optional { try $0.byte() })
    }

    func testPadding() throws {
        let p = try Padding.pad([1, 2, 3], to: 10)
        XCTAssertEqual(p, [0, 3, 1, 2, 3] + Array(repeating: UInt8(ascii: "#"), count: 5))
        XCTAssertEqual(try Padding.unpad(p), [1, 2, 3])
        XCTAssertThrowsError(try Padding.pad(Array(repeating: 0, count: 9), to: 10))
        XCTAssertThrowsError(try Padding.unpad([0, 9, 1]))
        XCTAssertThrowsError(try Padding.unpad([0]))
    }

    func testTransportBlocks() throws {
        let ts: [[UInt8]] = [[1], [2, 2], Array(repeating: 3, count: 1000)]
        let block = try TransportBlock.encode(ts)
        XCTAssertEqual(block.count, TransportBlock.size)
        XCTAssertEqual(try TransportBlock.decode(block), ts)
        XCTAssertThrowsError(try TransportBlock.encode([]))
        XCTAssertThrowsError(try TransportBlock.decode(Array(block.dropLast())))
        // Batching keeps order and splits only where a block is full.
        let many = (0..<40).map { Array(repeating: UInt8($0), count: 1000) }
        let blocks = try TransportBlock.batch(many)
        XCTAssertEqual(blocks.count, 3)
        XCTAssertEqual(try blocks.flatMap { try TransportBlock.decode($0) }, many)
        XCTAssertThrowsError(try TransportBlock.batch([Array(repeating: 0, count: TransportBlock.size)]))
    }

    func testBlockDecodingNeverTrapsOnRandomInput() {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            var b = (0..<TransportBlock.size).map { _ in UInt8.random(in: 0...255, using: &rng) }
            // Make the padding length plausible half of the time to reach deeper code.
            if Bool.random(using: &rng) { b[0] = 0; b[1] = UInt8.random(in: 0...64, using: &rng) }
            _ = try? TransportBlock.decode(b)
        }
    }

    func testBase64URL() {
        XCTAssertEqual(Base64URL.encode([0xFB, 0xFF]), "-_8=")
        XCTAssertEqual(Base64URL.encode([0xFB, 0xFF], padded: false), "-_8")
        XCTAssertEqual(Base64URL.decode("-_8="), [0xFB, 0xFF])
        XCTAssertEqual(Base64URL.decode("-_8"), [0xFB, 0xFF])
        XCTAssertEqual(Base64URL.decode(""), [])
        XCTAssertNil(Base64URL.decode("a"))
        XCTAssertNil(Base64URL.decode("ab$d"))
        for n in 0..<40 {
            let bytes = (0..<n).map { UInt8(truncatingIfNeeded: $0 * 37) }
            XCTAssertEqual(Base64URL.decode(Base64URL.encode(bytes)), bytes)
        }
    }

    func testCRC32() {
        XCTAssertEqual(CRC32.checksum(Array("123456789".utf8)), 0xCBF4_3926)
        XCTAssertEqual(CRC32.checksum([UInt8]()), 0)
    }
}

final class CRC32SlicingTests: XCTestCase {
    /// The 8-byte fast path must agree with the bytewise definition at every length and offset.
    func testSlicingMatchesBytewise() {
        func bytewise(_ d: [UInt8]) -> UInt32 {
            var c: UInt32 = 0xFFFF_FFFF
            for b in d {
                c ^= UInt32(b)
                for _ in 0..<8 { c = (c & 1) != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
            }
            return ~c
        }
        let data = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }
        for n in 0..<data.count { XCTAssertEqual(CRC32.checksum(data[0..<n]), bytewise(Array(data[0..<n])), "\(n)") }
    }
}
