import DoubleRatchet
import Foundation
import GRDB
import SimplexFoundation
import SMPClient
import SMPProtocol

/// Sending and acknowledging messages.
extension SMPAgent {
    /// Queues a user message (A_MSG) and returns its id; SENT or MERR reports the outcome.
    /// The message is encrypted and stored before this returns, so it survives a restart.
    public func sendMessage(connId: String, body: [UInt8]) async throws(AgentError) -> Int64 {
        let id = try await writeAsync { db in
            guard let conn = try db.connectionRecord(connId) else { throw AgentError.connection(.notFound, connId) }
            guard conn.connMode == "invitation", [.allowed, .active, .joined].contains(conn.status),
                try db.hasSndQueue(connId)
            else { throw AgentError.connection(.simplex, "connection \(connId) cannot send yet (\(conn.status))") }
            // Before version 7 (`ratchetOnConfSMPAgentVersion`) the initiator starts its ratchet only
            // when it allows the connection, so the joiner waits for CON before sending.
            guard conn.status != .joined || conn.agentVersion >= Int(AgentVersion.ratchetOnConfirmation) else {
                throw AgentError.connection(.simplex, "connection \(connId) cannot send before it is established (agent version \(conn.agentVersion))")
            }
            // simplexmq `ratchetSyncSendProhibited`: the peer could not decrypt what we would send.
            guard !conn.ratchetSyncState.sendProhibited else { throw AgentError.command(.prohibited, "sendMessagesB: send prohibited") }
            // `conn` is current: nothing was written in this transaction yet.
            return try self.enqueue(db, connId: connId, .aMsg(body), type: .message, conn: conn)
        }
        wake(connId)
        return id
    }

    /// Marks a received message as processed and lets the relay delete it (delivering the next
    /// one). With `receipt`, the sender gets a RCVD event carrying it.
    /// The acknowledgement and the receipt are deferred writes (Store/DeferredWrites.swift): they
    /// ride in the agent's next transaction instead of committing one per message.
    public func ackMessage(connId: String, msgId: Int64, receipt: [UInt8]? = nil) async throws(AgentError) {
        // Where the ACK goes is read first, so the relay's round trip (it answers with the next
        // message) runs while the acknowledgement is recorded. The order does not matter: the
        // stored flag only decides how a redelivery of this message is treated.
        // A message received in this run is known already (SMPAgent+Unacked).
        let m: RcvMessageRecord, rq: RcvQueueRecord?
        if let known = takeUnacked(connId, msgId) { (m, rq) = (known.message, known.queue) } else {
            (m, rq) = try readForAck(connId, msgId)
        }
        let relay: (client: SMPClient, key: PrivateAuthKey, queue: RcvQueueRecord)?
        if let rq { relay = (try client(rq.server), try authKey(rq.rcvPrivateKey), rq) } else { relay = nil }
        // A child task: it runs off the actor, so the ACK leaves before the work below.
        async let acked: AgentError? = Self.ack(relay, m.brokerId)
        var receiptQueued = false, receiptRefused = false
        if !m.userAck, !store.isAcknowledgementDeferred(connId, internalId: msgId) {
            var writes: [DeferredWrite] = [.rcvAcknowledged(connId: connId, internalId: msgId)]
            if let receipt {
                let conn = try store.read { db in try db.connectionRecord(connId) }
                // As simplexmq: the message is acknowledged, but no receipt is queued while
                // the ratchet is out of sync (the call then fails after the ACK).
                if conn?.ratchetSyncState.sendProhibited ?? false {
                    receiptRefused = true
                } else if (conn?.agentVersion ?? 0) >= Int(AgentVersion.deliveryReceipts) {
                    // simplexmq `sendRcpt`: peers below agent version 4 get no receipts.
                    // Sent by the delivery worker with the others waiting, in one A_RCVD.
                    writes.append(.receipt(connId: connId, AMessageReceipt(agentMsgId: m.externalSndId, msgHash: [UInt8](m.msgHash), rcptInfo: receipt)))
                    receiptQueued = true
                }
            }
            store.deferWrites(writes)
        }
        if receiptQueued { receiptWaiting(connId) }
        if let error = await acked { throw error }
        if receiptRefused { throw .internalError("enqueueMessages: ratchet is not synchronized") }
    }

    /// The message to acknowledge and the queue it came on, from the database.
    private func readForAck(_ connId: String, _ msgId: Int64) throws(AgentError) -> (RcvMessageRecord, RcvQueueRecord?) {
        try store.read { db -> (RcvMessageRecord, RcvQueueRecord?) in
            guard let m = try db.rcvMessage(connId, internalId: msgId) else {
                throw AgentError.connection(.notFound, "message \(msgId)")
            }
            // The queue it came on (two while the connection switches queues), else the primary one.
            // Nil when that queue was deleted by a switch since: nothing to acknowledge there.
            if let id = m.rcvQueueId { return (m, try db.rcvQueue(id)) }
            guard let rq = try db.rcvQueues(connId).first else { throw AgentError.internalError("no receive queue") }
            return (m, rq)
        }
    }

    /// ACK at the relay; nil when done or not needed any more: not at the relay (NO_MSG) or
    /// unreachable, the ack is stored and a redelivery of the message is acknowledged again.
    private static func ack(_ relay: (client: SMPClient, key: PrivateAuthKey, queue: RcvQueueRecord)?, _ brokerId: Data) async -> AgentError? {
        guard let (c, key, rq) = relay else { return nil }
        do {
            try await c.ack(recipientId: [UInt8](rq.rcvId), key: key, msgId: [UInt8](brokerId))
            return nil
        } catch {
            let e = AgentError.from(error, server: rq.server)
            let ignored: Bool = if case .smp(_, .noMessage) = e { true } else if case .broker(_, .closed) = e { true } else { e.isTemporary }
            return ignored ? nil : e
        }
    }

    /// Builds the next agent message of the connection (ids, hash chain), encrypts it with the
    /// ratchet and stores it pending, all in the caller's transaction. `conn`, when given, is the
    /// connection as this transaction has it (saves reading it again).
    func enqueue(_ db: Database, connId: String, _ message: AMessage, type: SndMessageType, sndQueueId: Int64? = nil,
                 conn current: ConnectionRecord? = nil) throws -> Int64 {
        guard let conn = try current ?? db.connectionRecord(connId) else { throw AgentError.connection(.notFound, connId) }
        var ratchet = try self.ratchet(in: db, connId)
        let header = APrivHeader(sndMsgId: conn.lastSndMsgId + 1, prevMsgHash: [UInt8](conn.lastSndMsgHash))
        let plain = try AgentMessage.message(header, message).smpEncoded()
        let length = AgentMessageSize.e2eEncAgentMsgLength(version: UInt16(conn.agentVersion), pq: conn.pqSupport)
        guard PQRatchet.canPad(plain.count, paddedLength: length) else { throw AgentError.command(.size, "message too large") }
        let prepared: PreparedMessage
        do { prepared = try ratchet.prepare(plain, paddedLength: length) } catch { throw AgentError.internalError("encrypt: \(error)") }
        try saveRatchet(in: db, connId, ratchet)
        // The ratchet write above leaves the connection row as `conn` has it.
        return try storeSndMessage(db, connId: connId, type: type, plain: plain,
                                   // As simplexmq: the envelope says our highest version (the peer may upgrade the connection).
                                   stored: .prepared(PreparedEnvelope(agentVersion: config.agentVersions.max, message: prepared)), sndQueueId: sndQueueId,
                                   conn: conn)
    }
}

/// A connection's sender: sends its pending messages in order, one at a time, retrying with
/// backoff while the relay is unreachable.
struct DeliveryWorker {
    let server: String
    let task: Task<Void, Never>
    let wakeup: AsyncStream<Void>.Continuation
}

extension SMPAgent {
    /// Starts the connection's delivery worker or nudges it.
    func wake(_ connId: String) {
        if let w = workers[connId] {
            w.wakeup.yield()
            return
        }
        guard !stopped else { return }
        let server = (try? store.read { db in
            try db.sndQueueServer(connId)
        }) ?? nil
        guard let server else { return }
        let (stream, cont) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let task = Task { await self.deliver(connId: connId, wakeups: stream) }
        workers[connId] = DeliveryWorker(server: server, task: task, wakeup: cont)
    }

    private enum Next {
        case send(SndMessageRecord, SndQueueRecord)
        case idle
    }

    private func deliver(connId: String, wakeups: AsyncStream<Void>) async {
        var iterator = wakeups.makeAsyncIterator()
        var delay = config.retryInterval
        // What to send next, when the last transaction read it and nothing ran since.
        var prefetched: Next?
        // Receipts left from before a restart are looked for once.
        var firstPass = true
        while !Task.isCancelled, !stopped {
            let next: Next
            do {
                // Receipts waiting for their interval (`receiptWaiting`) are left for the wake-up.
                if firstPass || (receiptsWaiting.contains(connId) && !receiptWakes.contains(connId)) {
                    if try queueWaitingReceipts(connId, lookInStore: firstPass) { prefetched = nil }
                    firstPass = false
                }
                if let p = prefetched {
                    next = p
                } else {
                    next = try store.read { db in try self.nextToSend(db, connId) }
                }
                prefetched = nil
            } catch {
                return
            }
            guard case .send(let msg, let sq) = next else {
                if await iterator.next() == nil { return }
                continue
            }
            do {
                try await send(msg, sq)
                delay = config.retryInterval
                prefetched = sent(msg, sq)
            } catch {
                if Task.isCancelled || stopped { return }
                if error.isTemporary || isQuota(error) {
                    // Wait for the back-off, or until a reconnect / QCONT wakes us.
                    let d = isQuota(error) ? config.maxRetryInterval : delay
                    delay = min(delay * 2, config.maxRetryInterval)
                    let sleeper = Task { try? await Task.sleep(nanoseconds: UInt64(d * 1e9)) }
                    let cont = workers[connId]?.wakeup
                    Task { await sleeper.value; cont?.yield() }
                    if await iterator.next() == nil { return }
                    sleeper.cancel()
                } else {
                    failed(msg, error)
                }
            }
        }
    }

    /// The connection's next pending message and the queue it goes to, in the caller's transaction.
    /// `current`: the connection's current queue, when the caller knows it is (see `sent`).
    private func nextToSend(_ db: Database, _ connId: String, current: SndQueueRecord? = nil) throws -> Next {
        guard let m = try db.nextPendingSndMessage(connId, after: store.lastMarkedSent(connId) ?? 0) else { return .idle }
        // A message for a given queue (QTEST) goes there; the rest to the current queue,
        // the one not replacing another (the old one until a switch completes).
        let named = try m.sndQueueId.flatMap { id in try db.sndQueue(id) }
        guard let sq = try named ?? current ?? db.currentSndQueue(connId) else { return .idle }
        return .send(m, sq)
    }

    /// Whether sending `msg` leaves `sq` as the connection's current queue, as it was read for it:
    /// a user message or receipts sent to the current queue change no queue (handshake and
    /// queue-switch messages do, and so does a QTEST's queue becoming the current one).
    private static func keepsCurrentQueue(_ msg: SndMessageRecord, _ sq: SndQueueRecord) -> Bool {
        msg.sndQueueId == nil && sq.replaceSndQueueId == nil && (msg.msgType == .message || msg.msgType == .receipt)
    }

    /// A receipt now waits for the connection's next A_RCVD. The first after a quiet spell goes
    /// at once; later ones wait until `receiptBatchInterval` has passed since the last A_RCVD,
    /// so a burst of messages is answered by a few A_RCVD carrying many receipts each.
    private func receiptWaiting(_ connId: String) {
        receiptsWaiting.insert(connId)
        let interval = UInt64(max(0, config.receiptBatchInterval) * 1e9)
        let now = DispatchTime.now().uptimeNanoseconds
        guard let last = lastReceiptQueued[connId], now &- last < interval else {
            wake(connId)
            return
        }
        guard receiptWakes.insert(connId).inserted else { return }
        let wait = interval - (now - last)
        Task { [weak self] in
            try? await Task.sleep(nanoseconds: wait)
            await self?.receiptWakeDue(connId)
        }
    }

    private func receiptWakeDue(_ connId: String) {
        receiptWakes.remove(connId)
        wake(connId)
    }

    /// Receipts acknowledged since the last A_RCVD went out, as one A_RCVD queued behind what is
    /// pending. simplexmq sends one A_RCVD per receipt; its list form carries many, and a peer
    /// (simplexmq `messagesRcvd`) reports each. Under load this halves the agent messages a
    /// conversation costs. Nothing is queued while the ratchet is out of sync (the receipts
    /// wait). Returns whether an A_RCVD was queued.
    private func queueWaitingReceipts(_ connId: String, lookInStore: Bool) throws -> Bool {
        if lookInStore, !store.hasDeferredReceipts(connId), !(try store.read({ db in try db.hasPendingReceipts(connId) })) {
            receiptsWaiting.remove(connId)
            return false
        }
        let limit = 64
        let (queued, more) = try write { db -> (Bool, Bool) in
            var receipts = try db.pendingReceipts(connId, limit: limit)
            guard !receipts.isEmpty, let conn = try db.connectionRecord(connId) else { return (false, false) }
            if conn.ratchetSyncState.sendProhibited { return (false, true) }
            let fetched = receipts.count
            // As many as fit one padded agent message (receipts carry the chat's rcptInfo).
            let room = AgentMessageSize.e2eEncAgentMsgLength(version: UInt16(conn.agentVersion), pq: conn.pqSupport) - 256
            while receipts.count > 1, (try AMessage.aRcvd(receipts).smpEncoded()).count > room { receipts.removeLast(receipts.count / 2) }
            try db.deletePendingReceipts(connId, agentMsgIds: receipts.map(\.agentMsgId))
            _ = try self.enqueue(db, connId: connId, .aRcvd(receipts), type: .receipt)
            return (true, fetched == limit || receipts.count < fetched)
        }
        if !more { receiptsWaiting.remove(connId) }
        if queued { lastReceiptQueued[connId] = DispatchTime.now().uptimeNanoseconds }
        return queued
    }

    /// Receipts acknowledged on the connection and not yet queued in an A_RCVD (for tests).
    func pendingReceiptCount(_ connId: String) throws(AgentError) -> Int {
        store.flushDeferredWrites()
        return try store.read { db in try db.pendingReceipts(connId, limit: 1000).count }
    }

    private func isQuota(_ e: AgentError) -> Bool {
        if case .smp(_, .quota) = e { return true }
        return false
    }

    /// Wraps the stored envelope in the per-queue crypto_box layer and SENDs it.
    private func send(_ msg: SndMessageRecord, _ sq: SndQueueRecord) async throws(AgentError) {
        let key = try authKey(sq.sndPrivateKey)
        guard let bytes = try await Self.sealForQueue(msg, sq, senderKey: key) else { return }
        let authorize = sq.status != .new
        let notification = [.message, .confirmation, .hello, .ratchetKey, .eReady].contains(msg.msgType)
        try await sendOrProxySMPMessage(server: sq.server, senderId: [UInt8](sq.sndId), key: authorize ? key : nil,
                                        notification: notification, body: bytes)
    }

    /// The message's agent envelope (its body sealed with the prepared message key) in the
    /// queue's crypto_box: off the actor, which other connections need meanwhile. Nil when
    /// nothing is stored to send.
    @concurrent private nonisolated static func sealForQueue(_ msg: SndMessageRecord, _ sq: SndQueueRecord,
                                                             senderKey key: PrivateAuthKey) async throws(AgentError) -> [UInt8]? {
        guard let envelope = try msg.envelopeToSend() else { return nil }
        do {
            let boxKey = try CryptoBoxKey(dhSecret: [UInt8](sq.e2eDhSecret))
            if msg.msgType == .confirmation {
                // Made only here: a private key computes its public key (a scalar multiplication).
                let e2e = try X25519PrivateKey(rawRepresentation: [UInt8](sq.e2ePrivateKey))
                // Unsecured queue: the recipient KEYs it with the key we put in the header.
                let priv: PrivHeader = sq.status == .new ? .senderKey(key.publicKey) : .empty
                return try QueueCrypto.seal(ClientMessage(privHeader: priv, body: [UInt8](envelope)), key: boxKey,
                                            version: UInt16(sq.smpClientVersion), senderDhKey: e2e.publicKey)
            }
            return try QueueCrypto.seal(ClientMessage(privHeader: .empty, body: [UInt8](envelope)), key: boxKey,
                                        version: UInt16(sq.smpClientVersion), senderDhKey: nil)
        } catch {
            throw .internalError("seal: \(error)")
        }
    }

    /// Records the delivery and moves the procedure on (HELLO and confirmations change state).
    /// Returns the next message to send, read after the mark (nil: read it again).
    /// A user message or receipts sent to the current queue change nothing but the message's
    /// status: that mark is a deferred write, and the next message is read without a transaction.
    private func sent(_ msg: SndMessageRecord, _ sq: SndQueueRecord) -> Next? {
        if Self.keepsCurrentQueue(msg, sq) {
            store.deferWrites([.sndSent(connId: msg.connId, internalId: msg.internalId)])
            let next = try? store.read { db in try self.nextToSend(db, msg.connId, current: sq) }
            if msg.msgType == .message { emit(msg.connId, .sent(msgId: msg.internalId)) }
            return next
        }
        var connected: Bool?
        var next: Next?
        do {
            connected = try write { db -> Bool? in
                try db.markSndMessageSent(msg.connId, internalId: msg.internalId)
                guard msg.msgType == .confirmation || msg.msgType == .hello, let conn = try db.connectionRecord(msg.connId) else {
                    next = try self.nextToSend(db, msg.connId)
                    return nil
                }
                switch msg.msgType {
                case .confirmation:
                    if sq.status == .new {
                        try db.setSndQueueStatus(sq.sndQueueId, "confirmed")
                    } else if conn.initiator && sq.sndSecure {
                        // Fast procedure: both queues are secured by their senders; we are done.
                        try db.setSndQueueStatus(sq.sndQueueId, "active")
                        try db.setRcvQueuesStatus(connId: msg.connId, "active")
                        return try self.setActive(db, msg.connId)
                    }
                case .hello:
                    try db.setSndQueueStatus(sq.sndQueueId, "active")
                    let rqActive = try db.rcvQueueIsActive(connId: msg.connId)
                    if rqActive { return try self.setActive(db, msg.connId) }
                default:
                    break
                }
                return nil
            }
        } catch {
            emit(msg.connId, .err(AgentError.wrapStore(error)))
        }
        if msg.msgType == .message { emit(msg.connId, .sent(msgId: msg.internalId)) }
        if let pq = connected { emit(msg.connId, .con(pqEncryption: pq)) }
        // A queue switch step may queue or drop messages: read again after it.
        if msg.msgType == .qKey || msg.msgType == .qTest {
            switchMessageSent(msg, sq)
            return nil
        }
        return next
    }

    private func failed(_ msg: SndMessageRecord, _ error: AgentError) {
        try? write { db in
            try db.markSndMessageFailed(msg.connId, internalId: msg.internalId)
        }
        if msg.msgType == .message {
            emit(msg.connId, .merr(msgId: msg.internalId, error))
        } else {
            emit(msg.connId, .err(error))
        }
    }

    /// Marks the connection established; returns whether the ratchet uses PQ KEM now.
    func setActive(_ db: Database, _ connId: String) throws -> Bool {
        try db.setConnectionStatus(connId, "active")
        return (try? ratchet(in: db, connId))?.pqEncryption ?? false
    }
}
