import Crypto
import SMPProtocol
import SimplexFoundation
import XCTest

@testable import SMPTransport

final class HandshakeCodecTests: XCTestCase {
    let credentials = sharedCredentials

    func signedKey() throws -> (SignedServerKey, Curve25519.KeyAgreement.PrivateKey) {
        let session = Curve25519.KeyAgreement.PrivateKey()
        let signed = try SignedServerKey.sign(
            sessionKey: session.publicKey,
            certificate: credentials.serverCertificateDER,
            signingKey: credentials.serverPrivateKey
        )
        return (signed, session)
    }

    func testServerHelloLayout() throws {
        let (signed, _) = try signedKey()
        let sessionId = [UInt8](repeating: 7, count: 32)
        let hello = SMPServerHandshake(versions: SMPVersion.supported, sessionId: sessionId, serverKey: signed)
        let bytes = try hello.smpEncoded()
        let cert = credentials.serverCertificateDER
        var expected: [UInt8] = [0, UInt8(SMPVersion.supported.min), 0, UInt8(SMPVersion.supported.max), 32] + sessionId
        expected += [UInt8(cert.count >> 8), UInt8(cert.count & 0xFF)] + cert
        expected += [0, 108] + signed.sessionKey + signed.signature
        XCTAssertEqual(bytes, expected)
        XCTAssertEqual(signed.sessionKey.count, 44)
        XCTAssertEqual(Array(signed.sessionKey.prefix(12)), [0x30, 0x2A, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x6E, 0x03, 0x21, 0x00])
        XCTAssertEqual(signed.signature.count, 64)

        let block = try hello.encodeBlock()
        XCTAssertEqual(block.count, 16384)
        XCTAssertEqual(Array(block.prefix(2)), [UInt8(bytes.count >> 8), UInt8(bytes.count & 0xFF)])
        XCTAssertEqual(try SMPServerHandshake.decode(block: block), hello)
    }

    func testServerHelloIgnoresExtraBytes() throws {
        let (signed, _) = try signedKey()
        let hello = SMPServerHandshake(versions: SMPVersion.supported, sessionId: [1, 2, 3], serverKey: signed)
        let extended = try hello.smpEncoded() + Array("future fields".utf8)
        XCTAssertEqual(try SMPServerHandshake.smpDecode(extended), hello)
        // Below v7 there is no key, and everything after the session ID is ignored.
        let old = [0, 5, 0, 6, 1, 9] + Array("whatever".utf8)
        let parsed = try SMPServerHandshake.smpDecode(old)
        XCTAssertEqual(parsed.versions, SMPVersionRange(min: 5, max: 6))
        XCTAssertEqual(parsed.sessionId, [9])
        XCTAssertNil(parsed.serverKey)
        // v7+ without a key is parsed (the client then refuses it with BAD_AUTH).
        XCTAssertNil(try SMPServerHandshake.smpDecode([0, 7, 0, 9, 0]).serverKey)
    }

    func testMalformedServerHellosFail() throws {
        let (signed, _) = try signedKey()
        let good = try SMPServerHandshake(versions: SMPVersion.supported, sessionId: [1], serverKey: signed).smpEncoded()
        let bad: [[UInt8]] = [
            [],
            [0, 7],
            [0, 9, 0, 7, 0],  // min > max
            [0, 7, 0, 9],  // no session ID
            [0, 7, 0, 9, 5, 1, 2],  // session ID shorter than its length
            [0, 7, 0, 9, 0, 1],  // one byte of a length
            [0, 7, 0, 9, 0, 0, 3, 1, 2, 3, 0, 44] + [UInt8](repeating: 0x30, count: 44),  // no signature
            [0, 7, 0, 9, 0, 0, 1, 1, 0, 3, 0x30, 0x7F, 0],  // SPKI length beyond data
            Array(good.dropLast()),
        ]
        for b in bad {
            XCTAssertThrowsError(try SMPServerHandshake.smpDecode(b), "\(b.prefix(16))") { error in
                XCTAssertTrue(error is DecodingError, "\(error)")
            }
        }
        XCTAssertThrowsError(try SMPServerHandshake.decode(block: [UInt8](repeating: 0, count: 100)))
        XCTAssertThrowsError(try SMPServerHandshake.decode(block: [UInt8](repeating: 0xFF, count: 16384)))
        XCTAssertThrowsError(try SMPServerHandshake.decode(block: [UInt8](repeating: 0, count: 16384)))
    }

    func testClientHelloLayoutAndRoundTrip() throws {
        let key = Curve25519.KeyAgreement.PrivateKey().publicKey
        let hello = SMPClientHandshake(version: 9, keyHash: credentials.keyHash, authPubKey: key)
        let bytes = try hello.smpEncoded()
        XCTAssertEqual(bytes, [0, 9, 32] + credentials.keyHash + [44] + TransportKeyEncoding.x25519Prefix + Array(key.rawRepresentation))
        XCTAssertEqual(try SMPClientHandshake.decode(block: hello.encodeBlock()), hello)
        XCTAssertEqual(try SMPClientHandshake.smpDecode(bytes + [1, 2, 3]), hello)
        // Without a key.
        let bare = SMPClientHandshake(version: 8, keyHash: [1, 2], authPubKey: nil)
        XCTAssertEqual(try bare.smpEncoded(), [0, 8, 2, 1, 2])
        XCTAssertEqual(try SMPClientHandshake.smpDecode([0, 8, 2, 1, 2]), bare)
        // Before v7 the key is neither sent nor read.
        let v6 = SMPClientHandshake(version: 6, keyHash: [1], authPubKey: key)
        XCTAssertEqual(try v6.smpEncoded(), [0, 6, 1, 1])
        XCTAssertNil(try SMPClientHandshake.smpDecode([0, 6, 1, 1, 44, 0]).authPubKey)
    }

    func testMalformedClientHellosFail() {
        let bad: [[UInt8]] = [
            [],
            [0],
            [0, 9],
            [0, 9, 32, 1],
            [0, 9, 1, 1, 44] + [UInt8](repeating: 0, count: 44),  // not an X25519 SPKI
            [0, 9, 1, 1, 3, 1, 2, 3],
            [0, 9, 1, 1, 50],
        ]
        for b in bad {
            XCTAssertThrowsError(try SMPClientHandshake.smpDecode(b), "\(b.prefix(8))") { error in
                XCTAssertTrue(error is DecodingError, "\(error)")
            }
        }
    }

    func testSignedKeyVerifiesOnlyWithItsCertificate() throws {
        let (signed, session) = try signedKey()
        let key = try signed.verify(expectedCertificate: credentials.serverCertificateDER)
        XCTAssertEqual(key.rawRepresentation, session.publicKey.rawRepresentation)

        let other = try ServerCredentials.generate(commonName: "other")
        XCTAssertThrowsError(try signed.verify(expectedCertificate: other.serverCertificateDER)) {
            XCTAssertEqual($0 as? TransportError, .handshake(.badAuth))
        }
        var tampered = signed
        tampered.signature[0] ^= 1
        XCTAssertThrowsError(try tampered.verify(expectedCertificate: credentials.serverCertificateDER)) {
            XCTAssertEqual($0 as? TransportError, .handshake(.badAuth))
        }
        // Signed by another key but presented with our certificate.
        var forged = try SignedServerKey.sign(
            sessionKey: session.publicKey, certificate: credentials.serverCertificateDER, signingKey: other.serverPrivateKey
        )
        XCTAssertThrowsError(try forged.verify(expectedCertificate: credentials.serverCertificateDER))
        forged.certificate = [1, 2, 3]
        XCTAssertThrowsError(try forged.verify(expectedCertificate: [1, 2, 3]))
    }
}
