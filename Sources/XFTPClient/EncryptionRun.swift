import Foundation
import SimplexFoundation
import XFTPProtocol

/// The hashing pass of an upload running on its own thread: each chunk's digest as it is
/// produced, then the whole result. Waiters are resumed when their chunk is produced or the run fails.
final class EncryptionRun: @unchecked Sendable {
    typealias Chunk = [UInt8]
    /// The error of a pass told to stop because the upload failed (the upload's own error is thrown).
    static let stopped = "upload stopped"
    private var stopRequested = false
    private let lock = NSLock()
    private var chunks: [Int: Chunk] = [:]
    private var outcome: Result<FileEncryption.EncryptedFile, XFTPClientError>?
    private var chunkWaiters: [Int: [CheckedContinuation<Result<Chunk, XFTPClientError>, Never>]] = [:]
    private var endWaiters: [CheckedContinuation<Result<FileEncryption.EncryptedFile, XFTPClientError>, Never>] = []

    func chunk(_ i: Int, _ digest: [UInt8]) {
        lock.lock()
        let waiters = chunkWaiters.removeValue(forKey: i) ?? []
        if waiters.isEmpty { chunks[i] = digest }
        lock.unlock()
        // One task uploads a chunk, so at most one waits for it.
        waiters.first?.resume(returning: .success(digest))
    }

    /// Asks the pass to stop at its next chunk.
    func stop() {
        lock.lock()
        stopRequested = true
        lock.unlock()
    }

    var isStopped: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopRequested
    }

    func finish(_ r: Result<FileEncryption.EncryptedFile, XFTPClientError>) {
        lock.lock()
        outcome = r
        let chunkWs = chunkWaiters
        chunkWaiters = [:]
        let endWs = endWaiters
        endWaiters = []
        lock.unlock()
        for (i, ws) in chunkWs {
            let e: XFTPClientError
            if case .failure(let f) = r { e = f } else { e = .io("chunk \(i + 1) was not written") }
            for w in ws { w.resume(returning: .failure(e)) }
        }
        for w in endWs { w.resume(returning: r) }
    }

    /// Chunk `i`'s digest, once produced; handed over once.
    func take(_ i: Int) async throws(XFTPClientError) -> Chunk {
        let r: Result<Chunk, XFTPClientError> = await withCheckedContinuation { c in
            lock.lock()
            if let chunk = chunks.removeValue(forKey: i) {
                lock.unlock()
                c.resume(returning: .success(chunk))
            } else if let outcome {
                lock.unlock()
                if case .failure(let e) = outcome { c.resume(returning: .failure(e)) } else { c.resume(returning: .failure(.io("chunk \(i + 1) was not written"))) }
            } else {
                chunkWaiters[i, default: []].append(c)
                lock.unlock()
            }
        }
        return try r.get()
    }

    func result() async -> Result<FileEncryption.EncryptedFile, XFTPClientError> {
        await withCheckedContinuation { c in
            lock.lock()
            if let outcome {
                lock.unlock()
                c.resume(returning: outcome)
            } else {
                endWaiters.append(c)
                lock.unlock()
            }
        }
    }
}
