import NIOConcurrencyHelpers
import SimplexFoundation
import XFTPProtocol

/// The server's chunk records in memory (`STMFileStore`), with every change written to the store
/// log under the same lock, so the log order is the order changes happened in. Lookups and
/// updates are a few dictionary operations; chunk bodies are read and written outside the lock.
public final class FileStore: @unchecked Sendable {
    private let lock = NIOLock()
    private var files: [[UInt8]: FileRec] = [:]
    private var recipients: [[UInt8]: (senderId: [UInt8], key: AnyPublicKey)] = [:]
    /// Bytes of uploaded chunks (the quota counts these).
    private var used: Int64 = 0
    private var log: FileStoreLog?
    /// Lines of the log that were unreadable when it was loaded (reported at start).
    public private(set) var skippedOnLoad = 0

    /// A store without persistence.
    public init() {}

    /// Replays the log at `logPath` (finishing an interrupted compaction first), compacts it and
    /// keeps appending to it.
    public init(logPath: String, fsync: Bool) throws(XFTPStoreError) {
        FileStoreLog.recoverInterruptedCompaction(path: logPath)
        let (records, skipped) = try FileStoreLog.read(path: logPath)
        skippedOnLoad = skipped
        for r in records { _ = replay(r) }
        try FileStoreLog.compact(path: logPath, records: snapshotLocked())
        log = try FileStoreLog(path: logPath, fsyncEach: fsync)
    }

    public var fileCount: Int { lock.withLock { files.count } }
    public var usedStorage: Int64 { lock.withLock { used } }

    private func locked<T>(_ body: () throws(XFTPErrorType) -> T) throws(XFTPErrorType) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    private func write(_ records: [FileStoreLogRecord]) throws(XFTPErrorType) {
        do {
            try log?.append(records)
        } catch {
            throw .internal
        }
    }

    // MARK: operations (`FileStoreClass`)

    /// `addFile` with its recipients, logged together: the sender ID must be new.
    public func addFile(senderId: [UInt8], info: FileInfo, createdAt: Int64, recipients rcps: [FileRecipient]) throws(XFTPErrorType) {
        try locked { () throws(XFTPErrorType) in
            if files[senderId] != nil { throw .duplicate }
            var seen = Set<[UInt8]>()
            for r in rcps where recipients[r.recipientId] != nil || !seen.insert(r.recipientId).inserted { throw .duplicate }
            try write([.addFile(senderId: senderId, info: info, createdAt: createdAt, status: .active)]
                + (rcps.isEmpty ? [] : [.addRecipients(senderId: senderId, rcps)]))
            files[senderId] = FileRec(senderId: senderId, fileInfo: info, filePath: nil, recipientIds: seen, createdAt: createdAt, status: .active)
            for r in rcps { recipients[r.recipientId] = (senderId, r.key) }
        }
    }

    /// `addRecipient` for FADD: all IDs must be new.
    public func addRecipients(senderId: [UInt8], _ rcps: [FileRecipient]) throws(XFTPErrorType) {
        try locked { () throws(XFTPErrorType) in
            guard files[senderId] != nil else { throw .auth }
            var seen = Set<[UInt8]>()
            for r in rcps where recipients[r.recipientId] != nil || !seen.insert(r.recipientId).inserted { throw .duplicate }
            try write([.addRecipients(senderId: senderId, rcps)])
            files[senderId]!.recipientIds.formUnion(seen)
            for r in rcps { recipients[r.recipientId] = (senderId, r.key) }
        }
    }

    /// Reserves quota for an upload (`reserve`): false when it would exceed `quota`.
    public func reserve(_ size: Int64, quota: Int64?) -> Bool {
        lock.withLock {
            let u = used + size
            if let quota, u > quota { return false }
            used = u
            return true
        }
    }

    public func release(_ size: Int64) {
        lock.withLock { used = max(0, used - size) }
    }

    /// `setFilePath` after a complete upload: only an active file without a body yet.
    public func setFilePath(senderId: [UInt8], path: String) throws(XFTPErrorType) {
        try locked { () throws(XFTPErrorType) in
            guard let f = files[senderId], f.filePath == nil, f.status == .active else { throw .auth }
            try write([.putFile(senderId: senderId, path: path)])
            files[senderId]!.filePath = path
        }
    }

    /// `deleteFile`: removes the record and its recipients; the caller removes the body file.
    /// Returns the record so the caller can release its quota.
    @discardableResult
    public func deleteFile(senderId: [UInt8]) throws(XFTPErrorType) -> FileRec {
        try locked { () throws(XFTPErrorType) in
            guard let f = files[senderId] else { throw .auth }
            try write([.deleteFile(senderId: senderId)])
            return removeLocked(f)
        }
    }

    private func removeLocked(_ f: FileRec) -> FileRec {
        files[f.senderId] = nil
        for r in f.recipientIds { recipients[r] = nil }
        if f.filePath != nil { used = max(0, used - Int64(f.fileInfo.size)) }
        return f
    }

    /// `blockFile`: an operator decision; the body is deleted, the record answers BLOCKED.
    @discardableResult
    public func blockFile(senderId: [UInt8], info: BlockingInfo) throws(XFTPErrorType) -> FileRec {
        try locked { () throws(XFTPErrorType) in
            guard let f = files[senderId] else { throw .auth }
            try write([.blockFile(senderId: senderId, info)])
            files[senderId]!.status = .blocked(info)
            if f.filePath != nil { used = max(0, used - Int64(f.fileInfo.size)) }
            files[senderId]!.filePath = nil
            return f
        }
    }

    /// `ackFile`/`deleteRecipient` for FACK.
    public func ackFile(recipientId: [UInt8]) throws(XFTPErrorType) {
        try locked { () throws(XFTPErrorType) in
            guard let (sid, _) = recipients[recipientId] else { throw .auth }
            try write([.ackFile(recipientId: recipientId)])
            recipients[recipientId] = nil
            files[sid]?.recipientIds.remove(recipientId)
        }
    }

    /// `getFile`: a sender looks a file up by its sender ID, a recipient by a recipient ID; the
    /// key is the one that must have authorized the command.
    public func getFile(party: FileParty, id: [UInt8]) -> (FileRec, AnyPublicKey)? {
        lock.withLock {
            switch party {
            case .sender:
                return files[id].map { ($0, $0.fileInfo.senderKey) }
            case .recipient:
                guard let (sid, key) = recipients[id], let f = files[sid] else { return nil }
                return (f, key)
            }
        }
    }

    /// Files created before `createdBefore` (with the hour of rounding added, as `expiredFiles`).
    public func expiredFiles(olderThan old: Int64, limit: Int) -> [FileRec] {
        lock.withLock {
            var out: [FileRec] = []
            for f in files.values where f.createdAt + FileRec.timePrecision < old {
                out.append(f)
                if out.count >= limit { break }
            }
            return out
        }
    }

    // MARK: replay and snapshot

    /// Applies a log record on load; errors are skipped as the reference logs and skips them.
    private func replay(_ r: FileStoreLogRecord) -> Bool {
        switch r {
        case .addFile(let sid, let info, let at, let status):
            guard info.size > 0, files[sid] == nil else { return false }
            files[sid] = FileRec(senderId: sid, fileInfo: info, filePath: nil, recipientIds: [], createdAt: at, status: status)
        case .putFile(let sid, let path):
            guard let f = files[sid], f.filePath == nil, f.status == .active else { return false }
            files[sid]!.filePath = path
            used += Int64(f.fileInfo.size)
        case .addRecipients(let sid, let rcps):
            guard files[sid] != nil else { return false }
            for r in rcps where recipients[r.recipientId] == nil {
                recipients[r.recipientId] = (sid, r.key)
                files[sid]!.recipientIds.insert(r.recipientId)
            }
        case .deleteFile(let sid):
            guard let f = files[sid] else { return false }
            _ = removeLocked(f)
        case .blockFile(let sid, let info):
            guard let f = files[sid] else { return false }
            files[sid]!.status = .blocked(info)
            if f.filePath != nil { used = max(0, used - Int64(f.fileInfo.size)) }
            files[sid]!.filePath = nil
        case .ackFile(let rid):
            guard let (sid, _) = recipients[rid] else { return false }
            recipients[rid] = nil
            files[sid]?.recipientIds.remove(rid)
        }
        return true
    }

    /// The state as records (`writeFileStore`): each file, its recipients, its body path.
    private func snapshotLocked() -> [FileStoreLogRecord] {
        var out: [FileStoreLogRecord] = []
        for f in files.values.sorted(by: { $0.createdAt < $1.createdAt }) {
            out.append(.addFile(senderId: f.senderId, info: f.fileInfo, createdAt: f.createdAt, status: f.status))
            let rcps = f.recipientIds.sorted { $0.lexicographicallyPrecedes($1) }.compactMap { rid in
                recipients[rid].map { FileRecipient(recipientId: rid, key: $0.key) }
            }
            if !rcps.isEmpty { out.append(.addRecipients(senderId: f.senderId, rcps)) }
            if let p = f.filePath { out.append(.putFile(senderId: f.senderId, path: p)) }
        }
        return out
    }
}
