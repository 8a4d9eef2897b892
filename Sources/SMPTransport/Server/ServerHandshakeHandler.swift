import Crypto
import NIOCore
import SMPProtocol
import SimplexFoundation

/// The server side of the SMP transport handshake (`smpServerHandshake`), run once TLS completes:
/// sends the server hello (session ID = tls-unique; the configured range with ALPN "smp/1", the
/// legacy 6-6 without), checks the client hello, switches on block encryption from v11, and then
/// replaces itself with the upper layer's handler. Failures close only this connection.
final class ServerHandshakeHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private enum State {
        case awaitingTLS
        case awaitingClientHello(Offer)
        case finished
    }

    private struct Offer {
        let versions: SMPVersionRange
        let sessionId: [UInt8]
        let sessionKey: Curve25519.KeyAgreement.PrivateKey
        let alpn: String?
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
        guard case .awaitingTLS = state, let tls = event as? TLSHandshakeCompleted else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        let offered = SMPHandshakeRules.offeredRange(configured: versions, alpn: tls.alpn)
        let sessionKey = Curve25519.KeyAgreement.PrivateKey()
        do {
            let hello = try SMPHandshakeRules.serverHello(
                versions: offered, sessionId: tls.tlsUnique,
                sessionKey: X25519PublicKey(rawRepresentation: Array(sessionKey.publicKey.rawRepresentation)),
                credentials: credentials)
            let block = try HandshakeBlock.encode(hello)
            state = .awaitingClientHello(Offer(versions: offered, sessionId: tls.tlsUnique, sessionKey: sessionKey, alpn: tls.alpn))
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: block)), promise: nil)
        } catch {
            fail(context: context, .tls("cannot build server hello: \(error)"))
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch state {
        case .finished:
            context.fireChannelRead(data)
        case .awaitingTLS:
            fail(context: context, .transport(.handshake(.parse)))
        case .awaitingClientHello(let offer):
            let block = unwrapInboundIn(data)
            do {
                try accept(context: context, offer: offer, block: block)
            } catch {
                fail(context: context, .transport(error))
            }
        }
    }

    private func accept(context: ChannelHandlerContext, offer: Offer, block: ByteBuffer) throws(TransportError) {
        let hello = try HandshakeBlock.decode(SMPClientHandshake.self, block: block.readableBytesView)
        guard hello.keyHash == credentials.keyHash else { throw .handshake(.identity) }
        guard offer.versions.contains(hello.version) else { throw .version }
        if hello.clientService != nil {
            // The reference checks the service chain against the TLS client certificate; this
            // server asks for none, so the chains never match: BAD_AUTH, told to the client.
            let response = try? HandshakeBlock.encode(SMPServerHandshakeResponse.error(.handshake(.badAuth)))
            if let response { context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: response)), promise: nil) }
            throw .handshake(.badAuth)
        }
        let clientKey = hello.authPubKey.flatMap { try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: $0.rawRepresentation) }
        var cipher: SMPBlockCipher?
        if SMPHandshakeRules.blockEncryption(version: hello.version, proxyServer: hello.proxyServer, keysPresent: clientKey != nil),
           let clientKey {
            guard let secret = try? offer.sessionKey.sharedSecretFromKeyAgreement(with: clientKey),
                  let keys = try? EncryptedBlock.chainKeys(sessionId: offer.sessionId,
                                                           dhSecret: secret.withUnsafeBytes { Array($0) }, isServer: true)
            else { throw .handshake(.badAuth) }
            cipher = SMPBlockCipher(send: keys.send, receive: keys.receive)
        }
        let session = SMPServerSession(
            version: hello.version,
            serverVersions: offer.versions,
            sessionId: offer.sessionId,
            serverSessionKey: offer.sessionKey,
            clientAuthPubKey: clientKey,
            remoteAddress: context.channel.remoteAddress,
            proxyServer: hello.proxyServer,
            blockEncryption: cipher != nil,
            alpn: offer.alpn
        )
        state = .finished
        timer?.cancel()
        timer = nil
        do {
            let sync = context.pipeline.syncOperations
            try sync.addHandler(makeHandler(session), position: .after(self))
            if let cipher { try sync.addHandler(cipher, position: .before(self)) }
        } catch {
            onFailure?(.tls("cannot install session handler: \(error)"), context.channel.remoteAddress)
            context.close(promise: nil)
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
