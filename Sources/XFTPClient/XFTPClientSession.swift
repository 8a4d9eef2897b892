import Crypto
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOPosix
import SMPTransport
import SimplexFoundation
import XFTPProtocol
import XFTPTransport

/// A connection to one XFTP server (`XFTPClient`): TLS with the server identity pinned by the
/// address's key hash, HTTP/2 on top, and the XFTP handshake done; then one HTTP/2 stream per
/// command, the chunk of FPUT streamed from disk and the chunk of FGET decrypted to disk.
public final class XFTPClientSession: Sendable {
    public let server: XFTPServerAddress
    public let params: XFTPSessionParams
    /// The server's signed session key: X25519 sender/recipient keys authorize with it.
    public let serverSessionKey: X25519PublicKey?
    public let config: XFTPClientConfig
    private let channel: any Channel
    private let multiplexer: NIOHTTP2Handler.StreamMultiplexer
    private let authority: String
    /// Chunk bytes in flight on this connection, for each chunk's timeout.
    private let allowance: ChunkAllowance

    private init(server: XFTPServerAddress, params: XFTPSessionParams, serverSessionKey: X25519PublicKey?, config: XFTPClientConfig,
                 channel: any Channel, multiplexer: NIOHTTP2Handler.StreamMultiplexer, authority: String) {
        self.server = server
        self.params = params
        self.serverSessionKey = serverSessionKey
        self.config = config
        self.channel = channel
        self.multiplexer = multiplexer
        self.authority = authority
        allowance = ChunkAllowance(config: config)
    }

    /// `getXFTPClient`: connects to the first host of `server`, checks its certificate chain
    /// against the key hash, and runs the XFTP handshake when `xftp/1` was negotiated.
    public static func connect(to server: XFTPServerAddress, config: XFTPClientConfig = XFTPClientConfig(),
                               group: any EventLoopGroup) async throws(XFTPClientError) -> XFTPClientSession {
        guard let host = server.hosts.first else { throw .network("no host in server address") }
        let hostName = host.description
        let port = server.port.isEmpty ? 443 : (Int(server.port) ?? 443)
        do {
            return try await open(server: server, host: hostName, port: port, config: config, group: group)
        } catch let e as XFTPClientError {
            throw e
        } catch {
            throw .network("\(error)")
        }
    }

    /// `runHandshake: false` stops after TLS and HTTP/2 (tests play a misbehaving client with it).
    static func open(server: XFTPServerAddress, host: String, port: Int, config: XFTPClientConfig,
                     group: any EventLoopGroup, runHandshake: Bool = true) async throws -> XFTPClientSession {
        let tls = try TLSContext(clientConfiguration: XFTPTLS.client)
        let keyHash = server.keyHash
        let loop = group.next()
        let ready = loop.makePromise(of: HTTP2ClientSetupHandler.Ready.self)
        let window = config.streamWindow
        let channel: any Channel
        do {
            channel = try await ClientBootstrap(group: loop)
                .connectTimeout(.milliseconds(Int64(config.connectTimeout * 1000)))
                .channelOption(.tcpOption(.tcp_nodelay), value: 1)
                .channelInitializer { ch in
                    ch.eventLoop.makeCompletedFuture {
                        let verifier: TLSHandler.Verifier = { chain in
                            (try? ServerChainVerifier(keyHash: keyHash).verify(chain: chain)) != nil
                        }
                        try ch.pipeline.syncOperations.addHandler(TLSHandler(context: tls, verifier: verifier))
                        try ch.pipeline.syncOperations.addHandler(HTTP2ClientSetupHandler(promise: ready, window: window))
                    }
                }
                .connect(host: host, port: port).get()
        } catch {
            ready.fail(error)
            throw XFTPClientError.network("\(error)")
        }
        // A server that never finishes TLS is cut off; closing fails the promise.
        let cutOff = channel.eventLoop.scheduleTask(in: .milliseconds(Int64(config.connectTimeout * 1000))) { channel.close(promise: nil) }
        defer { cutOff.cancel() }
        let (info, mux): HTTP2ClientSetupHandler.Ready
        do {
            (info, mux) = try await ready.futureResult.get()
        } catch {
            try? await channel.close()
            throw XFTPClientError.transport("TLS: \(error)")
        }
        let authority = port == 443 ? host : "\(host):\(port)"
        let params0 = XFTPSessionParams(sessionId: info.tlsUnique, version: XFTPVersion.initial)
        let session0 = XFTPClientSession(server: server, params: params0, serverSessionKey: nil, config: config,
                                         channel: channel, multiplexer: mux, authority: authority)
        guard runHandshake, info.alpn == XFTPVersion.alpn || info.alpn == XFTPTLS.http11ALPN else { return session0 }
        do {
            return try await session0.handshake(tls: info)
        } catch {
            try? await channel.close()
            throw error
        }
    }

    /// `xftpClientHandshakeV1`: an empty POST gets the server handshake; its session ID must be
    /// this TLS session's, its chain exactly [online, identity] with the identity's SHA-256 the
    /// address's key hash, and its session key signed by the TLS certificate's key. The client's
    /// handshake (highest common version, key hash) must get an empty answer.
    private func handshake(tls: TLSHandshakeCompleted) async throws -> XFTPClientSession {
        let shsHead = try await exchange(body: [], chunk: nil, timeout: config.requestTimeout) { head, _ in head }
        guard let shsBody = try? Padding.unpad(shsHead) else { throw XFTPClientError.transport("bad handshake block") }
        guard let shs = try? XFTPServerHandshake(decoding: shsBody) else { throw XFTPClientError.transport("handshake PARSE") }
        guard shs.sessionId == params.sessionId else { throw XFTPClientError.transport("bad session") }
        let lo = max(shs.versionRange.lowerBound, config.versions.lowerBound)
        let hi = min(shs.versionRange.upperBound, config.versions.upperBound)
        guard lo <= hi else { throw XFTPClientError.transport("version") }
        guard shs.certificateChain.count == 2, CryptoHash.sha256(shs.certificateChain[1]) == server.keyHash,
              let leaf = tls.peerCertificates.first, let leafKey = try? X509Certificate(der: leaf).publicKey(),
              let signed = try? SignedPublicKey(der: shs.signedKey), let key = signed.verify(with: leafKey),
              case .x25519(let sessionKey) = key
        else { throw XFTPClientError.transport("handshake BAD_AUTH") }
        let chs = try XFTPClientHandshake(version: hi, keyHash: server.keyHash).block()
        let answer = try await exchange(body: chs, chunk: nil, timeout: config.requestTimeout) { head, _ in head }
        guard answer.isEmpty else { throw XFTPClientError.transport("handshake answered with a block") }
        return XFTPClientSession(server: server, params: XFTPSessionParams(sessionId: params.sessionId, version: hi),
                                 serverSessionKey: sessionKey, config: config, channel: channel, multiplexer: multiplexer,
                                 authority: authority)
    }

    /// Closes the connection.
    public func close() async {
        try? await channel.close()
    }

    public var isActive: Bool { channel.isActive }

    // MARK: requests

    /// One request stream: `body` (and then the chunk, read from disk) is sent, the first 16384
    /// bytes of the answer are the head, and `handle` reads what follows. It fails with
    /// `responseTimeout` when nothing moved on the stream (no frame in, no body piece out) for
    /// `timeout` seconds.
    func exchange<R: Sendable>(
        body: [UInt8], chunk: XFTPChunkBody?, timeout: Double,
        _ handle: @escaping @Sendable ([UInt8], HTTP2StreamReader) async throws -> R
    ) async throws -> R {
        try await exchange(body: body, chunk: chunk, stallWindow: { timeout }, handle)
    }

    /// `exchange` with a stall window read at each check (a chunk's grows with the chunks beside it).
    func exchange<R: Sendable>(
        body: [UInt8], chunk: XFTPChunkBody?, stallWindow: @escaping @Sendable () -> Double,
        _ handle: @escaping @Sendable ([UInt8], HTTP2StreamReader) async throws -> R
    ) async throws -> R {
        let stream = try await openStream()
        let headers = HTTP2StreamWriter.post(authority: authority)
        let progress = TransferProgress()
        let channel = stream.channel
        let bodyFailure = NIOLockedValueBox<XFTPClientError?>(nil)
        return try await withStallLimit(stallWindow, progress: progress, error: XFTPClientError.responseTimeout) {
            try await stream.executeThenClose { inbound, outbound in
                let writer = HTTP2StreamWriter(outbound, progress: progress)
                let reader = HTTP2StreamReader(inbound, progress: progress)
                // The body goes out while the answer is awaited: a server may answer (an error)
                // before it has read a whole chunk.
                // Once the answer is in, a body still being sent is abandoned (cancelled).
                async let _: Void = {
                    do {
                        try await Self.send(writer, headers: headers, body: body, chunk: chunk)
                    } catch let e as BodySourceError {
                        // The chunk's bytes could not be made: the stream is reset (the server
                        // drops the partial chunk) instead of waiting for an answer to a body
                        // that never ends, and the exchange fails with the cause.
                        bodyFailure.withLockedValue { $0 = e.error }
                        channel.close(promise: nil)
                    } catch {}
                }()
                do {
                    _ = try await reader.readHeaders()
                    let head = try await reader.read(upTo: XFTPVersion.blockSize)
                    return try await handle(head, reader)
                } catch {
                    if let cause = bodyFailure.withLockedValue({ $0 }) { throw cause }
                    throw error
                }
            }
        }
    }

    /// A chunk's bytes could not be made from its source (as opposed to the stream failing to take
    /// them). A chunk file that ends early is left to the server's timeout as before: tests stall
    /// uploads that way.
    struct BodySourceError: Error {
        let error: XFTPClientError
    }

    /// Body pieces read from disk and handed to HTTP/2 at once (it cuts them into frames): fewer,
    /// larger writes cost fewer task switches.
    static let ioPiece = 65_536

    private static func send(_ writer: HTTP2StreamWriter, headers: HPACKHeaders, body: [UInt8], chunk: XFTPChunkBody?) async throws {
        guard let chunk else {
            if body.isEmpty { return try await writer.headers(headers, endStream: true) }
            try await writer.headers(headers, endStream: false)
            return try await writer.data(body, endStream: true)
        }
        try await writer.headers(headers, endStream: false)
        try await writer.data(body)
        switch chunk {
        case .file(let spec): try await sendFile(writer, spec)
        case .encrypted(let chunk): try await sendEncrypted(writer, chunk)
        }
        try await writer.end()
    }

    /// Each piece is read from the source into the frame's own buffer and encrypted there. The
    /// stream is not ended when the source changed meanwhile: the bytes may differ from the
    /// digest FNEW announced.
    private static func sendEncrypted(_ writer: HTTP2StreamWriter, _ chunk: EncryptedChunk) async throws {
        var off = 0
        while off < Int(chunk.size) {
            let n = min(Self.ioPiece, Int(chunk.size) - off)
            var buffer = ByteBufferAllocator().buffer(capacity: n)
            var failure: XFTPFileError?
            buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: n) { raw in
                do throws(XFTPFileError) {
                    try chunk.reader.fill(UnsafeMutableRawBufferPointer(rebasing: raw[0..<n]), at: chunk.offset + Int64(off), tag: chunk.tag)
                } catch {
                    failure = error
                }
                return n
            }
            if let failure { throw BodySourceError(error: .io("\(failure)")) }
            try await writer.data(buffer)
            off += n
        }
        guard chunk.reader.sourceUnchanged else { throw BodySourceError(error: .io("\(XFTPFileError.io(XFTPFileTransfer.sourceChanged))")) }
    }

    private static func sendFile(_ writer: HTTP2StreamWriter, _ chunk: XFTPChunkSpec) async throws {
        let file = try PosixFile(path: chunk.path, mode: .read)
        try file.seek(to: chunk.offset)
        var left = Int(chunk.size)
        while left > 0 {
            let piece = try file.read(max: min(left, Self.ioPiece))
            guard !piece.isEmpty else { throw XFTPClientError.io("chunk file is shorter than the chunk") }
            left -= piece.count
            try await writer.data(piece)
        }
    }

    private func openStream() async throws -> HTTP2StreamChannel {
        let promise = channel.eventLoop.makePromise(of: HTTP2StreamChannel.self)
        multiplexer.createStreamChannel { ch in
            ch.eventLoop.makeCompletedFuture {
                promise.succeed(try HTTP2StreamChannel(wrappingChannelSynchronously: ch))
            }
        }.whenFailure { promise.fail($0) }
        do {
            return try await promise.futureResult.get()
        } catch {
            throw XFTPClientError.network("cannot open a stream: \(error)")
        }
    }

    /// `sendXFTPTransmission`: the response head must be a block with one transmission of this
    /// session; `ERR` is a protocol error.
    func decode(_ head: [UInt8]) throws(XFTPClientError) -> FileResponse {
        guard head.count == XFTPVersion.blockSize else { throw .responseError(.block) }
        switch XFTPTransmission.decodeClient(head, params: params) {
        case .failure(let e): throw .responseError(e)
        case .success(let t):
            switch t.response {
            case .failure(let e): throw .responseError(e)
            case .success(.err(let e)): throw .protocolError(e)
            case .success(let r): return r
            }
        }
    }

    /// Signs `command` with `key` (empty corrId, as the reference client) and sends it.
    private func command<R: Sendable>(
        _ key: AnyPrivateKey?, entityId: [UInt8], _ command: FileCommand, chunk: XFTPChunkBody? = nil,
        timeoutChunk: UInt32? = nil,
        _ handle: @escaping @Sendable (FileResponse, HTTP2StreamReader) async throws -> R
    ) async throws(XFTPClientError) -> R {
        let block: [UInt8]
        do {
            if let key {
                block = try XFTPTransmission.encodeAuth(params, key: key, serverSessionKey: serverSessionKey,
                                                        corrId: [], entityId: entityId, command: command)
            } else {
                block = try XFTPTransmission.encode(params, corrId: [], entityId: entityId, command: command)
            }
        } catch {
            throw .transport("cannot encode \(command.tag): \(error)")
        }
        let chunkBytes = timeoutChunk ?? chunk?.size
        allowance.begin(chunkBytes)
        defer { allowance.end(chunkBytes) }
        let allowance = allowance
        do {
            return try await exchange(body: block, chunk: chunk, stallWindow: { allowance.window(chunkBytes) }) { head, reader in
                try await handle(try self.decode(head), reader)
            }
        } catch let e as XFTPClientError {
            throw e
        } catch let e as XFTPFileError {
            throw .io("\(e)")
        } catch {
            throw .network("\(error)")
        }
    }

    private static func unexpected(_ r: FileResponse) -> XFTPClientError { .unexpectedResponse(r.tag) }

    // MARK: commands

    /// FNEW: registers a chunk; returns the sender ID and one recipient ID per recipient key.
    public func createChunk(senderKey: AnyPrivateKey, info: FileInfo, recipientKeys: [AnyPublicKey],
                            auth: BasicAuth?) async throws(XFTPClientError) -> (senderId: [UInt8], recipientIds: [[UInt8]]) {
        try await command(senderKey, entityId: [], .fnew(info, recipients: recipientKeys, auth: auth)) { r, _ in
            guard case .sids(let s, let rs) = r else { throw Self.unexpected(r) }
            return (s, rs)
        }
    }

    /// FADD: more recipients for a chunk.
    public func addRecipients(senderKey: AnyPrivateKey, senderId: [UInt8], recipientKeys: [AnyPublicKey]) async throws(XFTPClientError) -> [[UInt8]] {
        try await command(senderKey, entityId: senderId, .fadd(recipients: recipientKeys)) { r, _ in
            guard case .rids(let rs) = r else { throw Self.unexpected(r) }
            return rs
        }
    }

    /// FPUT: uploads the chunk bytes from disk.
    public func uploadChunk(senderKey: AnyPrivateKey, senderId: [UInt8], chunk: XFTPChunkSpec) async throws(XFTPClientError) {
        try await uploadChunk(senderKey: senderKey, senderId: senderId, body: .file(chunk))
    }

    /// FPUT of a chunk from disk or from memory.
    public func uploadChunk(senderKey: AnyPrivateKey, senderId: [UInt8], body: XFTPChunkBody) async throws(XFTPClientError) {
        try await command(senderKey, entityId: senderId, .fput, chunk: body) { r, _ in
            guard case .ok = r else { throw Self.unexpected(r) }
        }
    }

    /// FGET: downloads a chunk, encrypted for this download with a fresh DH key, decrypting it to
    /// `destination` as it arrives; a wrong size is SIZE, a bad tag CRYPTO, a bad digest DIGEST
    /// (`downloadXFTPChunk`, `receiveEncFile`); a failed download leaves no file.
    public func downloadChunk(recipientKey: AnyPrivateKey, recipientId: [UInt8], destination: XFTPReceiveChunkSpec) async throws(XFTPClientError) {
        let dhKey = X25519PrivateKey()
        do {
            try await command(recipientKey, entityId: recipientId, .fget(dhKey.publicKey), timeoutChunk: destination.size) { r, reader in
                guard case .file(let serverKey, let nonce) = r else { throw Self.unexpected(r) }
                let secret = try dhKey.sharedSecret(with: serverKey)
                guard let sb = try? SecretBoxStream(secret: secret, nonce: nonce) else { throw XFTPClientError.responseError(.crypto) }
                try await Self.receive(reader, sb: sb, destination)
            }
        } catch {
            _ = PosixFile.remove(destination.path)
            throw error
        }
    }

    /// FGET into the landing file at `offset`: the chunk is decrypted from the received frames
    /// into a small scratch that is written there as it fills, its digest checked at the end.
    func downloadChunk(recipientKey: AnyPrivateKey, recipientId: [UInt8], into landing: ChunkLanding, at offset: Int64, size: UInt32,
                       digest: [UInt8]) async throws(XFTPClientError) {
        let dhKey = X25519PrivateKey()
        try await command(recipientKey, entityId: recipientId, .fget(dhKey.publicKey), timeoutChunk: size) { r, reader in
            guard case .file(let serverKey, let nonce) = r else { throw Self.unexpected(r) }
            let secret = try dhKey.sharedSecret(with: serverKey)
            guard var sb = try? SecretBoxStream(secret: secret, nonce: nonce) else { throw XFTPClientError.responseError(.crypto) }
            let hash = StreamDigest(.sha256)
            let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.ioPiece, alignment: 64)
            defer { scratch.deallocate() }
            var off = 0, held = 0
            while off < Int(size) {
                guard let piece = try await reader.nextSlice(max: min(Int(size) - off, scratch.count - held)) else {
                    throw XFTPClientError.responseError(.size)
                }
                let n = piece.readableBytes
                piece.withUnsafeReadableBytes { src in
                    let dst = UnsafeMutableRawBufferPointer(rebasing: scratch[held..<(held + n)])
                    sb.decrypt(from: src, to: dst)
                    hash.update(UnsafeRawBufferPointer(dst))
                }
                held += n
                off += n
                if held == scratch.count || off == Int(size) {
                    try landing.write(UnsafeRawBufferPointer(rebasing: scratch[0..<held]), at: offset + Int64(off - held))
                    held = 0
                }
            }
            try await Self.finishChunk(reader, sb: sb, hash: hash, digest: digest)
        }
    }

    /// The tag after a chunk, then nothing: a short or long body is SIZE, a bad tag CRYPTO, a bad digest DIGEST.
    private static func finishChunk(_ reader: HTTP2StreamReader, sb: SecretBoxStream, hash: StreamDigest, digest: [UInt8]) async throws {
        let tag = try await reader.read(upTo: FileEncryption.authTagSize)
        guard tag.count == FileEncryption.authTagSize else { throw XFTPClientError.responseError(.size) }
        guard try await reader.next(max: 1).isEmpty else { throw XFTPClientError.responseError(.size) }
        guard sb.verify(tag: tag) else { throw XFTPClientError.responseError(.crypto) }
        guard hash.finalize() == digest else { throw XFTPClientError.responseError(.digest) }
    }

    private static func receive(_ reader: HTTP2StreamReader, sb: SecretBoxStream, _ spec: XFTPReceiveChunkSpec) async throws {
        var sb = sb
        let out = try PosixFile(path: spec.path, mode: .create)
        let hash = StreamDigest(.sha256)
        var left = Int(spec.size)
        while left > 0 {
            var piece = try await reader.next(max: min(left, Self.ioPiece))
            guard !piece.isEmpty else { throw XFTPClientError.responseError(.size) }
            left -= piece.count
            piece.withUnsafeMutableBytes { p in
                sb.decrypt(inPlace: p)
                hash.update(UnsafeRawBufferPointer(p))
            }
            try out.write(piece)
        }
        try await finishChunk(reader, sb: sb, hash: hash, digest: spec.digest)
    }

    /// FDEL: the sender deletes a chunk.
    public func deleteChunk(senderKey: AnyPrivateKey, senderId: [UInt8]) async throws(XFTPClientError) {
        try await command(senderKey, entityId: senderId, .fdel) { r, _ in
            guard case .ok = r else { throw Self.unexpected(r) }
        }
    }

    /// FACK: a recipient acknowledges its download; its recipient ID is deleted.
    public func ackChunk(recipientKey: AnyPrivateKey, recipientId: [UInt8]) async throws(XFTPClientError) {
        try await command(recipientKey, entityId: recipientId, .fack) { r, _ in
            guard case .ok = r else { throw Self.unexpected(r) }
        }
    }

    /// PING.
    public func ping() async throws(XFTPClientError) {
        try await command(nil, entityId: [], .ping) { r, _ in
            guard case .pong = r else { throw Self.unexpected(r) }
        }
    }
}
