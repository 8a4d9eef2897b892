import Foundation
import Logging
import NIOCore
import NIOPosix
import SimplexFoundation
import SMPProtocol
import SMPTransport

/// A running SMP relay: the queue store (replayed from its log), the TLS listener, and the
/// periodic expiry of old messages. `smp-server start` and the tests both run this.
public final class SMPRelayServer: Sendable {
    public let config: SMPServerConfig
    public let address: SMPServerAddress
    private let transport: SMPTransportServer
    private let processor: CommandProcessor
    private let expiry: Task<Void, Never>
    private let ownedGroup: MultiThreadedEventLoopGroup?
    private let logger: Logger

    /// Store log file inside the data folder.
    public static let storeLogFile = "smp-server-store.log"

    /// Loads the store from `dataDirectory` (nil: memory only) and starts listening.
    public static func start(config: SMPServerConfig, credentials: ServerCredentials, dataDirectory: String?,
                             group: (any EventLoopGroup)? = nil, logger: Logger = Logger(label: "smp-server")) async throws -> SMPRelayServer {
        let logPath = (config.storeLog ? dataDirectory : nil).map { ($0 as NSString).appendingPathComponent(storeLogFile) }
        let store = try QueueStore(logPath: logPath, quota: config.queueQuota, fsyncEvery: config.fsyncEvery,
                                   messageTTL: config.messageTTL, now: CommandProcessor.now())
        if store.droppedOnLoad > 0 {
            logger.warning("store log had a torn tail of \(store.droppedOnLoad) bytes (crash during a write); it was dropped")
        }
        let owned = group == nil ? MultiThreadedEventLoopGroup(numberOfThreads: System.coreCount) : nil
        let loopGroup: any EventLoopGroup = group ?? owned!
        let proxyAgent = config.allowSMPProxy ? SMPProxyAgent(group: loopGroup, config: config) : nil
        let processor = CommandProcessor(store: store, config: config, proxyAgent: proxyAgent)
        let transportConfig = SMPTransportServer.Configuration(versions: config.versions, handshakeTimeout: .seconds(config.handshakeTimeout))
        let transport: SMPTransportServer
        do {
            transport = try await SMPTransportServer.start(
                host: config.bindAddress, port: config.port, credentials: credentials, configuration: transportConfig, group: loopGroup
            ) { session in
                let serverKey = try? X25519PrivateKey(rawRepresentation: Array(session.serverSessionKey.rawRepresentation))
                // The p2r secret of private routing, from the key the client sent in its hello.
                var secret: CryptoBoxKey?
                if let serverKey, let raw = session.clientAuthPubKey, let clientKey = try? X25519PublicKey(rawRepresentation: Array(raw.rawRepresentation)) {
                    secret = try? CryptoBox.sharedKey(publicKey: clientKey, privateKey: serverKey)
                }
                return ServerConnectionHandler(
                    processor: processor,
                    session: ConnectionSession(sessionId: session.sessionId, version: session.version, serverSessionKey: serverKey,
                                               sessionSecret: secret, authenticatorKeys: AuthenticatorKeyCache(limit: 64)))
            }
        } catch {
            try? await owned?.shutdownGracefully()
            throw error
        }
        let hosts = config.host.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }
        let address = try SMPServerAddress(keyHash: credentials.keyHash, hosts: hosts, port: transport.port)
        let ttl = config.messageTTL, interval = config.expireInterval
        let expiry = Task.detached {
            while !Task.isCancelled {
                try? await Task.sleep(nanoseconds: UInt64(interval) * 1_000_000_000)
                if Task.isCancelled { break }
                let n = store.expire(olderThan: CommandProcessor.now() - ttl)
                if n > 0 { logger.info("expired \(n) messages") }
            }
        }
        logger.info("SMP relay listening on \(config.bindAddress):\(transport.port), \(store.queueCount) queues, \(store.messageCount) messages")
        return SMPRelayServer(config: config, address: address, transport: transport, processor: processor, expiry: expiry,
                              ownedGroup: owned, logger: logger)
    }

    private init(config: SMPServerConfig, address: SMPServerAddress, transport: SMPTransportServer, processor: CommandProcessor,
                 expiry: Task<Void, Never>, ownedGroup: MultiThreadedEventLoopGroup?, logger: Logger) {
        self.config = config
        self.address = address
        self.transport = transport
        self.processor = processor
        self.expiry = expiry
        self.ownedGroup = ownedGroup
        self.logger = logger
    }

    /// The bound port (when the config asked for port 0).
    public var port: Int { transport.port }
    public var queueCount: Int { processor.store.queueCount }
    public var messageCount: Int { processor.store.messageCount }
    public var connectionCount: Int { transport.connectionCount }

    /// Totals since start, for logs and benchmarks.
    public var statistics: (queuesCreated: Int, messagesReceived: Int, messagesDelivered: Int) {
        (processor.stats.queuesCreated.current, processor.stats.messagesReceived.current, processor.stats.messagesDelivered.current)
    }

    /// Transport blocks read from and written to clients since start (smp-bench: blocks per delivery).
    public var blockStatistics: (received: Int, sent: Int) {
        (processor.stats.blocksReceived.current, processor.stats.blocksSent.current)
    }

    /// Private routing totals: RFWD executed as destination, PKEY sessions and PRES forwards served as proxy.
    public var proxyStatistics: (forwardedIn: Int, proxySessions: Int, proxyForwards: Int) {
        (processor.stats.messagesForwardedIn.current, processor.stats.proxySessions.current, processor.stats.proxyForwards.current)
    }

    /// Drops messages older than the TTL now (also runs every `expireInterval`).
    @discardableResult
    public func expireMessages(now: Int64 = Int64(Date().timeIntervalSince1970)) -> Int {
        processor.store.expire(olderThan: now - config.messageTTL)
    }

    /// The operator's block (the reference's control-port `block`): the queue named by its
    /// recipient or sender ID answers ERR BLOCKED (AUTH to clients below v12) until unblocked
    /// with nil. Returns false when no such queue exists.
    @discardableResult
    public func blockQueue(entityId: [UInt8], _ info: BlockingInfo?) -> Bool {
        guard let id = ID24(entityId), let rid = processor.store.recipientId(forEntity: id) else { return false }
        do { try processor.store.setBlocked(rid, info) } catch { return false }
        return true
    }

    public func shutdown() async {
        expiry.cancel()
        await transport.shutdown()
        await processor.proxyAgent?.shutdown()
        try? await ownedGroup?.shutdownGracefully()
    }
}
