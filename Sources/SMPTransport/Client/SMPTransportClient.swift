import NIOCore
import NIOPosix
import SMPProtocol

/// The connecting side of SMP transport: TCP, TLS (OpenSSL, the reference's parameters) pinned to
/// the server identity, block framing, the client handshake and, from v11, block encryption.
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
        proxyServer: Bool = false,
        tls: TLSConfiguration = .smp,
        group: any EventLoopGroup,
        timeout: TimeAmount = .seconds(15)
    ) async throws(SMPTransportClientError) -> (any Channel, SMPClientSession) {
        try await run(host: host, port: port, keyHash: keyHash, versions: versions, proxyServer: proxyServer, tls: tls,
                      group: group, timeout: timeout, makeHandler: nil)
    }

    /// Connects, completes the handshake and installs `handler(session)` as the last handler.
    public static func connect(
        host: String,
        port: Int = SMPServerAddress.defaultPort,
        keyHash: [UInt8],
        versions: SMPVersionRange = SMPVersion.supported,
        proxyServer: Bool = false,
        tls: TLSConfiguration = .smp,
        group: any EventLoopGroup,
        timeout: TimeAmount = .seconds(15),
        handler: @escaping @Sendable (SMPClientSession) -> any ChannelHandler
    ) async throws(SMPTransportClientError) -> (any Channel, SMPClientSession) {
        try await run(host: host, port: port, keyHash: keyHash, versions: versions, proxyServer: proxyServer, tls: tls,
                      group: group, timeout: timeout, makeHandler: handler)
    }

    /// Connects to a server address, trying its hosts in order; the last failure is thrown.
    public static func connect(
        to address: SMPServerAddress,
        versions: SMPVersionRange = SMPVersion.supported,
        proxyServer: Bool = false,
        group: any EventLoopGroup,
        timeout: TimeAmount = .seconds(15)
    ) async throws(SMPTransportClientError) -> (any Channel, SMPClientSession) {
        var lastError = SMPTransportClientError.network("no hosts")
        for host in address.hosts {
            do {
                return try await connect(
                    host: unbracketed(host), port: address.effectivePort, keyHash: address.keyHash,
                    versions: versions, proxyServer: proxyServer, group: group, timeout: timeout
                )
            } catch {
                // An identity or version failure will not differ on another host of the same server.
                if case .transport = error { throw error }
                lastError = error
            }
        }
        throw lastError
    }

    /// The SMP client context is made once and shared; other configurations (tests) get their own.
    private static let defaultContext: TLSContext? = try? TLSContext(clientConfiguration: .smp)

    private static func context(for tls: TLSConfiguration) throws(TLSError) -> TLSContext {
        if tls == .smp, let defaultContext { return defaultContext }
        return try TLSContext(clientConfiguration: tls)
    }

    private static func unbracketed(_ host: String) -> String {
        host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    }

    private static func run(
        host: String,
        port: Int,
        keyHash: [UInt8],
        versions: SMPVersionRange,
        proxyServer: Bool,
        tls: TLSConfiguration,
        group: any EventLoopGroup,
        timeout: TimeAmount,
        makeHandler: (@Sendable (SMPClientSession) -> any ChannelHandler)?
    ) async throws(SMPTransportClientError) -> (any Channel, SMPClientSession) {
        let tlsContext: TLSContext
        do {
            tlsContext = try context(for: tls)
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
                    let check = ChainCheck(verifier: verifier)
                    let sync = channel.pipeline.syncOperations
                    do {
                        // No SNI (as the reference's SMP client): the server is identified by its fingerprint.
                        try sync.addHandler(TLSHandler(context: tlsContext, verifier: { check.verify($0) }))
                        try sync.addHandler(SMPBlockDecoder.handler())
                        try sync.addHandler(SMPBlockEncoder())
                        try sync.addHandler(
                            ClientHandshakeHandler(
                                keyHash: keyHash, versions: versions, proxyServer: proxyServer, deadline: deadline,
                                check: check, promise: promise, makeHandler: makeHandler
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
