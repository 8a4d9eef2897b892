import Foundation
import SimplexFoundation

/// The saved form of an upload's state. It is saved twice per chunk (created, uploaded), so its
/// cost grows with the square of the chunk count: JSON with byte arrays as number lists made a
/// 1 GB upload (257 chunks) spend seconds encoding progress. Binary, with each server written once,
/// it is about a fifth of the size and a memcpy to write. States saved as JSON by earlier versions
/// are still read.
extension UploadState {
    /// Leading byte of the binary form (a JSON state starts with `{`).
    static let binaryFormat: UInt8 = 1

    func encoded() throws -> [UInt8] {
        var e = SMPEncoder(capacity: 128 + chunks.count * 200)
        e.byte(Self.binaryFormat)
        try e.largeString(Array((encryptedPath ?? "").utf8))
        e.int64(size)
        try e.shortString(digest)
        try e.shortString(key)
        try e.shortString(nonce)
        try e.optional(redirectSize) { e, v in e.int64(v) }
        try e.optional(redirectDigest) { e, v in try e.shortString(v) }
        e.byte(encryptionDone.map { $0 ? 2 : 1 } ?? 0)
        var servers: [String] = []
        var serverIndex: [String: Int] = [:]
        for c in chunks where serverIndex[c.server] == nil {
            serverIndex[c.server] = servers.count
            servers.append(c.server)
        }
        e.word16(UInt16(servers.count))
        for s in servers { try e.largeString(Array(s.utf8)) }
        e.word32(UInt32(chunks.count))
        for c in chunks {
            e.word32(UInt32(c.chunkNo))
            e.int64(c.offset)
            e.word32(c.size)
            try e.shortString(c.digest)
            e.word16(UInt16(serverIndex[c.server] ?? 0))
            try e.shortString(c.senderKey)
            e.byte(UInt8(c.recipientKeys.count))
            for k in c.recipientKeys { try e.shortString(k) }
            try e.optional(c.senderId) { e, v in try e.shortString(v) }
            try e.optional(c.recipientIds) { e, ids in
                e.byte(UInt8(ids.count))
                for i in ids { try e.shortString(i) }
            }
            e.bool(c.uploaded)
        }
        return e.bytes
    }

    /// A saved state in either form; nil when it is neither (it is then not resumed).
    static func decode(_ bytes: [UInt8]) -> UploadState? {
        guard let first = bytes.first else { return nil }
        if first == UInt8(ascii: "{") { return try? JSONDecoder().decode(UploadState.self, from: Data(bytes)) }
        guard first == binaryFormat else { return nil }
        var d = SMPDecoder(bytes)
        do {
            _ = try d.byte()
            let path = String(decoding: try d.largeString(), as: UTF8.self)
            let size = try d.int64(), digest = try d.shortString(), key = try d.shortString(), nonce = try d.shortString()
            let redirectSize = try d.optional { try $0.int64() }
            let redirectDigest = try d.optional { try $0.shortString() }
            let done = try d.byte()
            let servers = try (0..<Int(d.word16())).map { _ in String(decoding: try d.largeString(), as: UTF8.self) }
            let count = Int(try d.word32())
            var chunks: [Chunk] = []
            chunks.reserveCapacity(min(count, 10_000))
            for _ in 0..<count {
                let chunkNo = Int(try d.word32()), offset = try d.int64(), size = try d.word32(), cDigest = try d.shortString()
                let server = Int(try d.word16())
                guard server < servers.count else { return nil }
                let senderKey = try d.shortString()
                let recipientKeys = try (0..<Int(d.byte())).map { _ in try d.shortString() }
                let senderId = try d.optional { try $0.shortString() }
                let recipientIds = try d.optional { d in try (0..<Int(d.byte())).map { _ in try d.shortString() } }
                chunks.append(Chunk(chunkNo: chunkNo, offset: offset, size: size, digest: cDigest, server: servers[server],
                                    senderKey: senderKey, recipientKeys: recipientKeys, senderId: senderId, recipientIds: recipientIds,
                                    uploaded: try d.bool()))
            }
            try d.expectEnd()
            return UploadState(encryptedPath: path.isEmpty ? nil : path, size: size, digest: digest, key: key, nonce: nonce, chunks: chunks,
                               redirectSize: redirectSize, redirectDigest: redirectDigest,
                               encryptionDone: done == 0 ? nil : done == 2)
        } catch {
            return nil
        }
    }
}

/// What an upload's saved progress says: bytes of chunks on their servers, and of all chunks
/// (for progress events of callers that keep the state).
public enum XFTPUploadProgress {
    public static func summary(_ saved: [UInt8]) -> (sent: Int64, total: Int64)? {
        guard let s = UploadState.decode(saved) else { return nil }
        let total = s.chunks.reduce(Int64(0)) { $0 + Int64($1.size) }
        let sent = s.chunks.reduce(Int64(0)) { $0 + ($1.uploaded ? Int64($1.size) : 0) }
        return (sent, total)
    }
}
