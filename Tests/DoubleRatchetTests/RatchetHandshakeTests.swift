import XCTest
@testable import DoubleRatchet
import SimplexFoundation

/// The connection handshake: E2E params encodings and the X3DH with optional KEM
/// (simplexmq's "hybrid KEM key agreement" tests).
final class RatchetHandshakeTests: XCTestCase {
    func testKEMSizes() throws {
        let kp = try SNTRUP761RatchetKEM.generateKeyPair()
        XCTAssertEqual(kp.publicKey.bytes.count, SNTRUP761RatchetKEM.publicKeyLength)
        XCTAssertEqual(kp.secretKey.bytes.count, SNTRUP761RatchetKEM.secretKeyLength)
        let (ct, ss) = try SNTRUP761RatchetKEM.encapsulate(kp.publicKey)
        XCTAssertEqual(ct.bytes.count, SNTRUP761RatchetKEM.ciphertextLength)
        XCTAssertEqual(ss.bytes.count, SNTRUP761RatchetKEM.sharedSecretLength)
        XCTAssertEqual(try SNTRUP761RatchetKEM.decapsulate(ct, secretKey: kp.secretKey), ss)
        XCTAssertThrowsError(try SNTRUP761RatchetKEM.encapsulate(KEMPublicKey([1, 2, 3])))
        XCTAssertThrowsError(try SNTRUP761RatchetKEM.decapsulate(KEMCiphertext(Array(ct.bytes.dropLast())), secretKey: kp.secretKey))
    }

    func testParamsEncoding() throws {
        for pq in [false, true] {
            let own = try PQRatchet.generateReceiverParams(pqSupport: pq)
            let p = own.publicParams
            XCTAssertEqual(try E2ERatchetParams(encoded: p.encoded()), p)
            XCTAssertEqual(try E2EPrivateParams(encoded: own.encoded()), own)
            // version(2) + 2 * (1 + 68) + Maybe + ['P' + 2 + 1158]
            XCTAssertEqual(try p.encoded().count, 2 + 138 + 1 + (pq ? 1 + 2 + 1158 : 0))
        }
        let bob = try PQRatchet.generateReceiverParams(pqSupport: true)
        let alice = try PQRatchet.generateSenderParams(replyingTo: bob.publicParams, pqSupport: true)
        guard case .accepted(let ct, _)? = alice.publicParams.kem else { return XCTFail("not accepted") }
        XCTAssertEqual(ct.bytes.count, 1039)
        XCTAssertEqual(try E2ERatchetParams(encoded: alice.publicParams.encoded()), alice.publicParams)
        XCTAssertEqual(try E2EPrivateParams(encoded: alice.encoded()), alice)
        XCTAssertEqual(try alice.publicParams.encoded().count, 2 + 138 + 1 + 1 + 2 + 1039 + 2 + 1158)
        // Version 2 carries no KEM field, even when one is set.
        var v2 = bob.publicParams
        v2.version = 2
        XCTAssertEqual(try v2.encoded().count, 140)
        XCTAssertNil(try E2ERatchetParams(encoded: v2.encoded()).kem)
        // Malformed input is a typed error, at every truncation.
        let enc = try alice.publicParams.encoded()
        for n in stride(from: 0, to: enc.count, by: 7) {
            XCTAssertThrowsError(try E2ERatchetParams(encoded: Array(enc.prefix(n))))
        }
        XCTAssertThrowsError(try E2ERatchetParams(encoded: enc + [0]))
        // Embedded in a larger SMP encoding, the params delimit themselves.
        var outer = SMPEncoder()
        try outer.encode(alice.publicParams)
        try outer.shortString(Array("after".utf8))
        var d = SMPDecoder(outer.bytes)
        XCTAssertEqual(try d.decode(E2ERatchetParams.self), alice.publicParams)
        XCTAssertEqual(try d.shortString(), Array("after".utf8))
        // X25519 keys (which simplexmq also accepts) are refused: we run X448 ratchets only.
        var e = SMPEncoder()
        e.word16(3)
        try e.shortString(X25519PrivateKey().publicKey.x509Encoded)
        try e.shortString(X25519PrivateKey().publicKey.x509Encoded)
        e.byte(UInt8(ascii: "0"))
        XCTAssertThrowsError(try E2ERatchetParams(encoded: e.bytes)) { XCTAssertEqual(($0 as? RatchetError).map { if case .invalidKey = $0 { true } else { false } }, true) }
    }

    private func agree(bobPQ: Bool, aliceKEM: (E2ERatchetParams) -> UseKEM?) throws -> (RatchetInitParams, RatchetInitParams) {
        let bob = try PQRatchet.generateReceiverParams(pqSupport: bobPQ)
        let alice = try PQRatchet.generateParams(version: 3, useKEM: aliceKEM(bob.publicParams))
        let a = try PQRatchet.pqX3dhSnd(alice, bob.publicParams)
        let b = try PQRatchet.pqX3dhRcv(bob, alice.publicParams)
        XCTAssertEqual(a.associatedData, b.associatedData)
        XCTAssertEqual(a.ratchetKey, b.ratchetKey)
        XCTAssertEqual(a.sendHeaderKey, b.sendHeaderKey)
        XCTAssertEqual(a.receiveNextHeaderKey, b.receiveNextHeaderKey)
        XCTAssertEqual(a.associatedData.count, 112)
        return (a, b)
    }

    func testX3DHWithoutKEM() throws {
        let (a, b) = try agree(bobPQ: false) { _ in nil }
        XCTAssertNil(a.kemAccepted)
        XCTAssertNil(b.kemAccepted)
        XCTAssertNil(a.kemKeyPair)
    }

    func testX3DHProposeInReply() throws {
        let (a, b) = try agree(bobPQ: false) { _ in .propose }
        XCTAssertNil(a.kemAccepted)
        XCTAssertNil(b.kemAccepted)
        XCTAssertNotNil(a.kemKeyPair)
    }

    func testX3DHProposeAccept() throws {
        let (a, b) = try agree(bobPQ: true) { UseKEM.reply(version: 3, peerKEM: $0.kem, pqSupport: true) }
        let ka = try XCTUnwrap(a.kemAccepted), kb = try XCTUnwrap(b.kemAccepted)
        XCTAssertEqual(ka.sharedSecret, kb.sharedSecret)
        XCTAssertEqual(ka.ciphertext, kb.ciphertext)
        XCTAssertNotEqual(ka.peerKey, kb.peerKey)
        // The KEM secret is mixed into the X3DH: the keys differ from a DH-only agreement.
        XCTAssertEqual(a.ratchetKey, b.ratchetKey)
    }

    func testX3DHProposalRejected() throws {
        let (a, b) = try agree(bobPQ: true) { _ in nil }
        XCTAssertNil(a.kemAccepted)
        XCTAssertNil(b.kemAccepted)
    }

    func testX3DHProposedAgain() throws {
        let (a, b) = try agree(bobPQ: true) { _ in .propose }
        XCTAssertNil(a.kemAccepted)
        XCTAssertNil(b.kemAccepted)
        XCTAssertNotNil(a.kemKeyPair)
    }

    func testAcceptWithoutProposalIsError() throws {
        let bob = try PQRatchet.generateReceiverParams(pqSupport: false)
        let stray = try SNTRUP761RatchetKEM.generateKeyPair().publicKey
        let alice = try PQRatchet.generateParams(version: 3, useKEM: .accept(stray))
        XCTAssertThrowsError(try PQRatchet.pqX3dhSnd(alice, bob.publicParams)) { XCTAssertEqual($0 as? RatchetError, .pqMismatch) }
        XCTAssertThrowsError(try PQRatchet.pqX3dhRcv(bob, alice.publicParams)) { XCTAssertEqual($0 as? RatchetError, .pqMismatch) }
    }

    func testReplyKEMChoice() throws {
        let k = try SNTRUP761RatchetKEM.generateKeyPair().publicKey
        XCTAssertEqual(UseKEM.reply(version: 3, peerKEM: .proposed(k), pqSupport: true), .accept(k))
        XCTAssertEqual(UseKEM.reply(version: 3, peerKEM: nil, pqSupport: true), .propose)
        XCTAssertNil(UseKEM.reply(version: 3, peerKEM: .proposed(k), pqSupport: false))
        XCTAssertNil(UseKEM.reply(version: 2, peerKEM: nil, pqSupport: true))
        XCTAssertNil(try PQRatchet.generateParams(version: 2, useKEM: .propose).kem)
        XCTAssertThrowsError(try PQRatchet.generateParams(version: 1, useKEM: nil))
        XCTAssertThrowsError(try PQRatchet.generateParams(version: 4, useKEM: nil))
    }

    func testInitialStates() throws {
        for setup in KEMSetup.allCases {
            let p = try makePair(setup)
            XCTAssertTrue(p.alice.canEncrypt)
            XCTAssertFalse(p.bob.canEncrypt)
            XCTAssertEqual(p.alice.sendingPQ, setup == .accepted, "\(setup)")
            XCTAssertEqual(p.alice.pqEncryption, setup != .none, "\(setup)")
            XCTAssertEqual(p.bob.pqEncryption, setup != .none, "\(setup)")
            var bob = p.bob
            XCTAssertThrowsError(try encrypt(&bob, "too early")) { XCTAssertEqual($0 as? RatchetError, .noSendingChain) }
        }
    }
}
