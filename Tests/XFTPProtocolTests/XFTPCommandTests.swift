import SimplexFoundation
import XCTest
@testable import XFTPProtocol

/// Commands, responses and transmissions: round trips, and malformed input becoming the
/// reference's errors (never a crash).
final class XFTPCommandTests: XCTestCase {
    let sender = Ed25519PrivateKey()
    let rcp1 = Ed25519PrivateKey()
    let rcp2 = X25519PrivateKey()
    let digest = CryptoHash.sha256([1, 2, 3])

    var fnew: FileCommand {
        .fnew(FileInfo(senderKey: .ed25519(sender.publicKey), size: 65536, digest: digest),
              recipients: [.ed25519(rcp1.publicKey), .x25519(rcp2.publicKey)], auth: BasicAuth("secret"))
    }

    func testCommandsRoundTrip() throws {
        let cmds: [FileCommand] = [fnew, .fadd(recipients: [.ed25519(rcp1.publicKey)]), .fput, .fdel,
                                   .fget(X25519PrivateKey().publicKey), .fack, .ping]
        for v in XFTPVersion.supported {
            for c in cmds {
                XCTAssertEqual(try FileCommand.decode(c.encode(version: v), version: v).get(), c, c.tag)
            }
        }
    }

    func testResponsesRoundTrip() throws {
        let resps: [FileResponse] = [
            .sids(senderId: [1, 2, 3], recipientIds: [[4], [5, 6]]), .rids([[7]]),
            .file(serverDhKey: X25519PrivateKey().publicKey, nonce: Array(repeating: 9, count: 24)),
            .ok, .pong, .err(.auth), .err(.cmd(.noEntity)), .err(.quota), .err(.hasFile), .err(.timeout),
            .err(.blocked(BlockingInfo(reason: .content, notice: .init(ttl: 3600)))),
        ]
        for r in resps {
            XCTAssertEqual(try FileResponse.decode(r.encode(version: 3), version: 3).get(), r, r.tag)
        }
        // Before v3 a blocked file is ERR AUTH.
        XCTAssertEqual(try FileResponse.err(.blocked(BlockingInfo(reason: .spam))).encode(version: 2), Array("ERR AUTH".utf8))
        XCTAssertEqual(try FileResponse.err(.blocked(BlockingInfo(reason: .spam))).encode(version: 3), Array("ERR BLOCKED reason=spam".utf8))
    }

    func testMalformedCommandsGetReferenceErrors() throws {
        func err(_ s: [UInt8]) -> XFTPErrorType? {
            if case .failure(let e) = FileCommand.decode(s, version: 3) { return e }
            return nil
        }
        XCTAssertEqual(err(Array("HELLO".utf8)), .cmd(.unknown))
        XCTAssertEqual(err(Array("FPUT ".utf8)), .cmd(.syntax))
        XCTAssertEqual(err(Array("FNEW".utf8)), .cmd(.syntax))
        XCTAssertEqual(err(Array("FNEW ".utf8) + [200]), .cmd(.syntax))
        XCTAssertEqual(err(Array("FADD ".utf8) + [0]), .cmd(.syntax), "empty recipient list")
        XCTAssertEqual(err(Array("FGET ".utf8) + [44] + Ed25519PrivateKey().publicKey.x509Encoded), .cmd(.syntax), "FGET needs an X25519 key")
        var bad = try fnew.encode(version: 3)
        bad.append(0)
        XCTAssertEqual(err(bad), .cmd(.syntax), "trailing byte")
        // A password with '@' is not a BasicAuth.
        let withAt = try FileCommand.fnew(FileInfo(senderKey: .ed25519(sender.publicKey), size: 1, digest: []), recipients: [.ed25519(rcp1.publicKey)], auth: nil).encode(version: 3).dropLast() + Array("1".utf8) + [3] + Array("a@b".utf8)
        XCTAssertEqual(err(Array(withAt)), .cmd(.syntax))
        // Random garbage never traps.
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let tag = ["FNEW ", "FADD ", "FGET ", "PING", "FACK"].randomElement()!
            let junk = (0..<Int.random(in: 0...80)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            _ = FileCommand.decode(Array(tag.utf8) + junk, version: 3)
            _ = FileResponse.decode(Array(["SIDS ", "FILE ", "ERR ", "RIDS "].randomElement()!.utf8) + junk, version: 3)
        }
    }

    func testCredentialsRules() {
        XCTAssertEqual(fnew.checkCredentials(hasAuth: false, entityId: []), .cmd(.noAuth))
        XCTAssertEqual(fnew.checkCredentials(hasAuth: true, entityId: [1]), .cmd(.hasAuth))
        XCTAssertNil(fnew.checkCredentials(hasAuth: true, entityId: []))
        XCTAssertEqual(FileCommand.ping.checkCredentials(hasAuth: true, entityId: []), .cmd(.hasAuth))
        XCTAssertNil(FileCommand.ping.checkCredentials(hasAuth: false, entityId: []))
        XCTAssertEqual(FileCommand.fput.checkCredentials(hasAuth: true, entityId: []), .cmd(.noAuth))
        XCTAssertEqual(FileCommand.fack.checkCredentials(hasAuth: false, entityId: [1]), .cmd(.noAuth))
    }

    func testSignedTransmissionsVerifyOnServer() throws {
        let session = X25519PrivateKey()
        let params = XFTPSessionParams(sessionId: SecureRandom.bytes(32), version: 3)
        let corrId = SecureRandom.bytes(24)
        for (key, pub) in [(AnyPrivateKey.ed25519(sender), AnyPublicKey.ed25519(sender.publicKey)),
                           (AnyPrivateKey.x25519(rcp2), AnyPublicKey.x25519(rcp2.publicKey))] {
            let block = try XFTPTransmission.encodeAuth(params, key: key, serverSessionKey: session.publicKey,
                                                         corrId: corrId, entityId: [1, 2, 3], command: .fack)
            XCTAssertEqual(block.count, XFTPVersion.blockSize)
            let t = try XFTPTransmission.decodeServer(block, params: params).get()
            XCTAssertEqual(t.command, .fack)
            XCTAssertTrue(t.auth!.verify(key: pub, authorized: t.authorized, corrId: t.corrId, serverSessionKey: session))
            // Another key, or a different corrId, does not verify.
            XCTAssertFalse(t.auth!.verify(key: .ed25519(rcp1.publicKey), authorized: t.authorized, corrId: t.corrId, serverSessionKey: session))
            XCTAssertFalse(t.auth!.verify(key: pub, authorized: t.authorized + [0], corrId: t.corrId, serverSessionKey: session))
        }
    }

    func testBadBlocks() throws {
        let params = XFTPSessionParams(sessionId: [1, 2, 3], version: 3)
        func rejected(_ block: [UInt8], _ p: XFTPSessionParams = XFTPSessionParams(sessionId: [1, 2, 3], version: 3)) -> RejectedTransmission? {
            if case .failure(let r) = XFTPTransmission.decodeServer(block, params: p) { return r }
            return nil
        }
        XCTAssertEqual(rejected([UInt8](repeating: 0, count: 100))?.error, .block)
        XCTAssertEqual(rejected([UInt8](repeating: 0xFF, count: XFTPVersion.blockSize))?.error, .block)
        // Two transmissions in one block are refused.
        let t = try XFTPTransmission.batch(auth: [], transmission: [3, 1, 2, 3, 1, 9, 0] + Array("PING".utf8))
        var two = t
        two[0] = 2
        two += Array(t[1...])
        XCTAssertEqual(rejected(try Padding.pad(two, to: XFTPVersion.blockSize))?.error, .block)
        // Wrong session ID: SESSION with the corrId.
        let ping = try XFTPTransmission.encode(params, corrId: [9], entityId: [], command: .ping)
        XCTAssertEqual(rejected(ping, XFTPSessionParams(sessionId: [7], version: 3)), RejectedTransmission(corrId: [9], entityId: [], error: .session))
        // An authorization of a length no algorithm has: BLOCK.
        let odd = try Padding.pad(XFTPTransmission.batch(auth: [1, 2, 3], transmission: [3, 1, 2, 3, 1, 9, 0] + Array("PING".utf8)), to: XFTPVersion.blockSize)
        XCTAssertEqual(rejected(odd)?.error, .block)
        // PING with an entity ID: CMD HAS_AUTH.
        let pingEntity = try XFTPTransmission.encode(params, corrId: [9], entityId: [5], command: .ping)
        XCTAssertEqual(rejected(pingEntity)?.error, .cmd(.hasAuth))
    }

    func testErrorTextRoundTrip() {
        let all: [XFTPErrorType] = [.block, .session, .handshake, .cmd(.syntax), .cmd(.prohibited), .auth,
                                    .blocked(BlockingInfo(reason: .spam, notice: .init(ttl: nil))), .size, .quota, .digest,
                                    .crypto, .noFile, .hasFile, .fileIO, .timeout, .internal, .duplicate]
        for e in all { XCTAssertEqual(XFTPErrorType(encoded: e.encoded), e) }
        XCTAssertNil(XFTPErrorType(encoded: Array("AUTH ".utf8)))
        XCTAssertNil(XFTPErrorType(encoded: Array("CMD NOPE".utf8)))
    }
}
