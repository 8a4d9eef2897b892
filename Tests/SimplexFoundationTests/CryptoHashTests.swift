import XCTest
@testable import SimplexFoundation

/// Hex literal to bytes, for the published test vectors of the Crypto*Tests files.
func cryptoHex(_ s: String) -> [UInt8] {
    let chars = Array(s.filter { !$0.isWhitespace }.utf8)
    precondition(chars.count % 2 == 0, "odd hex length")
    func nibble(_ c: UInt8) -> UInt8 {
        switch c {
        case 48...57: return c - 48
        case 97...102: return c - 87
        case 65...70: return c - 55
        default: preconditionFailure("bad hex digit")
        }
    }
    return stride(from: 0, to: chars.count, by: 2).map { nibble(chars[$0]) << 4 | nibble(chars[$0 + 1]) }
}

final class CryptoHashTests: XCTestCase {
    func testSHA256AndSHA512OfABC() {
        let abc = Array("abc".utf8)
        XCTAssertEqual(CryptoHash.sha256(abc), cryptoHex("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"))
        XCTAssertEqual(CryptoHash.sha512(abc), cryptoHex("""
            ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a\
            2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f
            """))
        XCTAssertEqual(CryptoHash.sha512(abc[...]), CryptoHash.sha512(abc))
    }

    /// FIPS 202 example values (short links use SHA3-256 link keys and SHA3-384 sender IDs).
    func testSHA3OfABCAndEmpty() {
        let abc = Array("abc".utf8)
        XCTAssertEqual(CryptoHash.sha3_256(abc), cryptoHex("3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532"))
        XCTAssertEqual(CryptoHash.sha3_384(abc), cryptoHex("""
            ec01498288516fc926459f58e2c6ad8df9b473cb0fc08c2596da7cf0\
            e49be4b298d88cea927ac7f539f1edf228376d25
            """))
        XCTAssertEqual(CryptoHash.sha3_256([]), cryptoHex("a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a"))
    }

    func testHMACSHA512RFC4231Case2() {
        let mac = CryptoHash.hmacSHA512(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))
        XCTAssertEqual(mac, cryptoHex("""
            164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea250554\
            9758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737
            """))
    }

    /// RFC 4231 case 6 (a key longer than SHA-512's block is hashed first) and an empty key (128
    /// zero bytes), expected values from Python's hmac; the C HMAC sets up each key's pads itself.
    func testHMACSHA512LongAndEmptyKeys() {
        let long = CryptoHash.hmacSHA512(key: [UInt8](repeating: 0xaa, count: 131),
                                         message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8))
        XCTAssertEqual(long, cryptoHex("""
            80b24263c7c1a3ebb71493c1dd7be8b49b46d1f41b4aeec1121b013783f8f352\
            6b56d037e05f2598bd0fd2215d6a1e5295e64f73f63f0aec8b915a985d786598
            """))
        let empty = CryptoHash.hmacSHA512(key: [UInt8](), message: Array("message".utf8))
        XCTAssertEqual(empty, cryptoHex("""
            08fce52f6395d59c2a3fb8abb281d74ad6f112b9a9c787bcea290d94dadbc82b\
            2ca3e5e12bf2277c7fedbb0154d5493e41bb7459f63c8e39554ea3651b812492
            """))
        XCTAssertEqual(CryptoHash.hmacSHA512(key: [UInt8](repeating: 0, count: 128), message: Array("message".utf8)), empty)
    }

    /// SHA-512 of nothing and of a transmission-sized message, contiguous or not (a lazy collection
    /// is copied first), expected values from Python's hashlib.
    func testSHA512EmptyAndLarge() {
        XCTAssertEqual(CryptoHash.sha512([UInt8]()), cryptoHex("""
            cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce\
            47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e
            """))
        let big = (0..<16154).map { UInt8($0 % 251) }
        let want = cryptoHex("""
            61abe36bd765bfd044e32124ee595478f2d884ad9daf00a5c7823d393eb16d73\
            eb6dc9ec59653763df816207bea0e1555e2ccb95c9bbcc7d8c72ee9d7ba79718
            """)
        XCTAssertEqual(CryptoHash.sha512(big), want)
        XCTAssertEqual(CryptoHash.sha512((0..<16154).lazy.map { UInt8($0 % 251) }), want)
    }

    /// Expected values computed with an independent HKDF-SHA512 (OpenSSL via pyca/cryptography).
    func testHKDFSHA512() throws {
        let a = try CryptoHash.hkdf(salt: Array("salt".utf8), ikm: [UInt8](repeating: 0x0b, count: 22),
                                    info: Array("SimpleXSbChainInit".utf8), count: 64)
        XCTAssertEqual(a, cryptoHex("""
            262b24d6750fbd80dc9beddb673d0d54187d44ac45e3b4b0010dd14962d7333c\
            376a8df41ae325f24cf1fc50b2bc3fc30e3df0bf736e49d57dd8f124dd970e83
            """))
        // Empty salt, 88 bytes: the shape of simplexmq's sbcHkdf (chain key, secretbox key, nonce).
        let b = try CryptoHash.hkdf(salt: [], ikm: Array(0..<32), info: Array("SimpleXSbChain".utf8), count: 88)
        XCTAssertEqual(b, cryptoHex("""
            0baabe7155d6a65175170eca7e9389e3e73c9d5733df06ec6a44cb80af7fd081\
            998448026fed85ec10292fdfdb4f4c0fe397f3db3936ed8879bad5a78509420f\
            1aa516c1724c58f944d3fcc8486b73e597b82d4aa8afd6f1
            """))
        XCTAssertEqual(try CryptoHash.hkdf(salt: [], ikm: [1], info: [], count: 0), [])
    }

    func testHKDFRejectsTooLongOutput() {
        XCTAssertThrowsError(try CryptoHash.hkdf(salt: [], ikm: [1], info: [], count: 255 * 64 + 1)) {
            guard case CryptoError.badLength = $0 else { return XCTFail("\($0)") }
        }
        XCTAssertThrowsError(try CryptoHash.hkdf(salt: [], ikm: [1], info: [], count: -1))
    }

    func testSecureRandomLengthsAndVariety() {
        for n in [0, 1, 7, 8, 9, 24, 32, 57, 100] {
            XCTAssertEqual(SecureRandom.bytes(n).count, n)
        }
        XCTAssertEqual(SecureRandom.bytes(-3), [])
        XCTAssertNotEqual(SecureRandom.bytes(32), SecureRandom.bytes(32))
        // The tail bytes after the last full word are random too.
        XCTAssertTrue((0..<20).contains { _ in SecureRandom.bytes(13)[12] != 0 })
    }

    func testConstantTimeEquals() {
        XCTAssertTrue(constantTimeEquals([UInt8](), [UInt8]()))
        XCTAssertTrue(constantTimeEquals([1, 2, 3] as [UInt8], [1, 2, 3] as [UInt8]))
        XCTAssertFalse(constantTimeEquals([1, 2, 3] as [UInt8], [1, 2, 4] as [UInt8]))
        XCTAssertFalse(constantTimeEquals([1, 2, 3] as [UInt8], [1, 2] as [UInt8]))
        XCTAssertTrue(constantTimeEquals([0, 1, 2, 3][1...] as ArraySlice<UInt8>, [1, 2, 3] as [UInt8]))
    }
}
