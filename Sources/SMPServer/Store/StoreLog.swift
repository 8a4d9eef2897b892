#if canImport(Glibc)
import Glibc
private let sysRead = Glibc.read
#elseif canImport(Darwin)
import Darwin
private let sysRead = Darwin.read
#endif
import SimplexFoundation
import SMPProtocol

/// One change to the relay's state, as written to the store log. The log is replayed on start,
/// so queues and undelivered messages survive restarts and kill -9.
enum StoreLogRecord: Sendable {
    /// Version 1-2 record: the mode as a sender-can-secure flag (read only; `createQueueMode` replaced it).
    case createQueue(rid: ID24, sid: ID24, recipientKey: QueueAuthKey, rcvDhSecret: Key32, senderCanSecure: Bool)
    /// Version 3: the queue mode as NEW gave it (none from v6-v8 clients).
    case createQueueMode(rid: ID24, sid: ID24, recipientKey: QueueAuthKey, rcvDhSecret: Key32, mode: QueueMode?)
    case secureQueue(rid: ID24, senderKey: QueueAuthKey)
    case addNotifier(rid: ID24, NotifierCredentials)
    case deleteNotifier(rid: ID24)
    case suspendQueue(rid: ID24)
    case deleteQueue(rid: ID24)
    case addMessage(rid: ID24, StoredMessage)
    case removeMessage(rid: ID24, msgId: ID24)
    /// Format 2: the queue's short link data was set or replaced.
    case setLink(rid: ID24, linkId: ID24, data: QueueLinkData)
    /// Format 2: the queue's short link data was deleted.
    case deleteLink(rid: ID24)
    /// Format 3: link IDs of any length (the client chooses a contact link's ID); replaces `setLink`.
    case setLinkAnyId(rid: ID24, linkId: [UInt8], data: QueueLinkData)
    /// Format 3: an operator blocked the queue (`BlockingInfo` in its text form).
    case blockQueue(rid: ID24, info: BlockingInfo)
    case unblockQueue(rid: ID24)
    /// Format 4: RKEY replaced the queue's recipient keys.
    case updateKeys(rid: ID24, keys: [QueueAuthKey])

    func encode() throws -> [UInt8] {
        var e = SMPEncoder(capacity: sizeHint)
        try encode(into: &e)
        return e.bytes
    }

    /// About the encoded size, so a message record is written into a buffer allocated once.
    var sizeHint: Int {
        if case .addMessage(_, let m) = self { return 64 + (m.body?.count ?? 0) }
        return 128
    }

    func encode(into e: inout SMPEncoder) throws {
        switch self {
        case .createQueue(let rid, let sid, let key, let secret, let sndSecure):
            e.byte(UInt8(ascii: "N"))
            e.raw(rid.bytes)
            e.raw(sid.bytes)
            try e.shortString(key.x509Encoded)
            e.raw(secret.bytes)
            e.bool(sndSecure)
        case .createQueueMode(let rid, let sid, let key, let secret, let mode):
            e.byte(UInt8(ascii: "Q"))
            e.raw(rid.bytes)
            e.raw(sid.bytes)
            try e.shortString(key.x509Encoded)
            e.raw(secret.bytes)
            e.optional(mode) { $0.byte($1.tag) }
        case .setLinkAnyId(let rid, let linkId, let data):
            e.byte(UInt8(ascii: "Y"))
            e.raw(rid.bytes)
            try e.shortString(linkId)
            try data.encode(into: &e)
        case .blockQueue(let rid, let info):
            e.byte(UInt8(ascii: "B"))
            e.raw(rid.bytes)
            try e.shortString(try BrokerMessage.err(.blocked(info)).smpEncoded().dropFirst(12))
        case .unblockQueue(let rid):
            e.byte(UInt8(ascii: "b"))
            e.raw(rid.bytes)
        case .updateKeys(let rid, let keys):
            e.byte(UInt8(ascii: "R"))
            e.raw(rid.bytes)
            e.byte(UInt8(keys.count))
            for k in keys { try e.shortString(k.x509Encoded) }
        case .secureQueue(let rid, let key):
            e.byte(UInt8(ascii: "S"))
            e.raw(rid.bytes)
            try e.shortString(key.x509Encoded)
        case .addNotifier(let rid, let n):
            e.byte(UInt8(ascii: "K"))
            e.raw(rid.bytes)
            e.raw(n.notifierId.bytes)
            try e.shortString(n.key.x509Encoded)
            e.raw(n.rcvNtfDhSecret.bytes)
        case .deleteNotifier(let rid):
            e.byte(UInt8(ascii: "k"))
            e.raw(rid.bytes)
        case .suspendQueue(let rid):
            e.byte(UInt8(ascii: "O"))
            e.raw(rid.bytes)
        case .deleteQueue(let rid):
            e.byte(UInt8(ascii: "D"))
            e.raw(rid.bytes)
        case .addMessage(let rid, let m):
            e.byte(UInt8(ascii: "M"))
            e.raw(rid.bytes)
            e.raw(m.msgId.bytes)
            e.int64(m.timestamp)
            e.bool(m.notification)
            try e.optional(m.body) { try $0.largeString($1) }
        case .removeMessage(let rid, let msgId):
            e.byte(UInt8(ascii: "A"))
            e.raw(rid.bytes)
            e.raw(msgId.bytes)
        case .setLink(let rid, let linkId, let data):
            e.byte(UInt8(ascii: "L"))
            e.raw(rid.bytes)
            e.raw(linkId.bytes)
            try data.encode(into: &e)
        case .deleteLink(let rid):
            e.byte(UInt8(ascii: "l"))
            e.raw(rid.bytes)
        }
    }

    static func decode(_ bytes: [UInt8]) throws -> StoreLogRecord {
        var d = SMPDecoder(bytes)
        func id() throws -> ID24 {
            guard let v = ID24(try d.take(ID24.length)) else { throw DecodingError.invalid("id") }
            return v
        }
        func key32() throws -> Key32 {
            guard let v = Key32(try d.take(32)) else { throw DecodingError.invalid("key") }
            return v
        }
        let r: StoreLogRecord
        switch try d.byte() {
        case UInt8(ascii: "N"):
            let rid = try id(), sid = try id()
            let key = try QueueAuthKey(x509Encoded: try d.shortString())
            r = .createQueue(rid: rid, sid: sid, recipientKey: key, rcvDhSecret: try key32(), senderCanSecure: try d.bool())
        case UInt8(ascii: "S"):
            let rid = try id()
            r = .secureQueue(rid: rid, senderKey: try QueueAuthKey(x509Encoded: try d.shortString()))
        case UInt8(ascii: "K"):
            let rid = try id(), nid = try id()
            let key = try QueueAuthKey(x509Encoded: try d.shortString())
            r = .addNotifier(rid: rid, NotifierCredentials(notifierId: nid, key: key, rcvNtfDhSecret: try key32()))
        case UInt8(ascii: "k"): r = .deleteNotifier(rid: try id())
        case UInt8(ascii: "O"): r = .suspendQueue(rid: try id())
        case UInt8(ascii: "D"): r = .deleteQueue(rid: try id())
        case UInt8(ascii: "M"):
            let rid = try id(), msgId = try id()
            let ts = try d.int64()
            let ntf = try d.bool()
            let body = try d.optional { try $0.largeString() }
            r = .addMessage(rid: rid, StoredMessage(msgId: msgId, timestamp: ts, notification: ntf, body: body))
        case UInt8(ascii: "A"):
            let rid = try id()
            r = .removeMessage(rid: rid, msgId: try id())
        case UInt8(ascii: "L"):
            let rid = try id(), linkId = try id()
            r = .setLink(rid: rid, linkId: linkId, data: try QueueLinkData.decode(from: &d))
        case UInt8(ascii: "l"): r = .deleteLink(rid: try id())
        case UInt8(ascii: "Q"):
            let rid = try id(), sid = try id()
            let key = try QueueAuthKey(x509Encoded: try d.shortString())
            let secret = try key32()
            r = .createQueueMode(rid: rid, sid: sid, recipientKey: key, rcvDhSecret: secret, mode: try d.optional { try QueueMode.decode(from: &$0) })
        case UInt8(ascii: "Y"):
            let rid = try id()
            let lid = try d.shortString()
            r = .setLinkAnyId(rid: rid, linkId: lid, data: try QueueLinkData.decode(from: &d))
        case UInt8(ascii: "B"):
            let rid = try id()
            let text = try d.shortString()
            guard case .err(.blocked(let info)) = try BrokerMessage.parse(Array("ERR BLOCKED ".utf8) + text, version: SMPVersion.current) else {
                throw DecodingError.invalid("blocking info")
            }
            r = .blockQueue(rid: rid, info: info)
        case UInt8(ascii: "b"): r = .unblockQueue(rid: try id())
        case UInt8(ascii: "R"):
            let rid = try id()
            let n = Int(try d.byte())
            guard n > 0 else { throw DecodingError.invalid("no recipient keys") }
            var keys: [QueueAuthKey] = []
            for _ in 0..<n { keys.append(try QueueAuthKey(x509Encoded: try d.shortString())) }
            r = .updateKeys(rid: rid, keys: keys)
        case let t: throw DecodingError.invalid("record tag \(t)")
        }
        try d.expectEnd()
        return r
    }
}

/// Append-only file of `StoreLogRecord`s, each framed as `length(4) crc32(4) payload`.
/// A record is written with one write(2) before the command it records is answered, so a killed
/// process loses nothing it acknowledged; `fsyncEvery` bounds what a power loss can take.
final class StoreLog {
    /// Format 1: queues, notifiers, messages. Format 2 adds short link records ("L", "l").
    /// A format-1 file is read as is (its records are a subset) and rewritten as format 2 on
    /// load by compaction; a file of an unknown later format is refused.
    /// 3: queue modes, link IDs of any length, blocked queues (records Q, Y, B, b).
    /// 4: recipient keys replaced by RKEY (record R).
    static let fileVersion: UInt32 = 4
    static let readableVersions: ClosedRange<UInt32> = 1...4
    /// Magic and format version at the start of the file, so a later format can migrate it.
    static let header: [UInt8] = Array("SMPLOG".utf8) + [0, UInt8(fileVersion)]

    let path: String
    private var fd: Int32
    private let fsyncEvery: Int
    private var unsynced = 0
    private(set) var recordsWritten = 0

    init(path: String, fsyncEvery: Int) throws {
        self.path = path
        self.fsyncEvery = fsyncEvery
        fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw QueueStoreError.io("cannot open \(path): errno \(errno)") }
        if lseek(fd, 0, SEEK_END) == 0 { try writeAll(Self.header) }
    }

    deinit { close(fd) }

    func append(_ record: StoreLogRecord) throws {
        try append([record])
    }

    /// Appends several records with one write(2), so they survive or vanish together.
    func append(_ records: [StoreLogRecord]) throws {
        // Framed in place: a 16 KB message is copied once, into this buffer, before write(2).
        var e = SMPEncoder(capacity: records.reduce(0) { $0 + $1.sizeHint + 8 })
        for r in records { try Self.frame(r, into: &e) }
        try e.withUnsafeBytes { try Self.writeAll(fd: fd, UnsafeRawBufferPointer($0)) }
        recordsWritten += records.count
        if fsyncEvery > 0 {
            unsynced += 1
            if unsynced >= fsyncEvery {
                fsync(fd)
                unsynced = 0
            }
        }
    }

    func sync() { fsync(fd) }

    /// `length(4) crc32(4) payload`, the payload encoded after the header it then fills in.
    static func frame(_ record: StoreLogRecord, into e: inout SMPEncoder) throws {
        let start = e.count
        e.word32(0)
        e.word32(0)
        try record.encode(into: &e)
        let length = e.count - start - 8
        let crc = e.withUnsafeBytes { b in CRC32.checksum(buffer: UnsafeBufferPointer(rebasing: b[(start + 8)...])) }
        e.overwriteWord32(UInt32(length), at: start)
        e.overwriteWord32(crc, at: start + 4)
    }

    private func writeAll(_ bytes: [UInt8]) throws {
        try Self.writeAll(fd: fd, bytes)
    }

    static func writeAll(fd: Int32, _ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { buf in try writeAll(fd: fd, buf) }
    }

    static func writeAll(fd: Int32, _ buf: UnsafeRawBufferPointer) throws {
        var off = 0
        while off < buf.count {
            let n = write(fd, buf.baseAddress! + off, buf.count - off)
            if n < 0 {
                if errno == EINTR { continue }
                throw QueueStoreError.io("write failed: errno \(errno)")
            }
            off += n
        }
    }

    /// Reads every intact record. A torn or corrupt tail (a crash mid-write) ends the replay and
    /// is reported in `droppedBytes`, never a crash; the file is rewritten by compaction anyway.
    static func read(path: String) throws -> (records: [StoreLogRecord], droppedBytes: Int) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return ([], 0) }
            throw QueueStoreError.io("cannot open \(path): errno \(errno)")
        }
        defer { close(fd) }
        var data = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { sysRead(fd, $0.baseAddress!, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw QueueStoreError.io("read failed: errno \(errno)")
            }
            if n == 0 { break }
            data.append(contentsOf: chunk[0..<n])
        }
        if data.isEmpty { return ([], 0) }
        guard data.count >= header.count, Array(data[0..<6]) == Array(header[0..<6]) else {
            throw QueueStoreError.corruptLog("\(path) is not an SMP store log")
        }
        let version = UInt32(data[6]) << 8 | UInt32(data[7])
        guard readableVersions.contains(version) else { throw QueueStoreError.corruptLog("store log version \(version) is not supported") }
        var records: [StoreLogRecord] = []
        var pos = header.count
        while pos + 8 <= data.count {
            let len = Int(data[pos]) << 24 | Int(data[pos + 1]) << 16 | Int(data[pos + 2]) << 8 | Int(data[pos + 3])
            let crc = UInt32(data[pos + 4]) << 24 | UInt32(data[pos + 5]) << 16 | UInt32(data[pos + 6]) << 8 | UInt32(data[pos + 7])
            guard pos + 8 + len <= data.count else { break }
            let payload = Array(data[(pos + 8)..<(pos + 8 + len)])
            guard CRC32.checksum(payload) == crc, let r = try? StoreLogRecord.decode(payload) else { break }
            records.append(r)
            pos += 8 + len
        }
        return (records, data.count - pos)
    }

    /// Writes `records` to a fresh file and renames it over `path`, so the log never keeps
    /// history of delivered messages or deleted queues longer than one run.
    static func rewrite(path: String, records: [StoreLogRecord]) throws {
        let tmp = path + ".tmp"
        let fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw QueueStoreError.io("cannot create \(tmp): errno \(errno)") }
        do {
            var buffer = SMPEncoder(capacity: 1 << 21)
            buffer.raw(header)
            for r in records {
                try frame(r, into: &buffer)
                if buffer.count > 1 << 20 {
                    try writeAll(fd: fd, buffer.bytes)
                    buffer = SMPEncoder(capacity: 1 << 21)
                }
            }
            try writeAll(fd: fd, buffer.bytes)
            fsync(fd)
            close(fd)
        } catch {
            close(fd)
            throw error
        }
        guard rename(tmp, path) == 0 else { throw QueueStoreError.io("cannot rename \(tmp): errno \(errno)") }
    }
}
