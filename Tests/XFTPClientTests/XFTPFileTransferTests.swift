import Crypto
import Foundation
import SimplexFoundation
import XCTest
@testable import XFTPClient
import XFTPProtocol
import XFTPServer

/// Whole files: encrypt, chunk, upload to our servers, describe, download and decrypt; resuming
/// after a server went away, over real TLS on loopback.
final class XFTPFileTransferTests: XCTestCase {
    var dir = ""

    override func setUp() { dir = makeTempDir("xftp-file") }
    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    func transfer(_ srv: XFTPTestServer, _ name: String) throws -> XFTPFileTransfer {
        XFTPFileTransfer(pool: XFTPClientPool(group: srv.group), progress: try DirectoryProgressStore(directory: dir + "/progress-" + name),
                         workDirectory: dir + "/work-" + name)
    }

    func sha(_ path: String) throws -> [UInt8] {
        Array(SHA256.hash(data: try Data(contentsOf: URL(fileURLWithPath: path))))
    }

    /// A 6 MB file in 3 chunks (4 MB + 2 x 1 MB) over two servers, for two recipients.
    func testMultiChunkUploadDownloadTwoServers() async throws {
        let a = try await XFTPTestServer(dir: dir + "/a")
        let b = try await XFTPTestServer(dir: dir + "/b")
        let src = dir + "/report.pdf"
        try writeRandom(src, 6_000_000)
        let up = try transfer(a, "up")
        let result = try await up.upload(sourcePath: src, fileName: "report.pdf", servers: [a.address, b.address], recipientCount: 2, transferId: "t1")
        XCTAssertEqual(result.recipients.count, 2)
        XCTAssertEqual(result.sender.chunks.map(\.chunkSize), [XFTPChunkSizes.size3, XFTPChunkSizes.size2, XFTPChunkSizes.size2])
        XCTAssertEqual(Set(result.sender.chunks.map { $0.replicas[0].server }), [a.address, b.address])
        XCTAssertEqual(a.core.store.fileCount + b.core.store.fileCount, 3)
        for (i, rd) in result.recipients.enumerated() {
            // Through the YAML a recipient would be sent.
            let parsed = try FileDescription(yaml: rd.yaml)
            XCTAssertEqual(parsed, rd)
            let down = try transfer(a, "down\(i)")
            let outDir = dir + "/out\(i)"
            try FileManager.default.createDirectory(atPath: outDir, withIntermediateDirectories: true)
            let path = try await down.download(parsed, to: outDir, transferId: "d\(i)")
            XCTAssertEqual((path as NSString).lastPathComponent, "report.pdf")
            XCTAssertEqual(try sha(path), try sha(src))
            // Acknowledged: that recipient cannot download again.
            await XFTPAssertThrows(.protocolError(.auth)) { _ = try await down.download(parsed, to: outDir, transferId: "again\(i)") }
        }
        try await up.delete(result.sender)
        XCTAssertEqual(a.core.store.fileCount + b.core.store.fileCount, 0)
        await a.stop()
        await b.stop()
    }

    /// An upload that fails on an unreachable server resumes with the chunks already uploaded kept
    /// (the other server is down during the retry, so it cannot be asked again).
    func testUploadResumes() async throws {
        let a = try await XFTPTestServer(dir: dir + "/a")
        let b = try await XFTPTestServer(dir: dir + "/b")
        let src = dir + "/notes.txt"
        try writeRandom(src, 300_000)  // 2 chunks: 256 KB on a, 64 KB on b
        await b.pause()
        let up = try transfer(a, "up")
        do {
            _ = try await up.upload(sourcePath: src, fileName: "notes.txt", servers: [a.address, b.address], recipientCount: 1, transferId: "r")
            XCTFail("uploaded to a server that is down")
        } catch {}
        XCTAssertEqual(a.core.store.fileCount, 1)
        await a.pause()
        try await b.resume()
        let result = try await up.upload(sourcePath: src, fileName: "notes.txt", servers: [a.address, b.address], recipientCount: 1, transferId: "r")
        XCTAssertEqual(result.recipients[0].chunks.count, 2)
        XCTAssertEqual(a.core.store.fileCount, 1)
        try await a.resume()
        let path = try await transfer(a, "down").download(result.recipients[0], to: dir, transferId: "d")
        XCTAssertEqual(try sha(path), try sha(src))
        XCTAssertTrue(path.hasSuffix("notes_1.txt"))
        await a.stop()
        await b.stop()
    }

    /// No encrypted copy is kept: a retry encrypts the file again, and a file changed since its
    /// chunks were created makes the upload start over rather than send a mix of both versions.
    func testUploadRetryAfterTheSourceChangedStartsOver() async throws {
        let a = try await XFTPTestServer(dir: dir + "/a")
        let b = try await XFTPTestServer(dir: dir + "/b")
        let src = dir + "/notes.txt"
        try writeRandom(src, 300_000)
        await b.pause()
        let up = try transfer(a, "up")
        do {
            _ = try await up.upload(sourcePath: src, fileName: "notes.txt", servers: [a.address, b.address], recipientCount: 1, transferId: "r")
            XCTFail("uploaded to a server that is down")
        } catch {}
        XCTAssertEqual((try? FileManager.default.contentsOfDirectory(atPath: dir + "/work-up")) ?? [], [], "no encrypted copy of the file")
        try writeRandom(src, 300_000)
        try await b.resume()
        await XFTPAssertThrows(.io("file IO error: the file changed since its upload started")) {
            _ = try await up.upload(sourcePath: src, fileName: "notes.txt", servers: [a.address, b.address], recipientCount: 1, transferId: "r")
        }
        // The saved state was dropped with that error: the next try is a new upload of the new file.
        let result = try await up.upload(sourcePath: src, fileName: "notes.txt", servers: [a.address, b.address], recipientCount: 1, transferId: "r")
        let out = dir + "/out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let path = try await transfer(a, "down").download(result.recipients[0], to: out, transferId: "d")
        XCTAssertEqual(try sha(path), try sha(src))
        await a.stop()
        await b.stop()
    }

    /// The saved upload state round-trips in its binary form, and a JSON state of an earlier
    /// version is still read (with its encrypted file); both report the same progress.
    func testUploadStateEncodings() throws {
        let chunk = UploadState.Chunk(chunkNo: 1, offset: 0, size: 65_536, digest: Array(repeating: 1, count: 32), server: "xftp://a@b:1",
                                      senderKey: Array(repeating: 2, count: 32), recipientKeys: [Array(repeating: 3, count: 32)],
                                      senderId: Array(repeating: 4, count: 24), recipientIds: [Array(repeating: 5, count: 24)], uploaded: true)
        var second = chunk
        second.chunkNo = 2
        second.offset = 65_536
        second.senderId = nil
        second.recipientIds = nil
        second.uploaded = false
        let state = UploadState(encryptedPath: nil, size: 131_072, digest: Array(repeating: 6, count: 64), key: Array(repeating: 7, count: 32),
                                nonce: Array(repeating: 8, count: 24), chunks: [chunk, second], redirectSize: 10, redirectDigest: [9],
                                encryptionDone: nil)
        let binary = try state.encoded()
        let back = try XCTUnwrap(UploadState.decode(binary))
        XCTAssertEqual(try back.encoded(), binary)
        XCTAssertEqual(back.chunks[1].server, "xftp://a@b:1")
        XCTAssertNil(back.chunks[1].senderId)
        XCTAssertEqual(XFTPUploadProgress.summary(binary)?.sent, 65_536)
        XCTAssertEqual(XFTPUploadProgress.summary(binary)?.total, 131_072)
        var legacy = state
        legacy.encryptedPath = "/tmp/up-x.enc"
        legacy.encryptionDone = true
        let json = Array(try JSONEncoder().encode(legacy))
        XCTAssertEqual(UploadState.decode(json)?.encryptedPath, "/tmp/up-x.enc")
        XCTAssertEqual(XFTPUploadProgress.summary(json)?.sent, 65_536)
        XCTAssertNil(UploadState.decode(Array(binary.dropLast())), "a truncated state is not resumed")
    }

    /// A download that fails midway keeps its chunks; the retry fetches only the missing ones.
    func testDownloadResumes() async throws {
        let a = try await XFTPTestServer(dir: dir + "/a")
        let b = try await XFTPTestServer(dir: dir + "/b")
        let src = dir + "/notes.txt"
        try writeRandom(src, 300_000)
        let result = try await transfer(a, "up").upload(sourcePath: src, fileName: "notes.txt", servers: [a.address, b.address], recipientCount: 1, transferId: "u")
        await b.pause()
        let down = try transfer(a, "down")
        let out = dir + "/out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        do {
            _ = try await down.download(result.recipients[0], to: out, transferId: "d", acknowledge: false)
            XCTFail("downloaded from a server that is down")
        } catch {}
        // What landed is decrypted into the partial output at once: no chunk waits on disk encrypted.
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir + "/work-down"), ["down-d-part"])
        await a.pause()
        try await b.resume()
        let path = try await down.download(result.recipients[0], to: out, transferId: "d", acknowledge: false)
        XCTAssertEqual(try sha(path), try sha(src))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir + "/work-down"), [], "neither the partial output nor landed chunks are left")
        await a.stop()
        await b.stop()
    }

    /// A recipient description sent by redirect: the description is uploaded as `direct.yaml` in one
    /// chunk, the short description leads to it, and the real file is downloaded after the checks.
    func testRedirectDescription() async throws {
        let a = try await XFTPTestServer(dir: dir + "/a")
        let src = dir + "/big.bin"
        try writeRandom(src, 700_000)
        let up = try transfer(a, "up")
        let direct = try await up.upload(sourcePath: src, fileName: "big.bin", servers: [a.address], recipientCount: 1, transferId: "f")
        let redirected = try await up.uploadRedirect(for: direct.recipients[0], servers: [a.address], recipientCount: 1, transferId: "r")
        let short = redirected.recipients[0]
        XCTAssertEqual(short.redirect, RedirectFileInfo(size: direct.recipients[0].size, digest: direct.recipients[0].digest))
        XCTAssertNil(redirected.sender.redirect)
        XCTAssertEqual(short.chunks.count, 1)
        let parsed = try FileDescription(yaml: short.yaml)
        XCTAssertEqual(parsed, short)
        let out = dir + "/out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let path = try await transfer(a, "down").download(parsed, to: out, transferId: "d")
        XCTAssertEqual(try sha(path), try sha(src))
        XCTAssertEqual((path as NSString).lastPathComponent, "big.bin")

        // A redirect whose promise does not match the uploaded description is refused.
        var lying = try await up.uploadRedirect(for: direct.recipients[0], servers: [a.address], recipientCount: 1, transferId: "r2").recipients[0]
        lying.redirect?.size += 1
        await XFTPAssertThrows(.redirect("size mismatch")) { _ = try await self.transfer(a, "down2").download(lying, to: out, transferId: "d2") }
        await a.stop()
    }

    /// A description whose chunk was swapped for another (right digest for the chunk, wrong file) is refused.
    func testTamperedDescriptionIsRefused() async throws {
        let a = try await XFTPTestServer(dir: dir + "/a")
        let src = dir + "/f.bin"
        try writeRandom(src, 100_000)
        let result = try await transfer(a, "up").upload(sourcePath: src, fileName: "f.bin", servers: [a.address], recipientCount: 1, transferId: "u")
        var rd = result.recipients[0]
        rd.digest = Array(repeating: 7, count: 64)
        await XFTPAssertThrows(.responseError(.digest)) { _ = try await self.transfer(a, "down").download(rd, to: self.dir, transferId: "d") }
        await a.stop()
    }
}
