import NIOCore
import NIOPosix
import NIOSSL
import SMPProtocol

/// The connecting side of SMP transport: TCP, TLS pinned to the server identity, block framing
/// and the client handshake.
///
/// Seam for the client module: the returned channel's pipeline is
/// `[TLS, block decoder, block encoder]`; add the upper handler at the end. It reads `ByteBuffer`
/// blocks of exactly 16384 bytes and writes the same. Prefer the `handler:` variant, which adds
/// the handler on the event loop at the moment the handshake completes, so no block can arrive
/// before it is in place (an SMP server sends nothing unsolicited before the first command, so
/// the plain variant is also safe for ordinary use).
public enum SMPTransportClient {
    /// Connects and completes the handshake; the caller adds its handler to the returned channel.
    public static func connect(
        host: String,
        port: Int = SMPServerAddress.defaultPort,
        keyHash: [UInt8],
        versions: SMPVersionRange = SMPVersion.supported,
        group: any EventLoopGroup,
        timeout: TimeAmount = .seconds(15)
    ) async throws(SMPTransportClientError) -> (any Channel, SMPClientSession) {
        try await run(host: host, port: port, keyHash: keyHash, versions: versions, group: group, timeout: timeout, makeHandler: nil)
    }

    /// Connects, completes the handshake and installs `handler(session)` as the last handler.
    public static func connect(
        host: String,
        port: Int = SMPServerAddress.defaultPort,
        keyHash: [UInt8],
        versions: SMPVersionRange = SMPVersion.supported,
        group: any EventLoopGroup,
        timeout: TimeAmount = .seconds(15),
        handler: @escaping @Sendable (SMPClientSession) -> any ChannelHandler
    ) async throws(SMPTransportClientError) -> (any Channel, SMPClientSession) {
        try await run(host: host, port: port, keyHash: keyHash, versions: versions, group: group, timeout: timeout, makeHandler: handler)
    }

    /// Connects to a server address, trying its hosts in order; the last failure is thrown.
    public static func connect(
        to address: SMPServerAddress,
        versions: SMPVersionRange = SMPVersion.supported,
        group: any EventLoopGroup,
        timeout: TimeAmount = .seconds(15)
    ) async throws(SMPTransportClientError) -> (any Channel, SMPClientSession) {
        var lastError = SMPTransportClientError.network("no hosts")
        for host in address.hosts {
            do {
                return try await connect(
                    host: unbracketed(host), port: address.effectivePort, keyHash: address.keyHash,
                    versions: versions, group: group, timeout: timeout
                )
            } catch {
                // An identity or version failure will not differ on another host of the same server.
                if case .transport = error { throw error }
                lastError = error
            }
        }
        throw lastError
    }

    private static func unbracketed(_ host: String) -> String {
        host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    }

    private static func run(
        host: String,
        port: Int,
        keyHash: [UInt8],
        versions: SMPVersionRange,
        group: any EventLoopGroup,
        timeout: TimeAmount,
        makeHandler: (@Sendable (SMPClientSession) -> any ChannelHandler)?
    ) async throws(SMPTransportClientError) -> (any Channel, SMPClientSession) {
        let sslContext: NIOSSLContext
        do {
            sslContext = try NIOSSLContext(configuration: SMPTLS.clientConfiguration())
        } catch {
            throw .tls(String(describing: error))
        }
        let deadline = NIODeadline.now() + timeout
        let verifier = ServerChainVerifier(keyHash: keyHash)
        let bootstrap = ClientBootstrap(group: group)
            .connectTimeout(timeout)
            .channelOption(.socketOption(.so_keepalive), value: 1)
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
        let channel: any Channel
        let handshake: EventLoopFuture<SMPClientSession>
        do {
            (channel, handshake) = try await bootstrap.connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let promise = channel.eventLoop.makePromise(of: SMPClientSession.self)
                    let record = ChainVerificationRecord()
                    let sync = channel.pipeline.syncOperations
                    do {
                        // No SNI: the server is identified by its fingerprint, and SNI would leak the name.
                        try sync.addHandler(
                            NIOSSLClientHandler(context: sslContext, serverHostname: nil, customVerificationCallback: record.callback(verifier: verifier))
                        )
                        try sync.addHandler(SMPBlockDecoder.handler())
                        try sync.addHandler(SMPBlockEncoder())
                        try sync.addHandler(
                            ClientHandshakeHandler(
                                keyHash: keyHash, versions: versions, deadline: deadline,
                                record: record, promise: promise, makeHandler: makeHandler
                            )
                        )
                    } catch {
                        promise.fail(error)
                        throw error
                    }
                    return (channel, promise.futureResult)
                }
            }
        } catch {
            if case ChannelError.connectTimeout = error { throw .timeout }
            throw .network(String(describing: error))
        }
        do {
            let session = try await withTaskCancellationHandler {
                try await handshake.get()
            } onCancel: {
                channel.close(promise: nil)
            }
            return (channel, session)
        } catch let error as SMPTransportClientError {
            try? await channel.close()
            throw Task.isCancelled ? .cancelled : error
        } catch {
            try? await channel.close()
            throw .network(String(describing: error))
        }
    }
}
