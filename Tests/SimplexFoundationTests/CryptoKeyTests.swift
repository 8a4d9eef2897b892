import XCTest
@testable import SimplexFoundation

/// Key pairs, agreement, signatures (RFC 7748 / RFC 8032 vectors) and SMP's x509/PKCS#8 key
/// encodings (expected DER produced independently by OpenSSL).
final class CryptoKeyTests: XCTestCase {
    // RFC 8032 §7.1 TEST 1 (Ed25519, empty message)
    static let ed25519SK = cryptoHex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
    static let ed25519PK = cryptoHex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
    static let ed25519Sig = cryptoHex("""
        e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b
        """)
    // RFC 8032 §7.4 "Blank" (Ed448, empty message, empty context)
    static let ed448SK = cryptoHex("6c82a562cb808d10d632be89c8513ebf6c929f34ddfa8c9f63c9960ef6e348a3528c8a3fcc2f044e39a3fc5b94492f8f032e7549a20098f95b")
    static let ed448PK = cryptoHex("5fd7449b59b461fd2ce787ec616ad46a1da1342485a70e1f8a0ea75d80e96778edf124769b46c7061bd6783df1e50f6cd1fa1abeafe8256180")
    static let ed448Sig = cryptoHex("""
        533a37f6bbe457251f023c0d88f976ae2dfb504a843e34d2074fd823d41a591f2b233f034f628281f2fd7a22ddd47d7828c59bd0a21bfd3980ff0d2028d4b18a\
        9df63e006c5d1c2d345b925d8dc00b4104852db99ac5c7cdda8530a113a0f4dbb61149f05a7363268c71d95808ff2e652600
        """)
    // RFC 7748 §6.2 (X448)
    static let x448AliceSK = cryptoHex("9a8f4925d1519f5775cf46b04b5800d4ee9ee8bae8bc5565d498c28dd9c9baf574a9419744897391006382a6f127ab1d9ac2d8c0a598726b")
    static let x448AlicePK = cryptoHex("9b08f7cc31b7e3e67d22d5aea121074a273bd2b83de09c63faa73d2c22c5d9bbc836647241d953d40c5b12da88120d53177f80e532c41fa0")
    static let x448BobSK = cryptoHex("1c306a7ac2a0e2e0990b294470cba339e6453772b075811d8fad0d1d6927c120bb5ee8972b0d3e21374c9c921b09d1b0366f10b65173992d")
    static let x448BobPK = cryptoHex("3eb7a829b0cd20f5bcfc0b599b6feccf6da4627107bdb0d4f345b43027d8b972fc3e34fb4232a13ca706dcb57aec3dae07bdc1c67bf33609")
    static let x448Shared = cryptoHex("07fff4181ac6cc95ec1c16a94a0f74d12da232ce40a77552281d282bb60c0b56fd2464c335543936521c24403085d59a449a5037514a879d")

    // MARK: Ed25519 / X25519

    func testEd25519RFC8032Vector() throws {
        let sk = try Ed25519PrivateKey(rawRepresentation: Self.ed25519SK)
        XCTAssertEqual(sk.publicKey.rawRepresentation, Self.ed25519PK)
        let pk = try Ed25519PublicKey(rawRepresentation: Self.ed25519PK)
        XCTAssertTrue(pk.isValidSignature(Self.ed25519Sig, for: []))
        XCTAssertFalse(pk.isValidSignature(Self.ed25519Sig, for: [0]))
        var bad = Self.ed25519Sig
        bad[10] ^= 1
        XCTAssertFalse(pk.isValidSignature(bad, for: []))
        XCTAssertFalse(pk.isValidSignature(Array(Self.ed25519Sig.prefix(63)), for: []))
        XCTAssertFalse(pk.isValidSignature([], for: []))
    }

    func testEd25519SignVerifyRoundTrip() throws {
        let sk = Ed25519PrivateKey()
        let msg = Array("SEND hello".utf8)
        let sig = try sk.sign(msg)
        XCTAssertEqual(sig.count, 64)
        XCTAssertTrue(sk.publicKey.isValidSignature(sig, for: msg))
        XCTAssertFalse(Ed25519PrivateKey().publicKey.isValidSignature(sig, for: msg))
        XCTAssertEqual(try Ed25519PrivateKey(rawRepresentation: sk.rawRepresentation), sk)
    }

    /// The identity point as a key with R = identity and S = 0 "signs" every message for a lax
    /// verifier (swift-crypto accepted it); a queue key like that must not authorize anything.
    func testEd25519RefusesSmallOrderKeyAndNonCanonicalS() throws {
        let identity: [UInt8] = [1] + [UInt8](repeating: 0, count: 31)
        let key = try Ed25519PublicKey(rawRepresentation: identity)
        let forged = identity + [UInt8](repeating: 0, count: 32)
        XCTAssertFalse(key.isValidSignature(forged, for: Array("SEND anything".utf8)))
        XCTAssertFalse(key.isValidSignature(forged, for: []))
        // S + L in place of S: the same point, a second encoding of one signature.
        let sk = Ed25519PrivateKey()
        let msg = Array("ACK".utf8)
        let sig = try sk.sign(msg)
        let l: [UInt8] = [0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14,
                          0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10]
        var s = Array(sig[32...]), carry = 0
        for i in 0..<32 { let v = Int(s[i]) + Int(l[i]) + carry; s[i] = UInt8(v & 0xff); carry = v >> 8 }
        if carry == 0 { XCTAssertFalse(sk.publicKey.isValidSignature(Array(sig[..<32]) + s, for: msg)) }
        XCTAssertTrue(sk.publicKey.isValidSignature(sig, for: msg))
    }

    func testX25519AgreementBothSides() throws {
        let a = X25519PrivateKey(), b = X25519PrivateKey()
        let s1 = try a.sharedSecret(with: b.publicKey), s2 = try b.sharedSecret(with: a.publicKey)
        XCTAssertEqual(s1.count, 32)
        XCTAssertEqual(s1, s2)
        XCTAssertNotEqual(a, b)
        XCTAssertEqual(try X25519PrivateKey(rawRepresentation: a.rawRepresentation), a)
    }

    // MARK: X448 / Ed448 through OpenSSL

    func testX448RFC7748Vector() throws {
        let alice = try X448PrivateKey(rawRepresentation: Self.x448AliceSK)
        let bob = try X448PrivateKey(rawRepresentation: Self.x448BobSK)
        XCTAssertEqual(alice.publicKey.rawRepresentation, Self.x448AlicePK)
        XCTAssertEqual(bob.publicKey.rawRepresentation, Self.x448BobPK)
        XCTAssertEqual(try alice.sharedSecret(with: bob.publicKey), Self.x448Shared)
        XCTAssertEqual(try bob.sharedSecret(with: alice.publicKey), Self.x448Shared)
    }

    func testX448RandomAgreementAndLowOrderKey() throws {
        let a = X448PrivateKey(), b = X448PrivateKey()
        XCTAssertEqual(try a.sharedSecret(with: b.publicKey), try b.sharedSecret(with: a.publicKey))
        // The zero point (and u = 1) are low order: agreement must fail with a typed error.
        for u: UInt8 in [0, 1] {
            var raw = [UInt8](repeating: 0, count: 56)
            raw[0] = u
            XCTAssertThrowsError(try a.sharedSecret(with: X448PublicKey(rawRepresentation: raw))) {
                guard case CryptoError.invalidKey = $0 else { return XCTFail("\($0)") }
            }
        }
    }

    func testEd448RFC8032Vector() throws {
        let sk = try Ed448PrivateKey(rawRepresentation: Self.ed448SK)
        XCTAssertEqual(sk.publicKey.rawRepresentation, Self.ed448PK)
        XCTAssertEqual(try sk.sign([]), Self.ed448Sig)
        let pk = try Ed448PublicKey(rawRepresentation: Self.ed448PK)
        XCTAssertTrue(pk.isValidSignature(Self.ed448Sig, for: []))
        XCTAssertFalse(pk.isValidSignature(Self.ed448Sig, for: [1]))
        var bad = Self.ed448Sig
        bad[100] ^= 4
        XCTAssertFalse(pk.isValidSignature(bad, for: []))
        XCTAssertFalse(pk.isValidSignature(Array(bad.prefix(64)), for: []))
    }

    func testEd448RoundTripAndGarbagePublicKey() throws {
        let sk = Ed448PrivateKey()
        let msg = SecureRandom.bytes(1000)
        let sig = try sk.sign(msg)
        XCTAssertEqual(sig.count, 114)
        XCTAssertTrue(sk.publicKey.isValidSignature(sig, for: msg))
        // A 57-byte string that is not a curve point verifies nothing and does not crash.
        let garbage = try Ed448PublicKey(rawRepresentation: [UInt8](repeating: 0xFF, count: 57))
        XCTAssertFalse(garbage.isValidSignature(sig, for: msg))
    }

    func testRawKeyLengthsAreChecked() {
        func expectInvalidKey(_ body: () throws -> Any) {
            XCTAssertThrowsError(try body()) {
                guard case CryptoError.invalidKey = $0 else { return XCTFail("expected invalidKey, got \($0)") }
            }
        }
        expectInvalidKey { try X25519PublicKey(rawRepresentation: [UInt8](repeating: 1, count: 31)) }
        expectInvalidKey { try X25519PrivateKey(rawRepresentation: [UInt8](repeating: 1, count: 33)) }
        expectInvalidKey { try Ed25519PublicKey(rawRepresentation: []) }
        expectInvalidKey { try Ed25519PrivateKey(rawRepresentation: [1]) }
        expectInvalidKey { try X448PublicKey(rawRepresentation: [UInt8](repeating: 1, count: 57)) }
        expectInvalidKey { try X448PrivateKey(rawRepresentation: [UInt8](repeating: 1, count: 32)) }
        expectInvalidKey { try Ed448PublicKey(rawRepresentation: [UInt8](repeating: 1, count: 56)) }
        expectInvalidKey { try Ed448PrivateKey(rawRepresentation: [UInt8](repeating: 1, count: 56)) }
    }

    // MARK: x509 / PKCS#8 encodings

    func testX509EncodingsMatchOpenSSL() throws {
        XCTAssertEqual(try Ed25519PublicKey(rawRepresentation: Self.ed25519PK).x509Encoded,
                       cryptoHex("302a300506032b6570032100") + Self.ed25519PK)
        XCTAssertEqual(try X25519PublicKey(rawRepresentation: CryptoNaClTests.alicePK).x509Encoded,
                       cryptoHex("302a300506032b656e032100") + CryptoNaClTests.alicePK)
        XCTAssertEqual(try Ed448PublicKey(rawRepresentation: Self.ed448PK).x509Encoded,
                       cryptoHex("3043300506032b6571033a00") + Self.ed448PK)
        XCTAssertEqual(try X448PublicKey(rawRepresentation: Self.x448AlicePK).x509Encoded,
                       cryptoHex("3042300506032b656f033900") + Self.x448AlicePK)
    }

    func testPKCS8EncodingsMatchOpenSSL() throws {
        XCTAssertEqual(try Ed25519PrivateKey(rawRepresentation: Self.ed25519SK).pkcs8Encoded,
                       cryptoHex("302e020100300506032b657004220420") + Self.ed25519SK)
        XCTAssertEqual(try X25519PrivateKey(rawRepresentation: CryptoNaClTests.aliceSK).pkcs8Encoded,
                       cryptoHex("302e020100300506032b656e04220420") + CryptoNaClTests.aliceSK)
        XCTAssertEqual(try Ed448PrivateKey(rawRepresentation: Self.ed448SK).pkcs8Encoded,
                       cryptoHex("3047020100300506032b6571043b0439") + Self.ed448SK)
        XCTAssertEqual(try X448PrivateKey(rawRepresentation: Self.x448AliceSK).pkcs8Encoded,
                       cryptoHex("3046020100300506032b656f043a0438") + Self.x448AliceSK)
    }

    func testPolymorphicDecoderRecognizesAllFourAlgorithms() throws {
        for algorithm in KeyAlgorithm.allCases {
            let sk = AnyPrivateKey.generate(algorithm)
            let pk = sk.publicKey
            let decoded = try AnyPublicKey(x509Encoded: pk.x509Encoded)
            XCTAssertEqual(decoded, pk)
            XCTAssertEqual(decoded.algorithm, algorithm)
            XCTAssertEqual(decoded.rawRepresentation.count, algorithm.publicKeyLength)
            let restored = try AnyPrivateKey(pkcs8Encoded: sk.pkcs8Encoded)
            XCTAssertEqual(restored, sk)
            XCTAssertEqual(restored.publicKey, pk)
        }
    }

    func testTypedDecodersRejectOtherAlgorithms() throws {
        let ed = Ed25519PrivateKey().publicKey.x509Encoded
        XCTAssertNoThrow(try Ed25519PublicKey(x509Encoded: ed))
        XCTAssertThrowsError(try X25519PublicKey(x509Encoded: ed)) {
            guard case CryptoError.unsupportedAlgorithm = $0 else { return XCTFail("\($0)") }
        }
        let x448 = X448PrivateKey().publicKey.x509Encoded
        XCTAssertThrowsError(try AnyPublicKey(x509Encoded: x448, allowing: AnyPublicKey.authAlgorithms)) {
            guard case CryptoError.unsupportedAlgorithm = $0 else { return XCTFail("\($0)") }
        }
        XCTAssertNoThrow(try AnyPublicKey(x509Encoded: ed, allowing: AnyPublicKey.authAlgorithms))
        XCTAssertNoThrow(try X448PublicKey(x509Encoded: x448))
        XCTAssertNoThrow(try Ed448PublicKey(x509Encoded: Ed448PrivateKey().publicKey.x509Encoded))
        XCTAssertThrowsError(try Ed448PrivateKey(pkcs8Encoded: X448PrivateKey().pkcs8Encoded))
        XCTAssertNoThrow(try X25519PrivateKey(pkcs8Encoded: X25519PrivateKey().pkcs8Encoded))
        XCTAssertNoThrow(try Ed25519PrivateKey(pkcs8Encoded: Ed25519PrivateKey().pkcs8Encoded))
    }

    func testDecoderRejectsNonRFC8410Keys() {
        // An RSA AlgorithmIdentifier (OID 1.2.840.113549.1.1.1, NULL parameters) with no key.
        let rsa = cryptoHex("300f300d06092a864886f70d0101010500")
        XCTAssertThrowsError(try AnyPublicKey(x509Encoded: rsa))
        let rsaWellFormed = cryptoHex("3016300d06092a864886f70d010101050003050030020100")
        XCTAssertThrowsError(try AnyPublicKey(x509Encoded: rsaWellFormed)) {
            XCTAssertEqual($0 as? CryptoError, .unsupportedAlgorithm("key OID 1.2.840.113549.1.1.1"))
        }
        // P-256 (1.2.840.10045.2.1)
        let ec = cryptoHex("3013300906072a8648ce3d020103060000000000")
        XCTAssertThrowsError(try AnyPublicKey(x509Encoded: ec))
    }

    func testDecoderNeverTrapsOnMalformedDER() {
        let valid = Ed25519PrivateKey().publicKey.x509Encoded
        // Every truncation, every single-byte corruption of the header, and trailing bytes.
        for n in 0..<valid.count {
            XCTAssertThrowsError(try AnyPublicKey(x509Encoded: Array(valid.prefix(n))))
        }
        XCTAssertThrowsError(try AnyPublicKey(x509Encoded: valid + [0]))
        for i in 0..<12 {
            for v: UInt8 in [0x00, 0x01, 0x7F, 0x80, 0x81, 0x82, 0x84, 0xFF] where v != valid[i] {
                var t = valid
                t[i] = v
                _ = try? AnyPublicKey(x509Encoded: t)  // must not trap; some corruptions still decode
            }
        }
        // Wrong key length inside a well-formed structure.
        let short = cryptoHex("3029300506032b6570032000") + [UInt8](repeating: 1, count: 31)
        XCTAssertThrowsError(try AnyPublicKey(x509Encoded: short)) {
            guard case CryptoError.invalidKey = $0 else { return XCTFail("\($0)") }
        }
        // Non-zero unused bits in the BIT STRING.
        var unused = valid
        unused[11] = 1
        XCTAssertThrowsError(try AnyPublicKey(x509Encoded: unused))
        // Parameters present for Ed25519.
        let withParams = cryptoHex("302c300706032b65700500032100") + [UInt8](repeating: 1, count: 32)
        XCTAssertThrowsError(try AnyPublicKey(x509Encoded: withParams))
        // Non-minimal long-form length.
        let longForm = cryptoHex("30812a300506032b6570032100") + [UInt8](repeating: 1, count: 32)
        XCTAssertThrowsError(try AnyPublicKey(x509Encoded: longForm)) {
            guard case CryptoError.invalidEncoding = $0 else { return XCTFail("\($0)") }
        }
        XCTAssertThrowsError(try AnyPublicKey(x509Encoded: []))
    }

    func testPKCS8DecoderAcceptsV2WithPublicKeyAndRejectsGarbage() throws {
        // RFC 8410 §10.3 example: OneAsymmetricKey v2 with attributes and public key.
        let v2 = cryptoHex("""
            3072020101300506032b657004220420d4ee72dbf913584ad5b6d8f1f769f8ad3afe7c28cbf1d4fbe097a88f44755842\
            a01f301d060a2a864886f70d01090914310f0c0d437572646c6520436861697273\
            81210019bf44096984cdfe8541bac167dc3b96c85086aa30b6b6cb0c5c38ad703166e1
            """)
        let sk = try AnyPrivateKey(pkcs8Encoded: v2)
        XCTAssertEqual(sk.algorithm, .ed25519)
        XCTAssertEqual(sk.rawRepresentation, cryptoHex("d4ee72dbf913584ad5b6d8f1f769f8ad3afe7c28cbf1d4fbe097a88f44755842"))
        let valid = X448PrivateKey().pkcs8Encoded
        for n in 0..<valid.count {
            XCTAssertThrowsError(try AnyPrivateKey(pkcs8Encoded: Array(valid.prefix(n))))
        }
        XCTAssertThrowsError(try AnyPrivateKey(pkcs8Encoded: valid + [0]))
        var badVersion = valid
        badVersion[4] = 5
        XCTAssertThrowsError(try AnyPrivateKey(pkcs8Encoded: badVersion))
    }

    func testAnyKeySignAndVerify() throws {
        for algorithm in [KeyAlgorithm.ed25519, .ed448] {
            let sk = AnyPrivateKey.generate(algorithm)
            let sig = try sk.sign([1, 2, 3])
            XCTAssertEqual(sig.count, algorithm.signatureLength)
            XCTAssertTrue(sk.publicKey.isValidSignature(sig, for: [1, 2, 3]))
            XCTAssertFalse(sk.publicKey.isValidSignature(sig, for: [1, 2]))
        }
        let dh = AnyPrivateKey.generate(.x25519)
        XCTAssertThrowsError(try dh.sign([1]))
        XCTAssertFalse(dh.publicKey.isValidSignature([UInt8](repeating: 0, count: 64), for: [1]))
        // An Ed25519 key given an Ed448-sized signature is simply invalid.
        let ed = AnyPrivateKey.generate(.ed25519)
        XCTAssertFalse(ed.publicKey.isValidSignature([UInt8](repeating: 0, count: 114), for: [1]))
    }

    func testKeysCrossConcurrencyDomains() async throws {
        // Keys are Sendable values: sign on one task, verify on another.
        let sk = Ed448PrivateKey()
        let sig = try await Task.detached { try sk.sign([42]) }.value
        let ok = await Task.detached { sk.publicKey.isValidSignature(sig, for: [42]) }.value
        XCTAssertTrue(ok)
    }

    func testOneX448KeyUsedFromManyTasksAtOnce() async throws {
        // X448PrivateKey shares one OpenSSL key object between copies; concurrent agreements
        // must all give the same secret.
        let ours = X448PrivateKey(), peer = X448PrivateKey()
        let expected = try peer.sharedSecret(with: ours.publicKey)
        let results = try await withThrowingTaskGroup(of: [UInt8].self) { group in
            for _ in 0..<16 {
                group.addTask { try ours.sharedSecret(with: peer.publicKey) }
            }
            return try await group.reduce(into: [[UInt8]]()) { $0.append($1) }
        }
        XCTAssertEqual(results.count, 16)
        XCTAssertTrue(results.allSatisfy { $0 == expected })
    }
}
