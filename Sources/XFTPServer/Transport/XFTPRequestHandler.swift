import Foundation
import NIOCore
import NIOHTTP2
import SMPTransport
import SimplexFoundation
import XFTPProtocol
import XFTPTransport

/// Serves one HTTP/2 request stream as the reference's `runServer` callback does: the first 16384
/// bytes of the body are the block; on an `xftp/1` (or `http/1.1`) session the XFTP handshake runs
/// over the first requests (`xftpServerHandshakeV1`), then each block goes to the core and the
/// reply is streamed back, the encrypted chunk of FGET after the response block.
struct XFTPRequestHandler: Sendable {
    let core: XFTPServerCore
    let credentials: ServerCredentials
    let versions: ClosedRange<UInt16>

    func serve(_ stream: HTTP2StreamChannel, connection: XFTPConnection) async {
        connection.touch()
        try? await stream.executeThenClose { inbound, outbound in
            let reader = HTTP2StreamReader(inbound)
            let writer = HTTP2StreamWriter(outbound)
            let timeout = Double(core.config.fileTimeout)
            let deadline = Date().addingTimeInterval(timeout)
            // The block must arrive within the file timeout too; a silent stream is dropped.
            let head = try await withTimeLimit(timeout, error: HTTP2RequestBody.Timeout()) {
                _ = try await reader.readHeaders()
                return try await reader.read(upTo: XFTPVersion.blockSize)
            }
            switch connection.alpn {
            case nil:
                // No ALPN: version 1 without the handshake (and without session keys).
                let session = XFTPServerSession(params: XFTPSessionParams(sessionId: connection.sessionId, version: XFTPVersion.initial), sessionKey: nil)
                try await process(head, session: session, reader: reader, writer: writer, deadline: deadline)
            case XFTPVersion.alpn?, XFTPTLS.http11ALPN?:
                switch connection.handshake {
                case .none:
                    // Non-web clients send an empty hello; anything else is HANDSHAKE.
                    guard head.isEmpty else { return try await sendError(.handshake, writer) }
                    try await hello(connection, writer)
                case .sent(let key):
                    try await clientHandshake(head, key: key, connection, writer)
                case .accepted(let session):
                    try await process(head, session: session, reader: reader, writer: writer, deadline: deadline)
                }
            default:
                try await writer.headers(HTTP2StreamWriter.ok, endStream: true)
            }
            // The response may still be queued behind the stream's flow-control window: closing
            // now would reset the stream and lose it. The stream closes by itself once both
            // sides ended; a client that never ends its side is cut off after the file timeout.
            await Self.waitClosed(stream.channel, seconds: core.config.fileTimeout)
        }
    }

    private static func waitClosed(_ channel: any Channel, seconds: Int64) async {
        let cutOff = channel.eventLoop.scheduleTask(in: .seconds(seconds)) { channel.close(promise: nil) }
        try? await channel.closeFuture.get()
        cutOff.cancel()
    }

    /// `processHello`: the server handshake with a signed session key.
    private func hello(_ connection: XFTPConnection, _ writer: HTTP2StreamWriter) async throws {
        let key = connection.helloKey()
        let block: [UInt8]
        do {
            let signed = try SignedPublicKey.sign(.x25519(key.publicKey), with: credentials.serverPrivateKey)
            block = try XFTPServerHandshake(versionRange: versions, sessionId: connection.sessionId,
                                            certificateChain: credentials.chain, signedKey: signed.der).block()
        } catch {
            return try await sendError(.handshake, writer)
        }
        try await writer.headers(HTTP2StreamWriter.ok, endStream: false)
        try await writer.data(block, endStream: true)
    }

    /// `processClientHandshake`: a full block, the server's own identity, a version in range.
    private func clientHandshake(_ head: [UInt8], key: X25519PrivateKey, _ connection: XFTPConnection, _ writer: HTTP2StreamWriter) async throws {
        guard head.count == XFTPVersion.blockSize,
              let body = try? Padding.unpad(head),
              let chs = try? XFTPClientHandshake(decoding: body),
              chs.keyHash == credentials.keyHash,
              versions.contains(chs.version)
        else { return try await sendError(.handshake, writer) }
        let params = XFTPSessionParams(sessionId: connection.sessionId, version: chs.version)
        connection.set(.accepted(XFTPServerSession(params: params, sessionKey: key)))
        try await writer.headers(HTTP2StreamWriter.ok, endStream: true)
    }

    /// Handshake errors are the padded error alone, not a transmission (`sendError`).
    private func sendError(_ e: XFTPErrorType, _ writer: HTTP2StreamWriter) async throws {
        try await writer.headers(HTTP2StreamWriter.ok, endStream: false)
        try await writer.data((try? Padding.pad(e.encoded, to: XFTPVersion.blockSize)) ?? [], endStream: true)
    }

    /// `processRequest` + `sendXFTPResponse`. The request (its body's reads) is cancelled at the
    /// deadline: a body that stalls ends there and the core answers TIMEOUT.
    private func process(_ head: [UInt8], session: XFTPServerSession, reader: HTTP2StreamReader, writer: HTTP2StreamWriter, deadline: Date) async throws {
        let core = core
        let reply = await cancelling(at: deadline) {
            await core.process(block: head, session: session, body: HTTP2RequestBody(reader: reader))
        }
        try await writer.headers(HTTP2StreamWriter.ok, endStream: false)
        guard var file = reply.file else {
            return try await writer.data(reply.block, endStream: true)
        }
        try await writer.data(reply.block)
        let allocator = ByteBufferAllocator()
        // A chunk that cannot be read ends the stream early; the client sees a short body.
        while let piece = try file.next(max: 65_536, allocator: allocator) {
            try await writer.data(piece)
        }
        try await writer.end()
    }
}

/// Runs `work` and cancels it at `deadline` if it is still running; its result is returned either
/// way (a cancelled body read ends the request with TIMEOUT). One timer per request.
func cancelling<R: Sendable>(at deadline: Date, _ work: @escaping @Sendable () async -> R) async -> R {
    let task = Task { await work() }
    return await withTaskGroup(of: Void.self) { group in
        group.addTask {
            try? await Task.sleep(for: .milliseconds(max(0, Int(deadline.timeIntervalSinceNow * 1000))))
            if !Task.isCancelled { task.cancel() }
        }
        let r = await withTaskCancellationHandler { await task.value } onCancel: { task.cancel() }
        group.cancelAll()
        return r
    }
}
