import XCTest
@testable import DoubleRatchet
import SimplexFoundation

/// States and pending handshake params stored while the KEM was ML-KEM-768 (format 1): loaded
/// with PQ off when no chain depends on an ML-KEM secret, refused otherwise; and randomness
/// injected from a seed replays a conversation exactly.
final class RatchetStateMigrationTests: XCTestCase {
    /// A format-1 blob as the ML-KEM build wrote it: same layout, KEM name "ML-KEM-768", ML-KEM
    /// sizes (key 1184, seed 64, ciphertext 1088).
    private func legacyBlob(_ r: PQRatchet, accepted: Bool) throws -> [UInt8] {
        var s = r.snapshot
        s.kem = RatchetSnapshot.KEM(
            keyPair: KEMKeyPair(publicKey: KEMPublicKey(SecureRandom.bytes(1184)), secretKey: KEMSecretKey(SecureRandom.bytes(64))),
            accepted: accepted
                ? RatchetKEMAccepted(
                    peerKey: KEMPublicKey(SecureRandom.bytes(1184)), sharedSecret: KEMSharedSecret(SecureRandom.bytes(32)),
                    ciphertext: KEMCiphertext(SecureRandom.bytes(1088)))
                : nil)
        let blob = formatTwo(try PQRatchet(snapshot: s).serialized())
        let name = Array(SNTRUP761RatchetKEM.name.utf8)
        XCTAssertEqual(blob[0], 2)
        XCTAssertEqual(Array(blob[2..<(2 + name.count)]), name)
        let legacyName = Array("ML-KEM-768".utf8)
        return [1, UInt8(legacyName.count)] + legacyName + blob[(2 + name.count)...]
    }

    /// A format-3 state as format 2 wrote it: without our ratchet key's public half.
    private func formatTwo(_ blob: [UInt8]) -> [UInt8] {
        XCTAssertEqual(blob[0], 3)
        var i = 1
        i += 1 + Int(blob[i])  // KEM name
        i += 4  // versions
        i += 2 + (Int(blob[i]) << 8 | Int(blob[i + 1]))  // associated data
        i += 1 + Int(blob[i])  // private key
        var out = blob
        out.removeSubrange(i..<(i + 1 + Int(blob[i])))
        out[0] = 2
        return out
    }

    /// A sntrup761 state of format 2 (the public ratchet key not stored) loads, is written back in
    /// format 3 and the conversation goes on; format 3 round-trips and keeps the public key.
    func testFormatTwoStateLoadsAndIsWrittenAsFormatThree() throws {
        var p = try makePair(.accepted)
        try exchange(&p.alice, &p.bob, "before")
        try exchange(&p.bob, &p.alice, "reply")
        let current = try p.alice.serialized()
        XCTAssertEqual(current.first, 3)
        let old = formatTwo(current)
        XCTAssertEqual(old.count, current.count - 57)
        let restored = try PQRatchet(serialized: old)
        XCTAssertEqual(restored, p.alice)
        XCTAssertEqual(try restored.serialized(), current)
        var q = Pair(alice: restored, bob: p.bob)
        try exchange(&q.alice, &q.bob, "after the upgrade")
        try exchange(&q.bob, &q.alice, "and back")
        XCTAssertEqual(try PQRatchet(serialized: try q.alice.serialized()), q.alice)
    }

    /// A connection of the ML-KEM build whose chains carry no KEM secret (PQ not agreed yet, a
    /// proposal pending) loads with PQ off and goes on; PQ can then be switched on with sntrup761.
    func testMLKEMStateWithoutKEMChainsLoadsWithPQOff() throws {
        var p = try makePair(.none)
        try exchange(&p.alice, &p.bob, "before")
        try exchange(&p.bob, &p.alice, "the upgrade")
        var s = p.alice.snapshot
        s.pqSupport = true
        s.pqEncryption = true
        p.alice = try PQRatchet(snapshot: s)
        let alice = try PQRatchet(serialized: legacyBlob(p.alice, accepted: false))
        let bob = try PQRatchet(serialized: legacyBlob(p.bob, accepted: false))
        for r in [alice, bob] {
            XCTAssertNil(r.snapshot.kem)
            XCTAssertFalse(r.pqEncryption)
            XCTAssertFalse(r.sendingPQ)
            XCTAssertFalse(r.receivingPQ)
            XCTAssertEqual(try r.serialized().first, PQRatchet.stateFormat)  // written back in the current format
        }
        XCTAssertTrue(alice.pqSupport)  // headers stay large once they were
        var q = Pair(alice: alice, bob: bob)
        for i in 0..<3 {
            try exchange(&q.alice, &q.bob, "a\(i)", kem: false)
            try exchange(&q.bob, &q.alice, "b\(i)", kem: false)
        }
        try exchange(&q.alice, &q.bob, "enable", pq: true)
        try exchange(&q.bob, &q.alice, "enable", pq: true)
        try exchange(&q.alice, &q.bob, "enable", pq: true)
        try exchange(&q.bob, &q.alice, "pq", kem: true)
    }

    /// A state whose sending chain was agreed with ML-KEM is refused with a clear error: its
    /// peer could not derive that chain without the ML-KEM ciphertext.
    func testMLKEMStateWithKEMChainRefused() throws {
        var p = try makePair(.accepted)
        try exchange(&p.alice, &p.bob, "hello")
        try exchange(&p.bob, &p.alice, "hello", kem: true)
        XCTAssertTrue(p.alice.sendingPQ)
        XCTAssertThrowsError(try PQRatchet(serialized: legacyBlob(p.alice, accepted: true))) {
            guard case .badEncoding(let why)? = $0 as? RatchetError else { return XCTFail("\($0)") }
            XCTAssertTrue(why.contains("ML-KEM-768"), why)
        }
    }

    /// A peer sending a KEM acceptance to a state that has no KEM is refused as a KEM state
    /// mismatch (simplexmq CERatchetKEMState), and the state is left as it was.
    func testKEMCiphertextWithoutKEMStateRefused() throws {
        var p = try makePair(.accepted)
        try exchange(&p.alice, &p.bob, "hello")
        let m = try encrypt(&p.bob, "carries a ciphertext for Alice's key")
        var s = p.alice.snapshot
        s.kem = nil
        var alice = try PQRatchet(snapshot: s)
        assertRejects(&alice, m, .pqMismatch)
    }

    func testMLKEMPrivateParamsDropTheKEM() throws {
        var own = try PQRatchet.generateReceiverParams(pqSupport: true)
        own.kem = .proposed(KEMKeyPair(publicKey: KEMPublicKey(SecureRandom.bytes(1184)), secretKey: KEMSecretKey(SecureRandom.bytes(64))))
        let loaded = try E2EPrivateParams(encoded: own.encoded())
        XCTAssertNil(loaded.kem)
        XCTAssertEqual(loaded.key1, own.key1)
    }

    /// The same seed gives the same handshake and conversation, byte for byte, KEM steps included.
    func testSeededRandomnessReplays() throws {
        func conversation(_ seed: [UInt8]) throws -> [[UInt8]] {
            var rng = SeededRatchetRandomness(seed: seed)
            let bobOwn = try PQRatchet.generateParams(version: 3, useKEM: .propose, random: &rng)
            let aliceOwn = try PQRatchet.generateParams(
                version: 3, useKEM: UseKEM.reply(version: 3, peerKEM: bobOwn.publicParams.kem, pqSupport: true), random: &rng)
            var alice = try PQRatchet.initSend(own: aliceOwn, peer: bobOwn.publicParams, random: &rng)
            var bob = try PQRatchet.initReceive(own: bobOwn, peer: aliceOwn.publicParams, pqSupport: true)
            var out = [try aliceOwn.publicParams.encoded(), try bobOwn.publicParams.encoded()]
            for i in 0..<4 {
                let a = try alice.encrypt(Array("a\(i)".utf8), paddedLength: 100)
                XCTAssertEqual(try bob.decrypt(a, random: &rng), Array("a\(i)".utf8))
                let b = try bob.encrypt(Array("b\(i)".utf8), paddedLength: 100)
                XCTAssertEqual(try alice.decrypt(b, random: &rng), Array("b\(i)".utf8))
                out += [a, b]
            }
            XCTAssertTrue(alice.sendingPQ && bob.sendingPQ)
            out.append(try alice.serialized())
            return out
        }
        let one = try conversation(Array("seed 1".utf8))
        XCTAssertEqual(try conversation(Array("seed 1".utf8)), one)
        XCTAssertNotEqual(try conversation(Array("seed 2".utf8))[0], one[0])
    }
}
