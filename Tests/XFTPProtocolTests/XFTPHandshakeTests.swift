import SimplexFoundation
import XCTest
import XFTPProtocol

/// The XFTP handshake blocks: layout, round trips, tolerance of later-version tails, refusal of bad input.
final class XFTPHandshakeTests: XCTestCase {
    func testServerHandshake() throws {
        let hs = XFTPServerHandshake(versionRange: 1...3, sessionId: SecureRandom.bytes(32), certificateChain: [[1, 2, 3], [4, 5]], signedKey: [9, 9])
        let b = try hs.encoded()
        XCTAssertEqual(Array(b.prefix(5)), [0, 1, 0, 3, 32])
        XCTAssertEqual(Array(b.suffix(15)), [2, 0, 3, 1, 2, 3, 0, 2, 4, 5, 0, 2, 9, 9, 0])
        XCTAssertEqual(try XFTPServerHandshake(decoding: b), hs)
        XCTAssertEqual(try XFTPServerHandshake(decoding: b + [7, 7]), hs, "a later version's tail is ignored")
        var proof = hs
        proof.webIdentityProof = SecureRandom.bytes(64)
        XCTAssertEqual(try XFTPServerHandshake(decoding: proof.encoded()), proof)
        XCTAssertThrowsError(try XFTPServerHandshake(decoding: Array(b.dropLast(3))))
        XCTAssertThrowsError(try XFTPServerHandshake(decoding: [0, 3, 0, 1] + Array(b.dropFirst(4))), "min above max")
        XCTAssertEqual(try hs.block().count, XFTPVersion.blockSize)
    }

    func testClientHandshakeAndHello() throws {
        let c = XFTPClientHandshake(version: 3, keyHash: SecureRandom.bytes(32))
        XCTAssertEqual(Array(try c.encoded().prefix(3)), [0, 3, 32])
        XCTAssertEqual(try XFTPClientHandshake(decoding: c.encoded() + [1]), c)
        XCTAssertThrowsError(try XFTPClientHandshake(decoding: [0]))
        let h = XFTPClientHello(webChallenge: SecureRandom.bytes(32))
        XCTAssertEqual(try XFTPClientHello(decoding: h.encoded()), h)
        XCTAssertEqual(try XFTPClientHello(webChallenge: nil).encoded(), Array("0".utf8))
        XCTAssertThrowsError(try XFTPClientHello(decoding: Array("1".utf8) + [3, 1, 2, 3]), "challenge must be 32 bytes")
    }
}
