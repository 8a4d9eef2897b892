import SimplexFoundation
import SMPProtocol
import XCTest

/// X25519 authenticators made and checked with a session's cached DH keys are the ones made
/// without it, and the cache never lets a wrong key, body or authenticator through.
final class AuthenticatorKeyCacheTests: XCTestCase {
    func testCachedAuthenticatorsMatchAndForgeriesFail() throws {
        let server = X25519PrivateKey()
        let queue = X25519PrivateKey(), other = X25519PrivateKey()
        let clientKeys = AuthenticatorKeyCache(limit: 2), serverKeys = AuthenticatorKeyCache(limit: 2)
        let corrId = SecureRandom.bytes(24)
        for round in 0..<3 {
            let body = SecureRandom.bytes(100 + round)
            let plain = try TransmissionAuth.authorize(key: .x25519(queue), authorized: body, corrId: corrId, serverSessionKey: server.publicKey)
            let cached = try TransmissionAuth.authorize(key: .x25519(queue), authorized: body, corrId: corrId, serverSessionKey: server.publicKey,
                                                        keys: clientKeys)
            XCTAssertEqual(cached, plain)
            func verify(_ key: X25519PrivateKey, _ auth: [UInt8], _ bytes: [UInt8]) -> Bool {
                TransmissionAuth.verify(key: .x25519(key.publicKey), authorization: auth, authorized: bytes, corrId: corrId,
                                        serverSessionKey: server, keys: serverKeys)
            }
            XCTAssertTrue(verify(queue, cached, body))
            XCTAssertFalse(verify(other, cached, body), "another queue's key")
            XCTAssertFalse(verify(queue, cached, body + [0]), "another body")
            var tampered = cached
            tampered[tampered.count - 1] ^= 1
            XCTAssertFalse(verify(queue, tampered, body), "a changed authenticator")
        }
        // A third key overflows the cache of two: it starts over and still gives the right keys.
        let third = X25519PrivateKey()
        let body = SecureRandom.bytes(64)
        let auth = try TransmissionAuth.authorize(key: .x25519(third), authorized: body, corrId: corrId, serverSessionKey: server.publicKey,
                                                  keys: clientKeys)
        XCTAssertTrue(TransmissionAuth.verify(key: .x25519(third.publicKey), authorization: auth, authorized: body, corrId: corrId,
                                              serverSessionKey: server, keys: serverKeys))
    }
}
