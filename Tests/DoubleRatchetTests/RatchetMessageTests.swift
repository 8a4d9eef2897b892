import XCTest
@testable import DoubleRatchet
import SimplexFoundation

/// Messages both ways, ratchet turns, out-of-order delivery, bounds and replays, for each of the
/// handshake KEM set-ups (simplexmq's "message tests").
final class RatchetMessageTests: XCTestCase {
    /// For set-ups where the handshake left PQ proposed, one round trip with PQ on completes it.
    private func pair(_ setup: KEMSetup) throws -> Pair {
        var p = try makePair(setup)
        if setup == .proposedInReply || setup == .proposedAgain {
            try exchange(&p.alice, &p.bob, "initialising ratchet", pq: true)
            try exchange(&p.bob, &p.alice, "initialising ratchet", pq: true)
        }
        return p
    }

    func testEncryptDecrypt() throws {
        for setup in KEMSetup.allCases {
            var p = try pair(setup)
            try exchange(&p.alice, &p.bob, "hello bob")
            try exchange(&p.bob, &p.alice, "hello alice")
            let a = try ["how are you, bob?", "are you there?", "hey?"].map { try encrypt(&p.alice, $0) }
            let b = try ["how are you, alice?", "are you there?", "hey?"].map { try encrypt(&p.bob, $0) }
            XCTAssertEqual(try b.map { try decryptText(&p.alice, $0) }, ["how are you, alice?", "are you there?", "hey?"])
            XCTAssertEqual(try a.map { try decryptText(&p.bob, $0) }, ["how are you, bob?", "are you there?", "hey?"])
            try exchange(&p.alice, &p.bob, "I'm here, all good")
            try exchange(&p.bob, &p.alice, "I'm here too, same")
            if setup != .none {
                XCTAssertTrue(p.alice.sendingPQ && p.alice.receivingPQ && p.bob.sendingPQ && p.bob.receivingPQ, "\(setup)")
            } else {
                XCTAssertFalse(p.alice.sendingPQ || p.alice.receivingPQ || p.bob.sendingPQ || p.bob.receivingPQ)
            }
        }
    }

    func testManyMessagesWithRatchetTurns() throws {
        for setup in KEMSetup.allCases {
            var p = try pair(setup)
            var rng = SystemRandomNumberGenerator()
            for i in 0..<120 {
                let fromAlice = i == 0 || Bool.random(using: &rng)  // Bob can send once he has heard from Alice
                for j in 0..<Int.random(in: 1...4, using: &rng) {
                    if fromAlice {
                        try exchange(&p.alice, &p.bob, "a\(i).\(j)")
                    } else {
                        try exchange(&p.bob, &p.alice, "b\(i).\(j)")
                    }
                }
            }
            XCTAssertEqual(p.alice.skippedKeyCount + p.bob.skippedKeyCount, 0)
        }
    }

    func testSkippedMessagesWithinChain() throws {
        for setup in KEMSetup.allCases {
            var p = try pair(setup)
            let m1 = try encrypt(&p.alice, "hello bob")
            let m2 = try encrypt(&p.alice, "hello there again")
            let m3 = try encrypt(&p.alice, "are you there?")
            XCTAssertEqual(try decryptText(&p.bob, m3), "are you there?")
            XCTAssertEqual(p.bob.skippedKeyCount, 2)
            assertRejects(&p.bob, m3, .duplicateMessage)
            XCTAssertEqual(try decryptText(&p.bob, m2), "hello there again")
            XCTAssertEqual(try decryptText(&p.bob, m1), "hello bob")
            XCTAssertEqual(p.bob.skippedKeyCount, 0)
            assertRejects(&p.bob, m1)
        }
    }

    /// simplexmq `testSkippedAfterRatchetAdvance`, with Alice as the joining party.
    func testSkippedAcrossRatchetTurns() throws {
        for setup in KEMSetup.allCases {
            var p = try pair(setup)
            try exchange(&p.alice, &p.bob, "b1")
            let b2 = try encrypt(&p.alice, "b2"), b3 = try encrypt(&p.alice, "b3"), b4 = try encrypt(&p.alice, "b4")
            try exchange(&p.bob, &p.alice, "a5")
            let b5 = try encrypt(&p.alice, "b5"), b6 = try encrypt(&p.alice, "b6")
            try exchange(&p.alice, &p.bob, "b7")
            let b8 = try encrypt(&p.alice, "b8"), b9 = try encrypt(&p.alice, "b9")
            try exchange(&p.bob, &p.alice, "a10")
            let b11 = try encrypt(&p.alice, "b11"), b12 = try encrypt(&p.alice, "b12")
            try exchange(&p.bob, &p.alice, "a14")
            XCTAssertEqual(try decryptText(&p.bob, b12), "b12")
            XCTAssertEqual(try decryptText(&p.bob, b2), "b2")
            // A replay of a message of an older chain: CERatchetHeader, as simplexmq reports it.
            assertRejects(&p.bob, b2, .header)
            try exchange(&p.bob, &p.alice, "a15")
            let a16 = try encrypt(&p.alice, "a16"), a17 = try encrypt(&p.alice, "a17")
            for (m, t) in [(b8, "b8"), (b3, "b3"), (b4, "b4"), (b5, "b5"), (b6, "b6")] {
                XCTAssertEqual(try decryptText(&p.bob, m), t, "\(setup)")
            }
            try exchange(&p.bob, &p.alice, "a18")
            for (m, t) in [(a16, "a16"), (a17, "a17"), (b9, "b9"), (b11, "b11")] {
                XCTAssertEqual(try decryptText(&p.bob, m), t, "\(setup)")
            }
            XCTAssertEqual(p.bob.skippedKeyCount, 0)
        }
    }

    /// Every message of a long exchange delivered in a random order, across many ratchet turns.
    func testShuffledDelivery() throws {
        var p = try pair(.accepted)
        var toBob: [([UInt8], String)] = []
        for i in 0..<40 {
            toBob.append((try encrypt(&p.alice, "m\(i)"), "m\(i)"))
            if i % 8 == 7 {  // Bob answers (he has seen the first message), which turns Alice's ratchet
                if i == 7 { XCTAssertEqual(try decryptText(&p.bob, toBob[0].0), "m0") }
                try exchange(&p.bob, &p.alice, "ack \(i)")
            }
        }
        for (m, t) in toBob.dropFirst().shuffled() { XCTAssertEqual(try decryptText(&p.bob, m), t) }
        XCTAssertEqual(p.bob.skippedKeyCount, 0)
        try exchange(&p.bob, &p.alice, "all received")
        try exchange(&p.alice, &p.bob, "good")
    }

    func testSkipBound() throws {
        var p = try pair(.none)
        let msgs = try (0...Int(PQRatchet.maxSkip) + 1).map { try encrypt(&p.alice, "m\($0)") }
        // Message 513 would need 513 keys skipped: refused, state unchanged.
        assertRejects(&p.bob, msgs[513], .tooManySkipped(514))
        // Exactly maxSkip (512) skipped keys are allowed.
        XCTAssertEqual(try decryptText(&p.bob, msgs[512]), "m512")
        XCTAssertEqual(p.bob.skippedKeyCount, 512)
        XCTAssertEqual(try decryptText(&p.bob, msgs[513]), "m513")
        for i in (0..<512).reversed() { XCTAssertEqual(try decryptText(&p.bob, msgs[i]), "m\(i)") }
        XCTAssertEqual(p.bob.skippedKeyCount, 0)
    }

    func testSkipBoundAtRatchetTurn() throws {
        var p = try pair(.none)
        try exchange(&p.alice, &p.bob, "hi")
        try exchange(&p.bob, &p.alice, "hi")
        // Alice sends 600 messages in one chain; Bob replies having seen none of them beyond the first.
        let first = try encrypt(&p.alice, "first")
        XCTAssertEqual(try decryptText(&p.bob, first), "first")
        for i in 0..<600 { _ = try encrypt(&p.alice, "lost \(i)") }
        try exchange(&p.bob, &p.alice, "turn")
        // Alice's next chain carries PN = 601: Bob would have to skip 600 keys of the old chain.
        let next = try encrypt(&p.alice, "next chain")
        assertRejects(&p.bob, next, .tooManySkipped(601))
    }

    func testStoredSkippedKeysAreBounded() throws {
        var p = try pair(.none)
        let msgs = try (0...2500).map { try encrypt(&p.alice, "m\($0)") }
        for i in stride(from: 500, through: 2500, by: 500) { XCTAssertEqual(try decryptText(&p.bob, msgs[i]), "m\(i)") }
        // 2496 keys skipped in total, the oldest 448 dropped.
        XCTAssertEqual(p.bob.skippedKeyCount, PQRatchet.maxStoredSkippedKeys)
        assertRejects(&p.bob, msgs[0])
        assertRejects(&p.bob, msgs[447])
        XCTAssertEqual(try decryptText(&p.bob, msgs[448]), "m448")
        XCTAssertEqual(try decryptText(&p.bob, msgs[2499]), "m2499")
    }

    func testReplaysRejected() throws {
        var p = try pair(.accepted)
        let m0 = try encrypt(&p.alice, "one"), m1 = try encrypt(&p.alice, "two"), m2 = try encrypt(&p.alice, "three")
        for m in [m0, m1, m2] { _ = try p.bob.decrypt(m) }
        assertRejects(&p.bob, m2, .duplicateMessage)
        assertRejects(&p.bob, m0, .earlierMessage(2))
        assertRejects(&p.bob, m1, .earlierMessage(1))
        // After both ratchets turn, the old chain's header key is gone.
        try exchange(&p.bob, &p.alice, "reply")
        try exchange(&p.alice, &p.bob, "new chain")
        assertRejects(&p.bob, m1, .header)
        // A message for another conversation.
        var other = try pair(.accepted)
        assertRejects(&p.bob, try encrypt(&other.alice, "stranger"), .header)
        try exchange(&p.alice, &p.bob, "still fine")
    }

    func testMessageSizeAndPadding() throws {
        var p = try pair(.none)
        XCTAssertThrowsError(try p.alice.encrypt([UInt8](repeating: 1, count: 99), paddedLength: 100)) {
            XCTAssertEqual($0 as? RatchetError, .messageTooLarge)
        }
        let before = p.alice
        XCTAssertThrowsError(try p.alice.encrypt([], paddedLength: 1))
        XCTAssertEqual(p.alice, before)
        let full = try p.alice.encrypt([UInt8](repeating: 7, count: 98), paddedLength: 100)
        XCTAssertEqual(full.count, 2 + 124 + 16 + 100)
        XCTAssertEqual(try p.bob.decrypt(full), [UInt8](repeating: 7, count: 98))
        let empty = try p.alice.encrypt([], paddedLength: 100)
        XCTAssertEqual(empty.count, full.count)
        XCTAssertEqual(try p.bob.decrypt(empty), [])
        // With PQ support the header is padded to 2310 bytes.
        var q = try pair(.accepted)
        XCTAssertEqual(try encrypt(&q.alice, "x").count, 2 + (2 + 16 + 16 + 2 + 2310) + 16 + 100)
    }

    /// Versions: two v2 ratchets stay on v2 (1-byte lengths); a v2 ratchet that may go to v3
    /// upgrades when the peer's header advertises v3.
    func testVersion2AndUpgrade() throws {
        let v2 = RatchetVersions(current: 2, maxSupported: 2)
        var p = try makePair(.none, versions: v2)
        // An agent that supports only v2 passes it as the supported version (rcEncryptHeader).
        let m = try p.alice.encrypt(Array("v2".utf8), paddedLength: testPaddedLength, supportedVersion: 2)
        XCTAssertEqual(m.count, 1 + (2 + 16 + 16 + 1 + 88) + 16 + 100)
        XCTAssertEqual(try decryptText(&p.bob, m), "v2")
        try exchange(&p.bob, &p.alice, "v2 reply")
        XCTAssertEqual(p.alice.versions, v2)

        let v23 = RatchetVersions(current: 2, maxSupported: 3)
        var q = try makePair(.none, versions: v23)
        try exchange(&q.alice, &q.bob, "advertises 3")
        XCTAssertEqual(q.bob.versions.current, 3)
        try exchange(&q.bob, &q.alice, "now on 3")
        XCTAssertEqual(q.alice.versions.current, 3)
        // PQ can be turned on once both are on v3.
        try exchange(&q.alice, &q.bob, "enable", pq: true)
        try exchange(&q.bob, &q.alice, "enable", pq: true)
        try exchange(&q.alice, &q.bob, "enable", pq: true)
        try exchange(&q.bob, &q.alice, "pq", kem: true)
        // A v2-only peer's ratchet never goes above 2, whatever the header says.
        var r = try makePair(.none, versions: RatchetVersions(current: 2, maxSupported: 2))
        r.alice.versions.maxSupported = 3  // Alice advertises 3
        try exchange(&r.alice, &r.bob, "3?")
        XCTAssertEqual(r.bob.versions.current, 2)
        XCTAssertThrowsError(try makePair(.none, versions: RatchetVersions(current: 1, maxSupported: 3)))
    }
}

/// A prepared message (what the agent stores for a queued message) seals to the very bytes
/// `encrypt` returns from the same state, survives its storage form, and decrypts.
final class PreparedMessageTests: XCTestCase {
    func testPreparedSealsToTheEncryptedBytes() throws {
        for setup in KEMSetup.allCases {
            var p = try makePair(setup)
            for text in ["first", "second, a little longer", ""] {
                var copy = p.alice
                let plain = Array(text.utf8)
                let direct = try copy.encrypt(plain, paddedLength: 200)
                let prepared = try p.alice.prepare(plain, paddedLength: 200)
                let restored = try PreparedMessage(serialized: prepared.serialized())
                XCTAssertEqual(restored, prepared)
                let sealed = try restored.sealed()
                XCTAssertEqual(sealed, direct, "\(setup)")
                XCTAssertEqual(try restored.sealed(), sealed, "sealing twice gives the same bytes")
                XCTAssertEqual(try p.bob.decrypt(sealed), plain)
            }
        }
    }

    func testMalformedStorageFormIsRefused() throws {
        var p = try makePair(.none)
        let bytes = try p.alice.prepare(Array("x".utf8), paddedLength: 100).serialized()
        XCTAssertThrowsError(try PreparedMessage(serialized: Array(bytes.dropLast())))
        XCTAssertThrowsError(try PreparedMessage(serialized: [2] + bytes.dropFirst()))
        XCTAssertThrowsError(try PreparedMessage(serialized: []))
    }
}
