import XCTest
@testable import SimplexFoundation

/// The SMP crypto_box command authenticator: the client authorizes with its queue key and the
/// server's session key, the server verifies with the mirror DH.
final class CryptoSMPAuthenticatorTests: XCTestCase {
    let queueKey = X25519PrivateKey()
    let serverSessionKey = X25519PrivateKey()
    let corrId = SecureRandom.bytes(24)
    let authorized = Array("sessionId corrId queueId SEND F hello".utf8)

    func testClientAuthenticatesServerVerifies() throws {
        let auth = try SMPAuthenticator.authenticate(authorized: authorized, nonce: corrId,
                                                     serverPublicKey: serverSessionKey.publicKey, queuePrivateKey: queueKey)
        XCTAssertEqual(auth.count, 80)
        XCTAssertEqual(auth.count, SMPAuthenticator.length)
        XCTAssertTrue(SMPAuthenticator.verify(auth, authorized: authorized, nonce: corrId,
                                              queuePublicKey: queueKey.publicKey, serverPrivateKey: serverSessionKey))
        // It is crypto_box(sha512(authorized)).
        let key = try CryptoBox.sharedKey(publicKey: queueKey.publicKey, privateKey: serverSessionKey)
        XCTAssertEqual(try CryptoBox.open(key: key, nonce: corrId, box: auth), CryptoHash.sha512(authorized))
        XCTAssertTrue(SMPAuthenticator.verify(auth, authorized: authorized, nonce: corrId, key: key))
        XCTAssertEqual(try SMPAuthenticator.authenticate(authorized: authorized, nonce: corrId, key: key), auth)
    }

    func testVerificationFailsForAnyChange() throws {
        let auth = try SMPAuthenticator.authenticate(authorized: authorized, nonce: corrId,
                                                     serverPublicKey: serverSessionKey.publicKey, queuePrivateKey: queueKey)
        func verify(_ a: [UInt8], _ m: [UInt8], _ n: [UInt8], _ qk: X25519PublicKey, _ sk: X25519PrivateKey) -> Bool {
            SMPAuthenticator.verify(a, authorized: m, nonce: n, queuePublicKey: qk, serverPrivateKey: sk)
        }
        XCTAssertFalse(verify(auth, authorized + [0], corrId, queueKey.publicKey, serverSessionKey))
        var n2 = corrId
        n2[0] ^= 1
        XCTAssertFalse(verify(auth, authorized, n2, queueKey.publicKey, serverSessionKey))
        XCTAssertFalse(verify(auth, authorized, corrId, X25519PrivateKey().publicKey, serverSessionKey))
        XCTAssertFalse(verify(auth, authorized, corrId, queueKey.publicKey, X25519PrivateKey()))
        for i in stride(from: 0, to: 80, by: 7) {
            var t = auth
            t[i] ^= 0x40
            XCTAssertFalse(verify(t, authorized, corrId, queueKey.publicKey, serverSessionKey))
        }
        // Wrong sizes (an Ed25519 signature, empty, truncated) and a short nonce are just invalid.
        XCTAssertFalse(verify([UInt8](repeating: 0, count: 64), authorized, corrId, queueKey.publicKey, serverSessionKey))
        XCTAssertFalse(verify([], authorized, corrId, queueKey.publicKey, serverSessionKey))
        XCTAssertFalse(verify(Array(auth.prefix(79)), authorized, corrId, queueKey.publicKey, serverSessionKey))
        XCTAssertFalse(verify(auth, authorized, Array(corrId.prefix(16)), queueKey.publicKey, serverSessionKey))
    }

    func testShortNonceIsATypedError() {
        XCTAssertThrowsError(try SMPAuthenticator.authenticate(authorized: authorized, nonce: [1, 2, 3],
                                                               serverPublicKey: serverSessionKey.publicKey, queuePrivateKey: queueKey)) {
            guard case CryptoError.badLength = $0 else { return XCTFail("\($0)") }
        }
    }
}
