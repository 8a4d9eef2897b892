import Foundation
import SimplexFoundation
import XFTPProtocol

/// What an upload produced: the sender's description (to delete the file later) and one
/// description per recipient (to send them), as the agent's `xftpSendFile` makes them.
public struct XFTPUploadResult: Sendable {
    public var sender: FileDescription
    public var recipients: [FileDescription]
}

/// Files over XFTP as the reference agent moves them: encrypted with a random key into one stream,
/// cut into chunks of the standard sizes, each chunk created and uploaded on a server with fresh
/// Ed25519 keys for the sender and every recipient; and the reverse from a recipient description.
/// Progress goes to a caller-provided store after every chunk, so a repeated call resumes.
public struct XFTPFileTransfer: Sendable {
    public let pool: XFTPClientPool
    public let progress: any XFTPProgressStore
    /// Folder for encrypted files and downloaded chunks (kept until a transfer completes).
    public let workDirectory: String
    /// Chunks in flight at once per transfer: both directions keep the link busy while one chunk
    /// waits on its server, and memory stays bounded (one stream window per chunk).
    public let parallelChunks: Int

    public init(pool: XFTPClientPool, progress: any XFTPProgressStore, workDirectory: String, parallelChunks: Int = 4) {
        self.pool = pool
        self.progress = progress
        self.workDirectory = workDirectory
        self.parallelChunks = max(1, parallelChunks)
    }

    // MARK: upload

    /// Uploads `sourcePath` for `recipientCount` recipients. Chunk `i` goes to
    /// `servers[i % servers.count]`. `transferId` names the progress entry: calling again with
    /// the same ID after a failure encrypts again with the saved key and nonce and skips chunks
    /// already uploaded.
    public func upload(sourcePath: String, fileName: String, servers: [XFTPServerAddress], recipientCount: Int,
                       transferId: String) async throws(XFTPClientError) -> XFTPUploadResult {
        try await upload(sourcePath: sourcePath, fileName: fileName, servers: servers, recipientCount: recipientCount,
                         transferId: transferId, redirect: nil)
    }

    /// `xftpSendDescription`: uploads a recipient description that is too long to send as a file
    /// of its own (`direct.yaml`, one chunk); the recipients get short descriptions whose
    /// `redirect` names the size and digest of the file the uploaded description describes.
    public func uploadRedirect(for description: FileDescription, servers: [XFTPServerAddress], recipientCount: Int,
                               transferId: String) async throws(XFTPClientError) -> XFTPUploadResult {
        guard description.party == .recipient else { throw .io("not a recipient description") }
        let folder = (workDirectory as NSString).appendingPathComponent("redirect-\(transferId)")
        let yamlPath = (folder as NSString).appendingPathComponent("direct.yaml")
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try Data(description.yaml.utf8).write(to: URL(fileURLWithPath: yamlPath))
        } catch {
            throw .io("\(error)")
        }
        defer { try? FileManager.default.removeItem(atPath: folder) }
        return try await upload(sourcePath: yamlPath, fileName: "direct.yaml", servers: servers, recipientCount: recipientCount,
                                transferId: transferId, redirect: RedirectFileInfo(size: description.size, digest: description.digest))
    }

    private func upload(sourcePath: String, fileName: String, servers: [XFTPServerAddress], recipientCount: Int,
                        transferId: String, redirect: RedirectFileInfo?) async throws(XFTPClientError) -> XFTPUploadResult {
        guard !servers.isEmpty, recipientCount > 0 else { throw .io("no servers or no recipients") }
        let key = "up-" + transferId
        var state: UploadState
        if let saved = progress.load(key), let s = UploadState.decode(saved),
           let encPath = s.encryptedPath, s.encryptionDone != false, PosixFile.exists(encPath) {
            // Saved by a version that wrote the encrypted file before uploading: its chunks are there.
            state = s
            try await uploadChunks(&state, key: key, source: .file(encPath))
            PosixFile.remove(encPath)
        } else {
            // A saved plan (key, nonce, chunk sizes) gives the same chunks when the file is encrypted
            // again, so a retry re-encrypts instead of keeping an encrypted copy on disk.
            if let saved = progress.load(key), let s = UploadState.decode(saved), s.encryptedPath == nil {
                state = s
            } else {
                state = try plan(sourcePath: sourcePath, fileName: fileName, servers: servers, recipientCount: recipientCount,
                                 redirect: redirect)
            }
            try await encryptAndUpload(&state, key: key, sourcePath: sourcePath, fileName: fileName, singleChunk: redirect != nil)
        }
        let result = try state.descriptions()
        progress.remove(key)
        return result
    }

    /// Hashes the encrypted stream on a thread of its own (each chunk's digest for its FNEW, then
    /// the file's digest and tag) while the chunks already hashed go up, each encrypted again from
    /// the source as FPUT sends it: no encrypted file is written and no encrypted chunk is held, so
    /// memory stays at the stream windows whatever the file size and the number of chunks in
    /// flight. A chunk created before a retry must come out with the digest it was created with,
    /// else the source changed and the upload starts over.
    private func encryptAndUpload(_ state: inout UploadState, key: String, sourcePath: String, fileName: String,
                                  singleChunk: Bool) async throws(XFTPClientError) {
        let sizes = state.chunks.map { Int($0.size) }
        let created = Dictionary(uniqueKeysWithValues: state.chunks.enumerated().compactMap { i, c in
            c.senderId == nil ? nil : (i, c.digest)
        })
        let (fileKey, nonce) = (state.key, state.nonce)
        let reader: EncryptedStreamReader
        do {
            reader = try EncryptedStreamReader(sourcePath: sourcePath, fileName: fileName, key: fileKey, nonce: nonce, singleChunk: singleChunk)
        } catch {
            progress.remove(key)
            throw .io("\(error)")
        }
        let encryption = EncryptionRun()
        let thread = Thread {
            do throws(XFTPFileError) {
                let r = try FileEncryption.encryptChunks(
                    sourcePath: sourcePath, fileName: fileName, key: fileKey, nonce: nonce, singleChunk: singleChunk,
                    memory: { _ in nil },
                    onChunk: { i, digest throws(XFTPFileError) in
                        guard !encryption.isStopped else { throw .io(EncryptionRun.stopped) }
                        guard i < sizes.count else { throw .io(Self.sourceChanged) }
                        if let was = created[i], was != digest { throw .io(Self.sourceChanged) }
                        encryption.chunk(i, digest)
                    })
                guard r.chunks.count == sizes.count else { throw .io(Self.sourceChanged) }
                encryption.finish(.success(r))
            } catch {
                encryption.finish(.failure(.io("\(error)")))
            }
        }
        thread.start()
        var failure: XFTPClientError?
        do {
            try await uploadChunks(&state, key: key, source: .source(encryption, reader))
        } catch {
            failure = error
        }
        // The thread is waited for even after a failed chunk (told to stop at its next chunk).
        if failure != nil { encryption.stop() }
        switch await encryption.result() {
        case .success(let r):
            state.size = r.encryptedSize
            state.digest = r.digest
            for (i, c) in r.chunks.enumerated() { state.chunks[i].digest = c.digest }
            state.encryptionDone = true
            try save(state, key)
        case .failure(.io(let why)) where failure != nil && why.hasSuffix(EncryptionRun.stopped):
            // Stopped because a chunk failed: the plan stays for a retry.
            break
        case .failure(let e):
            // The file cannot be encrypted as planned (gone, changed): a retry starts over.
            progress.remove(key)
            throw e
        }
        if case .io(let why)? = failure, why.hasSuffix(Self.sourceChanged) { progress.remove(key) }
        if let failure { throw failure }
    }

    /// Why an upload starts over: the source is not what its chunks were created from.
    static let sourceChanged = "the file changed since its upload started"

    /// Where the bytes of the chunks to upload come from.
    private enum ChunkSource: Sendable {
        /// An encrypted file written before the upload (states saved by earlier versions).
        case file(String)
        /// The hashing pass running beside the upload, and the source each chunk is encrypted from again.
        case source(EncryptionRun, EncryptedStreamReader)

        /// The FPUT body of a chunk; the chunk that ends the stream waits for the tag.
        func body(_ c: UploadState.Chunk) async throws(XFTPClientError) -> XFTPChunkBody {
            switch self {
            case .file(let path):
                return .file(XFTPChunkSpec(path: path, offset: c.offset, size: c.size))
            case .source(let encryption, let reader):
                let chunk = EncryptedChunk(reader: reader, offset: c.offset, size: c.size, tag: nil)
                guard chunk.endsStream else { return .encrypted(chunk) }
                let tag = try await encryption.result().get().tag
                return .encrypted(EncryptedChunk(reader: reader, offset: c.offset, size: c.size, tag: tag))
            }
        }
    }

    /// Creates (FNEW) and uploads (FPUT) every chunk not yet on its server, `parallelChunks` at a
    /// time (the reference agent runs a worker per server): the IDs of a created chunk are saved
    /// before its bytes go, and each uploaded chunk is saved as it completes.
    private func uploadChunks(_ state: inout UploadState, key: String, source: ChunkSource) async throws(XFTPClientError) {
        enum Step: Sendable {
            case created(Int, [UInt8], [[UInt8]], [UInt8])
            case uploaded(Int)
        }
        let pending = state.chunks.indices.filter { !state.chunks[$0].uploaded }
        // A failed chunk stops new ones from starting; those in flight finish (and are saved), so
        // a retry does only what is left. The first error is thrown at the end.
        var failure: XFTPClientError?
        await withTaskGroup(of: Result<Step, XFTPClientError>.self) { group in
            var next = pending.makeIterator()
            func start(_ i: Int, _ chunk: UploadState.Chunk, digestKnown: Bool) {
                group.addTask {
                    do throws(XFTPClientError) {
                        var c = chunk
                        if case .source(let encryption, _) = source, !digestKnown {
                            // A chunk waits until the hashing pass has produced its digest.
                            c.digest = try await encryption.take(i)
                        }
                        if c.senderId == nil {
                            try await self.createChunk(&c)
                            return .success(.created(i, c.senderId ?? [], c.recipientIds ?? [], c.digest))
                        }
                        try await self.putChunk(c, body: try await source.body(c))
                        return .success(.uploaded(i))
                    } catch {
                        return .failure(error)
                    }
                }
            }
            for _ in 0..<parallelChunks {
                guard let i = next.next() else { break }
                start(i, state.chunks[i], digestKnown: false)
            }
            while let result = await group.next() {
                do throws(XFTPClientError) {
                    switch try result.get() {
                    case .created(let i, let sid, let rids, let digest):
                        state.chunks[i].digest = digest
                        state.chunks[i].senderId = sid
                        state.chunks[i].recipientIds = rids
                        try save(state, key)
                        // A created chunk is in flight: its bytes go even after another chunk failed.
                        start(i, state.chunks[i], digestKnown: true)
                    case .uploaded(let i):
                        state.chunks[i].uploaded = true
                        try save(state, key)
                        if failure == nil, let j = next.next() { start(j, state.chunks[j], digestKnown: false) }
                    }
                } catch {
                    failure = failure ?? error
                }
            }
        }
        if let failure { throw failure }
    }

    /// The upload's keys and chunks before the file is encrypted: sizes and offsets are known from
    /// the file's size, digests come as the encryption writes each chunk.
    private func plan(sourcePath: String, fileName: String, servers: [XFTPServerAddress], recipientCount: Int,
                      redirect: RedirectFileInfo?) throws(XFTPClientError) -> UploadState {
        let key = SecureRandom.bytes(32), nonce = SecureRandom.bytes(24)
        let sizes: [UInt32]
        do {
            // A redirect is one chunk (`singleChunkSize`).
            sizes = try FileEncryption.chunkSizes(sourcePath: sourcePath, fileName: fileName, singleChunk: redirect != nil)
        } catch {
            throw .io("\(error)")
        }
        let chunks = zip(sizes, XFTPChunkSizes.offsets(sizes)).enumerated().map { i, c in
            UploadState.Chunk(
                chunkNo: i + 1, offset: c.1.offset, size: c.0, digest: [], server: servers[i % servers.count].description,
                senderKey: AnyPrivateKey.generate(.ed25519).rawRepresentation,
                recipientKeys: (0..<recipientCount).map { _ in AnyPrivateKey.generate(.ed25519).rawRepresentation })
        }
        return UploadState(encryptedPath: nil, size: sizes.reduce(Int64(0)) { $0 + Int64($1) }, digest: [], key: key, nonce: nonce,
                           chunks: chunks, redirectSize: redirect?.size, redirectDigest: redirect?.digest, encryptionDone: false)
    }

    /// FNEW: the chunk's IDs, saved before any byte is sent so a retry does not orphan it.
    private func createChunk(_ c: inout UploadState.Chunk) async throws(XFTPClientError) {
        let server = try Self.server(c.server)
        let session = try await pool.session(server)
        let sKey = try Self.key(c.senderKey)
        let rKeys = try c.recipientKeys.map { k throws(XFTPClientError) in try Self.key(k).publicKey }
        let info = FileInfo(senderKey: sKey.publicKey, size: c.size, digest: c.digest)
        let (sid, rids) = try await session.createChunk(senderKey: sKey, info: info, recipientKeys: rKeys, auth: server.basicAuth)
        guard rids.count == rKeys.count else { throw .unexpectedResponse("SIDS with \(rids.count) recipient IDs") }
        c.senderId = sid
        c.recipientIds = rids
    }

    /// FPUT (a server acknowledges a repeated FPUT of a stored chunk).
    private func putChunk(_ c: UploadState.Chunk, body: XFTPChunkBody) async throws(XFTPClientError) {
        guard let sid = c.senderId else { throw .io("chunk \(c.chunkNo) was not created") }
        let session = try await pool.session(try Self.server(c.server))
        try await session.uploadChunk(senderKey: try Self.key(c.senderKey), senderId: sid, body: body)
    }

    static func server(_ text: String) throws(XFTPClientError) -> XFTPServerAddress {
        guard let s = XFTPServerAddress(parsing: text) else { throw .io("bad server address in progress") }
        return s
    }

    private func save(_ state: UploadState, _ key: String) throws(XFTPClientError) {
        do {
            try progress.save(key, try state.encoded())
        } catch {
            throw .io("cannot save progress: \(error)")
        }
    }

    static func key(_ raw: [UInt8]) throws(XFTPClientError) -> AnyPrivateKey {
        do {
            return try AnyPrivateKey(algorithm: .ed25519, rawRepresentation: raw)
        } catch {
            throw .io("bad key in progress")
        }
    }

    // MARK: download

    /// Downloads and decrypts the file of a recipient description into `directory`, under the
    /// (sanitized) name its header carries; returns the path. Each chunk comes from its first
    /// replica into memory and is decrypted into a partial output in the work folder as soon as
    /// the chunks before it are in, so no chunk is written to disk encrypted; the partial output
    /// moves to `directory` once the whole file's digest and tag verify. Chunks are acknowledged
    /// (FACK) then. A retry with the same `transferId` continues after the chunks already
    /// decrypted, rebuilding the stream state from the partial output.
    public func download(_ description: FileDescription, to directory: String, transferId: String,
                         acknowledge: Bool = true) async throws(XFTPClientError) -> String {
        guard description.party == .recipient else { throw .io("not a recipient description") }
        do {
            try description.validate()
        } catch {
            throw .io("invalid description: \(error)")
        }
        if let redirect = description.redirect {
            return try await downloadRedirect(description, redirect, to: directory, transferId: transferId, acknowledge: acknowledge)
        }
        do {
            try FileManager.default.createDirectory(atPath: workDirectory, withIntermediateDirectories: true)
        } catch {
            throw .io("\(error)")
        }
        for chunk in description.chunks where chunk.replicas.isEmpty { throw .io("chunk \(chunk.chunkNo) has no replica") }
        let key = "down-" + transferId
        let partPath = (workDirectory as NSString).appendingPathComponent("down-\(transferId)-part")
        let chunks = description.chunks
        var fedChunks = 0
        var resumed: FileDecryptor?
        if let saved = progress.load(key), let state = DownloadState.decode(saved), state.fedChunks > 0, state.fedChunks < chunks.count {
            let fedBytes = chunks.prefix(state.fedChunks).reduce(Int64(0)) { $0 + Int64($1.chunkSize) }
            resumed = try? FileDecryptor.resuming(encryptedSize: description.size, key: description.key, nonce: description.nonce,
                                                  digest: description.digest, outputPath: partPath, prefix: state.prefix, fed: fedBytes)
            if resumed != nil { fedChunks = state.fedChunks }
        }
        let decryptor: FileDecryptor
        if let resumed {
            decryptor = resumed
        } else {
            PosixFile.remove(partPath)
            do {
                decryptor = try FileDecryptor(encryptedSize: description.size, key: description.key, nonce: description.nonce,
                                              digest: description.digest) { _ in partPath }
            } catch {
                throw .responseError(.crypto)
            }
        }
        // Chunks land in a side file at their places in the encrypted stream as they arrive, and are
        // decrypted from there in order: any number in flight, none held in memory (ChunkLanding).
        let landingPath = (workDirectory as NSString).appendingPathComponent("down-\(transferId)-landing")
        let landing: ChunkLanding
        do throws(XFTPFileError) {
            landing = try ChunkLanding(path: landingPath)
        } catch {
            throw .io("\(error)")
        }
        defer { PosixFile.remove(landingPath) }
        let offsets = XFTPChunkSizes.offsets(chunks.map(\.chunkSize)).map(\.offset)
        let piece = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.feedPiece, alignment: 64)
        defer { piece.deallocate() }
        var landed = Set<Int>()
        var nextToFeed = fedChunks
        var failure: XFTPClientError?
        var decryptError: XFTPFileError?
        await withTaskGroup(of: (Int, XFTPClientError?).self) { group in
            var next = fedChunks, inFlight = 0
            func startMore() {
                while failure == nil, decryptError == nil, next < chunks.count, inFlight < parallelChunks {
                    let i = next
                    next += 1
                    inFlight += 1
                    let chunk = chunks[i], replica = chunks[i].replicas[0], offset = offsets[i]
                    group.addTask {
                        do throws(XFTPClientError) {
                            let session = try await self.pool.session(replica.server)
                            try await session.downloadChunk(recipientKey: replica.replicaKey, recipientId: replica.replicaId, into: landing,
                                                            at: offset, size: chunk.chunkSize, digest: chunk.digest)
                            return (i, nil)
                        } catch {
                            return (i, error)
                        }
                    }
                }
            }
            startMore()
            while let (i, error) = await group.next() {
                inFlight -= 1
                if let error {
                    failure = failure ?? error
                    continue
                }
                landed.insert(i)
                // The next chunk is on its way before this one is decrypted.
                startMore()
                // Chunks that landed are decrypted even after another failed: a retry skips them.
                while decryptError == nil, landed.remove(nextToFeed) != nil {
                    do throws(XFTPFileError) {
                        try landing.feed(decryptor, at: offsets[nextToFeed], size: Int64(chunks[nextToFeed].chunkSize), through: piece)
                        nextToFeed += 1
                    } catch {
                        decryptError = error
                    }
                    // Saved after the last chunk too: its progress (all received) comes before completion.
                    guard decryptError == nil else { continue }
                    do {
                        try progress.save(key, try DownloadState(fedChunks: nextToFeed, prefix: decryptor.prefix).encoded())
                    } catch {
                        failure = failure ?? .io("cannot save progress: \(error)")
                    }
                }
            }
        }
        // A network failure keeps the partial output and the saved state for a retry; a file that
        // does not decrypt, or whose digest or tag is wrong, is dropped with them.
        if decryptError == nil, let failure { throw failure }
        let result: String
        do throws(XFTPFileError) {
            if let decryptError { throw decryptError }
            let (header, _) = try decryptor.finish()
            result = try Self.moveIntoPlace(partPath, directory: directory, name: header.safeFileName)
        } catch {
            decryptor.abort()
            progress.remove(key)
            if case .digest = error { throw .responseError(.digest) }
            if case .io(let why) = error { throw .io(why) }
            throw .responseError(.crypto)
        }
        if acknowledge {
            for chunk in chunks {
                guard let replica = chunk.replicas.first else { continue }
                let session = try await pool.session(replica.server)
                try await session.ackChunk(recipientKey: replica.replicaKey, recipientId: replica.replicaId)
            }
        }
        // Chunk files of downloads begun by versions that kept them.
        for chunk in chunks { PosixFile.remove((workDirectory as NSString).appendingPathComponent("down-\(transferId)-\(chunk.chunkNo)")) }
        progress.remove(key)
        return result
    }

    /// Landed bytes read back and decrypted at a time: one buffer per download, below the 128 KB
    /// mmap threshold (MemoryTuning) so it comes from the heap.
    static let feedPiece = 65_536

    /// The redirect's file is the real description: it must parse as a recipient description of
    /// exactly the size and digest the redirect named (`REDIRECT "size mismatch"`...), then that file
    /// is downloaded.
    private func downloadRedirect(_ outer: FileDescription, _ redirect: RedirectFileInfo, to directory: String, transferId: String,
                                  acknowledge: Bool) async throws(XFTPClientError) -> String {
        var plain = outer
        plain.redirect = nil
        let folder = (workDirectory as NSString).appendingPathComponent("redirect-in-\(transferId)")
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw .io("\(error)")
        }
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let yamlPath = try await download(plain, to: folder, transferId: transferId + "-redirect", acknowledge: acknowledge)
        guard let data = FileManager.default.contents(atPath: yamlPath), let text = String(data: data, encoding: .utf8),
              let next = try? FileDescription(yaml: text), next.party == .recipient
        else { throw .redirect("decode error") }
        guard next.size == redirect.size else { throw .redirect("size mismatch") }
        guard next.digest == redirect.digest else { throw .redirect("digest mismatch") }
        guard next.redirect == nil else { throw .redirect("redirect to a redirect") }
        return try await download(next, to: directory, transferId: transferId, acknowledge: acknowledge)
    }

    // MARK: deletion

    /// The sender deletes every chunk of its description (FDEL).
    public func delete(_ sender: FileDescription) async throws(XFTPClientError) {
        guard sender.party == .sender else { throw .io("not a sender description") }
        for chunk in sender.chunks {
            for r in chunk.replicas {
                let session = try await pool.session(r.server)
                try await session.deleteChunk(senderKey: r.replicaKey, senderId: r.replicaId)
            }
        }
    }
}
