import Crypto
import Foundation
import SimplexFoundation
import XCTest
@testable import XFTPClient
import XFTPProtocol
import XFTPServer

/// A retried FPUT over a second TLS connection while the server still receives the first attempt
/// of the same chunk (its client gave up): the retry is acknowledged, and after the first attempt
/// is cut off or times out FGET must still return the chunk's exact bytes. Before each upload
/// wrote a file of its own, the first attempt's cleanup deleted the committed chunk (FGET: AUTH).
final class RetriedUploadTests: XCTestCase {
    var dir = ""

    override func setUp() { dir = makeTempDir("xftp-retry") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    /// FNEW, then an FPUT on `first` that sends half the chunk and stalls (the rest of its file is
    /// missing), returned once the server is writing it.
    private func startAbandonedUpload(_ srv: XFTPTestServer, _ first: XFTPClientSession) async throws -> (RegisteredChunk, Task<Void, any Error>) {
        let size = Int(XFTPChunkSizes.size1)
        let path = dir + "/chunk"
        let bytes = try writeRandom(path, size)
        let sKey = AnyPrivateKey.generate(.ed25519), rKey = AnyPrivateKey.generate(.ed25519)
        let info = FileInfo(senderKey: sKey.publicKey, size: UInt32(size), digest: Array(SHA256.hash(data: bytes)))
        let (sid, rids) = try await first.createChunk(senderKey: sKey, info: info, recipientKeys: [rKey.publicKey], auth: nil)
        let u = RegisteredChunk(sKey: sKey, rKey: rKey, sid: sid, rid: rids[0], path: path, bytes: bytes)
        let half = dir + "/half"
        try Data(bytes.prefix(size / 2)).write(to: URL(fileURLWithPath: half))
        let key = u.sKey, spec = XFTPChunkSpec(path: half, offset: 0, size: UInt32(size))
        let task = Task { try await first.uploadChunk(senderKey: key, senderId: sid, chunk: spec) }
        // The server has reserved the chunk's quota and written some of the first body.
        try await waitFor("the first body on the server") {
            srv.core.store.usedStorage == Int64(size) && self.largestFile(under: srv.dir + "/files") > 0
        }
        return (u, task)
    }

    private func largestFile(under root: String) -> Int64 {
        guard let files = FileManager.default.enumerator(atPath: root) else { return 0 }
        var largest: Int64 = 0
        for case let p as String in files {
            if let s = PosixFile.size(of: root + "/" + p), s > largest { largest = s }
        }
        return largest
    }

    private func waitFor(_ what: String, seconds: Double = 10, _ done: () -> Bool) async throws {
        let end = Date().addingTimeInterval(seconds)
        while !done() {
            guard Date() < end else { return XCTFail("timed out waiting for \(what)") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    private func expectChunk(_ c: XFTPClientSession, _ u: RegisteredChunk) async throws {
        let out = dir + "/down"
        try await c.downloadChunk(recipientKey: u.rKey, recipientId: u.rid,
                                  destination: XFTPReceiveChunkSpec(path: out, size: UInt32(u.bytes.count), digest: u.digest))
        XCTAssertEqual(Array(try Data(contentsOf: URL(fileURLWithPath: out))), u.bytes)
    }

    func testRetryWhileTheFirstConnectionIsCutOff() async throws {
        let srv = try await XFTPTestServer(dir: dir)
        let first = try await srv.connect()
        let (u, firstUpload) = try await startAbandonedUpload(srv, first)
        let retry = try await srv.connect()
        try await retry.uploadChunk(senderKey: u.sKey, senderId: u.sid, chunk: u.spec)
        // The first client's connection drops with its body half sent.
        await first.close()
        _ = await firstUpload.result
        try await waitFor("the first attempt's cleanup") { srv.core.store.usedStorage == Int64(u.bytes.count) }
        try await Task.sleep(for: .milliseconds(200))
        try await expectChunk(retry, u)
        XCTAssertEqual(srv.core.store.usedStorage, Int64(u.bytes.count))
        await retry.close()
        await srv.stop()
    }

    func testRetryWhileTheFirstUploadStallsUntilItsTimeout() async throws {
        let srv = try await XFTPTestServer(dir: dir) { $0.fileTimeout = 2 }
        let first = try await srv.connect()
        let (u, firstUpload) = try await startAbandonedUpload(srv, first)
        let retry = try await srv.connect()
        try await retry.uploadChunk(senderKey: u.sKey, senderId: u.sid, chunk: u.spec)
        // The stalled first body runs out of the server's file timeout.
        do {
            try await firstUpload.value
            XCTFail("the stalled upload succeeded")
        } catch {
            XCTAssertEqual(error as? XFTPClientError, .protocolError(.timeout))
        }
        try await expectChunk(retry, u)
        XCTAssertEqual(srv.core.store.usedStorage, Int64(u.bytes.count))
        await first.close()
        await retry.close()
        await srv.stop()
    }
}
