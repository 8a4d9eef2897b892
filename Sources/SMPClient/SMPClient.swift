import NIOConcurrencyHelpers
import NIOCore
import SimplexFoundation
import SMPProtocol
import SMPTransport

/// A queue the client keeps subscribed across reconnects.
struct Subscription: Sendable {
    let key: PrivateAuthKey
    let rcvDhSecret: [UInt8]?
}

/// A queue just created with NEW: its IDs and the secret for decrypting its MSG bodies.
public struct CreatedQueue: Sendable {
    public let recipientId: [UInt8]
    public let senderId: [UInt8]
    public let rcvDhSecret: [UInt8]
    public let senderCanSecure: Bool
    /// The short link's ID when the queue was created with link data.
    public let linkId: [UInt8]?
}

/// Client of one SMP relay: one TLS connection multiplexing any number of queues, commands as
/// async functions, server pushes as `events`. It reconnects with backoff when the connection
/// drops and subscribes again to every queue it was subscribed to.
public final class SMPClient: Sendable {
    public let server: SMPServerAddress
    public let config: SMPClientConfig
    public let events: AsyncStream<SMPClientEvent>
    private let eventSink: AsyncStream<SMPClientEvent>.Continuation
    private let group: any EventLoopGroup

    private struct State {
        var connection: ClientConnection?
        var connecting: Task<ClientConnection, any Error>?
        var reconnecting: Task<Void, Never>?
        var pinging: Task<Void, Never>?
        var subscriptions: [[UInt8]: Subscription] = [:]
        var closed = false
        var everConnected = false
    }

    private let state = NIOLockedValueBox(State())

    public init(server: SMPServerAddress, config: SMPClientConfig = SMPClientConfig(), group: any EventLoopGroup) {
        self.server = server
        self.config = config
        self.group = group
        (events, eventSink) = AsyncStream.makeStream(of: SMPClientEvent.self, bufferingPolicy: .unbounded)
    }

    /// Opens the connection now (commands also open it on demand).
    public func connect() async throws(SMPClientError) {
        _ = try await connection()
    }

    public var isConnected: Bool { state.withLockedValue { $0.connection != nil } }

    /// The SMP version of the session with this relay, connecting if needed: what the relay can
    /// verify (X25519 authenticators need v7) is known only after its handshake.
    public func negotiatedVersion() async throws(SMPClientError) -> UInt16 {
        try await connection().session.version
    }

    /// Closes the connection and stops reconnecting; waiting commands fail with `.closed`.
    public func close() async {
        let (conn, tasks) = state.withLockedValue { s -> (ClientConnection?, [Task<Void, Never>?]) in
            s.closed = true
            defer {
                s.connection = nil
                s.reconnecting = nil
                s.pinging = nil
            }
            return (s.connection, [s.reconnecting, s.pinging])
        }
        tasks.forEach { $0?.cancel() }
        conn?.failAll(.closed)
        if let conn { try? await conn.channel.close() }
        eventSink.finish()
    }

    // MARK: recipient commands

    /// NEW: creates a queue; with `subscribe` the queue's messages start arriving as events.
    /// With `queueData` the queue is created with its short link data; its sender ID must be
    /// `QueueRequestData.senderId(corrId:)` of the `corrId` passed here.
    public func createQueue(recipientKey: PrivateAuthKey, dhKey: X25519PrivateKey, subscribe: Bool = true,
                            senderCanSecure: Bool = true, basicAuth: [UInt8]? = nil,
                            queueData: QueueRequestData? = nil, corrId: [UInt8]? = nil) async throws(SMPClientError) -> CreatedQueue {
        let req = NewQueueRequest(recipientAuthKey: recipientKey.publicKey.x509Encoded, recipientDhKey: dhKey.publicKey.x509Encoded,
                                  basicAuth: basicAuth, subscribe: subscribe, senderCanSecure: senderCanSecure, queueData: queueData)
        // Short link data and notifier credentials only exist in NEW from v15 and v17; an older
        // relay would create the queue without them.
        if queueData != nil {
            let v = try await connection().session.version
            guard v >= SMPVersion.shortLinks else { throw .unexpectedResponse("the relay's version \(v) has no short links") }
        }
        let results = await batch([ClientConnection.Command(entityId: [], command: .new(req), key: recipientKey, corrId: corrId)])
        let r = try results[0].get()
        guard case .ids(let ids) = r else { throw .unexpectedResponse(r.tag) }
        if let queueData {
            guard ids.senderId == queueData.senderId, ids.linkId != nil else { throw .unexpectedResponse("IDS does not match the link data") }
            if case .contact(let lid, _, _) = queueData, ids.linkId != lid { throw .unexpectedResponse("IDS with another link ID") }
        }
        let secret: [UInt8]
        do {
            secret = try CryptoBox.sharedKey(publicKey: try X25519PublicKey(x509Encoded: ids.serverDhKey), privateKey: dhKey).rawRepresentation
        } catch {
            throw .unexpectedResponse("bad server DH key")
        }
        if subscribe {
            state.withLockedValue { $0.subscriptions[ids.recipientId] = Subscription(key: recipientKey, rcvDhSecret: secret) }
        }
        return CreatedQueue(recipientId: ids.recipientId, senderId: ids.senderId, rcvDhSecret: secret, senderCanSecure: ids.senderCanSecure,
                            linkId: ids.linkId)
    }

    // MARK: short links

    /// LSET: sets the queue's short link data, or replaces its user part (same link ID and fixed data).
    public func setLink(recipientId: [UInt8], key: PrivateAuthKey, linkId: [UInt8], data: QueueLinkData) async throws(SMPClientError) {
        try expectOK(try await command(recipientId, .lset(linkId: linkId, data: data), key: key))
    }

    /// LDEL: deletes the queue's short link data.
    public func deleteLink(recipientId: [UInt8], key: PrivateAuthKey) async throws(SMPClientError) {
        try expectOK(try await command(recipientId, .ldel, key: key))
    }

    /// LKEY: secures the invitation queue behind `linkId` with `key` and returns its sender ID
    /// and link data. Repeating it with the same key returns the data again.
    public func secureGetLink(linkId: [UInt8], key: PrivateAuthKey) async throws(SMPClientError) -> (senderId: [UInt8], data: QueueLinkData) {
        let r = try await command(linkId, .lkey(senderKey: key.publicKey.x509Encoded), key: key)
        guard case .lnk(let sid, let data) = r else { throw .unexpectedResponse(r.tag) }
        return (sid, data)
    }

    /// LGET: the contact address queue's sender ID and link data (no authorization).
    public func getLink(linkId: [UInt8]) async throws(SMPClientError) -> (senderId: [UInt8], data: QueueLinkData) {
        let r = try await command(linkId, .lget, key: nil)
        guard case .lnk(let sid, let data) = r else { throw .unexpectedResponse(r.tag) }
        return (sid, data)
    }

    /// SUB: the first waiting message (if any) arrives as an event; the queue is re-subscribed
    /// after every reconnect until `forget` is called.
    public func subscribe(recipientId: [UInt8], key: PrivateAuthKey, rcvDhSecret: [UInt8]?) async throws(SMPClientError) {
        let results = await subscribeMany([(recipientId, key, rcvDhSecret)])
        if case .failure(let e) = results[0] { throw e }
    }

    /// SUB for many queues in as few blocks as fit.
    public func subscribeMany(_ queues: [(recipientId: [UInt8], key: PrivateAuthKey, rcvDhSecret: [UInt8]?)]) async -> [Result<Void, SMPClientError>] {
        state.withLockedValue { s in
            for q in queues { s.subscriptions[q.recipientId] = Subscription(key: q.key, rcvDhSecret: q.rcvDhSecret) }
        }
        let results = await batch(queues.map { ClientConnection.Command(entityId: $0.recipientId, command: .sub, key: $0.key) })
        return zip(queues, results).map { q, r in
            switch r {
            case .success(.ok), .success(.sok), .success(.msg): return .success(())
            case .success(let m): return .failure(.unexpectedResponse(m.tag))
            case .failure(let e):
                // A final answer (AUTH: queue gone) stops re-subscribing; network errors do not.
                if !e.isTemporary { _ = state.withLockedValue { $0.subscriptions.removeValue(forKey: q.recipientId) } }
                return .failure(e)
            }
        }
    }

    /// Stops re-subscribing a queue after reconnects (the relay keeps the current subscription
    /// until the connection closes).
    public func forget(recipientId: [UInt8]) {
        _ = state.withLockedValue { $0.subscriptions.removeValue(forKey: recipientId) }
    }

    /// ACK: the relay deletes the message and delivers the next one as an event.
    public func ack(recipientId: [UInt8], key: PrivateAuthKey, msgId: [UInt8]) async throws(SMPClientError) {
        let r = try await command(recipientId, .ack(msgId: msgId), key: key)
        switch r {
        case .ok, .msg: return
        default: throw .unexpectedResponse(r.tag)
        }
    }

    /// GET: one message without subscribing, or nil when the queue is empty.
    public func get(recipientId: [UInt8], key: PrivateAuthKey, rcvDhSecret: [UInt8]) async throws(SMPClientError) -> ReceivedMessage? {
        let r = try await command(recipientId, .get, key: key)
        switch r {
        case .ok: return nil
        case .msg(let msgId, let enc): return try Self.decrypt(recipientId: recipientId, msgId: msgId, encryptedBody: enc, secret: rcvDhSecret)
        default: throw .unexpectedResponse(r.tag)
        }
    }

    /// KEY: the recipient secures the queue with the sender's key (SMP before v9).
    public func secure(recipientId: [UInt8], key: PrivateAuthKey, senderKey: AnyPublicKey) async throws(SMPClientError) {
        try await expectOK(command(recipientId, .key(senderKey: senderKey.x509Encoded), key: key))
    }

    /// RKEY: a contact queue's recipient keys become `recipientKeys` (any of them then signs
    /// recipient commands); the relay refuses it for messaging queues.
    public func replaceRecipientKeys(recipientId: [UInt8], key: PrivateAuthKey, recipientKeys: [AnyPublicKey]) async throws(SMPClientError) {
        try await expectOK(command(recipientId, .rkey(recipientKeys: recipientKeys.map(\.x509Encoded)), key: key))
    }

    public func suspend(recipientId: [UInt8], key: PrivateAuthKey) async throws(SMPClientError) {
        try await expectOK(command(recipientId, .off, key: key))
    }

    public func delete(recipientId: [UInt8], key: PrivateAuthKey) async throws(SMPClientError) {
        forget(recipientId: recipientId)
        try await expectOK(command(recipientId, .del, key: key))
    }

    /// QUE: the relay's debugging JSON about the queue.
    public func queueInfo(recipientId: [UInt8], key: PrivateAuthKey) async throws(SMPClientError) -> String {
        let r = try await command(recipientId, .que, key: key)
        guard case .info(let json) = r else { throw .unexpectedResponse(r.tag) }
        return String(decoding: json, as: UTF8.self)
    }

    /// NKEY: returns the notifier ID and the server's DH key for NMSG metadata.
    public func enableNotifications(recipientId: [UInt8], key: PrivateAuthKey, notifierKey: AnyPublicKey,
                                    dhKey: X25519PublicKey) async throws(SMPClientError) -> (notifierId: [UInt8], serverNtfDhKey: [UInt8]) {
        let r = try await command(recipientId, .nkey(notifierKey: notifierKey.x509Encoded, recipientNtfDhKey: dhKey.x509Encoded), key: key)
        guard case .nid(let nid, let dh) = r else { throw .unexpectedResponse(r.tag) }
        return (nid, dh)
    }

    public func disableNotifications(recipientId: [UInt8], key: PrivateAuthKey) async throws(SMPClientError) {
        try await expectOK(command(recipientId, .ndel, key: key))
    }

    public func subscribeNotifications(notifierId: [UInt8], key: PrivateAuthKey) async throws(SMPClientError) {
        let r = try await command(notifierId, .nsub, key: key)
        switch r {
        case .ok, .sok: return
        default: throw .unexpectedResponse(r.tag)
        }
    }

    // MARK: sender commands

    /// SKEY: the sender secures the queue with its own key (fast duplex setup, v9).
    public func senderSecure(senderId: [UInt8], key: PrivateAuthKey) async throws(SMPClientError) {
        try await expectOK(command(senderId, .skey(senderKey: key.publicKey.x509Encoded), key: key))
    }

    /// SEND: `key` is nil only for the confirmation to a queue nobody secured yet.
    public func send(senderId: [UInt8], key: PrivateAuthKey?, notification: Bool = true, body: [UInt8]) async throws(SMPClientError) {
        try await expectOK(command(senderId, .send(flags: MsgFlags(notification: notification), body: body), key: key))
    }

    /// SENDs to many queues in as few blocks as fit.
    public func sendMany(_ messages: [(senderId: [UInt8], key: PrivateAuthKey?, body: [UInt8])], notification: Bool = true) async -> [Result<Void, SMPClientError>] {
        let results = await batch(messages.map {
            ClientConnection.Command(entityId: $0.senderId, command: .send(flags: MsgFlags(notification: notification), body: $0.body), key: $0.key)
        })
        return results.map { r in
            switch r {
            case .success(.ok): .success(())
            case .success(let m): .failure(.unexpectedResponse(m.tag))
            case .failure(let e): .failure(e)
            }
        }
    }

    /// PING: checks the connection (the client also pings by itself when idle).
    public func ping() async throws(SMPClientError) {
        let r = try await command([], .ping, key: nil)
        guard case .pong = r else { throw .unexpectedResponse(r.tag) }
    }

    /// Decrypts a MSG body with the queue's DH secret (crypto_box, message ID as nonce).
    public static func decrypt(recipientId: [UInt8], msgId: [UInt8], encryptedBody: [UInt8], secret: [UInt8]) throws(SMPClientError) -> ReceivedMessage {
        do {
            let plain = try CryptoBox.cbDecrypt(key: try CryptoBoxKey(rawRepresentation: secret), nonce: msgId, box: encryptedBody)
            switch try RcvMessageBody.smpDecode(plain) {
            case .message(let ts, let flags, let body):
                return ReceivedMessage(recipientId: recipientId, msgId: msgId, timestamp: ts, flags: flags, body: body)
            case .quotaExceeded(let ts):
                return ReceivedMessage(recipientId: recipientId, msgId: msgId, timestamp: ts, flags: MsgFlags(notification: false), body: nil)
            }
        } catch {
            throw .badMessage("\(error)")
        }
    }

    // MARK: plumbing

    private func expectOK(_ r: BrokerMessage) throws(SMPClientError) {
        guard case .ok = r else { throw .unexpectedResponse(r.tag) }
    }

    private func command(_ entityId: [UInt8], _ cmd: SMPCommand, key: PrivateAuthKey?) async throws(SMPClientError) -> BrokerMessage {
        let r = await batch([ClientConnection.Command(entityId: entityId, command: cmd, key: key)])
        return try r[0].get()
    }

    func batch(_ commands: [ClientConnection.Command]) async -> [Result<BrokerMessage, SMPClientError>] {
        if commands.isEmpty { return [] }
        let conn: ClientConnection
        do {
            conn = try await connection()
        } catch {
            return commands.map { _ in .failure(error) }
        }
        return await conn.send(commands, timeout: config.commandTimeout)
    }

    /// The live connection's session, if connected now.
    var currentSession: ClientConnection.Session? { state.withLockedValue { $0.connection?.session } }

    /// The live connection, opening one if there is none (one attempt shared by all callers).
    func connection() async throws(SMPClientError) -> ClientConnection {
        enum Found { case live(ClientConnection), opening(Task<ClientConnection, any Error>), closed }
        let found = state.withLockedValue { s -> Found in
            if s.closed { return .closed }
            if let c = s.connection { return .live(c) }
            if let t = s.connecting { return .opening(t) }
            let t = Task { try await self.open() }
            s.connecting = t
            return .opening(t)
        }
        let task: Task<ClientConnection, any Error>
        switch found {
        case .live(let c): return c
        case .closed: throw .closed
        case .opening(let t): task = t
        }
        do {
            return try await task.value
        } catch let e as SMPClientError {
            throw e
        } catch {
            throw .network("\(error)")
        }
    }

    private func open() async throws -> ClientConnection {
        defer { state.withLockedValue { $0.connecting = nil } }
        let channel: any Channel
        let info: SMPClientSession
        do {
            (channel, info) = try await SMPTransportClient.connect(
                to: server, versions: config.versions, proxyServer: config.proxyServer, group: group,
                timeout: .nanoseconds(Int64(config.connectTimeout * 1e9)))
        } catch {
            switch error {
            case .timeout: throw SMPClientError.timeout
            case .transport(let t): throw SMPClientError.transport(t)
            case .network(let s), .tls(let s): throw SMPClientError.network(s)
            case .cancelled: throw SMPClientError.closed
            }
        }
        let serverKey = info.serverSessionKey.flatMap { try? X25519PublicKey(rawRepresentation: Array($0.rawRepresentation)) }
        var secret: CryptoBoxKey?
        if let serverKey, let own = try? X25519PrivateKey(rawRepresentation: Array(info.clientSessionKey.rawRepresentation)) {
            secret = try? CryptoBox.sharedKey(publicKey: serverKey, privateKey: own)
        }
        let session = ClientConnection.Session(version: info.version, sessionId: info.sessionId, serverSessionKey: serverKey,
                                               versions: info.serverVersions.intersection(Self.offeredRange(config, server: info.serverVersions)),
                                               serverCertKey: info.serverCertKey, sessionSecret: secret)
        let conn = ClientConnection(channel: channel, session: session) { [weak self] entityId, message in
            self?.handleEvent(entityId: entityId, message: message)
        }
        let handler = ClientInboundHandler { [weak self, weak conn] in
            guard let self, let conn else { return }
            self.connectionClosed(conn)
        }
        handler.attach(conn)
        try await channel.pipeline.addHandler(handler)
        let reconnect = state.withLockedValue { s -> Bool? in
            if s.closed { return nil }
            s.connection = conn
            defer { s.everConnected = true }
            return s.everConnected
        }
        guard let reconnect else {
            try? await channel.close()
            throw SMPClientError.closed
        }
        if !channel.isActive {
            connectionClosed(conn)
            throw SMPClientError.network("connection closed during setup")
        }
        startPinging(conn)
        if !reconnect { eventSink.yield(.connected(reconnect: false, resubscribeFailures: [])) }
        return conn
    }

    /// The range this client offered: a proxy talking to a relay below v14 caps its own at v10
    /// (as `smpClientHandshake`), and the agreed range (`thServerVRange`) follows from it.
    static func offeredRange(_ config: SMPClientConfig, server: SMPVersionRange) -> SMPVersionRange {
        guard config.proxyServer, server.max < SMPVersion.proxyServerHandshake else { return config.versions }
        return SMPVersionRange(min: config.versions.min, max: max(config.versions.min, SMPVersion.deletedEvent)) ?? config.versions
    }

    private func startPinging(_ conn: ClientConnection) {
        guard config.pingInterval > 0 else { return }
        let interval = config.pingInterval, timeout = config.commandTimeout
        let task = Task { [weak conn] in
            while !Task.isCancelled {
                try? await Task.sleep(nanoseconds: UInt64(interval * 1e9))
                guard let conn, !Task.isCancelled else { return }
                let r = await conn.send([ClientConnection.Command(entityId: [], command: .ping, key: nil)], timeout: timeout)
                if case .failure(let e) = r[0], e.isTemporary {
                    conn.close()
                    return
                }
            }
        }
        let old = state.withLockedValue { s -> Task<Void, Never>? in
            defer { s.pinging = task }
            return s.pinging
        }
        old?.cancel()
    }

    private func connectionClosed(_ conn: ClientConnection) {
        let shouldReconnect = state.withLockedValue { s -> Bool in
            guard s.connection === conn else { return false }
            s.connection = nil
            s.pinging?.cancel()
            s.pinging = nil
            guard !s.closed, s.reconnecting == nil else { return false }
            return true
        }
        guard shouldReconnect else { return }
        eventSink.yield(.disconnected)
        let task = Task { await self.reconnectLoop() }
        state.withLockedValue { $0.reconnecting = task }
    }

    private func reconnectLoop() async {
        var delay = config.reconnectDelay
        defer { state.withLockedValue { $0.reconnecting = nil } }
        while !Task.isCancelled {
            try? await Task.sleep(nanoseconds: UInt64(delay * 1e9))
            if Task.isCancelled || state.withLockedValue({ $0.closed }) { return }
            do {
                _ = try await connection()
            } catch {
                delay = min(delay * 2, config.maxReconnectDelay)
                continue
            }
            let subs = state.withLockedValue { $0.subscriptions }
            let list = subs.map { (recipientId: $0.key, key: $0.value.key, rcvDhSecret: $0.value.rcvDhSecret) }
            let results = await subscribeMany(list)
            let failures = zip(list, results).compactMap { q, r -> ([UInt8], SMPClientError)? in
                if case .failure(let e) = r { return (q.recipientId, e) }
                return nil
            }
            eventSink.yield(.connected(reconnect: true, resubscribeFailures: failures))
            // If the connection dropped again while re-subscribing, go round once more.
            if failures.contains(where: { $0.1.isTemporary }) {
                delay = min(delay * 2, config.maxReconnectDelay)
                if !isConnected { continue }
            }
            return
        }
    }

    private func handleEvent(entityId: [UInt8], message: BrokerMessage) {
        switch message {
        case .msg(let msgId, let enc):
            let secret = state.withLockedValue { $0.subscriptions[entityId]?.rcvDhSecret }
            guard let secret else {
                eventSink.yield(.undecryptable(recipientId: entityId, msgId: msgId, .badMessage("no secret for this queue")))
                return
            }
            do {
                eventSink.yield(.message(try Self.decrypt(recipientId: entityId, msgId: msgId, encryptedBody: enc, secret: secret)))
            } catch {
                eventSink.yield(.undecryptable(recipientId: entityId, msgId: msgId, error))
            }
        case .end, .deld:
            // DELD (v10: the queue was deleted) ends the subscription just as END does; the
            // agent learns either as the end of the subscription.
            // Another connection owns the queue now; re-subscribing would steal it back.
            forget(recipientId: entityId)
            eventSink.yield(.end(recipientId: entityId))
        case .nmsg(let nonce, let meta):
            eventSink.yield(.notification(notifierId: entityId, nonce: nonce, encryptedMeta: meta))
        default:
            break
        }
    }
}
