import DoubleRatchet
import Foundation
import GRDB
import SimplexFoundation
import SMPClient
import SMPProtocol
import SMPTransport

/// Processing of messages from our receiving queues. The relay holds each message until we ACK
/// it, so every branch commits its state first and ACKs after; a crash in between only means the
/// relay delivers the message again, and the duplicate checks below recognise it.
extension SMPAgent {
    /// What to do with the relay after a message was processed.
    enum AfterReceive {
        /// ACK now (agent-internal messages, duplicates, garbage).
        case ack
        /// The layer above acknowledges it with ackMessage.
        case waitForUser
    }

    /// A lane's work on one message: read and decrypted off the actor, then committed on it.
    @concurrent nonisolated func receive(server: String, _ m: ReceivedMessage, attempt: Int = 0) async {
        let prepared: ReceivePrepared?
        do { prepared = try await prepareReceive(server: server, m) } catch {
            return await retryReceive(server: server, m, connId: "", error, attempt: attempt)
        }
        guard let prepared else { return }
        if await commitOnLane(server: server, m, prepared) { return }
        await commitReceive(server: server, m, prepared, attempt: attempt)
    }

    private func commitReceive(server: String, _ m: ReceivedMessage, _ prepared: ReceivePrepared, attempt: Int) async {
        // The queue and a copy of this message stored before, in one read, on the actor: the
        // lane's work counts only if the queue is still as it read it.
        let found: (RcvQueueRecord, RcvMessageRecord?)?
        do {
            found = try store.read { db in
                guard let rq = try db.rcvQueue(server: server, rcvId: m.recipientId) else { return nil }
                return (rq, m.body == nil ? nil : try db.rcvMessage(rq.connId, brokerId: m.msgId))
            }
        } catch {
            return retryReceive(server: server, m, connId: "", AgentError.wrapStore(error), attempt: attempt)
        }
        guard let (rq, dup) = found else { return }
        var events: [AgentEventKind] = []
        var after = AfterReceive.ack
        var followUp: (@Sendable () async -> Void)?
        do {
            (after, events, followUp) = try process(rq, m, duplicateOf: dup, lane: prepared.rq == rq ? prepared : nil)
        } catch {
            // A database failure is ours, not the message's: not acknowledged (the relay keeps
            // it), reported, and processed again shortly. Nothing received is lost.
            if case .store = error { return retryReceive(server: server, m, connId: rq.connId, error, attempt: attempt) }
            events = [.err(error)]
            after = .ack
        }
        for e in events { emit(rq.connId, e) }
        if after == .ack, let key = try? authKey(rq.rcvPrivateKey) {
            try? await clients[server]?.ack(recipientId: m.recipientId, key: key, msgId: m.msgId)
        }
        if let followUp { await followUp() }
    }

    /// Reports a database failure while receiving and processes the message again after a
    /// growing delay (up to 5 s), until it succeeds or the agent stops.
    private func retryReceive(server: String, _ m: ReceivedMessage, connId: String, _ error: AgentError, attempt: Int) {
        emit(connId, .err(error))
        guard !stopped else { return }
        let delay = min(0.1 * Double(1 << min(attempt, 6)), 5)
        Task {
            try? await Task.sleep(nanoseconds: UInt64(delay * 1e9))
            await self.receive(server: server, m, attempt: attempt + 1)
        }
    }

    typealias ReceiveOutcome = (AfterReceive, [AgentEventKind], (@Sendable () async -> Void)?)
    private typealias Outcome = ReceiveOutcome

    /// `duplicateOf`: this message as stored before (our ACK was lost, or we crashed before it).
    /// `lane`: what the message's lane worked out for this queue as it still is.
    private func process(_ rq: RcvQueueRecord, _ m: ReceivedMessage, duplicateOf: RcvMessageRecord?, lane: ReceivePrepared?) throws(AgentError) -> Outcome {
        guard let body = m.body else { return try quotaReached(rq) }
        if let dup = duplicateOf {
            if dup.userAck || store.isAcknowledgementDeferred(dup.connId, internalId: dup.internalId) { return (.ack, [], nil) }
            return (.waitForUser, [.msg(meta(dup), body: [UInt8](dup.body))], nil)
        }
        let opened = if let done = lane?.opened { try done.get() } else { try Self.openQueueMessage(rq, body) }
        let (env, client, envelope) = (opened.env, opened.client, opened.envelope)
        switch envelope {
        case .invitation(_, let connReq, let connInfo):
            return try contactRequest(rq, connReq: connReq, connInfo: connInfo)
        case .confirmation(let version, let e2eParams, let encConnInfo):
            guard let dh = env.senderDhKey else { throw .agent(.message("confirmation without DH key")) }
            return try confirmation(rq, m, agentVersion: version, senderDh: dh, privHeader: client.privHeader, e2eParams: e2eParams, enc: encConnInfo)
        case .message(let version, let enc):
            guard env.senderDhKey == nil else { throw .agent(.message("message with DH key")) }
            return try agentMessage(rq, m, agentVersion: version, enc: enc, decrypted: lane?.decrypted)
        case .ratchetKey(let version, let params, _):
            guard env.senderDhKey == nil else { throw .agent(.prohibited("msg: public header")) }
            try upgradeAgentVersion(rq.connId, version)
            return try ratchetKeyReceived(rq, params)
        }
    }

    /// The relay's "queue was full" marker: tell the sender it can continue.
    private func quotaReached(_ rq: RcvQueueRecord) throws(AgentError) -> Outcome {
        let address: SndQAddr
        do { address = SndQAddr(server: try SMPServerAddress(parsing: rq.server), senderId: [UInt8](rq.sndId)) } catch {
            throw .internalError("bad stored server \(rq.server)")
        }
        let queued = try write { db -> Bool in
            guard try db.hasSndQueue(rq.connId) else { return false }
            _ = try self.enqueue(db, connId: rq.connId, .aQcont(address), type: .queueContinue)
            return true
        }
        if queued { wake(rq.connId) }
        return (.ack, [], nil)
    }

    private func contactRequest(_ rq: RcvQueueRecord, connReq: ConnectionRequestURI, connInfo: [UInt8]) throws(AgentError) -> Outcome {
        guard connReq.mode == .invitation else { throw .agent(.message("contact request without an invitation")) }
        let status = try store.read { db in try db.connectionRecord(rq.connId)?.status }
        guard status == .contact else { throw .agent(.prohibited("invitation to a non-address connection")) }
        let inv = InvitationRecord(invitationId: newId(), contactConnId: rq.connId, connRequest: connReq.uriString,
                                   connInfo: Data(connInfo), accepted: false, createdAt: Date().timeIntervalSince1970)
        try write { db in try inv.insert(db) }
        return (.ack, [.req(invitationId: inv.invitationId, connInfo: connInfo)], nil)
    }

    /// simplexmq `updateConnVersion`: a message from a peer whose agent was upgraded raises the
    /// connection's version to the highest both support (never lowers it).
    private func upgradeAgentVersion(_ connId: String, _ messageVersion: UInt16) throws(AgentError) {
        let current = try store.read { db in try db.connectionRecord(connId)?.agentVersion }
        guard let current, let v = upgradedAgentVersion(current, messageVersion) else { return }
        try write { db in try db.setConnectionAgentVersion(connId, v) }
    }

    /// The version a connection at `current` moves to after a message saying `messageVersion`,
    /// nil when it stays.
    nonisolated func upgradedAgentVersion(_ current: Int, _ messageVersion: UInt16) -> UInt16? {
        let ours = config.agentVersions
        let theirs = VersionRange(min: ours.min, max: messageVersion) ?? VersionRange(messageVersion)
        guard let v = theirs.highestCommon(with: ours), Int(v) > current else { return nil }
        return v
    }

    private func confirmation(_ rq: RcvQueueRecord, _ m: ReceivedMessage, agentVersion: UInt16, senderDh: X25519PublicKey, privHeader: PrivHeader,
                              e2eParams: E2ERatchetParams?, enc: [UInt8]) throws(AgentError) -> Outcome {
        let (conn, ratchetRecord) = try store.read { db in
            (try db.connectionRecord(rq.connId), try db.ratchetRecord(rq.connId))
        }
        guard let conn, rq.status == .new else {
            // A repeated confirmation (the sender retried): already handled.
            return (.ack, [], nil)
        }
        // simplexmq `smpConfirmation`: a version we support, or one not above the agreed one (the
        // peer's agent was downgraded since).
        guard config.agentVersions.contains(agentVersion) || Int(agentVersion) <= conn.agentVersion else { throw .agent(.version) }
        let secret: Data
        do { secret = Data(try X25519PrivateKey(rawRepresentation: [UInt8](rq.e2ePrivateKey)).sharedSecret(with: senderDh)) } catch {
            throw .internalError("confirmation key agreement: \(error)")
        }
        var senderKey: Data?
        if case .senderKey(let k) = privHeader { senderKey = Data(k.x509Encoded) }

        if conn.initiator && conn.status == .new {
            // The joiner's confirmation: start our ratchet from the X3DH keys of our link.
            guard let e2eParams, let x3dh = ratchetRecord?.x3dhPrivate else { throw .agent(.prohibited("confirmation without e2e parameters")) }
            guard E2EVersion.supported.contains(e2eParams.version) else { throw .agent(.version) }
            // The joiner's version becomes the connection's; PQ only where it allows (`versionPQSupport_`).
            let pq = conn.pqSupport && Self.versionAllowsPQ(agentVersion, e2eVersion: e2eParams.version)
            var ratchet: PQRatchet
            let plain: [UInt8]
            do {
                let own = try E2EPrivateParams(encoded: [UInt8](x3dh))
                ratchet = try PQRatchet.initReceive(own: own, peer: e2eParams, pqSupport: pq)
                plain = try ratchet.decrypt(enc)
            } catch {
                throw AgentError.ratchet(error)
            }
            guard case .connInfoReply(let queues, let info) = try decodeAgentMessage(plain) else {
                throw .agent(.prohibited("confirmation: not connection info with reply queues"))
            }
            let queueBytes: Data
            do { queueBytes = Data(try SMPQueueInfo.encodeList(queues)) } catch { throw .internalError("\(error)") }
            let conf = ConfirmationRecord(confirmationId: newId(), connId: rq.connId, senderKey: senderKey, e2eDhSecret: secret,
                                          replyQueues: queueBytes, connInfo: Data(info), accepted: false, createdAt: Date().timeIntervalSince1970)
            try write { db in
                try conf.insert(db)
                try db.setConnectionAgentVersion(rq.connId, agentVersion)
                if pq != conn.pqSupport { try db.setConnectionPQSupport(rq.connId, pq) }
                try self.saveRatchet(in: db, rq.connId, ratchet)
                try db.setRcvQueueE2E(rq.rcvQueueId, status: "confirmed", dhSecret: secret)
                try db.setConnectionConfirmed(rq.connId, status: "confirmed", firstMessageHash: CryptoHash.sha256(plain))
            }
            return (.ack, [.conf(confirmationId: conf.confirmationId, connInfo: info)], nil)
        }

        if !conn.initiator && conn.status == .joined {
            // The initiator's confirmation on our reply queue.
            var ratchet = try loadRatchet(rq.connId)
            let plain: [UInt8]
            do { plain = try ratchet.decrypt(enc) } catch { throw AgentError.ratchet(error) }
            guard case .connInfo(let info) = try decodeAgentMessage(plain) else {
                throw .agent(.prohibited("confirmation: not connection info"))
            }
            let fast = senderKey == nil
            let pq: Bool? = try write { db -> Bool? in
                try self.saveRatchet(in: db, rq.connId, ratchet)
                try db.setConnectionConfirmed(rq.connId, status: "allowed", firstMessageHash: CryptoHash.sha256(plain))
                // The initiator KEYed (or SKEYed) our first queue before confirming.
                try db.setSndQueuesStatus(connId: rq.connId, fast ? "active" : "secured")
                if fast {
                    try db.setRcvQueueE2E(rq.rcvQueueId, status: "active", dhSecret: secret)
                    return try self.setActive(db, rq.connId)
                }
                try db.setRcvQueueE2E(rq.rcvQueueId, status: "confirmed", dhSecret: secret, senderKey: senderKey)
                return nil
            }
            var events: [AgentEventKind] = [.info(connInfo: info)]
            if let pq { events.append(.con(pqEncryption: pq)) }
            let connId = rq.connId
            if fast { return (.ack, events, nil) }
            let next: @Sendable () async -> Void = { await self.secureAndHello(connId: connId) }
            return (.ack, events, next)
        }
        throw .agent(.prohibited("confirmation in state \(conn.status)"))
    }

    /// Standard procedure, joining side: KEY our reply queue with the initiator's key, then HELLO.
    /// Retried on start when a previous attempt did not finish.
    func secureAndHello(connId: String) async {
        guard let rq = try? store.read({ db in
            try db.confirmedRcvQueue(connId)
        }), let k = rq.sndKey else { return }
        do {
            let senderKey = try AnyPublicKey(x509Encoded: [UInt8](k), allowing: AnyPublicKey.authAlgorithms)
            let key = try authKey(rq.rcvPrivateKey)
            try await smp(rq.server) { c throws(SMPClientError) in try await c.secure(recipientId: [UInt8](rq.rcvId), key: key, senderKey: senderKey) }
            try write { db in
                try db.markRcvQueueSecured(rq.rcvQueueId)
                _ = try self.enqueue(db, connId: connId, .hello, type: .hello)
            }
            wake(connId)
        } catch {
            let e = AgentError.wrapStore(error)
            if e.isTemporary, !stopped {
                let delay = config.maxRetryInterval
                Task {
                    try? await Task.sleep(nanoseconds: UInt64(delay * 1e9))
                    await self.secureAndHello(connId: connId)
                }
            } else {
                emit(connId, .err(e))
            }
        }
    }

    private func decodeAgentMessage(_ plain: [UInt8]) throws(AgentError) -> AgentMessage {
        do { return try AgentMessage.decode(plain) } catch { throw .agent(.message("agent message: \(error)")) }
    }

    /// A ratchet-encrypted agent message on an established (or establishing) connection.
    /// `decrypted`: the lane's decryption, used when the ratchet has not changed since its snapshot.
    /// Lanes commit beside the actor, so the transaction checks that the ratchet it saves was
    /// derived from the current one, and decrypts again (`attempt`) when a lane moved it since.
    private func agentMessage(_ rq: RcvQueueRecord, _ m: ReceivedMessage, agentVersion: UInt16, enc: [UInt8],
                              decrypted: RatchetDecrypted?, attempt: Int = 0) throws(AgentError) -> Outcome {
        let before: PQRatchet, ratchet: PQRatchet, plain: [UInt8], message: AgentMessage
        var ratchetState: Data?
        let baseEpoch: UInt64
        if let d = decrypted, d.epoch == ratchets.epoch(rq.connId) {
            (before, ratchet, plain, message, ratchetState) = (d.before, d.after, d.plain, d.message, d.afterState)
            baseEpoch = d.epoch
        } else {
            (before, baseEpoch) = try ratchetSnapshot(rq.connId)
            var r = before
            do {
                plain = try r.decrypt(enc)
            } catch {
                let e = AgentError.ratchet(error)
                if case .agent(.crypto(let c)) = e { return try decryptionFailed(rq, c) }
                throw e
            }
            ratchet = r
            message = try decodeAgentMessage(plain)
        }
        guard case .message(let header, let aMessage) = message else {
            throw .agent(.prohibited("connection info after the connection was confirmed"))
        }
        let hash = Data(CryptoHash.sha256(plain))
        let pqEnc = ratchet.pqEncryption
        let connId = rq.connId
        var stored: RcvMessageRecord?
        var stale = false
        let outcome = try write { db -> Outcome in
            guard self.ratchets.epoch(connId) == baseEpoch else {
                stale = true
                return (.ack, [], nil)
            }
            guard var conn = try db.connectionRecord(connId) else { throw AgentError.connection(.notFound, connId) }
            let lastId = conn.lastExternalSndMsgId
            let integrity = try self.advanceReceived(db, &conn, header: header, hash: hash, agentVersion: agentVersion)
            try self.saveRatchet(in: db, connId, ratchet, serialized: ratchetState)
            var events: [AgentEventKind] = []
            if let synced = try self.ratchetSyncAfterDecrypt(db, &conn) { events.append(synced) }
            // The first message on a queue that replaces another completes our queue switch.
            let replaced = try self.messageOnNewQueue(db, rq)
            var secureNewQueue = false
            var after = AfterReceive.ack
            switch aMessage {
            case .hello:
                try db.setRcvQueueStatus(rq.rcvQueueId, "active")
                let sqStatus = try db.sndQueueStatus(connId)
                try db.saveCounters(conn)
                if sqStatus == QueueStatus.active.rawValue {
                    if conn.status != .active { events.append(.con(pqEncryption: try self.setActive(db, connId))) }
                } else if sqStatus != nil {
                    _ = try self.enqueue(db, connId: connId, .hello, type: .hello)
                }
            case .aMsg(let body):
                let rec = try Self.storeUserMessage(db, &conn, rq, m, header: header, hash: hash, body: body, integrity: integrity, pqEncryption: pqEnc)
                stored = rec
                events.append(.msg(self.meta(rec), body: body))
                after = .waitForUser
            case .aRcvd(let receipts):
                try db.saveCounters(conn)
                if let rcvd = try Self.receiptsReceived(db, connId, receipts) { events.append(rcvd) }
            case .aQcont:
                try db.saveCounters(conn)
                events.append(.qcont)
            case .eReady:
                // simplexmq `ereadyMsg`: a ratchet recreated as the receiving side could not
                // send EREADY itself; it answers now with its first message.
                try db.saveCounters(conn)
                if !before.canEncrypt { _ = try self.enqueue(db, connId: connId, .eReady(lastId), type: .eReady) }
            case .qAdd(let items):
                try db.saveCounters(conn)
                try Self.switchStep(db, &events) { try self.queueAdded(db, conn, items) }
            case .qKey(let items):
                try db.saveCounters(conn)
                try Self.switchStep(db, &events) { try self.queueKeyReceived(db, conn, on: rq, items) }
                secureNewQueue = true
            case .qUse(let items):
                try db.saveCounters(conn)
                try Self.switchStep(db, &events) { try self.queueUseReceived(db, conn, items) }
            case .qTest:
                // Nothing to do: any message on the new queue completes the switch (above).
                try db.saveCounters(conn)
            }
            // A user message or receipts change nothing the delivery worker acts on (it would
            // only look for pending messages again): no wake-up for them.
            let quiet: Bool = switch aMessage {
            case .aMsg, .aRcvd: true
            default: false
            }
            if quiet, replaced == nil, events.allSatisfy({ if case .rsync = $0 { false } else { true } }) { return (after, events, nil) }
            let secure = secureNewQueue
            return (after, events, {
                await self.wake(connId)
                if secure { await self.secureSwitchQueue(connId: connId) }
                if let replaced { await self.deleteReplacedQueue(connId: connId, replaced) }
            })
        }
        if stale {
            // Nothing was written; a database failure for the caller if this keeps happening.
            guard attempt < 5 else { throw .store("ratchet of \(connId) kept changing") }
            return try agentMessage(rq, m, agentVersion: agentVersion, enc: enc, decrypted: nil, attempt: attempt + 1)
        }
        if let stored { rememberUnacked(stored, rq) }
        return outcome
    }

    /// What every decrypted agent message does in its transaction: simplexmq `updateConnVersion`
    /// (no extra query unless it changes), then the integrity of its id and hash chain, with the
    /// connection's counters moved on in `conn` (saved by the caller).
    nonisolated func advanceReceived(_ db: Database, _ conn: inout ConnectionRecord, header: APrivHeader, hash: Data,
                                     agentVersion: UInt16) throws -> MsgIntegrity {
        if let v = upgradedAgentVersion(conn.agentVersion, agentVersion) {
            try db.setConnectionAgentVersion(conn.connId, v)
            conn.agentVersion = Int(v)
        }
        let integrity: MsgIntegrity
        let lastId = conn.lastExternalSndMsgId
        if header.sndMsgId <= lastId {
            // Our ratchet accepted it, so it is not a replay of the same ciphertext; the
            // sender's id went backwards. Reported, not delivered twice.
            integrity = .error(.badId(header.sndMsgId))
        } else if header.sndMsgId > lastId + 1 {
            integrity = .error(.skipped(from: lastId + 1, to: header.sndMsgId - 1))
        } else if Data(header.prevMsgHash) != conn.lastRcvMsgHash {
            integrity = .error(.badHash)
        } else {
            integrity = .ok
        }
        conn.lastExternalSndMsgId = max(lastId, header.sndMsgId)
        conn.lastRcvMsgHash = hash
        return integrity
    }

    /// A user message (A_MSG) stored for the layer above, counters saved with it.
    static func storeUserMessage(_ db: Database, _ conn: inout ConnectionRecord, _ rq: RcvQueueRecord, _ m: ReceivedMessage, header: APrivHeader,
                                 hash: Data, body: [UInt8], integrity: MsgIntegrity, pqEncryption: Bool) throws -> RcvMessageRecord {
        conn.lastInternalMsgId += 1
        try db.saveCounters(conn)
        let rec = RcvMessageRecord(connId: conn.connId, internalId: conn.lastInternalMsgId, externalSndId: header.sndMsgId,
                                   brokerId: Data(m.msgId), brokerTs: m.timestamp, msgHash: hash, body: Data(body),
                                   integrity: encodeIntegrity(integrity), pqEncryption: pqEncryption, userAck: false,
                                   rcvQueueId: rq.rcvQueueId)
        try db.insertRcvMessage(rec)
        return rec
    }

    /// The RCVD event for the receipts of an A_RCVD that name messages we sent (nil: none do).
    static func receiptsReceived(_ db: Database, _ connId: String, _ receipts: [AMessageReceipt]) throws -> AgentEventKind? {
        var out: [MsgReceipt] = []
        for r in receipts {
            guard let sm = try db.sndMessage(connId, sndMsgId: r.agentMsgId) else { continue }
            out.append(MsgReceipt(agentMsgId: sm.internalId, ok: [UInt8](sm.msgHash) == r.msgHash, rcptInfo: r.rcptInfo))
        }
        return out.isEmpty ? nil : .rcvd(out)
    }

    /// A queue-rotation step inside the message's transaction: its protocol errors become an ERR
    /// event and roll back only the step (the message itself, ratchet and counters, stays processed).
    static func switchStep(_ db: Database, _ events: inout [AgentEventKind], _ body: () throws -> [AgentEventKind]) throws {
        var out: [AgentEventKind] = []
        do {
            try db.inSavepoint {
                out = try body()
                return .commit
            }
            events += out
        } catch let e as AgentError {
            if case .store = e { throw e }
            events.append(.err(e))
        }
    }

    nonisolated func meta(_ r: RcvMessageRecord) -> MsgMeta {
        MsgMeta(integrity: Self.decodeIntegrity(r.integrity), agentMsgId: r.internalId, sndMsgId: r.externalSndId,
                brokerTs: r.brokerTs, pqEncryption: r.pqEncryption)
    }

    static func encodeIntegrity(_ i: MsgIntegrity) -> String {
        switch i {
        case .ok: "ok"
        case .error(.skipped(let a, let b)): "skipped \(a) \(b)"
        case .error(.badId(let id)): "badId \(id)"
        case .error(.badHash): "badHash"
        }
    }

    static func decodeIntegrity(_ s: String) -> MsgIntegrity {
        let p = s.split(separator: " ")
        switch p.first {
        case "skipped" where p.count == 3: return .error(.skipped(from: Int64(p[1]) ?? 0, to: Int64(p[2]) ?? 0))
        case "badId" where p.count == 2: return .error(.badId(Int64(p[1]) ?? 0))
        case "badHash": return .error(.badHash)
        default: return .ok
        }
    }
}
