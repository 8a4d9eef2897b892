import Foundation
import SimplexFoundation
import XCTest
import XFTPProtocol
@testable import XFTPServer

/// A chunk body that hands out `first`, says so on `reached`, then waits on `resume` for how it
/// goes on: cut off (the connection dropped or the stall timed out) or more bytes.
final class PausedRequestBody: XFTPRequestBody, @unchecked Sendable {
    enum Then: Sendable {
        case cutOff
        case send([UInt8])
    }

    struct CutOff: Error {}

    private var pending: [UInt8]
    private var paused = false
    let reached: AsyncStream<Void>
    private let reachedC: AsyncStream<Void>.Continuation
    private let resume: AsyncStream<Then>
    let resumeC: AsyncStream<Then>.Continuation

    init(first: [UInt8]) {
        pending = first
        (reached, reachedC) = AsyncStream.makeStream()
        (resume, resumeC) = AsyncStream.makeStream()
    }

    func next(max: Int) async throws -> [UInt8] {
        if pending.isEmpty, !paused {
            paused = true
            reachedC.yield()
            var it = resume.makeAsyncIterator()
            switch await it.next() {
            case .send(let more)?: pending = more
            case .cutOff?, nil: throw CutOff()
            }
        }
        let n = min(max, pending.count)
        defer { pending.removeFirst(n) }
        return Array(pending.prefix(n))
    }
}

/// A retried FPUT racing an abandoned first attempt of the same chunk (the client timed out or
/// its connection dropped while the first body was still arriving). The reference writes both to
/// the chunk's one path, so the first attempt's cleanup deleted the retry's committed body, or its
/// late bytes overwrote it, and FGET then failed after an OK. Each case failed before the fix.
extension XFTPServerCoreTests {
    /// Starts an FPUT whose body stops after half the chunk, and waits until the server has it.
    private func startStalledUpload(_ c: XFTPServerCore, sid: [UInt8], data: [UInt8]) async throws -> (PausedRequestBody, Task<FileResponse, Never>) {
        let block = try XFTPTransmission.encodeAuth(session.params, key: .ed25519(senderKey), serverSessionKey: sessionKey.publicKey,
                                                    corrId: SecureRandom.bytes(24), entityId: sid, command: .fput)
        let body = PausedRequestBody(first: Array(data.prefix(data.count / 2)))
        let session = session
        let first = Task { await c.process(block: block, session: session, body: body).response }
        var it = body.reached.makeAsyncIterator()
        await it.next()
        return (body, first)
    }

    func testRetryCommitsWhileAbandonedUploadIsCutOff() async throws {
        let c = try core()
        let (sid, rids, data) = try await newChunk(c)
        let (first, firstReply) = try await startStalledUpload(c, sid: sid, data: data)
        expectReply(try await send(c, key: .ed25519(senderKey), entity: sid, .fput, body: data), .ok, "the retry")
        first.resumeC.yield(.cutOff)
        let firstReplyResponse = await firstReply.value
        XCTAssertEqual(firstReplyResponse, .err(.timeout))
        expectDownload(try await download(c, rid: rids[0], key: .ed25519(rcpKey)), .success(data), "the retry's body is kept whole")
        XCTAssertEqual(c.store.usedStorage, 65536)
        expectReply(try await send(c, key: .ed25519(senderKey), entity: sid, .fput, body: data), .ok, "committed: drained and OK")
    }

    func testAbandonedUploadFinishingLateLeavesTheCommittedBody() async throws {
        let c = try core()
        let (sid, rids, data) = try await newChunk(c)
        let (first, firstReply) = try await startStalledUpload(c, sid: sid, data: data)
        expectReply(try await send(c, key: .ed25519(senderKey), entity: sid, .fput, body: data), .ok, "the retry")
        // The first attempt's remaining bytes arrive after the retry committed: its body is whole
        // and has the chunk's digest, so it is answered as a repeated upload of a stored chunk.
        first.resumeC.yield(.send(Array(data.dropFirst(data.count / 2))))
        let firstReplyResponse = await firstReply.value
        XCTAssertEqual(firstReplyResponse, .ok)
        expectDownload(try await download(c, rid: rids[0], key: .ed25519(rcpKey)), .success(data))
        XCTAssertEqual(c.store.usedStorage, 65536, "the late attempt's reservation is released")
    }

    func testAbandonedUploadsOtherBytesDoNotReachTheCommittedBody() async throws {
        let c = try core()
        let (sid, rids, data) = try await newChunk(c)
        let (first, firstReply) = try await startStalledUpload(c, sid: sid, data: data)
        expectReply(try await send(c, key: .ed25519(senderKey), entity: sid, .fput, body: data), .ok, "the retry")
        first.resumeC.yield(.send(SecureRandom.bytes(data.count / 2)))
        let firstReplyResponse = await firstReply.value
        XCTAssertEqual(firstReplyResponse, .err(.digest))
        expectDownload(try await download(c, rid: rids[0], key: .ed25519(rcpKey)), .success(data))
        XCTAssertEqual(c.store.usedStorage, 65536)
    }

    /// Two complete uploads at once: one commits, both are OK, one body is kept and nothing is
    /// left in the receiving folder; a restart clears bodies of uploads it cut off.
    func testParallelUploadsOfOneChunk() async throws {
        let c = try core()
        let (sid, rids, data) = try await newChunk(c)
        let (first, firstReply) = try await startStalledUpload(c, sid: sid, data: data)
        let (second, secondReply) = try await startStalledUpload(c, sid: sid, data: data)
        let receiving = dir + "/files/.receiving"
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: receiving).count, 2, "each upload writes its own file")
        first.resumeC.yield(.send(Array(data.dropFirst(data.count / 2))))
        second.resumeC.yield(.send(Array(data.dropFirst(data.count / 2))))
        let firstReplyResponse = await firstReply.value
        XCTAssertEqual(firstReplyResponse, .ok)
        let secondReplyResponse = await secondReply.value
        XCTAssertEqual(secondReplyResponse, .ok)
        expectDownload(try await download(c, rid: rids[0], key: .ed25519(rcpKey)), .success(data))
        XCTAssertEqual(c.store.usedStorage, 65536)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: receiving), [])
        // An upload cut off by a restart leaves a partial body; the next start removes it.
        let (sid2, _, data2) = try await newChunk(c)
        let (third, _) = try await startStalledUpload(c, sid: sid2, data: data2)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: receiving).count, 1)
        let c2 = try core()
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: receiving), [])
        expectDownload(try await download(c2, rid: rids[0], key: .ed25519(rcpKey)), .success(data), "committed bodies stay")
        third.resumeC.yield(.cutOff)
    }
}
