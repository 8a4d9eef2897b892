import Foundation
import XCTest
@testable import DoubleRatchet
import SimplexFoundation

/// Tampering, header confidentiality and persistence of the state.
final class RatchetSecurityTests: XCTestCase {
    private func flipped(_ m: [UInt8], bit: Int) -> [UInt8] {
        var t = m
        t[bit / 8] ^= 1 << UInt8(bit % 8)
        return t
    }

    /// Every single-bit flip of a message is rejected, the state stays as it was, and the genuine
    /// message then decrypts: for the first message of a new chain (DH + KEM ratchet step) and for
    /// a later message of the same chain.
    func testEveryBitFlipRejected() throws {
        var p = try makePair(.none)
        try exchange(&p.alice, &p.bob, "hello")
        try exchange(&p.bob, &p.alice, "hello")
        let turn = try encrypt(&p.alice, "first of a new chain")   // Bob must ratchet for it
        let same = try encrypt(&p.alice, "second of that chain")
        for bit in 0..<(turn.count * 8) { assertRejects(&p.bob, flipped(turn, bit: bit), nil, "turn bit \(bit)") }
        XCTAssertEqual(try decryptText(&p.bob, turn), "first of a new chain")
        for bit in 0..<(same.count * 8) { assertRejects(&p.bob, flipped(same, bit: bit), nil, "same bit \(bit)") }
        XCTAssertEqual(try decryptText(&p.bob, same), "second of that chain")
        // Truncated and extended messages too.
        let next = try encrypt(&p.alice, "third")
        for n in 0..<next.count { assertRejects(&p.bob, Array(next.prefix(n)), nil, "prefix \(n)") }
        assertRejects(&p.bob, next + [0])
        XCTAssertEqual(try decryptText(&p.bob, next), "third")
    }

    /// The same with PQ headers (2.5 kB): every bit of the first 200 bytes and of the body, and
    /// one bit in every 5 bytes elsewhere (each such attempt runs a full DH + KEM step).
    func testBitFlipsRejectedWithPQ() throws {
        var p = try makePair(.accepted)
        try exchange(&p.alice, &p.bob, "hello")
        try exchange(&p.bob, &p.alice, "hello")
        let m = try encrypt(&p.alice, "pq chain turn")
        XCTAssertTrue(p.alice.sendingPQ)
        let body = m.count - 116
        var bits = Array(0..<(200 * 8)) + Array((body * 8)..<(m.count * 8))
        bits += stride(from: 200 * 8 + 3, to: body * 8, by: 37).map { $0 }
        for bit in bits { assertRejects(&p.bob, flipped(m, bit: bit), nil, "bit \(bit)") }
        XCTAssertEqual(try decryptText(&p.bob, m), "pq chain turn")
        XCTAssertTrue(p.bob.receivingPQ)
    }

    /// Header keys, counters and KEM material never appear in clear: neither the ratchet DH key
    /// (raw or DER) nor any 16-byte window of the KEM key or ciphertext is in the message.
    func testHeaderContentsNotInClear() throws {
        var p = try makePair(.accepted)
        for i in 0..<6 {
            let sender = i % 2 == 0
            let m = sender ? try encrypt(&p.alice, "m\(i)") : try encrypt(&p.bob, "m\(i)")
            let s = sender ? p.alice : p.bob
            let dh = s.dhRatchetKey.publicKey
            XCTAssertFalse(m.contains(subsequence: Array(dh.rawRepresentation.prefix(16))))
            XCTAssertFalse(m.contains(subsequence: dh.x509Encoded))
            let kem = try XCTUnwrap(s.kem)
            for w in stride(from: 0, to: kem.keyPair.publicKey.bytes.count - 16, by: 16) {
                XCTAssertFalse(m.contains(subsequence: Array(kem.keyPair.publicKey.bytes[w..<(w + 16)])))
            }
            if let ct = kem.accepted?.ciphertext.bytes {
                for w in stride(from: 0, to: ct.count - 16, by: 16) { XCTAssertFalse(m.contains(subsequence: Array(ct[w..<(w + 16)]))) }
            }
            XCTAssertFalse(m.contains(subsequence: Array("m\(i)".utf8) + [UInt8(ascii: "#")]))
            if sender { XCTAssertEqual(try decryptText(&p.bob, m), "m\(i)") } else { XCTAssertEqual(try decryptText(&p.alice, m), "m\(i)") }
        }
    }

    /// Encode both states mid-conversation (with skipped keys pending and a KEM step in flight),
    /// decode, and carry on as if nothing happened; also through Codable (JSON).
    func testPersistenceRoundTrip() throws {
        var p = try makePair(.proposedInReply)
        try exchange(&p.alice, &p.bob, "one", pq: true)
        try exchange(&p.bob, &p.alice, "two")
        let late1 = try encrypt(&p.alice, "late 1"), late2 = try encrypt(&p.alice, "late 2")
        try exchange(&p.alice, &p.bob, "three")
        XCTAssertEqual(p.bob.skippedKeyCount, 2)

        let aliceBlob = try p.alice.serialized(), bobBlob = try p.bob.serialized()
        var alice = try PQRatchet(serialized: aliceBlob)
        var bob = try PQRatchet(serialized: bobBlob)
        XCTAssertEqual(alice, p.alice)
        XCTAssertEqual(bob, p.bob)
        XCTAssertEqual(try alice.serialized(), aliceBlob)
        let json = try JSONEncoder().encode(bob)
        XCTAssertEqual(try JSONDecoder().decode(PQRatchet.self, from: json), bob)

        XCTAssertEqual(try decryptText(&bob, late2), "late 2")
        try exchange(&bob, &alice, "four")
        try exchange(&alice, &bob, "five")
        XCTAssertEqual(try decryptText(&bob, late1), "late 1")
        XCTAssertTrue(alice.sendingPQ && bob.receivingPQ)
        // Ratchets restored from the same blob are the same ratchet: both decrypt the same message.
        var bob2 = try PQRatchet(serialized: try bob.serialized())
        let m = try encrypt(&alice, "six")
        XCTAssertEqual(try decryptText(&bob, m), "six")
        XCTAssertEqual(try decryptText(&bob2, m), "six")
    }

    /// A corrupt or truncated blob is a typed error, never a trap.
    func testCorruptStateRejected() throws {
        var p = try makePair(.none)
        _ = try encrypt(&p.alice, "skipped")
        try exchange(&p.alice, &p.bob, "x")
        let blob = try p.bob.serialized()
        for n in 0..<blob.count {
            XCTAssertThrowsError(try PQRatchet(serialized: Array(blob.prefix(n))), "prefix \(n)")
        }
        XCTAssertThrowsError(try PQRatchet(serialized: blob + [0]))
        var other = blob
        other[0] = 4
        XCTAssertThrowsError(try PQRatchet(serialized: other)) {
            XCTAssertEqual($0 as? RatchetError, .badEncoding("ratchet state format 4 for KEM sntrup761, not sntrup761"))
        }
        other[0] = 2  // format 2 has no public ratchet key: this layout is malformed for it
        XCTAssertThrowsError(try PQRatchet(serialized: other))
        other[0] = 1  // format 1 is only read with ML-KEM-768 keys (see RatchetStateMigrationTests)
        XCTAssertThrowsError(try PQRatchet(serialized: other))
        for i in 0..<blob.count {  // any byte changed: either an error or a (different) state, no trap
            var b = blob
            b[i] ^= 0xFF
            _ = try? PQRatchet(serialized: b)
        }
    }
}
