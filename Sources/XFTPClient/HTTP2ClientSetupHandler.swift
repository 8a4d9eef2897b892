import NIOCore
import NIOHPACK
import NIOHTTP2
import XFTPTransport
import SMPTransport

/// Waits for the TLS handshake, then starts HTTP/2 as a client and hands over the stream
/// multiplexer with the handshake's facts (session ID, ALPN, the server's certificates).
final class HTTP2ClientSetupHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias Ready = (tls: TLSHandshakeCompleted, multiplexer: NIOHTTP2Handler.StreamMultiplexer)

    private let promise: EventLoopPromise<Ready>
    private let window: Int
    private var done = false

    init(promise: EventLoopPromise<Ready>, window: Int) {
        self.promise = promise
        self.window = window
    }

    private func fail(_ error: any Error) {
        guard !done else { return }
        done = true
        promise.fail(error)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let tls = event as? TLSHandshakeCompleted, !done {
            do {
                var conn = NIOHTTP2Handler.ConnectionConfiguration()
                conn.initialSettings = XFTPHTTP2.initialSettings(window: window)
                // The connection window holds several streams' windows: with the HTTP/2 default
                // (64 KB) parallel chunks would wait on each other's WINDOW_UPDATEs.
                conn.targetWindowSize = window * 8
                var stream = NIOHTTP2Handler.StreamConfiguration()
                stream.targetWindowSize = window
                // Servers do not push: any stream they open is closed.
                let mux = try context.pipeline.syncOperations.configureHTTP2Pipeline(
                    mode: .client, connectionConfiguration: conn, streamConfiguration: stream
                ) { ch in ch.close() }
                done = true
                promise.succeed((tls, mux))
            } catch {
                fail(error)
                context.close(promise: nil)
            }
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(error)
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail(ChannelError.ioOnClosedChannel)
        context.fireChannelInactive()
    }
}
