import Crypto
import Foundation
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

    public init(config: XFTPServerConfig, store: FileStore, now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }) throws {
        self.config = config
        self.store = store
        self.now = now
        try FileManager.default.createDirectory(atPath: config.filesPath, withIntermediateDirectories: true)
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

    /// `receiveServerFile`: a body already committed is drained and acknowledged again (the
    /// client may retry after a lost response); otherwise quota is reserved, the body written,
    /// its size and SHA-256 checked, and only then the path recorded.
    private func receiveFile(_ f: FileRec, body: (any XFTPRequestBody)?) async -> FileResponse {
        guard var body else { return .err(.size) }
        let size = Int64(f.fileInfo.size)
        if f.filePath != nil {
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
        let path = chunkPath(senderId: f.senderId)
        let result = await receiveChunk(path: path, size: size, digest: f.fileInfo.digest, body: &body)
        if let e = result {
            store.release(size)
            PosixFile.remove(path)
            return .err(e)
        }
        do {
            try store.setFilePath(senderId: f.senderId, path: path)
            return .ok
        } catch {
            store.release(size)
            PosixFile.remove(path)
            return .err(.auth)
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
        while left > 0 {
            if Date() > deadline { return .timeout }
            let piece: [UInt8]
            do {
                piece = try await body.next(max: 65_536)
            } catch {
                return .timeout
            }
            if piece.isEmpty || Int64(piece.count) > left { return .size }
            do {
                try out.write(piece)
            } catch {
                return .fileIO
            }
            hash.update(piece)
            left -= Int64(piece.count)
        }
        if let extra = try? await body.next(max: 1), !extra.isEmpty { return .size }
        if config.fsync { out.sync() }
        return hash.finalize() == digest ? nil : .digest
    }

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
