import Crypto
import Foundation
import SimplexFoundation
import XCTest
@testable import XFTPClient
import XFTPProtocol
import XFTPServer

/// A chunk's timeout counts from the last byte that moved, not from the request's start: through
/// a relay that drips or holds back one direction, a transfer slower than its whole allowance but
/// always moving succeeds (before: `responseTimeout` after the allowance), and one that stops is
/// given up one allowance after its last byte.
final class ChunkTimeoutTests: XCTestCase {
    var dir = ""
    override func setUp() { dir = makeTempDir("xftp-timeout") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    /// A 1 s stall window with no per-KB part.
    let config = XFTPClientConfig(requestTimeout: 1, timeoutPerKB: 0)

    struct Link {
        let srv: XFTPTestServer
        let proxy: ThrottlingProxy
        let c: XFTPClientSession

        func stop() async {
            await c.close()
            await proxy.stop()
            await srv.stop()
        }
    }

    /// A server with a 64 KB stream window (what an upload may have in flight unseen), reached
    /// through a relay that passes everything until a test slows it.
    func link() async throws -> Link {
        let srv = try await XFTPTestServer(dir: dir, streamWindow: 65536)
        let proxy = try await ThrottlingProxy.start(to: srv.port, group: srv.group)
        var address = srv.address
        address.port = String(proxy.port)
        let c = try await XFTPClientSession.connect(to: address, config: config, group: srv.group)
        return Link(srv: srv, proxy: proxy, c: c)
    }

    func newChunk(_ c: XFTPClientSession, size: UInt32, upload: Bool) async throws -> RegisteredChunk {
        let path = dir + "/chunk-" + UUID().uuidString
        let bytes = try writeRandom(path, Int(size))
        let sKey = AnyPrivateKey.generate(.ed25519), rKey = AnyPrivateKey.generate(.ed25519)
        let info = FileInfo(senderKey: sKey.publicKey, size: size, digest: Array(SHA256.hash(data: bytes)))
        let (sid, rids) = try await c.createChunk(senderKey: sKey, info: info, recipientKeys: [rKey.publicKey], auth: nil)
        let ch = RegisteredChunk(sKey: sKey, rKey: rKey, sid: sid, rid: rids[0], path: path, bytes: bytes)
        if upload { try await c.uploadChunk(senderKey: sKey, senderId: sid, chunk: ch.spec) }
        return ch
    }

    func download(_ c: XFTPClientSession, _ ch: RegisteredChunk) async throws(XFTPClientError) -> [UInt8] {
        let out = dir + "/down-" + UUID().uuidString
        try await c.downloadChunk(recipientKey: ch.rKey, recipientId: ch.rid,
                                  destination: XFTPReceiveChunkSpec(path: out, size: UInt32(ch.bytes.count), digest: ch.digest))
        return (try? Array(Data(contentsOf: URL(fileURLWithPath: out)))) ?? []
    }

    func testSlowButMovingUploadSucceeds() async throws {
        let l = try await link()
        let ch = try await newChunk(l.c, size: XFTPChunkSizes.size2, upload: false)
        // 640 KB/s: the 1 MB chunk takes about 1.7 s, its bytes move every 50 ms.
        l.proxy.set(.toServer, .drip(bytes: 32768, everyMs: 50))
        let start = Date()
        try await l.c.uploadChunk(senderKey: ch.sKey, senderId: ch.sid, chunk: ch.spec)
        XCTAssertGreaterThan(Date().timeIntervalSince(start), 1.2, "the upload was not slower than its window")
        l.proxy.set(.toServer, .pass)
        let got = try await download(l.c, ch)
        XCTAssertEqual(got, ch.bytes)
        await l.stop()
    }

    func testSlowButMovingDownloadSucceeds() async throws {
        let l = try await link()
        let ch = try await newChunk(l.c, size: XFTPChunkSizes.size1, upload: true)
        // 160 KB/s: the 256 KB chunk takes about 1.7 s.
        l.proxy.set(.toClient, .drip(bytes: 8192, everyMs: 50))
        let start = Date()
        let got = try await download(l.c, ch)
        XCTAssertEqual(got, ch.bytes)
        XCTAssertGreaterThan(Date().timeIntervalSince(start), 1.2, "the download was not slower than its window")
        await l.stop()
    }

    func testStalledTransfersTimeOut() async throws {
        let l = try await link()
        let ch = try await newChunk(l.c, size: XFTPChunkSizes.size1, upload: true)
        l.proxy.set(.toClient, .stall)
        var start = Date()
        await XFTPAssertThrows(.responseTimeout) { _ = try await self.download(l.c, ch) }
        XCTAssertLessThan(Date().timeIntervalSince(start), 5)
        l.proxy.set(.toClient, .pass)
        try await l.c.ping()
        let up = try await newChunk(l.c, size: XFTPChunkSizes.size1, upload: false)
        l.proxy.set(.toServer, .stall)
        start = Date()
        await XFTPAssertThrows(.responseTimeout) { try await l.c.uploadChunk(senderKey: up.sKey, senderId: up.sid, chunk: up.spec) }
        XCTAssertLessThan(Date().timeIntervalSince(start), 5)
        await l.stop()
    }

    /// A download that moves for a while and then stops times out one window after its last
    /// byte: later than a timeout counted from the start would.
    func testTimeoutCountsFromTheLastByte() async throws {
        let l = try await link()
        let ch = try await newChunk(l.c, size: XFTPChunkSizes.size1, upload: true)
        l.proxy.set(.toClient, .drip(bytes: 4096, everyMs: 50))
        let proxy = l.proxy
        let stall = Task {
            try await Task.sleep(for: .milliseconds(700))
            proxy.set(.toClient, .stall)
        }
        let start = Date()
        await XFTPAssertThrows(.responseTimeout) { _ = try await self.download(l.c, ch) }
        let took = Date().timeIntervalSince(start)
        XCTAssertGreaterThan(took, 1.4)
        XCTAssertLessThan(took, 6)
        _ = await stall.result
        await l.stop()
    }
}
