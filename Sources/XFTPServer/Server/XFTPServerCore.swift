import Crypto
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import SimplexFoundation
import XFTPProtocol

/// One client session as the transport established it: the parameters of the XFTP handshake and
/// the server's session X25519 key, which X25519-authorized commands are checked with.
public struct XFTPServerSession: Sendable {
    public var params: XFTPSessionParams
    public var sessionKey: X25519PrivateKey?

    public init(params: XFTPSessionParams, sessionKey: X25519PrivateKey?) {
        self.params = params
        self.sessionKey = sessionKey
    }
}

/// What the server sends back for one request: the response block, and for FGET the
/// encrypted chunk body to stream after it.
public struct XFTPServerReply: Sendable {
    public var block: [UInt8]
    public var response: FileResponse
    public var file: ServerFile?
}

/// The XFTP server without its network transport: decodes a request block, checks the
/// authorization, runs the command against the store and the chunk files, and encodes the
/// reply, with the reference's errors throughout (`Simplex.FileTransfer.Server`).
public final class XFTPServerCore: Sendable {
    public let config: XFTPServerConfig
    public let store: FileStore
    /// Clock in seconds; tests move it to check expiry.
    private let now: @Sendable () -> Int64

    /// Held while an upload moves its body into place and records it, so of two uploads of one
    /// chunk exactly one commits and a failing one can remove what it wrote without a race.
    private let commitLock = NIOLock()

    public init(config: XFTPServerConfig, store: FileStore, now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }) throws {
        self.config = config
        self.store = store
        self.now = now
        try FileManager.default.createDirectory(atPath: config.filesPath, withIntermediateDirectories: true)
        // Bodies of uploads cut off by a restart are never finished: start with none.
        let receiving = Self.receivingPath(config)
        try? FileManager.default.removeItem(atPath: receiving)
        try FileManager.default.createDirectory(atPath: receiving, withIntermediateDirectories: true)
    }

    /// Opens the store (replaying its log when enabled) for `config`, in `dataDirectory`.
    public static func open(config: XFTPServerConfig, dataDirectory: String) throws -> XFTPServerCore {
        let store = config.storeLog
            ? try FileStore(logPath: (dataDirectory as NSString).appendingPathComponent(XFTPServerConfig.storeLogFileName), fsync: config.fsync)
            : FileStore()
        return try XFTPServerCore(config: config, store: store)
    }

    // MARK: requests

    /// `processRequest`: a block that is not 16384 bytes is `ERR BLOCK`; decoding errors are
    /// answered with the corrId and entity ID when they could be read.
    public func process(block: [UInt8], session: XFTPServerSession, body: (any XFTPRequestBody)?) async -> XFTPServerReply {
        let params = session.params
        guard block.count == XFTPVersion.blockSize else { return reply(params, [], [], .err(.block)) }
        switch XFTPTransmission.decodeServer(block, params: params) {
        case .failure(let r):
            return reply(params, r.corrId, r.entityId, .err(r.error))
        case .success(let t):
            switch verify(t, session: session) {
            case .failure(let e):
                return reply(params, t.corrId, t.entityId, .err(e))
            case .success(let req):
                let (resp, file) = await run(req, t: t, body: body)
                return reply(params, t.corrId, t.entityId, resp, file: file)
            }
        }
    }

    private func reply(_ params: XFTPSessionParams, _ corrId: [UInt8], _ entityId: [UInt8], _ resp: FileResponse, file: ServerFile? = nil) -> XFTPServerReply {
        if let block = try? XFTPTransmission.encode(params, corrId: corrId, entityId: entityId, response: resp) {
            return XFTPServerReply(block: block, response: resp, file: file)
        }
        // Only an oversized corrId could get here (it is at most 255 bytes, so it cannot).
        let fallback = (try? XFTPTransmission.encode(params, corrId: [], entityId: [], response: .err(.internal))) ?? []
        return XFTPServerReply(block: fallback, response: .err(.internal), file: nil)
    }

    enum Request {
        case new(FileInfo, [AnyPublicKey], BasicAuth?)
        case cmd(FileRec, FileCommand)
        case ping
    }

    /// `verifyXFTPTransmission`: FNEW is checked against the key it carries; other commands
    /// against the sender or recipient key of the file. A missing or switched-off file costs a
    /// dummy verification and answers AUTH; a blocked file answers BLOCKED.
    func verify(_ t: SignedFileCommand, session: XFTPServerSession) -> Result<Request, XFTPErrorType> {
        func check(_ key: AnyPublicKey) -> Bool {
            guard let auth = t.auth else { return false }
            return auth.verify(key: key, authorized: t.authorized, corrId: t.corrId, serverSessionKey: session.sessionKey)
        }
        switch t.command {
        case .fnew(let info, let rcps, let auth):
            return check(info.senderKey) ? .success(.new(info, rcps, auth)) : .failure(.auth)
        case .ping:
            return .success(.ping)
        default:
            guard let (f, key) = store.getFile(party: t.command.party, id: t.entityId) else {
                DummyKeys.verify(t.auth, authorized: t.authorized, corrId: t.corrId, serverSessionKey: session.sessionKey)
                return .failure(.auth)
            }
            switch f.status {
            case .active: return check(key) ? .success(.cmd(f, t.command)) : .failure(.auth)
            case .blocked(let info): return .failure(.blocked(info))
            case .off:
                DummyKeys.verify(t.auth, authorized: t.authorized, corrId: t.corrId, serverSessionKey: session.sessionKey)
                return .failure(.auth)
            }
        }
    }

    /// `processXFTPRequest`.
    private func run(_ req: Request, t: SignedFileCommand, body: (any XFTPRequestBody)?) async -> (FileResponse, ServerFile?) {
        switch req {
        case .ping:
            return (.pong, nil)
        case .new(let info, let rcps, let auth):
            let allowed = config.allowNewFiles && (config.createPassword == nil || config.createPassword == auth)
            guard allowed else { return (.err(.auth), nil) }
            return (createFile(info, rcps), nil)
        case .cmd(let f, let cmd):
            switch cmd {
            case .fadd(let rcps): return (addRecipients(f.senderId, rcps), nil)
            case .fput: return (await receiveFile(f, body: body), nil)
            case .fdel: return (deleteFile(f), nil)
            case .fget(let dhKey): return sendFile(f, dhKey: dhKey)
            case .fack:
                do {
                    try store.ackFile(recipientId: t.entityId)
                    return (.ok, nil)
                } catch {
                    return (.err(error), nil)
                }
            case .fnew, .ping:
                return (.err(.internal), nil)
            }
        }
    }

    private func randomId() -> [UInt8] { SecureRandom.bytes(config.fileIdSize) }

    /// `createFile`: only the allowed chunk sizes; IDs are random and retried on a clash.
    private func createFile(_ info: FileInfo, _ keys: [AnyPublicKey]) -> FileResponse {
        guard config.allowedChunkSizes.contains(info.size) else { return .err(.size) }
        let createdAt = FileRec.roundedTime(now())
        for _ in 0..<3 {
            let sid = randomId()
            let rcps = keys.map { FileRecipient(recipientId: randomId(), key: $0) }
            do {
                try store.addFile(senderId: sid, info: info, createdAt: createdAt, recipients: rcps)
                return .sids(senderId: sid, recipientIds: rcps.map(\.recipientId))
            } catch .duplicate {
                continue
            } catch {
                return .err(error)
            }
        }
        return .err(.internal)
    }

    private func addRecipients(_ sid: [UInt8], _ keys: [AnyPublicKey]) -> FileResponse {
        for _ in 0..<3 {
            let rcps = keys.map { FileRecipient(recipientId: randomId(), key: $0) }
            do {
                try store.addRecipients(senderId: sid, rcps)
                return .rids(rcps.map(\.recipientId))
            } catch .duplicate {
                continue
            } catch {
                return .err(error)
            }
        }
        return .err(.internal)
    }

    /// Where a chunk body is kept: the files folder and the base64url sender ID, which the
    /// server generated, so no client text ever becomes part of a path.
    public func chunkPath(senderId: [UInt8]) -> String {
        (config.filesPath as NSString).appendingPathComponent(Base64Text.encode(senderId))
    }

    /// Where uploads write until their body is checked: a folder in the files folder whose name
    /// (with a dot) no base64url sender ID can have.
    static func receivingPath(_ config: XFTPServerConfig) -> String {
        (config.filesPath as NSString).appendingPathComponent(".receiving")
    }

    /// `receiveServerFile`: a body already committed is drained and acknowledged again (the
    /// client may retry after a lost response); otherwise quota is reserved, the body written,
    /// its size and SHA-256 checked, and only then moved to the chunk's path and recorded.
    /// Deviation: each upload writes a file of its own, so a retry racing an abandoned first
    /// attempt of the same chunk (the reference writes both to one path) can neither be
    /// interleaved with it nor deleted by its cleanup; of two complete uploads the first commits
    /// and the second, whose bytes have the same digest, is answered OK as a committed one is.
    private func receiveFile(_ f: FileRec, body: (any XFTPRequestBody)?) async -> FileResponse {
        guard var body else { return .err(.size) }
        let size = Int64(f.fileInfo.size)
        // The record as it is now: another upload of the chunk may have committed since `f` was read.
        if f.filePath != nil || isCommitted(f.senderId) {
            var s = size
            while true {
                guard let piece = try? await body.next(max: 16384) else { return .err(.fileIO) }
                let n = Int64(piece.count)
                if n == s { return .ok }
                if n == 0 || n > s { return .err(.size) }
                s -= n
            }
        }
        guard store.reserve(size, quota: config.fileSizeQuota) else { return .err(.quota) }
        let part = (Self.receivingPath(config) as NSString)
            .appendingPathComponent(Base64Text.encode(f.senderId) + "." + Base64Text.encode(SecureRandom.bytes(9)))
        if let e = await receiveChunk(path: part, size: size, digest: f.fileInfo.digest, body: &body) {
            store.release(size)
            PosixFile.remove(part)
            return .err(e)
        }
        switch commit(senderId: f.senderId, part: part) {
        case .committed:
            return .ok
        case .storedBefore:
            store.release(size)
            return .ok
        case .failed(let e):
            store.release(size)
            return .err(e)
        }
    }

    private enum Commit {
        case committed
        /// Another upload of the chunk committed first; this one's body (same digest) was dropped.
        case storedBefore
        case failed(XFTPErrorType)
    }

    private func isCommitted(_ senderId: [UInt8]) -> Bool {
        store.getFile(party: .sender, id: senderId)?.0.filePath != nil
    }

    /// Moves a checked body to the chunk's path and records it (`setFilePath`), unless another
    /// upload did first (OK: its body has the same digest) or the chunk was deleted or blocked
    /// meanwhile (AUTH, nothing kept).
    private func commit(senderId: [UInt8], part: String) -> Commit {
        let path = chunkPath(senderId: senderId)
        return commitLock.withLock {
            guard let (f, _) = store.getFile(party: .sender, id: senderId), f.status == .active else {
                PosixFile.remove(part)
                return .failed(.auth)
            }
            if f.filePath != nil {
                PosixFile.remove(part)
                return .storedBefore
            }
            guard PosixFile.rename(part, to: path) else {
                PosixFile.remove(part)
                return .failed(.fileIO)
            }
            do {
                try store.setFilePath(senderId: senderId, path: path)
                return .committed
            } catch {
                PosixFile.remove(path)
                return .failed(.auth)
            }
        }
    }

    /// `receiveFile`: exactly `size` bytes (more or fewer is SIZE), then the digest (DIGEST);
    /// a body that stops arriving within the timeout is TIMEOUT.
    private func receiveChunk(path: String, size: Int64, digest: [UInt8], body: inout any XFTPRequestBody) async -> XFTPErrorType? {
        let out: PosixFile
        do {
            out = try PosixFile(path: path, mode: .create)
        } catch {
            return .fileIO
        }
        let hash = StreamDigest(.sha256)
        var left = size
        let deadline = Date().addingTimeInterval(TimeInterval(config.fileTimeout))
        // The frames' own buffers, written with one writev per 64 KB: no copy before the kernel's.
        var pieces: [ByteBuffer] = []
        pieces.reserveCapacity(8)
        while left > 0 {
            if Date() > deadline { return .timeout }
            pieces.removeAll(keepingCapacity: true)
            var gathered = 0
            while gathered < Self.writePiece, left > 0 {
                let piece: ByteBuffer?
                do {
                    piece = try await body.nextBuffer(max: Int(min(left, Int64(Self.writePiece - gathered))))
                } catch {
                    return .timeout
                }
                guard let piece, piece.readableBytes > 0 else { return .size }
                gathered += piece.readableBytes
                left -= Int64(piece.readableBytes)
                pieces.append(piece)
            }
            do {
                try out.write(pieces)
            } catch {
                return .fileIO
            }
            for p in pieces { p.withUnsafeReadableBytes { hash.update($0) } }
        }
        if let extra = try? await body.next(max: 1), !extra.isEmpty { return .size }
        if config.fsync { out.sync() }
        return hash.finalize() == digest ? nil : .digest
    }

    /// Bytes gathered from the body before each file write.
    static let writePiece = 65_536

    /// `deleteServerFile_`: the record goes first (logged), then the body file.
    private func deleteFile(_ f: FileRec) -> FileResponse {
        do {
            let rec = try store.deleteFile(senderId: f.senderId)
            if let p = rec.filePath { PosixFile.remove(p) }
            return .ok
        } catch {
            return .err(error)
        }
    }

    /// `sendServerFile`: a fresh server DH key and nonce per download, so the same chunk never
    /// looks the same twice on the wire.
    private func sendFile(_ f: FileRec, dhKey: X25519PublicKey) -> (FileResponse, ServerFile?) {
        guard let path = f.filePath else { return (.err(.noFile), nil) }
        guard PosixFile.exists(path) else { return (.err(.auth), nil) }
        let serverKey = X25519PrivateKey()
        let nonce = SecureRandom.bytes(24)
        guard let secret = try? serverKey.sharedSecret(with: dhKey),
              let stream = try? SecretBoxStream(secret: secret, nonce: nonce)
        else { return (.err(.internal), nil) }
        return (.file(serverDhKey: serverKey.publicKey, nonce: nonce), ServerFile(path: path, size: f.fileInfo.size, stream: stream))
    }

    // MARK: operator actions

    /// `expireServerFiles`: deletes chunks older than the configured expiry; returns how many.
    @discardableResult
    public func expireFiles() -> Int {
        guard let ttl = config.fileExpiration else { return 0 }
        let old = now() - ttl
        var count = 0
        while true {
            let batch = store.expiredFiles(olderThan: old, limit: 10000)
            if batch.isEmpty { break }
            for f in batch {
                if let rec = try? store.deleteFile(senderId: f.senderId) {
                    if let p = rec.filePath { PosixFile.remove(p) }
                    count += 1
                }
            }
        }
        return count
    }

    /// `blockServerFile` (control port): the body is deleted, later commands get BLOCKED.
    public func blockFile(recipientId: [UInt8], info: BlockingInfo) throws(XFTPErrorType) {
        guard let (f, _) = store.getFile(party: .recipient, id: recipientId) else { throw .auth }
        let rec = try store.blockFile(senderId: f.senderId, info: info)
        if let p = rec.filePath { PosixFile.remove(p) }
    }
}
