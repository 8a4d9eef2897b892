import DoubleRatchet
import Foundation
import GRDB
import Logging
import NIOCore
import SimplexFoundation
import SMPClient
import SMPProtocol
import SMPTransport

/// The SMP agent: duplex connections over pairs of one-way queues, end-to-end encrypted with the
/// PQ double ratchet, persisted in its own SQLite file so nothing is lost across restarts.
///
/// Every protocol step commits its state in one transaction before anything that depends on it
/// (an ACK to the relay, a SEND, an event), so an agent killed at any point resumes correctly.
public actor SMPAgent {
    public let config: AgentConfig
    /// Events for the layer above, in the order they happened.
    public nonisolated let events: AsyncStream<AgentEvent>
    let eventSink: AsyncStream<AgentEvent>.Continuation
    nonisolated let store: AgentStore
    let group: any EventLoopGroup
    let logger = Logger(label: "simplex.agent")

    /// One SMP client per relay, created on first use.
    var clients: [String: SMPClient] = [:]
    var clientTasks: [String: Task<Void, Never>] = [:]
    /// Relays whose subscriptions must be retried (the relay was unreachable).
    var resubscribing: [String: Task<Void, Never>] = [:]
    /// One delivery worker per connection with something to send.
    var workers: [String: DeliveryWorker] = [:]
    var stopped = false
    /// Connections whose acknowledged receipts wait for an A_RCVD (SMPAgent+Messages).
    var receiptsWaiting: Set<String> = []
    /// When each connection last queued an A_RCVD (uptime ns), and the connections with a
    /// wake-up scheduled for their next one (`AgentConfig.receiptBatchInterval`).
    var lastReceiptQueued: [String: UInt64] = [:]
    var receiptWakes: Set<String> = []
    /// Committed ratchet states by connection (see SMPAgent+RatchetCache).
    let ratchets = RatchetStates()
    /// Parsed queue signing keys by their stored PKCS#8 bytes: parsing derives the public key
    /// (a scalar multiplication), which every SEND and ACK would otherwise repeat.
    var authKeyCache: [Data: PrivateAuthKey] = [:]
    /// States saved by the transaction in progress.
    var ratchetPending: [String: PQRatchet] = [:]
    /// The last message task of each receiving queue's lane, and a count to tell tasks apart.
    var receiveLanes: [ReceiveLaneKey: (seq: UInt64, task: Task<Void, Never>)] = [:]
    var receiveLaneSeq: UInt64 = 0
    /// Messages stored and not yet acknowledged, with the queue they came on, as committed
    /// (see SMPAgent+Unacked): ackMessage finds them here instead of reading both again.
    var unacked: [UnackedKey: (message: RcvMessageRecord, queue: RcvQueueRecord)] = [:]
    /// Private routing (SMPAgent+PrivateRouting): the mode and fallback in force, the proxy
    /// chosen for each destination relay (simplexmq `smpProxiedRelays`), and the PRXY sessions
    /// each proxy holds, by destination (the `proxiedRelays` of its `SMPConnectedClient`).
    var proxyRouting: (mode: SMPProxyMode, fallback: SMPProxyFallback)
    var proxyOfDestination: [String: String] = [:]
    var proxiedRelays: [String: [String: ProxiedRelaySession]] = [:]

    /// Opens (or creates) the agent database at `databasePath`, encrypted with `databaseKey`
    /// unless it is empty.
    public init(config: AgentConfig, databasePath: String, databaseKey: String = "", group: any EventLoopGroup) throws(AgentError) {
        self.config = config
        self.group = group
        self.proxyRouting = (config.smpProxyMode, config.smpProxyFallback)
        self.store = try AgentStore(path: databasePath, key: databaseKey, deferredWriteDelay: config.deferredWriteDelay)
        // Handshake envelopes (16 KB each) are kept until the next start, not rewritten per send.
        _ = try? store.write { db in try db.clearSentEnvelopes() }
        (events, eventSink) = AsyncStream.makeStream(of: AgentEvent.self, bufferingPolicy: .unbounded)
    }

    /// Subscribes every receiving queue and resumes pending deliveries (after a restart too).
    /// A failed database read is reported (an `err` event without a connection) and retried,
    /// never taken for "no queues".
    public func start() async {
        var attempt = 0
        var loaded: ([RcvQueueRecord], [String], [String], [String])?
        while loaded == nil, !stopped {
            do {
                loaded = try store.read { db -> ([RcvQueueRecord], [String], [String], [String]) in
                    let rqs = try db.allRcvQueues()
                    let pending = try db.connIdsWithPendingMessages()
                    let secure = try db.connIdsToSecure()
                    return (rqs, pending, secure, try db.connIdsToSecureSwitch())
                }
            } catch {
                emit("", .err(AgentError.wrapStore(error)))
                attempt += 1
                try? await Task.sleep(nanoseconds: UInt64(min(0.1 * Double(1 << min(attempt, 6)), 5) * 1e9))
            }
        }
        guard let (rqs, pendingConns, toSecure, switchesToSecure) = loaded else { return }
        for (server, queues) in Dictionary(grouping: rqs, by: \.server) {
            await subscribe(server: server, queues: queues)
        }
        for connId in pendingConns { wake(connId) }
        for connId in toSecure { Task { await self.secureAndHello(connId: connId) } }
        for connId in switchesToSecure { Task { await self.secureSwitchQueue(connId: connId) } }
    }

    /// Stops everything at once: workers, relay connections, database. Equivalent to a crash at a
    /// transaction boundary, which is what the restart tests rely on.
    public func stop() async {
        stopped = true
        for w in workers.values { w.task.cancel(); w.wakeup.finish() }
        workers.removeAll()
        for t in resubscribing.values { t.cancel() }
        resubscribing.removeAll()
        for l in receiveLanes.values { l.task.cancel() }
        receiveLanes.removeAll()
        let cs = clients.values
        clients.removeAll()
        for c in cs { await c.close() }
        for t in clientTasks.values { t.cancel() }
        clientTasks.removeAll()
        store.close()
        eventSink.finish()
    }

    // MARK: queries for the layer above and tests

    /// A connection's public state.
    public struct ConnectionSummary: Sendable, Equatable {
        public let connId: String
        public let mode: ConnectionMode
        public let initiator: Bool
        public let status: String
        public let rcvServers: [String]
        public let sndServers: [String]
        public let pqEncryption: Bool
    }

    public func connection(_ connId: String) throws(AgentError) -> ConnectionSummary {
        try store.read { db in
            guard let c = try db.connectionRecord(connId) else {
                throw AgentError.connection(.notFound, connId)
            }
            let rq = try db.rcvQueues(connId).map(\.server)
            let sq = try db.sndQueues(connId).map(\.server)
            let pq = try db.ratchetRecord(connId).flatMap { $0.ratchetState }
                .flatMap { try? PQRatchet(serialized: [UInt8]($0)) }?.pqEncryption ?? false
            return ConnectionSummary(connId: c.connId, mode: c.connMode == "contact" ? .contact : .invitation, initiator: c.initiator,
                                     status: c.status.rawValue, rcvServers: rq, sndServers: sq, pqEncryption: pq)
        }
    }

    public func connectionIds() throws(AgentError) -> [String] {
        try store.read { db in try db.allConnIds() }
    }

    /// Write transactions committed to the agent database since it was opened.
    public nonisolated var databaseWrites: Int { store.committedWrites }
    /// Pages the agent's commits wrote so far (its WAL frames).
    public nonisolated var databasePagesWritten: Int { store.pagesWritten }

    /// Migrations applied to the database file, in order.
    public func appliedMigrations() throws(AgentError) -> [String] { try store.appliedMigrations() }

    // MARK: plumbing shared by the extensions

    func emit(_ connId: String, _ kind: AgentEventKind) {
        eventSink.yield(AgentEvent(connId: connId, kind: kind))
    }

    func pickServer() throws(AgentError) -> SMPServerAddress {
        guard let s = config.servers.randomElement() else {
            throw .command(.prohibited, "no SMP servers configured")
        }
        return s
    }

    func client(_ server: String) throws(AgentError) -> SMPClient {
        if let c = clients[server] { return c }
        guard !stopped else { throw .internalError("agent stopped") }
        let address: SMPServerAddress
        do { address = try SMPServerAddress(parsing: server) } catch { throw .internalError("bad stored server \(server)") }
        let c = SMPClient(server: address, config: config.smpClient, group: group)
        clients[server] = c
        clientTasks[server] = Task { [weak self] in
            for await ev in c.events {
                guard let self else { return }
                await self.handleClientEvent(server: server, ev)
            }
        }
        return c
    }

    func client(_ server: SMPServerAddress) throws(AgentError) -> SMPClient { try client(server.description) }

    /// Runs an SMP call, mapping its error to AgentError.
    func smp<T>(_ server: String, _ body: (SMPClient) async throws(SMPClientError) -> T) async throws(AgentError) -> T {
        let c = try client(server)
        do { return try await body(c) } catch { throw AgentError.from(error, server: server) }
    }

    func newId() -> String { Base64URL.encode(SecureRandom.bytes(12), padded: false) }

    /// Subscribes queues of one relay; when the relay is unreachable, keeps retrying in the
    /// background (the client's own reconnect loop only runs after a connection existed).
    func subscribe(server: String, queues: [RcvQueueRecord]) async {
        guard !queues.isEmpty, let c = try? client(server) else { return }
        var list: [(recipientId: [UInt8], key: PrivateAuthKey, rcvDhSecret: [UInt8]?)] = []
        var connOf: [[UInt8]: String] = [:]
        for q in queues {
            guard let key = try? PrivateAuthKey(pkcs8Encoded: [UInt8](q.rcvPrivateKey)) else { continue }
            list.append(([UInt8](q.rcvId), key, [UInt8](q.rcvDhSecret)))
            connOf[[UInt8](q.rcvId)] = q.connId
        }
        let results = await c.subscribeMany(list)
        var retry: [RcvQueueRecord] = []
        for (q, r) in zip(queues, results) {
            if case .failure(let e) = r {
                if e.isTemporary { retry.append(q) } else { emit(q.connId, .err(AgentError.from(e, server: server))) }
            }
        }
        if !retry.isEmpty {
            for q in retry { emit(q.connId, .down(server: server)) }
            scheduleResubscribe(server: server, queues: retry)
        }
    }

    private func scheduleResubscribe(server: String, queues: [RcvQueueRecord]) {
        guard resubscribing[server] == nil, !stopped else { return }
        let delay = config.maxRetryInterval
        resubscribing[server] = Task {
            try? await Task.sleep(nanoseconds: UInt64(delay * 1e9))
            await self.resubscribeNow(server: server, queues: queues)
        }
    }

    private func resubscribeNow(server: String, queues: [RcvQueueRecord]) async {
        resubscribing[server] = nil
        guard !stopped, let c = clients[server] else { return }
        let list = queues.compactMap { q -> (recipientId: [UInt8], key: PrivateAuthKey, rcvDhSecret: [UInt8]?)? in
            guard let key = try? PrivateAuthKey(pkcs8Encoded: [UInt8](q.rcvPrivateKey)) else { return nil }
            return ([UInt8](q.rcvId), key, [UInt8](q.rcvDhSecret))
        }
        let results = await c.subscribeMany(list)
        var retry: [RcvQueueRecord] = []
        for (q, r) in zip(queues, results) {
            switch r {
            case .success: emit(q.connId, .up(server: server))
            case .failure(let e) where e.isTemporary: retry.append(q)
            case .failure(let e): emit(q.connId, .err(AgentError.from(e, server: server)))
            }
        }
        if !retry.isEmpty { scheduleResubscribe(server: server, queues: retry) }
    }

    private func handleClientEvent(server: String, _ ev: SMPClientEvent) async {
        guard !stopped else { return }
        switch ev {
        case .message(let m):
            enqueueReceive(server: server, m)
        case .undecryptable(let rid, let msgId, _):
            // The relay's layer failed: nothing can be done with it; ACK so the queue moves on.
            if let (connId, key) = try? rcvKey(server: server, rcvId: rid) {
                emit(connId, .err(.agent(.crypto(.decryptCB))))
                try? await clients[server]?.ack(recipientId: rid, key: key, msgId: msgId)
            }
        case .end(let rid):
            if let (connId, _) = try? rcvKey(server: server, rcvId: rid) { emit(connId, .end) }
        case .disconnected:
            proxyDisconnected(server)
            for connId in (try? connIds(server: server)) ?? [] { emit(connId, .down(server: server)) }
            for (connId, w) in workers where w.server == server { _ = connId; w.wakeup.yield() }
        case .connected(let reconnect, _):
            guard reconnect else { return }
            for connId in (try? connIds(server: server)) ?? [] { emit(connId, .up(server: server)) }
            // Deliveries to this relay were backing off; try them now.
            for w in workers.values where w.server == server { w.wakeup.yield() }
        case .notification:
            break
        }
    }

    private func rcvKey(server: String, rcvId: [UInt8]) throws(AgentError) -> (String, PrivateAuthKey) {
        try store.read { db in
            guard let q = try db.rcvQueue(server: server, rcvId: rcvId) else {
                throw AgentError.connection(.notFound, "queue")
            }
            return (q.connId, try PrivateAuthKey(pkcs8Encoded: [UInt8](q.rcvPrivateKey)))
        }
    }

    private func connIds(server: String) throws(AgentError) -> [String] {
        try store.read { db in try db.connIds(onServer: server) }
    }
}
