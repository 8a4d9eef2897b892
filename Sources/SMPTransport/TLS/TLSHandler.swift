import CSimplexTLS
import NIOCore

/// TLS over OpenSSL inside a SwiftNIO pipeline: ciphertext from the socket is fed to OpenSSL
/// through a memory BIO and plaintext is passed on; plaintext writes come back as ciphertext.
/// When the handshake completes it fires `TLSHandshakeCompleted` (with tls-unique) before any
/// application data. All use is on the channel's event loop.
public final class TLSHandler: ChannelDuplexHandler, RemovableChannelHandler {
    public typealias InboundIn = ByteBuffer
    public typealias InboundOut = ByteBuffer
    public typealias OutboundIn = ByteBuffer
    public typealias OutboundOut = ByteBuffer

    private enum State { case idle, handshaking, active, closed }

    /// Decides on the server's certificate chain during the client handshake (DER, leaf first);
    /// return false to abort the handshake. Only for client contexts.
    public typealias Verifier = ([[UInt8]]) -> Bool

    private let context: TLSContext
    private let conn: OpaquePointer
    private var state = State.idle
    private var pendingWrites: [(ByteBuffer, EventLoopPromise<Void>?)] = []
    private let verifierBox: VerifierBox?

    /// Reads at most this much plaintext per SSL_read call (a TLS record carries at most 16 KiB).
    private static let readChunk = 16 * 1024 + 512

    public init(context: TLSContext, verifier: Verifier? = nil) throws(TLSError) {
        guard let conn = sxtls_conn_new(context.pointer) else { throw .configuration("SSL_new failed") }
        self.context = context
        self.conn = conn
        if let verifier, !context.isServer {
            let box = VerifierBox(verifier)
            verifierBox = box
            sxtls_conn_set_verify(conn, { arg, ders, lens, count in
                guard let arg, let ders, let lens else { return 0 }
                let box = Unmanaged<VerifierBox>.fromOpaque(arg).takeUnretainedValue()
                var chain: [[UInt8]] = []
                for i in 0..<count {
                    guard let p = ders[i] else { return 0 }
                    chain.append(Array(UnsafeBufferPointer(start: p, count: lens[i])))
                }
                return box.verify(chain) ? 1 : 0
            }, Unmanaged.passUnretained(box).toOpaque())
        } else {
            verifierBox = nil
        }
    }

    deinit { sxtls_conn_free(conn) }

    /// True when the peer sent a session ticket (never, from a server with resumption off).
    public var receivedSessionTicket: Bool { sxtls_conn_has_ticket(conn) == 1 }

    /// True once the records are protected without OpenSSL's connection (TLS 1.3).
    public var recordLayerOffloaded: Bool { sxtls_conn_offloaded(conn) == 1 }

    public func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context: context) }
    }

    public func channelActive(context: ChannelHandlerContext) {
        start(context: context)
        context.fireChannelActive()
    }

    private func start(context: ChannelHandlerContext) {
        guard case .idle = state else { return }
        state = .handshaking
        // The client speaks first; the server waits for the ClientHello.
        if !self.context.isServer { advanceHandshake(context: context) }
    }

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        guard state != .closed else { return }
        if state == .idle { state = .handshaking }
        let fed = buffer.withUnsafeReadableBytes { raw in
            sxtls_conn_feed(conn, raw.bindMemory(to: UInt8.self).baseAddress, raw.count)
        }
        buffer.moveReaderIndex(forwardBy: buffer.readableBytes)
        guard fed >= 0 else {
            fail(context: context, .io("cannot buffer input"))
            return
        }
        if state == .handshaking { advanceHandshake(context: context) }
        if state == .active { readPlaintext(context: context) }
    }

    public func channelReadComplete(context: ChannelHandlerContext) {
        context.fireChannelReadComplete()
    }

    private func advanceHandshake(context: ChannelHandlerContext) {
        let r = sxtls_conn_handshake(conn)
        flushCiphertext(context: context, promise: nil)
        if r == 1 {
            state = .active
            let info = handshakeInfo()
            // Records are then protected by CSimplexTLS itself and OpenSSL's connection freed: about
            // 12 KB less per connected client, and a copy less per record (docs/protocol-notes.md, "TLS").
            if self.context.configuration.ownRecordLayer { _ = sxtls_conn_offload(conn) }
            context.fireUserInboundEventTriggered(info)
            if !pendingWrites.isEmpty { encryptPending(context: context) }
        } else if r < 0 {
            fail(context: context, .handshake(String(cString: sxtls_conn_error(conn))))
        }
    }

    private func handshakeInfo() -> TLSHandshakeCompleted {
        var alpnBuf = [UInt8](repeating: 0, count: 256)
        let alpnLen = sxtls_conn_alpn(conn, &alpnBuf, alpnBuf.count)
        var finished = [UInt8](repeating: 0, count: 128)
        // tls-unique = the client's Finished: the server's peer Finished, the client's own.
        let n = sxtls_conn_finished(conn, context.isServer ? 1 : 0, &finished, finished.count)
        var peers: [[UInt8]] = []
        for i in 0..<sxtls_conn_peer_count(conn) {
            let len = sxtls_conn_peer_cert(conn, i, nil, 0)
            guard len > 0 else { continue }
            var der = [UInt8](repeating: 0, count: Int(len))
            if sxtls_conn_peer_cert(conn, i, &der, der.count) == len { peers.append(der) }
        }
        var name = [CChar](repeating: 0, count: 128)
        _ = sxtls_conn_cipher(conn, &name, name.count)
        let cipher = TLSContext.string(name)
        name = [CChar](repeating: 0, count: 128)
        _ = sxtls_conn_group(conn, &name, name.count)
        return TLSHandshakeCompleted(
            alpn: alpnLen > 0 ? String(decoding: alpnBuf[0..<alpnLen], as: UTF8.self) : nil,
            tlsUnique: Array(finished[0..<min(n, finished.count)]),
            peerCertificates: peers,
            protocolVersion: Int(sxtls_conn_version(conn)),
            cipher: cipher,
            group: TLSContext.string(name),
            sessionReused: sxtls_conn_session_reused(conn) == 1
        )
    }

    /// Each record's plaintext goes up as its own buffer: a record carries at most 16 KiB, one
    /// SMP block when the peer writes whole blocks, so the framing above can pass it on without
    /// copying, where gathering a whole socket read into one growing buffer copied every byte.
    private func readPlaintext(context: ChannelHandlerContext) {
        while state == .active {
            var out = context.channel.allocator.buffer(capacity: Self.readChunk)
            var n: Int32 = 0
            out.writeWithUnsafeMutableBytes(minimumWritableBytes: Self.readChunk) { raw in
                n = sxtls_conn_read(conn, raw.bindMemory(to: UInt8.self).baseAddress, Self.readChunk)
                return n > 0 ? Int(n) : 0
            }
            if n > 0 {
                context.fireChannelRead(wrapInboundOut(out))
                continue
            }
            if n == 0 { break }
            if n == -2 {
                // close_notify: what came before it has been delivered; close.
                flushCiphertext(context: context, promise: nil)
                state = .closed
                context.close(promise: nil)
                return
            }
            fail(context: context, .io(String(cString: sxtls_conn_error(conn))))
            return
        }
        // SSL_read may have produced records to send (TLS 1.3 post-handshake messages).
        flushCiphertext(context: context, promise: nil)
        sxtls_conn_compact(conn)
    }

    /// Plaintext is held until flush and then encrypted in one go, so one flush makes one
    /// ciphertext write (as few syscalls as the peer's reads allow).
    public func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let buffer = unwrapOutboundIn(data)
        switch state {
        case .active, .idle, .handshaking: pendingWrites.append((buffer, promise))
        case .closed: promise?.fail(ChannelError.ioOnClosedChannel)
        }
    }

    public func flush(context: ChannelHandlerContext) {
        guard state == .active, !pendingWrites.isEmpty else { return }
        encryptPending(context: context)
    }

    /// Encrypts every held write; their promises complete with the one ciphertext write.
    private func encryptPending(context: ChannelHandlerContext) {
        let writes = pendingWrites
        pendingWrites = []
        var promise: EventLoopPromise<Void>?
        for (buffer, p) in writes {
            let r = buffer.withUnsafeReadableBytes { raw in
                sxtls_conn_write(conn, raw.bindMemory(to: UInt8.self).baseAddress, raw.count)
            }
            if r < 0 && buffer.readableBytes > 0 {
                let error = TLSError.io(String(cString: sxtls_conn_error(conn)))
                p?.fail(error)
                fail(context: context, error)
                return
            }
            if let p {
                if let promise { promise.futureResult.cascade(to: p) } else { promise = p }
            }
            // Ciphertext leaves in pieces of about 32 KB: glibc keeps freed buffers below 64 KB for
            // reuse, while freeing a larger one trims the heap, so one buffer for a whole flush
            // (hundreds of KB of HTTP/2 frames) was fresh pages to fault in on every flush
            // (xftp-bench, 256 MB: page faults 107-129k -> 42-68k in the client).
            if sxtls_conn_pending(conn) >= Self.ciphertextPiece { drainCiphertext(context: context) }
        }
        flushCiphertext(context: context, promise: promise)
    }

    static let ciphertextPiece = 32 * 1024

    /// Passes the ciphertext written so far on, unflushed, keeping the record queue for more.
    private func drainCiphertext(context: ChannelHandlerContext) {
        let pending = sxtls_conn_pending(conn)
        guard pending > 0 else { return }
        context.write(wrapOutboundOut(takeCiphertext(context: context, count: pending)), promise: nil)
    }

    private func takeCiphertext(context: ChannelHandlerContext, count: Int) -> ByteBuffer {
        var out = context.channel.allocator.buffer(capacity: count)
        _ = out.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { raw in
            Int(sxtls_conn_drain(conn, raw.bindMemory(to: UInt8.self).baseAddress, raw.count))
        }
        return out
    }

    /// Moves what OpenSSL wrote into its output BIO to the socket.
    private func flushCiphertext(context: ChannelHandlerContext, promise: EventLoopPromise<Void>?) {
        writeCiphertext(context: context, promise: promise, flush: true)
    }

    private func writeCiphertext(context: ChannelHandlerContext, promise: EventLoopPromise<Void>?, flush: Bool) {
        let pending = sxtls_conn_pending(conn)
        guard pending > 0 else {
            if let promise {
                if flush { context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(capacity: 0)), promise: promise) }
                else { context.write(wrapOutboundOut(context.channel.allocator.buffer(capacity: 0)), promise: promise) }
            } else if flush {
                // Pieces passed on unflushed by encryptPending may be waiting.
                context.flush()
            }
            return
        }
        let out = takeCiphertext(context: context, count: pending)
        if flush { context.writeAndFlush(wrapOutboundOut(out), promise: promise) }
        else { context.write(wrapOutboundOut(out), promise: promise) }
        sxtls_conn_compact(conn)
    }

    public func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        if mode == .all, state == .active {
            state = .closed
            sxtls_conn_shutdown(conn)
            flushCiphertext(context: context, promise: nil)
        } else if mode == .all {
            state = .closed
        }
        failPendingWrites(ChannelError.ioOnClosedChannel)
        context.close(mode: mode, promise: promise)
    }

    public func channelInactive(context: ChannelHandlerContext) {
        let wasHandshaking = state == .handshaking || state == .idle
        state = .closed
        failPendingWrites(ChannelError.ioOnClosedChannel)
        if wasHandshaking { context.fireErrorCaught(TLSError.closedDuringHandshake) }
        context.fireChannelInactive()
    }

    private func fail(context: ChannelHandlerContext, _ error: TLSError) {
        guard state != .closed else { return }
        state = .closed
        failPendingWrites(error)
        context.fireErrorCaught(error)
        context.close(promise: nil)
    }

    private func failPendingWrites(_ error: any Error) {
        let writes = pendingWrites
        pendingWrites = []
        for (_, promise) in writes { promise?.fail(error) }
    }
}

/// Holds the verifier for the C callback (the handler keeps it alive for the connection's life).
final class VerifierBox {
    let verify: TLSHandler.Verifier
    init(_ verify: @escaping TLSHandler.Verifier) { self.verify = verify }
}
