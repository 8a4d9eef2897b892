import Crypto
import NIOCore
import NIOSSL
import NIOTLS
import SMPProtocol
import SimplexFoundation

/// Runs the client side of the SMP transport handshake once TLS completes: reads the server
/// hello, picks the version, verifies the signed session key against the pinned chain, answers
/// with the client hello, and then either installs the caller's handler or just leaves the
/// pipeline. The outcome completes `promise`; it is always completed, whatever happens.
final class ClientHandshakeHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private enum State {
        case awaitingTLS
        case awaitingServerHello
        case finished
    }

    private let keyHash: [UInt8]
    private let versions: SMPVersionRange
    private let deadline: NIODeadline
    private let record: ChainVerificationRecord
    private let promise: EventLoopPromise<SMPClientSession>
    private let makeHandler: (@Sendable (SMPClientSession) -> any ChannelHandler)?
    private var state = State.awaitingTLS
    private var timer: Scheduled<Void>?

    init(
        keyHash: [UInt8],
        versions: SMPVersionRange,
        deadline: NIODeadline,
        record: ChainVerificationRecord,
        promise: EventLoopPromise<SMPClientSession>,
        makeHandler: (@Sendable (SMPClientSession) -> any ChannelHandler)?
    ) {
        self.keyHash = keyHash
        self.versions = versions
        self.deadline = deadline
        self.record = record
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
        guard case .awaitingTLS = state, let tls = event as? TLSUserEvent, case .handshakeCompleted(let alpn) = tls else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        guard alpn == SMPTLS.alpn else {
            fail(context: context, .transport(.version))
            return
        }
        state = .awaitingServerHello
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch state {
        case .finished:
            context.fireChannelRead(data)
        case .awaitingTLS:
            fail(context: context, .transport(.handshake(.parse)))
        case .awaitingServerHello:
            do {
                let session = try answer(context: context, block: unwrapInboundIn(data))
                complete(context: context, session)
            } catch {
                fail(context: context, error)
            }
        }
    }

    /// Checks the server hello and sends the client hello.
    private func answer(context: ChannelHandlerContext, block: ByteBuffer) throws(SMPTransportClientError) -> SMPClientSession {
        guard let hello = try? SMPServerHandshake.decode(block: block.readableBytesView) else {
            throw .transport(.handshake(.parse))
        }
        guard let version = hello.versions.compatible(with: versions), version >= SMPVersion.authCommands else {
            throw .transport(.version)
        }
        guard let signed = hello.serverKey, let chain = record.verified else { throw .transport(.handshake(.badAuth)) }
        let serverSessionKey: Curve25519.KeyAgreement.PublicKey
        do {
            serverSessionKey = try signed.verify(expectedCertificate: chain.onlineCertificate)
        } catch {
            throw .transport(error)
        }
        let clientKey = Curve25519.KeyAgreement.PrivateKey()
        let reply = SMPClientHandshake(version: version, keyHash: keyHash, authPubKey: clientKey.publicKey)
        guard let bytes = try? reply.encodeBlock() else { throw .transport(.largeMessage) }
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: bytes)), promise: nil)
        return SMPClientSession(
            version: version,
            serverVersions: hello.versions,
            sessionId: hello.sessionId,
            keyHash: keyHash,
            serverSessionKey: serverSessionKey,
            clientSessionKey: clientKey,
            serverCertificate: chain.onlineCertificate
        )
    }

    private func complete(context: ChannelHandlerContext, _ session: SMPClientSession) {
        state = .finished
        timer?.cancel()
        timer = nil
        if let makeHandler {
            do {
                try context.pipeline.syncOperations.addHandler(makeHandler(session), position: .after(self))
            } catch {
                promise.fail(SMPTransportClientError.network("cannot install session handler: \(error)"))
                context.close(promise: nil)
                return
            }
        }
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        promise.succeed(session)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if case .finished = state {
            context.fireErrorCaught(error)
            return
        }
        if let chainError = record.transportError {
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
        if let chainError = record.transportError {
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
