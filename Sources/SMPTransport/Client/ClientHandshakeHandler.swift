import Crypto
import NIOCore
import SMPProtocol
import SimplexFoundation

/// The client side of the SMP transport handshake (`smpClientHandshake`), run once TLS completes:
/// reads the server hello, checks the session ID against its own tls-unique, picks the highest
/// common version, verifies the signed session key against the pinned chain, answers with the
/// client hello, switches on block encryption from v11, and then installs the caller's handler
/// (or just leaves the pipeline). `promise` is always completed.
final class ClientHandshakeHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private enum State {
        case awaitingTLS
        case awaitingServerHello(TLSHandshakeCompleted)
        case finished
    }

    private let keyHash: [UInt8]
    private let versions: SMPVersionRange
    private let proxyServer: Bool
    private let deadline: NIODeadline
    private let check: ChainCheck
    private let promise: EventLoopPromise<SMPClientSession>
    private let makeHandler: (@Sendable (SMPClientSession) -> any ChannelHandler)?
    private var state = State.awaitingTLS
    private var timer: Scheduled<Void>?

    init(
        keyHash: [UInt8],
        versions: SMPVersionRange,
        proxyServer: Bool,
        deadline: NIODeadline,
        check: ChainCheck,
        promise: EventLoopPromise<SMPClientSession>,
        makeHandler: (@Sendable (SMPClientSession) -> any ChannelHandler)?
    ) {
        self.keyHash = keyHash
        self.versions = versions
        self.proxyServer = proxyServer
        self.deadline = deadline
        self.check = check
        self.promise = promise
        self.makeHandler = makeHandler
    }

    func handlerAdded(context: ChannelHandlerContext) {
        timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
            fail(context: context, .timeout)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        if case .finished = state { return }
        state = .finished
        promise.fail(SMPTransportClientError.network("connection closed during handshake"))
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard case .awaitingTLS = state, let tls = event as? TLSHandshakeCompleted else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        state = .awaitingServerHello(tls)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch state {
        case .finished:
            context.fireChannelRead(data)
        case .awaitingTLS:
            fail(context: context, .transport(.handshake(.parse)))
        case .awaitingServerHello(let tls):
            do {
                let (session, cipher) = try answer(context: context, tls: tls, block: unwrapInboundIn(data))
                complete(context: context, session, cipher: cipher)
            } catch {
                fail(context: context, .transport(error))
            }
        }
    }

    private func answer(context: ChannelHandlerContext, tls: TLSHandshakeCompleted, block: ByteBuffer)
        throws(TransportError) -> (SMPClientSession, SMPBlockCipher?) {
        let hello = try HandshakeBlock.decode(SMPServerHandshake.self, block: block.readableBytesView)
        guard hello.sessionId == tls.tlsUnique else { throw .session }
        guard let version = SMPHandshakeRules.clientVersion(client: versions, server: hello.versions, proxyServer: proxyServer)
        else { throw .version }
        var serverKey: Curve25519.KeyAgreement.PublicKey?
        if let key = hello.authPubKey {
            let x = try SMPHandshakeRules.serverSessionKey(key, keyHash: keyHash, tlsChain: tls.peerCertificates)
            serverKey = try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: x.rawRepresentation)
            if serverKey == nil { throw .handshake(.badAuth) }
        }
        let clientKey = Curve25519.KeyAgreement.PrivateKey()
        let clientPub = try? X25519PublicKey(rawRepresentation: Array(clientKey.publicKey.rawRepresentation))
        let reply = SMPClientHandshake(version: version, keyHash: keyHash, authPubKey: clientPub, proxyServer: proxyServer)
        guard let bytes = try? HandshakeBlock.encode(reply) else { throw .largeMessage }
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: bytes)), promise: nil)
        var cipher: SMPBlockCipher?
        if SMPHandshakeRules.blockEncryption(version: version, proxyServer: proxyServer, keysPresent: serverKey != nil), let serverKey {
            guard let secret = try? clientKey.sharedSecretFromKeyAgreement(with: serverKey),
                  let keys = try? EncryptedBlock.chainKeys(sessionId: hello.sessionId,
                                                           dhSecret: secret.withUnsafeBytes { Array($0) }, isServer: false)
            else { throw .handshake(.badAuth) }
            cipher = SMPBlockCipher(send: keys.send, receive: keys.receive)
        }
        let session = SMPClientSession(
            version: version,
            serverVersions: hello.versions,
            sessionId: hello.sessionId,
            keyHash: keyHash,
            serverSessionKey: serverKey,
            clientSessionKey: clientKey,
            serverCertificate: tls.peerCertificates.first ?? [],
            proxyServer: proxyServer,
            blockEncryption: cipher != nil,
            alpn: tls.alpn,
            serverCertKey: serverKey == nil ? nil : hello.authPubKey
        )
        return (session, cipher)
    }

    private func complete(context: ChannelHandlerContext, _ session: SMPClientSession, cipher: SMPBlockCipher?) {
        state = .finished
        timer?.cancel()
        timer = nil
        do {
            let sync = context.pipeline.syncOperations
            if let cipher { try sync.addHandler(cipher, position: .before(self)) }
            if let makeHandler { try sync.addHandler(makeHandler(session), position: .after(self)) }
        } catch {
            promise.fail(SMPTransportClientError.network("cannot install session handler: \(error)"))
            context.close(promise: nil)
            return
        }
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        promise.succeed(session)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if case .finished = state {
            context.fireErrorCaught(error)
            return
        }
        if let chainError = check.transportError {
            fail(context: context, .transport(chainError))
        } else {
            fail(context: context, .tls(String(describing: error)))
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if case .finished = state {
            context.fireChannelInactive()
            return
        }
        if let chainError = check.transportError {
            fail(context: context, .transport(chainError))
        } else {
            fail(context: context, .network("connection closed during handshake"))
        }
    }

    private func fail(context: ChannelHandlerContext, _ error: SMPTransportClientError) {
        if case .finished = state { return }
        state = .finished
        timer?.cancel()
        timer = nil
        promise.fail(error)
        context.close(promise: nil)
    }
}
