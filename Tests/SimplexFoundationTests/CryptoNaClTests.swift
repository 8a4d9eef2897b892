import XCTest
@testable import SimplexFoundation

/// NaCl vectors: the "Alice/Bob" crypto_box vector of the NaCl distribution (tests/box.c,
/// secretbox.c, onetimeauth.c, core1.c, core2.c, stream.c) and RFC 8439 §2.5.2 for Poly1305.
final class CryptoNaClTests: XCTestCase {
    static let aliceSK = cryptoHex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a")
    static let alicePK = cryptoHex("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a")
    static let bobSK = cryptoHex("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb")
    static let bobPK = cryptoHex("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f")
    static let shared = cryptoHex("4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742")
    static let firstKey = cryptoHex("1b27556473e985d462cd51197a9a46c76009549eac6474f206c4ee0844f68389")
    static let nonce = cryptoHex("69696ee955b62b73cd62bda875fc73d68219e0036b7a0b37")
    static let message = cryptoHex("""
        be075fc53c81f2d5cf141316ebeb0c7b5228c52a4c62cbd44b66849b64244ffc\
        e5ecbaaf33bd751a1ac728d45e6c61296cdc3c01233561f41db66cce314adb31\
        0e3be8250c46f06dceea3a7fa1348057e2f6556ad6b1318a024a838f21af1fde\
        048977eb48f59ffd4924ca1c60902e52f0a089bc76897040e082f93776384864\
        5e0705
        """)
    /// tag || ciphertext, as crypto_box_easy lays it out.
    static let box = cryptoHex("""
        f3ffc7703f9400e52a7dfb4b3d3305d9\
        8e993b9f48681273c29650ba32fc76ce48332ea7164d96a4476fb8c531a1186a\
        c0dfc17c98dce87b4da7f011ec48c97271d2c20f9b928fe2270d6fb863d51738\
        b48eeee314a7cc8ab932164548e526ae90224368517acfeabd6bb3732bc0e9da\
        99832b61ca01b6de56244a9e88d5f9b37973f622a43d14a6599b1f654cb45a74\
        e355a5
        """)

    // MARK: vectors

    func testHSalsa20Vectors() throws {
        // core1: crypto_box_beforenm = HSalsa20(shared secret, 16 zero bytes)
        XCTAssertEqual(try Salsa20.hsalsa20(key: Self.shared, input: [UInt8](repeating: 0, count: 16)), Self.firstKey)
        // core2: the XSalsa20 subkey of the box nonce
        XCTAssertEqual(try Salsa20.hsalsa20(key: Self.firstKey, input: Array(Self.nonce.prefix(16))),
                       cryptoHex("dc908dda0b9344a953629b733820778880f3ceb421bb61b91cbd4c3e66256ce4"))
    }

    func testXSalsa20StreamVector() throws {
        // NaCl tests/stream.c: SHA-256 of the first 4,194,304 bytes of the XSalsa20 stream.
        let stream = try Salsa20.xsalsa20XOR(key: Self.firstKey, nonce: Self.nonce, [UInt8](repeating: 0, count: 4_194_304))
        XCTAssertEqual(CryptoHash.sha256(stream), cryptoHex("662b9d0e3463029156069b12f918691a98f7dfb2ca0393c96bbfc6b1fbd630a2"))
    }

    func testPoly1305RFC8439Vector() throws {
        let key = cryptoHex("85d6be7857556d337f4452fe42d506a80103808afb0db2fd4abff6af4149f51b")
        let tag = try Poly1305.authenticate(key: key, message: Array("Cryptographic Forum Research Group".utf8))
        XCTAssertEqual(tag, cryptoHex("a8061dc1305136c6c22b8baf0c0127a9"))
    }

    func testPoly1305NaClOnetimeauthVector() throws {
        let rs = cryptoHex("eea6a7251c1e72916d11c2cb214d3c252539121d8e234e652d651fa4c8cff880")
        let c = Array(Self.box.dropFirst(16))
        let tag = try Poly1305.authenticate(key: rs, message: c)
        XCTAssertEqual(tag, cryptoHex("f3ffc7703f9400e52a7dfb4b3d3305d9"))
        XCTAssertTrue(try Poly1305.verify(key: rs, message: c, tag: tag))
        XCTAssertFalse(try Poly1305.verify(key: rs, message: c + [0], tag: tag))
        XCTAssertFalse(try Poly1305.verify(key: rs, message: c, tag: Array(tag.dropLast())))
    }

    func testPoly1305EdgeCases() throws {
        // RFC 8439 A.3 #1: zero key, zero message -> zero tag; #2-style wraparound handled by finish.
        XCTAssertEqual(try Poly1305.authenticate(key: [UInt8](repeating: 0, count: 32), message: [UInt8](repeating: 0, count: 64)),
                       [UInt8](repeating: 0, count: 16))
        // RFC 8439 A.3 #6: R = 2, S = 0, message = 2^130 - 5 + ... -> h wraps to 3.
        var key = [UInt8](repeating: 0, count: 32)
        key[0] = 2
        let m = cryptoHex("ffffffffffffffffffffffffffffffff")
        XCTAssertEqual(try Poly1305.authenticate(key: key, message: m), cryptoHex("03000000000000000000000000000000"))
        // RFC 8439 A.3 #7: R = 1, message 2^130 - 5 region -> tag 5.
        key = [UInt8](repeating: 0, count: 32)
        key[0] = 1
        let m7 = cryptoHex("ffffffffffffffffffffffffffffffff f0ffffffffffffffffffffffffffffff 11000000000000000000000000000000")
        XCTAssertEqual(try Poly1305.authenticate(key: key, message: m7), cryptoHex("05000000000000000000000000000000"))
        // RFC 8439 A.3 #10
        let m10 = cryptoHex("e33594d7505e43b900000000000000003394d7505e4379cd01000000000000000000000000000000000000000000000001000000000000000000000000000000")
        key = cryptoHex("0100000000000000040000000000000000000000000000000000000000000000")
        XCTAssertEqual(try Poly1305.authenticate(key: key, message: m10), cryptoHex("14000000000000005500000000000000"))
        XCTAssertThrowsError(try Poly1305.authenticate(key: [1, 2, 3], message: []))
    }

    func testSecretBoxVector() throws {
        let sealed = try SecretBox.seal(key: Self.firstKey, nonce: Self.nonce, plaintext: Self.message)
        XCTAssertEqual(sealed, Self.box)
        XCTAssertEqual(try SecretBox.open(key: Self.firstKey, nonce: Self.nonce, box: Self.box), Self.message)
    }

    func testCryptoBoxAliceToBob() throws {
        let alice = try X25519PrivateKey(rawRepresentation: Self.aliceSK)
        let bob = try X25519PrivateKey(rawRepresentation: Self.bobSK)
        XCTAssertEqual(alice.publicKey.rawRepresentation, Self.alicePK)
        XCTAssertEqual(bob.publicKey.rawRepresentation, Self.bobPK)
        XCTAssertEqual(try alice.sharedSecret(with: bob.publicKey), Self.shared)

        // Alice seals to Bob; Bob opens with the mirror DH.
        let sealed = try CryptoBox.seal(publicKey: bob.publicKey, privateKey: alice, nonce: Self.nonce, plaintext: Self.message)
        XCTAssertEqual(sealed, Self.box)
        XCTAssertEqual(try CryptoBox.open(publicKey: alice.publicKey, privateKey: bob, nonce: Self.nonce, box: sealed), Self.message)

        // Precomputed (beforenm) key is the HSalsa20 "firstkey" and is the same from both sides.
        let k1 = try CryptoBox.sharedKey(publicKey: Self.bobPKKey(), privateKey: alice)
        let k2 = try CryptoBox.sharedKey(publicKey: alice.publicKey, privateKey: bob)
        XCTAssertEqual(k1.rawRepresentation, Self.firstKey)
        XCTAssertEqual(k1, k2)
        XCTAssertEqual(try CryptoBoxKey(dhSecret: Self.shared), k1)
        XCTAssertEqual(try CryptoBox.seal(key: k1, nonce: Self.nonce, plaintext: Self.message), Self.box)
        XCTAssertEqual(try CryptoBox.open(key: k2, nonce: Self.nonce, box: Self.box), Self.message)
    }

    static func bobPKKey() throws -> X25519PublicKey { try X25519PublicKey(rawRepresentation: bobPK) }

    // MARK: round trips, tampering, lengths

    func testSecretBoxRoundTripAllSmallLengths() throws {
        let key = SecureRandom.bytes(32), nonce = SecureRandom.bytes(24)
        for n in Array(0...200) + [1000, 16_384, 16_385] {
            let m = SecureRandom.bytes(n)
            let b = try SecretBox.seal(key: key, nonce: nonce, plaintext: m)
            XCTAssertEqual(b.count, n + 16)
            XCTAssertEqual(try SecretBox.open(key: key, nonce: nonce, box: b), m, "length \(n)")
        }
    }

    func testSecretBoxEncryptsAndDecryptsAcrossBlockBoundaries() throws {
        // Streaming must agree with one XSalsa20 pass: ciphertext = stream[32...] ^ m.
        let key = SecureRandom.bytes(32), nonce = SecureRandom.bytes(24)
        let m = SecureRandom.bytes(300)
        let stream = try Salsa20.xsalsa20XOR(key: key, nonce: nonce, [UInt8](repeating: 0, count: 332))
        let b = try SecretBox.seal(key: key, nonce: nonce, plaintext: m)
        XCTAssertEqual(Array(b.dropFirst(16)), zip(m, stream.dropFirst(32)).map { $0 ^ $1 })
        XCTAssertEqual(try Poly1305.authenticate(key: Array(stream.prefix(32)), message: Array(b.dropFirst(16))), Array(b.prefix(16)))
    }

    func testSecretBoxTamperAnyBitFails() throws {
        let key = SecureRandom.bytes(32), nonce = SecureRandom.bytes(24)
        let b = try SecretBox.seal(key: key, nonce: nonce, plaintext: Array("hello, SimpleX".utf8))
        for i in 0..<b.count {
            for bit in [0, 3, 7] {
                var t = b
                t[i] ^= UInt8(1 << bit)
                XCTAssertThrowsError(try SecretBox.open(key: key, nonce: nonce, box: t)) {
                    XCTAssertEqual($0 as? CryptoError, .decryptionFailed)
                }
            }
        }
        var wrongKey = key
        wrongKey[5] ^= 1
        XCTAssertThrowsError(try SecretBox.open(key: wrongKey, nonce: nonce, box: b)) { XCTAssertEqual($0 as? CryptoError, .decryptionFailed) }
        var wrongNonce = nonce
        wrongNonce[23] ^= 0x80
        XCTAssertThrowsError(try SecretBox.open(key: key, nonce: wrongNonce, box: b)) { XCTAssertEqual($0 as? CryptoError, .decryptionFailed) }
        // Truncated or extended boxes fail too.
        XCTAssertThrowsError(try SecretBox.open(key: key, nonce: nonce, box: Array(b.dropLast())))
        XCTAssertThrowsError(try SecretBox.open(key: key, nonce: nonce, box: b + [0]))
    }

    func testSecretBoxEmptyPlaintext() throws {
        let key = SecureRandom.bytes(32), nonce = SecureRandom.bytes(24)
        let b = try SecretBox.seal(key: key, nonce: nonce, plaintext: [])
        XCTAssertEqual(b.count, 16)
        XCTAssertEqual(try SecretBox.open(key: key, nonce: nonce, box: b), [])
    }

    func testWrongLengthsAreTypedErrors() {
        let key = SecureRandom.bytes(32), nonce = SecureRandom.bytes(24)
        func expectBadLength(_ body: () throws -> Any) {
            XCTAssertThrowsError(try body()) {
                guard case CryptoError.badLength = $0 else { return XCTFail("expected badLength, got \($0)") }
            }
        }
        expectBadLength { try SecretBox.seal(key: Array(key.prefix(31)), nonce: nonce, plaintext: [1]) }
        expectBadLength { try SecretBox.seal(key: key + [0], nonce: nonce, plaintext: [1]) }
        expectBadLength { try SecretBox.seal(key: key, nonce: Array(nonce.prefix(12)), plaintext: [1]) }
        expectBadLength { try SecretBox.open(key: key, nonce: nonce + [0], box: [UInt8](repeating: 0, count: 32)) }
        for n in 0..<16 {
            expectBadLength { try SecretBox.open(key: key, nonce: nonce, box: [UInt8](repeating: 0, count: n)) }
        }
        expectBadLength { try Salsa20.hsalsa20(key: key, input: [0]) }
        expectBadLength { try Salsa20.xsalsa20XOR(key: [], nonce: nonce, [1]) }
        expectBadLength { try CryptoBoxKey(dhSecret: [1, 2]) }
        expectBadLength { try CryptoBoxKey(rawRepresentation: []) }
    }

    // MARK: simplexmq padded variants

    func testCbEncryptPadsToFixedSize() throws {
        let key = try CryptoBoxKey(dhSecret: SecureRandom.bytes(32))
        let nonce = SecureRandom.bytes(24)
        for msg in [[], Array("hi".utf8), SecureRandom.bytes(16_104)] {
            let b = try CryptoBox.cbEncrypt(key: key, nonce: nonce, message: msg, paddedLength: 16_106)
            XCTAssertEqual(b.count, 16 + 16_106)
            XCTAssertEqual(try CryptoBox.cbDecrypt(key: key, nonce: nonce, box: b), msg)
            // The padded plaintext is Padding.pad's layout.
            XCTAssertEqual(try CryptoBox.open(key: key, nonce: nonce, box: b), try Padding.pad(msg, to: 16_106))
        }
        XCTAssertThrowsError(try CryptoBox.cbEncrypt(key: key, nonce: nonce, message: SecureRandom.bytes(16_105), paddedLength: 16_106)) {
            guard case CryptoError.invalidPadding = $0 else { return XCTFail("\($0)") }
        }
    }

    func testCbDecryptRejectsBadPaddingAndTampering() throws {
        let key = try CryptoBoxKey(dhSecret: SecureRandom.bytes(32))
        let nonce = SecureRandom.bytes(24)
        // A validly sealed plaintext whose length prefix exceeds its content.
        let bogus = try CryptoBox.seal(key: key, nonce: nonce, plaintext: [0xFF, 0xFF, 1, 2])
        XCTAssertThrowsError(try CryptoBox.cbDecrypt(key: key, nonce: nonce, box: bogus)) {
            guard case CryptoError.invalidPadding = $0 else { return XCTFail("\($0)") }
        }
        let one = try CryptoBox.seal(key: key, nonce: nonce, plaintext: [7])
        XCTAssertThrowsError(try CryptoBox.cbDecrypt(key: key, nonce: nonce, box: one))
        var b = try CryptoBox.cbEncrypt(key: key, nonce: nonce, message: [1, 2, 3], paddedLength: 64)
        b[40] ^= 1
        XCTAssertThrowsError(try CryptoBox.cbDecrypt(key: key, nonce: nonce, box: b)) { XCTAssertEqual($0 as? CryptoError, .decryptionFailed) }
    }

    func testCbEncryptWithDhSecretMatchesCryptoBox() throws {
        // simplexmq cbEncrypt takes the raw DH secret: the same bytes as crypto_box of the padded message.
        let padded = try Padding.pad(Self.message, to: 200)
        let viaSecret = try CryptoBox.cbEncrypt(dhSecret: Self.shared, nonce: Self.nonce, message: Self.message, paddedLength: 200)
        let alice = try X25519PrivateKey(rawRepresentation: Self.aliceSK)
        let viaBox = try CryptoBox.seal(publicKey: Self.bobPKKey(), privateKey: alice, nonce: Self.nonce, plaintext: padded)
        XCTAssertEqual(viaSecret, viaBox)
        XCTAssertEqual(try CryptoBox.cbDecrypt(dhSecret: Self.shared, nonce: Self.nonce, box: viaSecret), Self.message)
    }

    func testSbEncryptIsCryptoBoxKeyedBySbKeyNotPlainSecretbox() throws {
        // simplexmq's xSalsa20 runs HSalsa20(key, 0^16) before the nonce step, for SbKey too.
        let sbKey = SecureRandom.bytes(32), nonce = SecureRandom.bytes(24)
        let b = try CryptoBox.sbEncrypt(sbKey: sbKey, nonce: nonce, message: [1, 2, 3], paddedLength: 32)
        let derived = try Salsa20.hsalsa20(key: sbKey, input: [UInt8](repeating: 0, count: 16))
        XCTAssertEqual(try Padding.unpad(try SecretBox.open(key: derived, nonce: nonce, box: b)), [1, 2, 3])
        XCTAssertThrowsError(try SecretBox.open(key: sbKey, nonce: nonce, box: b))
        XCTAssertEqual(try CryptoBox.sbDecrypt(sbKey: sbKey, nonce: nonce, box: b), [1, 2, 3])
    }

    func testCbNonceFromMessageID() {
        XCTAssertEqual(CryptoBox.nonce(from: [1, 2, 3]), [1, 2, 3] + [UInt8](repeating: 0, count: 21))
        XCTAssertEqual(CryptoBox.nonce(from: Array(0..<30)), Array(0..<24))
        XCTAssertEqual(CryptoBox.nonce(from: [UInt8]()).count, 24)
    }

    func testLowOrderPublicKeyIsRejected() throws {
        // libsodium box.c "small_order_p": X25519 with it gives all zeros.
        let smallOrder = try X25519PublicKey(rawRepresentation: cryptoHex("e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800"))
        let alice = try X25519PrivateKey(rawRepresentation: Self.aliceSK)
        XCTAssertThrowsError(try CryptoBox.sharedKey(publicKey: smallOrder, privateKey: alice)) {
            guard case CryptoError.invalidKey = $0 else { return XCTFail("\($0)") }
        }
    }

    /// Prints throughput only (debug builds are slow; measure in release for real numbers).
    func testSecretBoxThroughputPrintsOnly() throws {
        let key = SecureRandom.bytes(32), nonce = SecureRandom.bytes(24), m = SecureRandom.bytes(16_384)
        let iterations = 50
        let start = ContinuousClock.now
        var sink: UInt8 = 0
        for _ in 0..<iterations { sink ^= try SecretBox.seal(key: key, nonce: nonce, plaintext: m)[0] }
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print("secretbox 16 KB: \(Int(Double(iterations * 16_384) / seconds / 1e6)) MB/s (this build) [\(sink)]")
    }
}
