import XCTest
@testable import SimplexFoundation

/// AES-256-GCM with the double ratchet's 16-byte IVs. Vectors: McGrew-Viega GCM spec test case 18
/// (AES-256, 60-byte IV: exercises the GHASH-derived counter block), and a 16-byte-IV vector
/// computed with OpenSSL (pyca/cryptography).
final class CryptoAESGCMTests: XCTestCase {
    func testMcGrewViegaCase18NonStandardIV() throws {
        let key = cryptoHex("feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308")
        let iv = cryptoHex("""
            9313225df88406e555909c5aff5269aa6a7a9538534f7da1e4c303d2a318a728\
            c3c0c95156809539fcf0e2429a6b525416aedbf5a0de6a57a637b39b
            """)
        let plaintext = cryptoHex("""
            d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72\
            1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39
            """)
        let aad = cryptoHex("feedfacedeadbeeffeedfacedeadbeefabaddad2")
        let expected = cryptoHex("""
            5a8def2f0c9e53f1f75d7853659e2a20eeb2b22aafde6419a058ab4f6f746bf4\
            0fc0c3b780f244452da3ebf1c5d82cdea2418997200ef82e44ae7e3f
            """)
        let (c, tag) = try AESGCM.seal(key: key, iv: iv, plaintext: plaintext, aad: aad)
        XCTAssertEqual(c, expected)
        XCTAssertEqual(tag, cryptoHex("a44a8266ee1c8eb0c8b5d4cf5ae9f19a"))
        XCTAssertEqual(try AESGCM.open(key: key, iv: iv, ciphertext: c, aad: aad, tag: tag), plaintext)
    }

    func testSixteenByteIVVector() throws {
        let key = Array(0..<32) as [UInt8], iv = Array(0..<16) as [UInt8]
        let (c, tag) = try AESGCM.seal(key: key, iv: iv, plaintext: Array("SimpleX ratchet message".utf8), aad: Array("header".utf8))
        XCTAssertEqual(c, cryptoHex("3405cd0655811208ef9eaf4a3dc1589339d618d206eab6"))
        XCTAssertEqual(tag, cryptoHex("1f1809efe859264aed43032048990d52"))
    }

    func testRoundTripAndTamper() throws {
        let key = SecureRandom.bytes(32), iv = SecureRandom.bytes(16), aad = SecureRandom.bytes(50)
        let m = SecureRandom.bytes(333)
        let (c, tag) = try AESGCM.seal(key: key, iv: iv, plaintext: m, aad: aad)
        XCTAssertEqual(tag.count, 16)
        XCTAssertEqual(try AESGCM.open(key: key, iv: iv, ciphertext: c, aad: aad, tag: tag), m)

        func expectFailure(ciphertext: [UInt8] = c, aad a: [UInt8] = aad, tag t: [UInt8] = tag, iv v: [UInt8] = iv, key k: [UInt8] = key) {
            XCTAssertThrowsError(try AESGCM.open(key: k, iv: v, ciphertext: ciphertext, aad: a, tag: t)) {
                XCTAssertEqual($0 as? CryptoError, .decryptionFailed)
            }
        }
        for i in stride(from: 0, to: c.count, by: 17) {
            var t = c
            t[i] ^= 0x10
            expectFailure(ciphertext: t)
        }
        for i in 0..<16 {
            var t = tag
            t[i] ^= 1
            expectFailure(tag: t)
        }
        var a2 = aad
        a2[0] ^= 1
        expectFailure(aad: a2)
        var iv2 = iv
        iv2[15] ^= 1
        expectFailure(iv: iv2)
        var k2 = key
        k2[31] ^= 1
        expectFailure(key: k2)
        expectFailure(ciphertext: Array(c.dropLast()))
    }

    func testEmptyPlaintextAndAAD() throws {
        let key = SecureRandom.bytes(32), iv = SecureRandom.bytes(16)
        let (c, tag) = try AESGCM.seal(key: key, iv: iv, plaintext: [])
        XCTAssertEqual(c, [])
        XCTAssertEqual(try AESGCM.open(key: key, iv: iv, ciphertext: [], tag: tag), [])
    }

    func testBadLengthsAreTypedErrors() {
        let key = SecureRandom.bytes(32), iv = SecureRandom.bytes(16)
        func expectBadLength(_ body: () throws -> Any) {
            XCTAssertThrowsError(try body()) {
                guard case CryptoError.badLength = $0 else { return XCTFail("expected badLength, got \($0)") }
            }
        }
        expectBadLength { try AESGCM.seal(key: Array(key.prefix(16)), iv: iv, plaintext: [1]) }
        expectBadLength { try AESGCM.seal(key: key, iv: Array(iv.prefix(8)), plaintext: [1]) }
        expectBadLength { try AESGCM.open(key: key, iv: iv, ciphertext: [1], tag: [1, 2, 3]) }
        expectBadLength { try AESGCM.open(key: [], iv: iv, ciphertext: [1], tag: [UInt8](repeating: 0, count: 16)) }
    }

    func testEncryptAEADPadsAndDecryptAEADUnpads() throws {
        let key = SecureRandom.bytes(32), iv = SecureRandom.bytes(16), header = Array("ratchet header".utf8)
        for msg in [[], Array("hello Bob".utf8), SecureRandom.bytes(14_000)] {
            let (c, tag) = try AESGCM.encryptAEAD(key: key, iv: iv, paddedLength: 15_000, aad: header, message: msg)
            XCTAssertEqual(c.count, 15_000)
            XCTAssertEqual(try AESGCM.decryptAEAD(key: key, iv: iv, aad: header, ciphertext: c, tag: tag), msg)
        }
        XCTAssertThrowsError(try AESGCM.encryptAEAD(key: key, iv: iv, paddedLength: 10, aad: [], message: SecureRandom.bytes(9))) {
            guard case CryptoError.invalidPadding = $0 else { return XCTFail("\($0)") }
        }
        // A sealed plaintext that is not a padded string fails to unpad with a typed error.
        let (c, tag) = try AESGCM.seal(key: key, iv: iv, plaintext: [0xFF, 0xFF, 0], aad: [])
        XCTAssertThrowsError(try AESGCM.decryptAEAD(key: key, iv: iv, aad: [], ciphertext: c, tag: tag)) {
            guard case CryptoError.invalidPadding = $0 else { return XCTFail("\($0)") }
        }
    }
}
