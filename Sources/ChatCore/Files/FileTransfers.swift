import Foundation
import GRDB
import NIOConcurrencyHelpers
import NIOCore
import XFTPClient
import XFTPProtocol

/// The uploads and downloads under way (the agent's XFTP workers, simplexmq FileTransfer/Agent.hs):
/// one task per file, over one XFTP session per server. The tasks do the work; what they
/// learn goes back to the controller, which keeps the database and sends the events.
final class FileTransfers: Sendable {
    let pool: XFTPClientPool
    private let state = NIOLockedValueBox(State())

    private struct State {
        var tasks: [Int64: (token: UInt64, task: Task<Void, Never>)] = [:]
        var nextToken: UInt64 = 0
        /// `/_files_folder`: where received files go and relative paths are resolved.
        var filesFolder: String?
        /// `/_files_encrypt`: received files are kept encrypted unless `/freceive` says otherwise.
        var encryptLocalFiles = false
    }

    init(group: any EventLoopGroup, filesFolder: String?, encryptLocalFiles: Bool) {
        pool = XFTPClientPool(group: group)
        state.withLockedValue {
            $0.filesFolder = filesFolder
            $0.encryptLocalFiles = encryptLocalFiles
        }
    }

    var filesFolder: String? {
        get { state.withLockedValue { $0.filesFolder } }
        set { state.withLockedValue { $0.filesFolder = newValue } }
    }

    var encryptLocalFiles: Bool {
        get { state.withLockedValue { $0.encryptLocalFiles } }
        set { state.withLockedValue { $0.encryptLocalFiles = newValue } }
    }

    /// Runs `work` as the file's transfer, replacing (cancelling) one already running.
    func start(_ fileId: Int64, _ work: @escaping @Sendable () async -> Void) {
        state.withLockedValue { s in
            s.nextToken += 1
            let token = s.nextToken
            s.tasks[fileId]?.task.cancel()
            let task = Task {
                await work()
                self.finished(fileId, token)
            }
            s.tasks[fileId] = (token, task)
        }
    }

    private func finished(_ fileId: Int64, _ token: UInt64) {
        state.withLockedValue { s in
            if s.tasks[fileId]?.token == token { s.tasks[fileId] = nil }
        }
    }

    func isRunning(_ fileId: Int64) -> Bool { state.withLockedValue { $0.tasks[fileId] != nil } }

    func cancel(_ fileId: Int64) {
        state.withLockedValue { s in
            s.tasks.removeValue(forKey: fileId)?.task.cancel()
        }
    }

    /// Every transfer stops (the chat stops); they resume when it starts again.
    func cancelAll() {
        let tasks = state.withLockedValue { s in
            defer { s.tasks = [:] }
            return s.tasks.values.map(\.task)
        }
        tasks.forEach { $0.cancel() }
    }
}

/// The XFTP client's progress kept in the chat database (`xftp_progress`), so a transfer
/// resumes after a restart; each save is also reported, for progress events.
struct ChatProgressStore: XFTPProgressStore {
    let dbQueue: DatabaseQueue
    let onSave: @Sendable (String, [UInt8]) -> Void

    func load(_ key: String) -> [UInt8]? {
        try? dbQueue.read { db in try db.progress(key) }
    }

    func save(_ key: String, _ value: [UInt8]) throws {
        try dbQueue.write { db in try db.saveProgress(key, value, at: Date().timeIntervalSince1970) }
        onSave(key, value)
    }

    func remove(_ key: String) {
        try? dbQueue.write { db in try db.removeProgress(key) }
    }
}

/// A transfer's progress events in the order their states were saved, and a way to wait for
/// them before its completion is reported: as the reference's RFPROG events always come before
/// RFDONE, no progress event may arrive after (and be dropped by) the completed status.
final class ProgressEvents: @unchecked Sendable {
    private let lock = NSLock()
    private var last: Task<Void, Never>?

    func add(_ work: @escaping @Sendable () async -> Void) {
        lock.lock()
        let previous = last
        last = Task {
            await previous?.value
            await work()
        }
        lock.unlock()
    }

    func drain() async {
        await current()?.value
    }

    private func current() -> Task<Void, Never>? {
        lock.withLock { last }
    }
}

/// What a saved progress value says was done: bytes of chunks uploaded or downloaded.
enum TransferProgress {
    /// `(sent, total)` from an upload's saved state.
    static func upload(_ value: [UInt8]) -> (Int64, Int64)? {
        XFTPUploadProgress.summary(value).map { ($0.sent, $0.total) }
    }

    /// `(received, total)` from a download's saved progress and its description.
    static func download(_ value: [UInt8], _ description: FileDescription) -> (Int64, Int64)? {
        XFTPDownloadProgress.summary(value, chunkSizes: description.chunks.map(\.chunkSize)).map { ($0.received, $0.total) }
    }
}
