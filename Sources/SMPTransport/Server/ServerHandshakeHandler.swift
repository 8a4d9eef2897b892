import Crypto
import NIOCore
import NIOSSL
import NIOTLS
import SMPProtocol
import SimplexFoundation

/// Runs the server side of the SMP transport handshake once TLS completes: sends the server
/// hello, checks the client hello, then replaces itself with the upper layer's handler. Any
/// failure, or no completed handshake within the timeout, closes only this connection.
final class ServerHandshakeHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private enum State {
        case awaitingTLS
        case awaitingClientHello(sessionId: [UInt8], sessionKey: Curve25519.KeyAgreement.PrivateKey)
        case finished
    }

    private let credentials: ServerCredentials
    private let versions: SMPVersionRange
    private let timeout: TimeAmount
    private let makeHandler: @Sendable (SMPServerSession) -> any ChannelHandler
    private let onFailure: (@Sendable (SMPServerHandshakeFailure, SocketAddress?) -> Void)?
    private var state = State.awaitingTLS
    private var timer: Scheduled<Void>?

    init(
        credentials: ServerCredentials,
        versions: SMPVersionRange,
        timeout: TimeAmount,
        makeHandler: @escaping @Sendable (SMPServerSession) -> any ChannelHandler,
        onFailure: (@Sendable (SMPServerHandshakeFailure, SocketAddress?) -> Void)?
    ) {
        self.credentials = credentials
        self.versions = versions
        self.timeout = timeout
        self.makeHandler = makeHandler
        self.onFailure = onFailure
    }

    func handlerAdded(context: ChannelHandlerContext) {
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) { [self] in
            fail(context: context, .timeout)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard case .awaitingTLS = state, let tls = event as? TLSUserEvent, case .handshakeCompleted(let alpn) = tls else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        guard alpn == SMPTLS.alpn else {
            fail(context: context, .alpn)
            return
        }
        let sessionId = randomBytes(32)
        let sessionKey = Curve25519.KeyAgreement.PrivateKey()
        do {
            let signed = try SignedServerKey.sign(
                sessionKey: sessionKey.publicKey,
                certificate: credentials.serverCertificateDER,
                signingKey: credentials.serverPrivateKey
            )
            let hello = SMPServerHandshake(versions: versions, sessionId: sessionId, serverKey: signed)
            let block = try hello.encodeBlock()
            state = .awaitingClientHello(sessionId: sessionId, sessionKey: sessionKey)
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: block)), promise: nil)
        } catch {
            fail(context: context, .tls("cannot build server hello: \(error)"))
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .awaitingClientHello(let sessionId, let sessionKey) = state else {
            if case .finished = state {
                context.fireChannelRead(data)
            } else {
                // A block before TLS completed cannot happen with NIOSSL; treat as a broken peer.
                fail(context: context, .transport(.handshake(.parse)))
            }
            return
        }
        let block = unwrapInboundIn(data)
        guard let hello = try? SMPClientHandshake.decode(block: block.readableBytesView) else {
            fail(context: context, .transport(.handshake(.parse)))
            return
        }
        guard hello.keyHash == credentials.keyHash else {
            fail(context: context, .transport(.handshake(.identity)))
            return
        }
        guard versions.contains(hello.version), hello.version >= SMPVersion.authCommands else {
            fail(context: context, .transport(.version))
            return
        }
        let session = SMPServerSession(
            version: hello.version,
            serverVersions: versions,
            sessionId: sessionId,
            serverSessionKey: sessionKey,
            clientAuthPubKey: hello.authPubKey,
            remoteAddress: context.channel.remoteAddress
        )
        state = .finished
        timer?.cancel()
        timer = nil
        do {
            try context.pipeline.syncOperations.addHandler(makeHandler(session), position: .after(self))
        } catch {
            fail(context: context, .tls("cannot install session handler: \(error)"))
            return
        }
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if case .finished = state {
            context.fireErrorCaught(error)
        } else {
            fail(context: context, .tls(String(describing: error)))
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if case .finished = state {
            context.fireChannelInactive()
        } else {
            fail(context: context, .closed)
        }
    }

    private func fail(context: ChannelHandlerContext, _ failure: SMPServerHandshakeFailure) {
        if case .finished = state { return }
        state = .finished
        timer?.cancel()
        timer = nil
        onFailure?(failure, context.channel.remoteAddress)
        context.close(promise: nil)
    }
}

/// `n` bytes from the system CSPRNG.
func randomBytes(_ n: Int) -> [UInt8] {
    var rng = SystemRandomNumberGenerator()
    return (0..<n).map { _ in UInt8.random(in: .min ... .max, using: &rng) }
}
