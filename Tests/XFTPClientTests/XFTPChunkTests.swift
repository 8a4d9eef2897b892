import Crypto
import Foundation
import SimplexFoundation
import XCTest
@testable import XFTPClient
import XFTPProtocol
import XFTPServer
import XFTPTransport
import SMPTransport
import NIOCore
import NIOPosix

/// Chunk commands between our client and our server over real TLS and HTTP/2 on loopback,
/// with the reference's errors and the server staying usable after bad input.
final class XFTPChunkTests: XCTestCase {
    var dir = ""

    override func setUp() { dir = makeTempDir("xftp-client") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    struct Chunk {
        let path: String
        let bytes: [UInt8]
        var size: UInt32 { UInt32(bytes.count) }
        var digest: [UInt8] { Array(SHA256.hash(data: bytes)) }
    }

    func chunk(_ size: UInt32 = XFTPChunkSizes.size0, name: String = "chunk") throws -> Chunk {
        let p = dir + "/" + name
        return Chunk(path: p, bytes: try writeRandom(p, Int(size)))
    }

    func testHandshakeAndPing() async throws {
        let srv = try await XFTPTestServer(dir: dir)
        let c = try await srv.connect()
        XCTAssertEqual(c.params.version, XFTPVersion.current)
        XCTAssertNotNil(c.serverSessionKey)
        try await c.ping()
        try await c.ping()
        await c.close()
        await srv.stop()
    }

    /// A chunk encrypted again from its source as FPUT sends it: sent whole it downloads as the
    /// bytes its digest was taken from. When the source changed after the digest was taken the
    /// upload fails with that cause (the stream is reset rather than left to time out waiting for
    /// an answer), the server stores nothing of it, and the session goes on.
    func testEncryptedChunkFromItsSource() async throws {
        let srv = try await XFTPTestServer(dir: dir)
        let c = try await srv.connect()
        let src = dir + "/src"
        try writeRandom(src, 200_000)
        let key = SecureRandom.bytes(32), nonce = SecureRandom.bytes(24)
        struct Created {
            let sKey: AnyPrivateKey, sid: [UInt8], rKey: AnyPrivateKey, rid: [UInt8], spec: XFTPReceiveChunkSpec, body: XFTPChunkBody
        }
        // FNEW of the source's one chunk as it is now; the body encrypts it again from the source.
        func create(_ out: String) async throws -> Created {
            let reader = try EncryptedStreamReader(sourcePath: src, fileName: "f", key: key, nonce: nonce)
            let r = try FileEncryption.encryptChunks(sourcePath: src, fileName: "f", key: key, nonce: nonce, memory: { _ in nil },
                                                     onChunk: { _, _ in })
            XCTAssertEqual(r.chunks.count, 1)
            let sKey = AnyPrivateKey.generate(.ed25519), rKey = AnyPrivateKey.generate(.ed25519)
            let info = FileInfo(senderKey: sKey.publicKey, size: r.chunks[0].size, digest: r.chunks[0].digest)
            let (sid, rids) = try await c.createChunk(senderKey: sKey, info: info, recipientKeys: [rKey.publicKey], auth: nil)
            let chunk = EncryptedChunk(reader: reader, offset: 0, size: r.chunks[0].size, tag: r.tag)
            XCTAssertTrue(chunk.endsStream)
            return Created(sKey: sKey, sid: sid, rKey: rKey, rid: rids[0],
                           spec: XFTPReceiveChunkSpec(path: dir + "/" + out, size: r.chunks[0].size, digest: r.chunks[0].digest),
                           body: .encrypted(chunk))
        }
        let whole = try await create("whole")
        try await c.uploadChunk(senderKey: whole.sKey, senderId: whole.sid, body: whole.body)
        try await c.downloadChunk(recipientKey: whole.rKey, recipientId: whole.rid, destination: whole.spec)
        let changed = try await create("changed")
        // File times tick with the kernel's coarse clock.
        try await Task.sleep(nanoseconds: 50_000_000)
        try writeRandom(src, 200_000)
        await XFTPAssertThrows(.io("file IO error: the file changed since its upload started")) {
            try await c.uploadChunk(senderKey: changed.sKey, senderId: changed.sid, body: changed.body)
        }
        await XFTPAssertThrows(.protocolError(.noFile)) {
            try await c.downloadChunk(recipientKey: changed.rKey, recipientId: changed.rid, destination: changed.spec)
        }
        try await c.ping()
        await c.close()
        await srv.stop()
    }

    func testUploadDownloadAckDelete() async throws {
        let srv = try await XFTPTestServer(dir: dir)
        let c = try await srv.connect()
        let ch = try chunk(XFTPChunkSizes.size1)
        let sKey = AnyPrivateKey.generate(.ed25519)
        let rKey = AnyPrivateKey.generate(.ed25519)
        // An X25519 recipient key authorizes with the server's session key (version 2+).
        let rKeyX = AnyPrivateKey.generate(.x25519)
        let info = FileInfo(senderKey: sKey.publicKey, size: ch.size, digest: ch.digest)
        let (sid, rids) = try await c.createChunk(senderKey: sKey, info: info, recipientKeys: [rKey.publicKey, rKeyX.publicKey], auth: nil)
        XFTPAssertEqual(rids.count, 2)
        try await c.uploadChunk(senderKey: sKey, senderId: sid, chunk: XFTPChunkSpec(path: ch.path, offset: 0, size: ch.size))
        // A repeated upload of a stored chunk is acknowledged again (lost-response retry).
        try await c.uploadChunk(senderKey: sKey, senderId: sid, chunk: XFTPChunkSpec(path: ch.path, offset: 0, size: ch.size))
        for (i, key) in [rKey, rKeyX].enumerated() {
            let out = dir + "/down\(i)"
            try await c.downloadChunk(recipientKey: key, recipientId: rids[i], destination: XFTPReceiveChunkSpec(path: out, size: ch.size, digest: ch.digest))
            XCTAssertEqual(Array(try Data(contentsOf: URL(fileURLWithPath: out))), ch.bytes)
        }
        // A wrong digest is DIGEST, and leaves no file behind.
        let bad = dir + "/bad"
        await XFTPAssertThrows(.responseError(.digest)) {
            try await c.downloadChunk(recipientKey: rKey, recipientId: rids[0], destination: XFTPReceiveChunkSpec(path: bad, size: ch.size, digest: Array(repeating: 0, count: 32)))
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: bad))
        try await c.ackChunk(recipientKey: rKey, recipientId: rids[0])
        await XFTPAssertThrows(.protocolError(.auth)) {
            try await c.downloadChunk(recipientKey: rKey, recipientId: rids[0], destination: XFTPReceiveChunkSpec(path: bad, size: ch.size, digest: ch.digest))
        }
        // FADD on the sender ID, then the new recipient downloads.
        let rKey2 = AnyPrivateKey.generate(.ed25519)
        let more = try await c.addRecipients(senderKey: sKey, senderId: sid, recipientKeys: [rKey2.publicKey])
        try await c.downloadChunk(recipientKey: rKey2, recipientId: more[0], destination: XFTPReceiveChunkSpec(path: dir + "/d2", size: ch.size, digest: ch.digest))
        try await c.deleteChunk(senderKey: sKey, senderId: sid)
        await XFTPAssertThrows(.protocolError(.auth)) {
            try await c.downloadChunk(recipientKey: rKeyX, recipientId: rids[1], destination: XFTPReceiveChunkSpec(path: bad, size: ch.size, digest: ch.digest))
        }
        XCTAssertEqual(srv.core.store.fileCount, 0)
        await c.close()
        await srv.stop()
    }

    func testWrongKeyAndWrongDigestUpload() async throws {
        let srv = try await XFTPTestServer(dir: dir)
        let c = try await srv.connect()
        let ch = try chunk()
        let sKey = AnyPrivateKey.generate(.ed25519)
        let info = FileInfo(senderKey: sKey.publicKey, size: ch.size, digest: Array(repeating: 1, count: 32))
        let (sid, _) = try await c.createChunk(senderKey: sKey, info: info, recipientKeys: [AnyPrivateKey.generate(.ed25519).publicKey], auth: nil)
        await XFTPAssertThrows(.protocolError(.auth)) {
            try await c.uploadChunk(senderKey: AnyPrivateKey.generate(.ed25519), senderId: sid, chunk: XFTPChunkSpec(path: ch.path, offset: 0, size: ch.size))
        }
        await XFTPAssertThrows(.protocolError(.digest)) {
            try await c.uploadChunk(senderKey: sKey, senderId: sid, chunk: XFTPChunkSpec(path: ch.path, offset: 0, size: ch.size))
        }
        // The connection is still usable.
        try await c.ping()
        XCTAssertEqual(srv.core.store.usedStorage, 0)
        await c.close()
        await srv.stop()
    }

    func testQuotaExceeded() async throws {
        let srv = try await XFTPTestServer(dir: dir) { $0.fileSizeQuota = Int64(XFTPChunkSizes.size0) }
        let c = try await srv.connect()
        for i in 0..<2 {
            let ch = try chunk(name: "c\(i)")
            let sKey = AnyPrivateKey.generate(.ed25519)
            let info = FileInfo(senderKey: sKey.publicKey, size: ch.size, digest: ch.digest)
            let (sid, _) = try await c.createChunk(senderKey: sKey, info: info, recipientKeys: [AnyPrivateKey.generate(.ed25519).publicKey], auth: nil)
            let spec = XFTPChunkSpec(path: ch.path, offset: 0, size: ch.size)
            if i == 0 {
                try await c.uploadChunk(senderKey: sKey, senderId: sid, chunk: spec)
            } else {
                await XFTPAssertThrows(.protocolError(.quota)) { try await c.uploadChunk(senderKey: sKey, senderId: sid, chunk: spec) }
            }
        }
        try await c.ping()
        await c.close()
        await srv.stop()
    }

    func testExpiredFile() async throws {
        let clock = Clock()
        let srv = try await XFTPTestServer(dir: dir, configure: { $0.fileExpiration = 3600 }, now: { clock.now })
        let c = try await srv.connect()
        let ch = try chunk()
        let sKey = AnyPrivateKey.generate(.ed25519), rKey = AnyPrivateKey.generate(.ed25519)
        let info = FileInfo(senderKey: sKey.publicKey, size: ch.size, digest: ch.digest)
        let (sid, rids) = try await c.createChunk(senderKey: sKey, info: info, recipientKeys: [rKey.publicKey], auth: nil)
        try await c.uploadChunk(senderKey: sKey, senderId: sid, chunk: XFTPChunkSpec(path: ch.path, offset: 0, size: ch.size))
        clock.advance(2 * 3600)
        XCTAssertEqual(srv.core.expireFiles(), 1)
        await XFTPAssertThrows(.protocolError(.auth)) {
            try await c.downloadChunk(recipientKey: rKey, recipientId: rids[0], destination: XFTPReceiveChunkSpec(path: self.dir + "/x", size: ch.size, digest: ch.digest))
        }
        await c.close()
        await srv.stop()
    }

    func testPassword() async throws {
        let srv = try await XFTPTestServer(dir: dir) { $0.createPassword = BasicAuth("secret") }
        let c = try await srv.connect()
        let sKey = AnyPrivateKey.generate(.ed25519)
        let info = FileInfo(senderKey: sKey.publicKey, size: XFTPChunkSizes.size0, digest: Array(repeating: 0, count: 32))
        let rcps = [AnyPrivateKey.generate(.ed25519).publicKey]
        await XFTPAssertThrows(.protocolError(.auth)) { _ = try await c.createChunk(senderKey: sKey, info: info, recipientKeys: rcps, auth: nil) }
        await XFTPAssertThrows(.protocolError(.auth)) { _ = try await c.createChunk(senderKey: sKey, info: info, recipientKeys: rcps, auth: BasicAuth("wrong")) }
        _ = try await c.createChunk(senderKey: sKey, info: info, recipientKeys: rcps, auth: BasicAuth("secret"))
        await c.close()
        await srv.stop()
    }

    /// Bad blocks get the reference's errors on their own stream; the session goes on.
    func testMalformedRequests() async throws {
        let srv = try await XFTPTestServer(dir: dir)
        let c = try await srv.connect()
        // Not a block: BLOCK.
        let short = try await c.exchange(body: [1, 2, 3], chunk: nil, timeout: 10) { head, _ in head }
        XCTAssertEqual(try Self.responseError(c, short), .block)
        // A block of garbage: BLOCK.
        let junk = try await c.exchange(body: SecureRandom.bytes(XFTPVersion.blockSize), chunk: nil, timeout: 10) { head, _ in head }
        XCTAssertEqual(try Self.responseError(c, junk), .block)
        // Another session's ID: SESSION.
        let other = XFTPSessionParams(sessionId: SecureRandom.bytes(32), version: c.params.version)
        let foreign = try XFTPTransmission.encode(other, corrId: [], entityId: [], command: .ping)
        let r = try await c.exchange(body: foreign, chunk: nil, timeout: 10) { head, _ in head }
        XCTAssertEqual(try Self.responseError(c, r), .session)
        // An unknown command: CMD UNKNOWN; a command without its key: CMD NO_AUTH.
        var e = SMPEncoder(capacity: 64)
        try e.shortString(c.params.sessionId)
        try e.shortString([])
        try e.shortString([])
        e.raw(Array("NOPE".utf8))
        let unknown = try Padding.pad(XFTPTransmission.batch(auth: [], transmission: e.bytes), to: XFTPVersion.blockSize)
        let u = try await c.exchange(body: unknown, chunk: nil, timeout: 10) { head, _ in head }
        XCTAssertEqual(try Self.responseError(c, u), .cmd(.unknown))
        let noAuth = try XFTPTransmission.encode(c.params, corrId: [], entityId: SecureRandom.bytes(16), command: .fack)
        let n = try await c.exchange(body: noAuth, chunk: nil, timeout: 10) { head, _ in head }
        XCTAssertEqual(try Self.responseError(c, n), .cmd(.noAuth))
        try await c.ping()
        // A second client is served too.
        let c2 = try await srv.connect()
        try await c2.ping()
        await c2.close()
        await c.close()
        await srv.stop()
    }

    /// A chunk body that stops arriving is TIMEOUT after the server's file timeout; the reserved
    /// quota is released and the connection stays usable.
    func testStalledUploadTimesOut() async throws {
        let srv = try await XFTPTestServer(dir: dir) { $0.fileTimeout = 1 }
        let c = try await srv.connect()
        let ch = try chunk()
        let sKey = AnyPrivateKey.generate(.ed25519)
        let info = FileInfo(senderKey: sKey.publicKey, size: ch.size, digest: ch.digest)
        let (sid, _) = try await c.createChunk(senderKey: sKey, info: info, recipientKeys: [AnyPrivateKey.generate(.ed25519).publicKey], auth: nil)
        // Half the chunk on disk: the client sends what it has and then stops without ending the stream.
        let half = dir + "/half"
        try Data(ch.bytes.prefix(Int(ch.size) / 2)).write(to: URL(fileURLWithPath: half))
        await XFTPAssertThrows(.protocolError(.timeout)) {
            try await c.uploadChunk(senderKey: sKey, senderId: sid, chunk: XFTPChunkSpec(path: half, offset: 0, size: ch.size))
        }
        XCTAssertEqual(srv.core.store.usedStorage, 0)
        try await c.ping()
        try await c.uploadChunk(senderKey: sKey, senderId: sid, chunk: XFTPChunkSpec(path: ch.path, offset: 0, size: ch.size))
        await c.close()
        await srv.stop()
    }

    /// The XFTP handshake as the reference server runs it: a first request with a body is
    /// HANDSHAKE; a client handshake with another key hash or version is HANDSHAKE (the padded
    /// error alone); commands before the handshake are refused the same way.
    func testHandshakeErrors() async throws {
        let srv = try await XFTPTestServer(dir: dir)
        let raw = try await XFTPClientSession.open(server: srv.address, host: "127.0.0.1", port: srv.port, config: XFTPClientConfig(),
                                                   group: srv.group, runHandshake: false)
        let handshakeError = try Padding.pad(XFTPErrorType.handshake.encoded, to: XFTPVersion.blockSize)
        let ping = try XFTPTransmission.encode(raw.params, corrId: [], entityId: [], command: .ping)
        let r1 = try await raw.exchange(body: ping, chunk: nil, timeout: 10) { head, _ in head }
        XCTAssertEqual(r1, handshakeError)
        let hello = try await raw.exchange(body: [], chunk: nil, timeout: 10) { head, _ in head }
        let shs = try XFTPServerHandshake(decoding: Padding.unpad(hello))
        XCTAssertEqual(shs.sessionId, raw.params.sessionId)
        XCTAssertEqual(shs.versionRange, XFTPVersion.supported)
        XCTAssertEqual(shs.certificateChain, srv.credentials.chain)
        // After the hello the server expects the client handshake: a second empty hello is HANDSHAKE.
        let hello2 = try await raw.exchange(body: [], chunk: nil, timeout: 10) { head, _ in head }
        XCTAssertEqual(hello2, handshakeError)
        for chs in [XFTPClientHandshake(version: 3, keyHash: SecureRandom.bytes(32)), XFTPClientHandshake(version: 9, keyHash: srv.credentials.keyHash)] {
            let r = try await raw.exchange(body: try chs.block(), chunk: nil, timeout: 10) { head, _ in head }
            XCTAssertEqual(r, handshakeError)
        }
        let ok = try await raw.exchange(body: try XFTPClientHandshake(version: 2, keyHash: srv.credentials.keyHash).block(), chunk: nil, timeout: 10) { head, _ in head }
        XCTAssertEqual(ok, [])
        // Accepted at version 2: a PING of this session gets PONG.
        let p2 = XFTPSessionParams(sessionId: raw.params.sessionId, version: 2)
        let pong = try await raw.exchange(body: try XFTPTransmission.encode(p2, corrId: [], entityId: [], command: .ping), chunk: nil, timeout: 10) { head, _ in head }
        guard case .success(let t) = XFTPTransmission.decodeClient(pong, params: p2), case .success(.pong) = t.response else { return XCTFail("no PONG") }
        await raw.close()
        await srv.stop()
    }

    /// Bytes that are not HTTP/2 end that connection only.
    func testGarbageConnection() async throws {
        let srv = try await XFTPTestServer(dir: dir)
        let tls = try TLSContext(clientConfiguration: XFTPTLS.client)
        let closed = try await ClientBootstrap(group: srv.group)
            .channelInitializer { ch in
                ch.eventLoop.makeCompletedFuture { try ch.pipeline.syncOperations.addHandler(TLSHandler(context: tls, verifier: { _ in true })) }
            }
            .connect(host: "127.0.0.1", port: srv.port).get()
        var junk = closed.allocator.buffer(capacity: 4096)
        junk.writeBytes(SecureRandom.bytes(4096))
        try await closed.writeAndFlush(junk)
        let start = Date()
        let cutOff = closed.eventLoop.scheduleTask(in: .seconds(10)) { closed.close(promise: nil) }
        try? await closed.closeFuture.get()
        cutOff.cancel()
        XCTAssertLessThan(Date().timeIntervalSince(start), 9, "the server did not close the connection")
        let c = try await srv.connect()
        try await c.ping()
        await c.close()
        await srv.stop()
    }

    /// `[INACTIVE_CLIENTS] disconnect = on`: a connection without requests for the TTL is closed.
    func testInactiveClientDisconnected() async throws {
        let srv = try await XFTPTestServer(dir: dir) {
            $0.disconnectInactiveClients = true
            $0.inactiveClientTTL = 1
            $0.inactiveClientCheckInterval = 1
        }
        let c = try await srv.connect()
        try await c.ping()
        var waited = 0
        while c.isActive, waited < 100 {
            try await Task.sleep(for: .milliseconds(100))
            waited += 1
        }
        XCTAssertFalse(c.isActive)
        // New connections are still served.
        let c2 = try await srv.connect()
        try await c2.ping()
        await c2.close()
        await srv.stop()
    }

    static func responseError(_ c: XFTPClientSession, _ head: [UInt8]) throws -> XFTPErrorType? {
        do {
            _ = try c.decode(head)
            return nil
        } catch .protocolError(let e) {
            return e
        } catch {
            return nil
        }
    }

    /// The client refuses a server whose identity is not the address's key hash.
    func testWrongIdentity() async throws {
        let srv = try await XFTPTestServer(dir: dir)
        var addr = srv.address
        addr.keyHash = SecureRandom.bytes(32)
        do {
            _ = try await XFTPClientSession.connect(to: addr, group: srv.group)
            XCTFail("connected to a server with another identity")
        } catch {
            guard case .transport = error else { return XCTFail("\(error)") }
        }
        // The server still serves others.
        let c = try await srv.connect()
        try await c.ping()
        await c.close()
        await srv.stop()
    }
}

/// A settable clock for expiry tests.
final class Clock: @unchecked Sendable {
    private let lock = NSLock()
    private var t = Int64(Date().timeIntervalSince1970)
    var now: Int64 { lock.withLock { t } }
    func advance(_ s: Int64) { lock.withLock { t += s } }
}

func XFTPAssertEqual<T: Equatable>(_ a: T, _ b: T, file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(a, b, file: file, line: line)
}

func XFTPAssertThrows(_ expected: XFTPClientError, file: StaticString = #filePath, line: UInt = #line,
                      _ body: () async throws -> Void) async {
    do {
        try await body()
        XCTFail("expected \(expected)", file: file, line: line)
    } catch {
        XCTAssertEqual(error as? XFTPClientError, expected, file: file, line: line)
    }
}
