import XCTest
@testable import DoubleRatchet
import SimplexFoundation

/// States and pending handshake params stored while the KEM was ML-KEM-768 (format 1) load as
/// PQ off, and the conversation goes on; randomness injected from a seed replays exactly.
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
        let blob = try PQRatchet(snapshot: s).serialized()
        let name = Array(SNTRUP761RatchetKEM.name.utf8)
        XCTAssertEqual(blob[0], 2)
        XCTAssertEqual(Array(blob[2..<(2 + name.count)]), name)
        let legacyName = Array("ML-KEM-768".utf8)
        return [1, UInt8(legacyName.count)] + legacyName + blob[(2 + name.count)...]
    }

    func testMLKEMStateLoadsWithPQOff() throws {
        var p = try makePair(.accepted)
        try exchange(&p.alice, &p.bob, "before")
        try exchange(&p.bob, &p.alice, "the upgrade")
        let alice = try PQRatchet(serialized: legacyBlob(p.alice, accepted: true))
        let bob = try PQRatchet(serialized: legacyBlob(p.bob, accepted: false))
        for r in [alice, bob] {
            XCTAssertNil(r.snapshot.kem)
            XCTAssertFalse(r.pqEncryption)
            XCTAssertFalse(r.sendingPQ)
            XCTAssertFalse(r.receivingPQ)
            XCTAssertTrue(r.pqSupport)  // headers stay large once they were
            XCTAssertEqual(try r.serialized().first, PQRatchet.stateFormat)  // written back in format 2
        }
        // Both upgraded: the conversation goes on, classically, in both directions and over steps.
        var q = Pair(alice: alice, bob: bob)
        for i in 0..<3 {
            try exchange(&q.alice, &q.bob, "a\(i)", kem: false)
            try exchange(&q.bob, &q.alice, "b\(i)", kem: false)
        }
        // PQ can be turned on again (sntrup761 now).
        try exchange(&q.alice, &q.bob, "enable", pq: true)
        try exchange(&q.bob, &q.alice, "enable", pq: true)
        try exchange(&q.alice, &q.bob, "enable", pq: true)
        try exchange(&q.bob, &q.alice, "pq", kem: true)
    }

    /// A peer still sending an ML-KEM acceptance is refused as a KEM state mismatch, and the
    /// state is left as it was.
    func testMLKEMCiphertextFromPeerRefused() throws {
        var p = try makePair(.accepted)
        try exchange(&p.alice, &p.bob, "hello")
        // Bob has not dropped his KEM: his header carries a ciphertext ('A') for Alice's key.
        let m = try encrypt(&p.bob, "from the side with a KEM agreement")
        var alice = try PQRatchet(serialized: legacyBlob(p.alice, accepted: true))
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
