import Foundation
import SimplexFoundation
import XCTest
import XFTPProtocol
@testable import XFTPServer

/// The server core over real files in a temporary folder: the command flow, the reference's
/// errors, quota, expiry, the store log across restarts, and hostile input.
final class XFTPServerCoreTests: XCTestCase {
    var dir = ""
    let sessionKey = X25519PrivateKey()
    lazy var session = XFTPServerSession(params: XFTPSessionParams(sessionId: SecureRandom.bytes(32), version: 3), sessionKey: sessionKey)
    let senderKey = Ed25519PrivateKey()
    let rcpKey = Ed25519PrivateKey()
    let rcpX = X25519PrivateKey()

    override func setUp() {
        dir = NSTemporaryDirectory() + "xftp-core-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    func config(quota: Int64? = nil, password: String? = nil) -> XFTPServerConfig {
        var c = XFTPServerConfig()
        c.filesPath = dir + "/files"
        c.fileSizeQuota = quota
        c.createPassword = password.flatMap { BasicAuth($0) }
        return c
    }

    func core(_ c: XFTPServerConfig? = nil, now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }) throws -> XFTPServerCore {
        let c = c ?? config()
        return try XFTPServerCore(config: c, store: try FileStore(logPath: dir + "/store.log", fsync: false), now: now)
    }

    func send(_ core: XFTPServerCore, key: AnyPrivateKey?, entity: [UInt8], _ cmd: FileCommand, body: [UInt8]? = nil) async throws -> XFTPServerReply {
        try await send(core, key: key, entity: entity, cmd, requestBody: body.map { BufferedRequestBody($0) })
    }

    func send(_ core: XFTPServerCore, key: AnyPrivateKey?, entity: [UInt8], _ cmd: FileCommand, requestBody: (any XFTPRequestBody)?) async throws -> XFTPServerReply {
        let corrId = SecureRandom.bytes(24)
        let block = try key.map {
            try XFTPTransmission.encodeAuth(session.params, key: $0, serverSessionKey: sessionKey.publicKey, corrId: corrId, entityId: entity, command: cmd)
        } ?? XFTPTransmission.encode(session.params, corrId: corrId, entityId: entity, command: cmd)
        let reply = await core.process(block: block, session: session, body: requestBody)
        // The reply block is what a client reads: same corrId, the response inside.
        let decoded = try XFTPTransmission.decodeClient(reply.block, params: session.params).get()
        XCTAssertEqual(decoded.corrId, corrId)
        XCTAssertEqual(try decoded.response.get(), reply.response)
        return reply
    }

    func newChunk(_ core: XFTPServerCore, size: UInt32 = 65536, body: [UInt8]? = nil, auth: BasicAuth? = nil) async throws -> (sid: [UInt8], rids: [[UInt8]], body: [UInt8]) {
        let data = body ?? SecureRandom.bytes(Int(size))
        let info = FileInfo(senderKey: .ed25519(senderKey.publicKey), size: size, digest: CryptoHash.sha256(data))
        let r = try await send(core, key: .ed25519(senderKey), entity: [], .fnew(info, recipients: [.ed25519(rcpKey.publicKey), .x25519(rcpX.publicKey)], auth: auth))
        guard case .sids(let sid, let rids) = r.response else {
            XCTFail("FNEW: \(r.response)")
            throw XFTPErrorType.internal
        }
        return (sid, rids, data)
    }

    func download(_ core: XFTPServerCore, rid: [UInt8], key: AnyPrivateKey) async throws -> Result<[UInt8], XFTPErrorType> {
        let dh = X25519PrivateKey()
        let r = try await send(core, key: key, entity: rid, .fget(dh.publicKey))
        switch r.response {
        case .file(let sk, let nonce):
            var stream = try SecretBoxStream(secret: dh.sharedSecret(with: sk), nonce: nonce)
            var file = try XCTUnwrap(r.file)
            var body: [UInt8] = []
            while true {
                let piece = try file.next(max: 10000)
                if piece.isEmpty { break }
                body += piece
            }
            XCTAssertEqual(Int64(body.count), file.bodySize)
            let tag = Array(body.suffix(16))
            let plain = stream.decrypt(Array(body.dropLast(16)))
            guard stream.verify(tag: tag) else { return .failure(.crypto) }
            return .success(plain)
        case .err(let e): return .failure(e)
        default: XCTFail("FGET: \(r.response)"); return .failure(.internal)
        }
    }

    func expectReply(_ r: XFTPServerReply, _ want: FileResponse, _ message: String = "", file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(r.response, want, message, file: file, line: line)
    }

    func expectDownload(_ r: Result<[UInt8], XFTPErrorType>, _ want: Result<[UInt8], XFTPErrorType>, _ message: String = "", file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(r, want, message, file: file, line: line)
    }

    func testUploadDownloadAckDelete() async throws {
        let c = try core()
        let (sid, rids, data) = try await newChunk(c)
        XCTAssertEqual(rids.count, 2)
        expectDownload(try await download(c, rid: rids[0], key: .ed25519(rcpKey)), .failure(.noFile), "not uploaded yet")
        expectReply(try await send(c, key: .ed25519(senderKey), entity: sid, .fput, body: data), .ok)
        XCTAssertEqual(c.store.usedStorage, 65536)
        expectDownload(try await download(c, rid: rids[0], key: .ed25519(rcpKey)), .success(data))
        expectDownload(try await download(c, rid: rids[1], key: .x25519(rcpX)), .success(data), "X25519-authorized recipient")
        expectReply(try await send(c, key: .ed25519(rcpKey), entity: rids[0], .fack), .ok)
        expectDownload(try await download(c, rid: rids[0], key: .ed25519(rcpKey)), .failure(.auth), "acknowledged recipient is gone")
        // FADD gives new recipient IDs for the same chunk.
        let more = try await send(c, key: .ed25519(senderKey), entity: sid, .fadd(recipients: [.ed25519(rcpKey.publicKey)]))
        guard case .rids(let newRids) = more.response else { return XCTFail("FADD: \(more.response)") }
        expectDownload(try await download(c, rid: newRids[0], key: .ed25519(rcpKey)), .success(data))
        // The body is stored under the base64url sender ID in the files folder.
        let path = c.chunkPath(senderId: sid)
        XCTAssertTrue(FileManager.default.fileExists(atPath: path))
        expectReply(try await send(c, key: .ed25519(senderKey), entity: sid, .fdel), .ok)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))
        XCTAssertEqual(c.store.usedStorage, 0)
        expectDownload(try await download(c, rid: rids[1], key: .x25519(rcpX)), .failure(.auth))
        expectReply(try await send(c, key: nil, entity: [], .ping), .pong)
    }

    func testUploadErrors() async throws {
        let c = try core(config(quota: 65536 + 1000))
        // Only the reference's chunk sizes.
        let bad = FileInfo(senderKey: .ed25519(senderKey.publicKey), size: 1000, digest: [1])
        expectReply(try await send(c, key: .ed25519(senderKey), entity: [], .fnew(bad, recipients: [.ed25519(rcpKey.publicKey)], auth: nil)), .err(.size))
        // FNEW signed by a key other than the one it registers.
        let info = FileInfo(senderKey: .ed25519(senderKey.publicKey), size: 65536, digest: [1])
        expectReply(try await send(c, key: .ed25519(rcpKey), entity: [], .fnew(info, recipients: [.ed25519(rcpKey.publicKey)], auth: nil)), .err(.auth))

        let (sid, _, data) = try await newChunk(c)
        expectReply(try await send(c, key: .ed25519(senderKey), entity: sid, .fput), .err(.size), "no body")
        expectReply(try await send(c, key: .ed25519(senderKey), entity: sid, .fput, body: Array(data.dropLast())), .err(.size))
        expectReply(try await send(c, key: .ed25519(senderKey), entity: sid, .fput, body: data + [0]), .err(.size))
        var altered = data
        altered[100] ^= 1
        expectReply(try await send(c, key: .ed25519(senderKey), entity: sid, .fput, body: altered), .err(.digest))
        XCTAssertFalse(FileManager.default.fileExists(atPath: c.chunkPath(senderId: sid)), "a bad body is not kept")
        XCTAssertEqual(c.store.usedStorage, 0, "quota released after failures")
        expectReply(try await send(c, key: .ed25519(rcpKey), entity: sid, .fput, body: data), .err(.auth), "wrong key")
        expectReply(try await send(c, key: .ed25519(senderKey), entity: sid, .fput, body: data), .ok)
        // A repeated FPUT of a committed chunk reads the body and answers OK again.
        expectReply(try await send(c, key: .ed25519(senderKey), entity: sid, .fput, body: data), .ok)
        XCTAssertEqual(c.store.usedStorage, 65536)
        // The second chunk does not fit the quota.
        let (sid2, _, data2) = try await newChunk(c)
        expectReply(try await send(c, key: .ed25519(senderKey), entity: sid2, .fput, body: data2), .err(.quota))
        // Unknown IDs: AUTH, never a crash.
        expectReply(try await send(c, key: .ed25519(senderKey), entity: SecureRandom.bytes(16), .fdel), .err(.auth))
    }

    func testCreatePasswordAndNewFilesOff() async throws {
        let c = try core(config(password: "s3cret"))
        let info = FileInfo(senderKey: .ed25519(senderKey.publicKey), size: 65536, digest: [1])
        for auth in [nil, BasicAuth("wrong")] {
            expectReply(try await send(c, key: .ed25519(senderKey), entity: [], .fnew(info, recipients: [.ed25519(rcpKey.publicKey)], auth: auth)), .err(.auth))
        }
        _ = try await newChunk(c, auth: BasicAuth("s3cret"))
        var off = config()
        off.allowNewFiles = false
        let c2 = try XFTPServerCore(config: off, store: FileStore())
        expectReply(try await send(c2, key: .ed25519(senderKey), entity: [], .fnew(info, recipients: [.ed25519(rcpKey.publicKey)], auth: nil)), .err(.auth))
    }

    func testExpiry() async throws {
        let clock = Clock(Int64(Date().timeIntervalSince1970))
        let c = try core(now: { clock.value })
        let (sid, rids, data) = try await newChunk(c)
        expectReply(try await send(c, key: .ed25519(senderKey), entity: sid, .fput, body: data), .ok)
        XCTAssertEqual(c.expireFiles(), 0)
        clock.value += 47 * 3600
        XCTAssertEqual(c.expireFiles(), 0, "kept for 48 hours (to the hour)")
        clock.value += 3 * 3600
        XCTAssertEqual(c.expireFiles(), 1)
        expectDownload(try await download(c, rid: rids[0], key: .ed25519(rcpKey)), .failure(.auth))
        XCTAssertFalse(FileManager.default.fileExists(atPath: c.chunkPath(senderId: sid)))
        XCTAssertEqual(c.store.usedStorage, 0)
    }

    func testStoreLogSurvivesRestartAndTornTail() async throws {
        var c: XFTPServerCore? = try core()
        let (sid, rids, data) = try await newChunk(c!)
        expectReply(try await send(c!, key: .ed25519(senderKey), entity: sid, .fput, body: data), .ok)
        let (sid2, _, _) = try await newChunk(c!)
        expectReply(try await send(c!, key: .ed25519(rcpKey), entity: rids[0], .fack), .ok)
        c = nil
        // A write cut by kill -9: half a line at the end.
        let h = try XCTUnwrap(FileHandle(forWritingAtPath: dir + "/store.log"))
        h.seekToEndOfFile()
        h.write(Data("FNEW AAAA".utf8))
        try h.close()
        let c2 = try core()
        XCTAssertEqual(c2.store.skippedOnLoad, 1)
        XCTAssertEqual(c2.store.fileCount, 2)
        XCTAssertEqual(c2.store.usedStorage, 65536)
        expectDownload(try await download(c2, rid: rids[1], key: .x25519(rcpX)), .success(data))
        expectDownload(try await download(c2, rid: rids[0], key: .ed25519(rcpKey)), .failure(.auth), "ack survived")
        expectDownload(try await download(c2, rid: [UInt8](sid2), key: .ed25519(rcpKey)), .failure(.auth), "sender ID is not a recipient ID")
        // The log was compacted to the reference's line format.
        let text = try String(contentsOfFile: dir + "/store.log", encoding: .utf8)
        XCTAssertTrue(text.hasPrefix("FNEW "))
        XCTAssertTrue(text.contains("\nFPUT \(Base64Text.encode(sid)) "))
        XCTAssertFalse(text.contains("AAAA\n"))
    }

    func testInterruptedCompactionRecovers() async throws {
        var c: XFTPServerCore? = try core()
        let (sid, _, data) = try await newChunk(c!)
        expectReply(try await send(c!, key: .ed25519(senderKey), entity: sid, .fput, body: data), .ok)
        c = nil
        // A crash during compaction leaves the full state in .start and a partial new log.
        try FileManager.default.moveItem(atPath: dir + "/store.log", toPath: dir + "/store.log.start")
        try "FDEL garbage\n".write(toFile: dir + "/store.log", atomically: true, encoding: .utf8)
        let c2 = try core()
        XCTAssertEqual(c2.store.fileCount, 1)
        XCTAssertEqual(c2.store.usedStorage, 65536)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/store.log.start"))
    }

    func testMalformedBlocksLeaveServerWorking() async throws {
        let c = try core()
        var rng = SystemRandomNumberGenerator()
        for n in [0, 1, 100, 16383, 16384, 16385] {
            let junk = (0..<n).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let r = await c.process(block: junk, session: session, body: nil)
            XCTAssertEqual(r.response, .err(.block), "\(n) random bytes")
        }
        // Well-padded garbage transmissions.
        for _ in 0..<200 {
            let t = (0..<Int.random(in: 0...300)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let block = try Padding.pad([1] + [UInt8(t.count >> 8), UInt8(t.count & 255)] + t, to: XFTPVersion.blockSize)
            let r = await c.process(block: block, session: session, body: BufferedRequestBody(t))
            guard case .err = r.response else { return XCTFail("garbage accepted: \(r.response)") }
        }
        // Hostile entity IDs (path-like bytes) are just unknown IDs.
        for hostile in ["../../etc/passwd", "/tmp/x", "..", "a\u{0}b", "\n\r\u{1b}[2J"] {
            let r = try await send(c, key: .ed25519(senderKey), entity: Array(hostile.utf8), .fput, body: [1, 2, 3])
            XCTAssertEqual(r.response, .err(.auth))
        }
        // Only the folder uploads write in until their body is checked, and it is empty.
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir + "/files"), [".receiving"])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir + "/files/.receiving"), [])
        // Still serving.
        let (sid, _, data) = try await newChunk(c)
        expectReply(try await send(c, key: .ed25519(senderKey), entity: sid, .fput, body: data), .ok)
        let name = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: dir + "/files").first { $0 != ".receiving" })
        XCTAssertTrue(name.allSatisfy { $0.isLetter || $0.isNumber || "-_=".contains($0) }, name)
    }

    func testBlockedFile() async throws {
        let c = try core()
        let (sid, rids, data) = try await newChunk(c)
        expectReply(try await send(c, key: .ed25519(senderKey), entity: sid, .fput, body: data), .ok)
        try c.blockFile(recipientId: rids[0], info: BlockingInfo(reason: .spam))
        expectDownload(try await download(c, rid: rids[1], key: .x25519(rcpX)), .failure(.blocked(BlockingInfo(reason: .spam))))
        XCTAssertEqual(c.store.usedStorage, 0)
        // A v2 session sees ERR AUTH for the same file.
        let old = XFTPServerSession(params: XFTPSessionParams(sessionId: session.params.sessionId, version: 2), sessionKey: sessionKey)
        let block = try XFTPTransmission.encodeAuth(old.params, key: .ed25519(rcpKey), serverSessionKey: nil, corrId: [1], entityId: rids[0],
                                                     command: .fget(X25519PrivateKey().publicKey))
        let r = await c.process(block: block, session: old, body: nil)
        XCTAssertEqual(Array(try Padding.unpad(r.block).suffix(8)), Array("ERR AUTH".utf8))
    }

    func testConfigIniRoundTrip() throws {
        var c = config(quota: 10 * 1024 * 1024 * 1024, password: "pw")
        c.host = "files.example.com"
        c.port = 5443
        c.fileExpiration = 24 * 3600
        let back = try XFTPServerConfig(ini: c.ini)
        XCTAssertEqual(back, c)
        XCTAssertThrowsError(try XFTPServerConfig(ini: "[FILES]\nstorage_quota = lots\n"))
        XCTAssertThrowsError(try XFTPServerConfig(ini: "[AUTH]\ncreate_password = a@b\n"))
        // [INACTIVE_CLIENTS]: off by default (the reference's), values kept when on.
        XCTAssertFalse(back.disconnectInactiveClients)
        c.disconnectInactiveClients = true
        c.inactiveClientTTL = 600
        c.inactiveClientCheckInterval = 60
        XCTAssertEqual(try XFTPServerConfig(ini: c.ini), c)
        XCTAssertThrowsError(try XFTPServerConfig(ini: "[INACTIVE_CLIENTS]\nttl = 0\n"))
    }
}

/// A settable clock shared with the core under test.
final class Clock: @unchecked Sendable {
    private let lock = NSLock()
    private var v: Int64
    init(_ v: Int64) { self.v = v }
    var value: Int64 {
        get { lock.withLock { v } }
        set { lock.withLock { v = newValue } }
    }
}
