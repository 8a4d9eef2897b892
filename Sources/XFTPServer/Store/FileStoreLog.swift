#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import SimplexFoundation
import XFTPProtocol

/// One change to the file store, as a line of the reference's `file-server-store.log`
/// (`FileStoreLogRecord` strEncode), so a log can move between this server and simplexmq's.
public enum FileStoreLogRecord: Sendable, Equatable {
    case addFile(senderId: [UInt8], info: FileInfo, createdAt: Int64, status: FileStatus)
    case putFile(senderId: [UInt8], path: String)
    case addRecipients(senderId: [UInt8], [FileRecipient])
    case deleteFile(senderId: [UInt8])
    case blockFile(senderId: [UInt8], BlockingInfo)
    case ackFile(recipientId: [UInt8])

    static func b64(_ b: [UInt8]) -> String { Base64Text.encode(b) }

    /// `FNEW sId key size digest createdAt status`, `FPUT sId path`, `FADD sId rId:key,...`,
    /// `FDEL sId`, `FBLK sId info`, `FACK rId` (IDs, keys, digests and paths in base64url).
    public var line: String {
        switch self {
        case .addFile(let sid, let info, let at, let status):
            return "FNEW \(Self.b64(sid)) \(Self.b64(info.senderKey.x509Encoded)) \(info.size) \(Self.b64(info.digest)) \(at) \(status.text)"
        case .putFile(let sid, let path):
            return "FPUT \(Self.b64(sid)) \(Self.b64(Array(path.utf8)))"
        case .addRecipients(let sid, let rcps):
            return "FADD \(Self.b64(sid)) " + rcps.map { "\(Self.b64($0.recipientId)):\(Self.b64($0.key.x509Encoded))" }.joined(separator: ",")
        case .deleteFile(let sid): return "FDEL \(Self.b64(sid))"
        case .blockFile(let sid, let info): return "FBLK \(Self.b64(sid)) " + String(decoding: info.encoded, as: UTF8.self)
        case .ackFile(let rid): return "FACK \(Self.b64(rid))"
        }
    }

    /// Parses one line; nil for a malformed (e.g. torn) line, which the replay skips.
    public init?(line: Substring) {
        let w = line.split(separator: " ", omittingEmptySubsequences: false)
        guard w.count >= 2, let id = Base64Text.decode(w[1]) else { return nil }
        switch w[0] {
        case "FNEW":
            guard w.count == 6 || w.count == 7,
                  let keyDer = Base64Text.decode(w[2]),
                  let key = try? AnyPublicKey(x509Encoded: keyDer, allowing: [.ed25519, .ed448, .x25519]),
                  w[3].allSatisfy({ $0.isASCII && $0.isNumber }), let size = UInt32(w[3]),
                  let digest = Base64Text.decode(w[4]), let at = Int64(w[5])
            else { return nil }
            var status = FileStatus.active
            if w.count == 7 {
                guard let s = FileStatus(text: w[6]) else { return nil }
                status = s
            }
            self = .addFile(senderId: id, info: FileInfo(senderKey: key, size: size, digest: digest), createdAt: at, status: status)
        case "FPUT":
            guard w.count == 3, let p = Base64Text.decode(w[2]), let path = String(bytes: p, encoding: .utf8) else { return nil }
            self = .putFile(senderId: id, path: path)
        case "FADD":
            guard w.count == 3 else { return nil }
            var rcps: [FileRecipient] = []
            for item in w[2].split(separator: ",", omittingEmptySubsequences: false) {
                let parts = item.split(separator: ":", omittingEmptySubsequences: false)
                guard parts.count == 2, let rid = Base64Text.decode(parts[0]), let der = Base64Text.decode(parts[1]),
                      let key = try? AnyPublicKey(x509Encoded: der, allowing: [.ed25519, .ed448, .x25519])
                else { return nil }
                rcps.append(FileRecipient(recipientId: rid, key: key))
            }
            guard !rcps.isEmpty else { return nil }
            self = .addRecipients(senderId: id, rcps)
        case "FDEL":
            guard w.count == 2 else { return nil }
            self = .deleteFile(senderId: id)
        case "FBLK":
            guard w.count == 3, let info = BlockingInfo(encoded: Array(w[2].utf8)) else { return nil }
            self = .blockFile(senderId: id, info)
        case "FACK":
            guard w.count == 2 else { return nil }
            self = .ackFile(recipientId: id)
        default: return nil
        }
    }
}

/// The append-only store log: one line per record, written with one write(2) before the
/// command it records is answered, so a killed server loses nothing it acknowledged.
final class FileStoreLog {
    let path: String
    private let fd: Int32
    private let fsyncEach: Bool

    init(path: String, fsyncEach: Bool) throws(XFTPStoreError) {
        self.path = path
        self.fsyncEach = fsyncEach
        fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .io("cannot open \(path): errno \(errno)") }
    }

    deinit { close(fd) }

    func append(_ records: [FileStoreLogRecord]) throws(XFTPStoreError) {
        guard !records.isEmpty else { return }
        let text = records.map { $0.line + "\n" }.joined()
        try Self.writeAll(fd: fd, Array(text.utf8))
        if fsyncEach { fsync(fd) }
    }

    static func writeAll(fd: Int32, _ bytes: [UInt8]) throws(XFTPStoreError) {
        var off = 0
        while off < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + off, bytes.count - off) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .io("write failed: errno \(errno)")
            }
            off += n
        }
    }

    /// Every parsable line of a log. A line without its newline (a write cut by a crash) or that
    /// does not parse is counted in `skipped` and left out, as the reference logs and skips it.
    static func read(path: String) throws(XFTPStoreError) -> (records: [FileStoreLogRecord], skipped: Int) {
        guard let data = FileManager.default.contents(atPath: path) else {
            if !FileManager.default.fileExists(atPath: path) { return ([], 0) }
            throw .io("cannot read \(path)")
        }
        var records: [FileStoreLogRecord] = []
        var skipped = 0
        let bytes = [UInt8](data)
        var start = 0
        while start < bytes.count {
            guard let nl = bytes[start...].firstIndex(of: 0x0A) else {
                skipped += 1
                break
            }
            let line = String(decoding: bytes[start..<nl], as: UTF8.self)
            if !line.isEmpty {
                if let r = FileStoreLogRecord(line: Substring(line)) { records.append(r) } else { skipped += 1 }
            }
            start = nl + 1
        }
        return (records, skipped)
    }

    /// Replaces the log with `records` the reference's way: the old log is kept as `.start`
    /// while the new one is written, so a crash during compaction is recovered on next start.
    static func compact(path: String, records: [FileStoreLogRecord]) throws(XFTPStoreError) {
        let backup = path + ".start"
        let fm = FileManager.default
        if fm.fileExists(atPath: path) {
            guard rename(path, backup) == 0 else { throw .io("cannot rename \(path): errno \(errno)") }
        }
        let tmp = path + ".tmp"
        let fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .io("cannot create \(tmp): errno \(errno)") }
        do {
            var buffer: [UInt8] = []
            for r in records {
                buffer += Array((r.line + "\n").utf8)
                if buffer.count > 1 << 20 {
                    try writeAll(fd: fd, buffer)
                    buffer.removeAll(keepingCapacity: true)
                }
            }
            try writeAll(fd: fd, buffer)
            fsync(fd)
            close(fd)
        } catch {
            close(fd)
            throw error
        }
        guard rename(tmp, path) == 0 else { throw .io("cannot rename \(tmp): errno \(errno)") }
        unlink(backup)
    }

    /// Before reading: a `.start` file means the last compaction did not finish; it holds the
    /// full state, so it replaces whatever partial log is there (kept as `.bak`).
    static func recoverInterruptedCompaction(path: String) {
        let backup = path + ".start"
        let fm = FileManager.default
        guard fm.fileExists(atPath: backup) else { return }
        if fm.fileExists(atPath: path) {
            _ = rename(path, path + ".bak")
        }
        _ = rename(backup, path)
    }
}

public enum XFTPStoreError: Error, Equatable, Sendable, CustomStringConvertible {
    case io(String)

    public var description: String {
        switch self {
        case .io(let w): "store error: \(w)"
        }
    }
}
