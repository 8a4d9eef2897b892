import SMPProtocol
import SimplexFoundation
import XCTest

@testable import SMPTransport

/// Fixtures for both hellos and the handshake response at v6, v7, v11, v14, v16 and v18, derived
/// by hand from the reference encoders (Transport.hs `instance Encoding SMPServerHandshake`,
/// `SMPClientHandshake`, `SMPServerHandshakeResponse`, `CertChainPubKey`; Crypto.hs `signX509`)
/// for fixed inputs: our credentials, a fixed session ID and fixed X25519 keys. The same layouts
/// are checked against simplexmq's own bytes by the smp_transport_handshake.json vectors.
final class HandshakeCodecTests: XCTestCase {
    let credentials = sharedCredentials
    let sessionId = [UInt8](repeating: 0x5A, count: 32)
    let serverKey = try! X25519PrivateKey(rawRepresentation: [UInt8](repeating: 1, count: 32))
    let clientKey = try! X25519PrivateKey(rawRepresentation: [UInt8](repeating: 2, count: 32))

    func large(_ b: [UInt8]) -> [UInt8] { [UInt8(b.count >> 8), UInt8(b.count & 0xFF)] + b }

    func signed() throws -> SignedPublicKey {
        try SignedPublicKey.sign(.x25519(serverKey.publicKey), with: credentials.serverPrivateKey)
    }

    func testSignedKeyIsX509SignedExact() throws {
        let s = try signed()
        let spki = serverKey.publicKey.x509Encoded
        // SEQUENCE { SEQUENCE { SPKI }, AlgorithmIdentifier Ed25519, BIT STRING (0 unused bits) sig }
        let tbs = [0x30, 0x2C] + spki
        XCTAssertEqual(s.signedData, tbs)
        XCTAssertEqual(s.der, [0x30, 0x78] + tbs + [0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x03, 0x41, 0x00] + s.signature)
        XCTAssertEqual(s.verify(with: credentials.serverPrivateKey.publicKey), .x25519(serverKey.publicKey))
        XCTAssertNil(s.verify(with: try ServerCredentials.generate(commonName: "x").serverPrivateKey.publicKey))
        // Ed448: 114-byte signature, long-form lengths.
        let ed448 = AnyPrivateKey.generate(.ed448)
        let s448 = try SignedPublicKey.sign(.x25519(serverKey.publicKey), with: ed448)
        // 46 (SEQUENCE { SPKI }) + 7 (AlgorithmIdentifier) + 117 (BIT STRING) = 170 content bytes.
        XCTAssertEqual(Array(s448.der.prefix(3)), [0x30, 0x81, 0xAA])
        XCTAssertEqual(s448.signature.count, 114)
        XCTAssertEqual(s448.verify(with: ed448.publicKey), .x25519(serverKey.publicKey))
        XCTAssertEqual(try SignedPublicKey(der: s448.der), s448)
        var bad = s.der
        bad[bad.count - 1] ^= 1
        XCTAssertNil(try SignedPublicKey(der: bad).verify(with: credentials.serverPrivateKey.publicKey))
        for junk in [[], [0x30], Array(s.der.dropLast()), s.der + [0]] as [[UInt8]] {
            XCTAssertThrowsError(try SignedPublicKey(der: junk))
        }
    }

    func testServerHelloAtEachVersion() throws {
        let s = try signed()
        let key = CertChainPubKey(chain: credentials.chain, signedKey: s)
        let keyBytes = [2] + large(credentials.serverCertificateDER) + large(credentials.caCertificateDER) + large(s.der)
        for max: UInt16 in [6, 7, 11, 14, 16, 18] {
            let hello = SMPServerHandshake(versions: SMPVersionRange(min: 6, max: max)!, sessionId: sessionId, authPubKey: key)
            var expected: [UInt8] = [0, 6, 0, UInt8(max), 32] + sessionId
            if max >= 7 { expected += keyBytes }
            XCTAssertEqual(try hello.smpEncoded(), expected, "v\(max)")
            let parsed = try SMPServerHandshake.smpDecode(expected)
            XCTAssertEqual(parsed.authPubKey, max >= 7 ? key : nil)
            // Trailing bytes are ignored (room for future fields).
            XCTAssertEqual(try SMPServerHandshake.smpDecode(expected + Array("future".utf8)), parsed)
        }
        // From v7 a key that does not parse counts as absent.
        XCTAssertNil(try SMPServerHandshake.smpDecode([0, 6, 0, 18, 1, 9, 0, 1, 2]).authPubKey)
        XCTAssertNil(try SMPServerHandshake.smpDecode([0, 6, 0, 18, 1, 9]).authPubKey)
        for bad: [UInt8] in [[], [0, 6], [0, 9, 0, 7, 0], [0, 6, 0, 18], [0, 6, 0, 18, 5, 1]] {
            XCTAssertThrowsError(try SMPServerHandshake.smpDecode(bad), "\(bad)")
        }
    }

    func testClientHelloAtEachVersion() throws {
        let k = credentials.keyHash
        let spki = clientKey.publicKey.x509Encoded
        let cases: [(UInt16, Bool, [UInt8])] = [
            (6, false, [0, 6, 32] + k),
            (7, false, [0, 7, 32] + k + [44] + spki),
            (11, false, [0, 11, 32] + k + [44] + spki),
            (14, true, [0, 14, 32] + k + [44] + spki + Array("T".utf8)),
            (16, false, [0, 16, 32] + k + [44] + spki + Array("F0".utf8)),
            (18, true, [0, 18, 32] + k + [44] + spki + Array("T0".utf8)),
        ]
        for (v, proxy, expected) in cases {
            let hello = SMPClientHandshake(version: v, keyHash: k, authPubKey: clientKey.publicKey, proxyServer: proxy)
            XCTAssertEqual(try hello.smpEncoded(), expected, "v\(v)")
            let parsed = try SMPClientHandshake.smpDecode(expected)
            XCTAssertEqual(parsed.version, v)
            XCTAssertEqual(parsed.authPubKey, v >= 7 ? clientKey.publicKey : nil)
            XCTAssertEqual(parsed.proxyServer, v >= 14 ? proxy : false)
            XCTAssertEqual(try SMPClientHandshake.smpDecode(expected + [1, 2, 3]), parsed)
        }
        // v16+ with a service: '1' role CertChainPubKey.
        let serviceKey = try SignedPublicKey.sign(.ed25519(Ed25519PrivateKey().publicKey), with: credentials.serverPrivateKey)
        let service = SMPClientHandshakeService(role: .notifier, certKey: CertChainPubKey(chain: credentials.chain, signedKey: serviceKey))
        let withService = SMPClientHandshake(version: 16, keyHash: k, authPubKey: nil, clientService: service)
        let bytes = try withService.smpEncoded()
        XCTAssertEqual(bytes, [0, 16, 32] + k + Array("F1N".utf8) + [2] + large(credentials.serverCertificateDER)
                       + large(credentials.caCertificateDER) + large(serviceKey.der))
        XCTAssertEqual(try SMPClientHandshake.smpDecode(bytes), withService)
    }

    func testHandshakeResponses() throws {
        let id = [UInt8](repeating: 3, count: 24)
        XCTAssertEqual(try SMPServerHandshakeResponse.serviceId(id).smpEncoded(), Array("R".utf8) + [24] + id)
        XCTAssertEqual(try SMPServerHandshakeResponse.error(.handshake(.badService)).smpEncoded(), Array("EHANDSHAKE BAD_SERVICE".utf8))
        XCTAssertEqual(try SMPServerHandshakeResponse.error(.version).smpEncoded(), Array("EVERSION".utf8))
        XCTAssertEqual(try SMPServerHandshakeResponse.smpDecode(Array("EHANDSHAKE BAD_AUTH".utf8)), .error(.handshake(.badAuth)))
        XCTAssertThrowsError(try SMPServerHandshakeResponse.smpDecode(Array("X".utf8)))
    }

    func testHandshakeBlocks() throws {
        let hello = SMPClientHandshake(version: 18, keyHash: credentials.keyHash, authPubKey: nil)
        let block = try HandshakeBlock.encode(hello)
        XCTAssertEqual(block.count, TransportBlock.size)
        XCTAssertEqual(try HandshakeBlock.decode(SMPClientHandshake.self, block: block), hello)
        // Bad padding is LARGE_MSG (tGetBlock), a bad message HANDSHAKE PARSE.
        XCTAssertThrowsError(try HandshakeBlock.decode(SMPClientHandshake.self, block: [UInt8](repeating: 0xFF, count: 16384))) {
            XCTAssertEqual($0 as? TransportError, .largeMessage)
        }
        XCTAssertThrowsError(try HandshakeBlock.decode(SMPClientHandshake.self, block: try Padding.pad([0], to: 16384))) {
            XCTAssertEqual($0 as? TransportError, .handshake(.parse))
        }
    }

    func testServerSessionKeyChecks() throws {
        let key = CertChainPubKey(chain: credentials.chain, signedKey: try signed())
        XCTAssertEqual(try SMPHandshakeRules.serverSessionKey(key, keyHash: credentials.keyHash, tlsChain: credentials.chain),
                       serverKey.publicKey)
        let other = try ServerCredentials.generate(commonName: "other")
        // Another identity, another TLS leaf, a chain of one: BAD_AUTH.
        for (k, hash, tls) in [(key, other.keyHash, credentials.chain),
                               (key, credentials.keyHash, other.chain),
                               (CertChainPubKey(chain: [credentials.serverCertificateDER], signedKey: key.signedKey), credentials.keyHash, credentials.chain)] {
            XCTAssertThrowsError(try SMPHandshakeRules.serverSessionKey(k, keyHash: hash, tlsChain: tls)) {
                XCTAssertEqual($0 as? TransportError, .handshake(.badAuth))
            }
        }
    }

    func testEncryptedBlockRoundTripAndChains() throws {
        let dh = try serverKey.sharedSecret(with: clientKey.publicKey)
        var server = try EncryptedBlock.chainKeys(sessionId: sessionId, dhSecret: dh, isServer: true)
        var client = try EncryptedBlock.chainKeys(sessionId: sessionId, dhSecret: dh, isServer: false)
        XCTAssertEqual(server.send, client.receive)
        XCTAssertEqual(server.receive, client.send)
        for message in [Array("one".utf8), [UInt8](repeating: 9, count: EncryptedBlock.maxPayload), []] {
            let block = try EncryptedBlock.seal(message, chain: &client.send)
            XCTAssertEqual(block.count, 16384)
            XCTAssertEqual(try EncryptedBlock.open(block, chain: &server.receive), message)
        }
        XCTAssertThrowsError(try EncryptedBlock.seal([UInt8](repeating: 0, count: EncryptedBlock.maxPayload + 1), chain: &client.send))
        // Out of step (a replayed block) does not open.
        let b1 = try EncryptedBlock.seal([1], chain: &server.send)
        XCTAssertEqual(try EncryptedBlock.open(b1, chain: &client.receive), [1])
        XCTAssertThrowsError(try EncryptedBlock.open(b1, chain: &client.receive)) {
            XCTAssertEqual($0 as? TransportError, .largeMessage)
        }
    }
}
