import Foundation
import GRDB
import SimplexFoundation
import SMPClient
import SMPProtocol
import SMPTransport

/// Queue rotation (simplexmq `switchConnection'`, `qAddMsg`, `qKeyMsg`, `ICQSecure`, `qUseMsg`,
/// QTEST delivery, `ICQDelete`): the recipient moves its receiving queue to a new one, usually on
/// another relay, without the ratchet or the message sequence noticing.
///
///   recipient (A)                         sender (B)
///   new queue, QADD(new, replaces old) -> new send queue, QKEY(new, sender key)
///   KEY new queue, QUSE(new)           <- ...
///                                      -> QTEST to the new queue; old send queue dropped
///   first message on the new queue: old queue deleted
extension SMPAgent {
    /// Starts moving the connection's receiving queue to a new one (SWITCH rcv started).
    public func switchConnection(connId: String) async throws(AgentError) -> ConnectionStats {
        let (old, otherServers) = try store.read { db -> (RcvQueueRecord, [String]) in
            guard let conn = try db.connectionRecord(connId) else { throw AgentError.connection(.notFound, connId) }
            guard try db.isDuplex(connId) else { throw AgentError.command(.prohibited, "switchConnection: not duplex") }
            let rqs = try db.rcvQueues(connId)
            guard !rqs.contains(where: { $0.switchStatus != nil }) else {
                throw AgentError.command(.prohibited, "switchConnection: already switching")
            }
            guard !conn.ratchetSyncState.sendProhibited else { throw AgentError.command(.prohibited, "switchConnection: send prohibited") }
            let servers = rqs.map(\.server) + (try db.sndQueues(connId)).map(\.server)
            return (rqs[0], servers)
        }
        // Another relay than the connection's queues when one is configured.
        let candidates = config.servers.filter { !otherServers.contains($0.description) }
        guard let server = candidates.randomElement() ?? config.servers.first(where: { $0.description != old.server }) ?? config.servers.first else {
            throw .command(.prohibited, "no SMP servers configured")
        }
        try write { db in try db.setRcvSwitchStatus(old.rcvQueueId, .switchStarted) }
        let new: NewRcvQueue
        do {
            new = try await newRcvQueue(server: server, senderCanSecure: true)
        } catch {
            try? write { db in try db.setRcvSwitchStatus(old.rcvQueueId, nil) }
            throw error
        }
        let uri = SMPQueueURI(server: server, senderId: new.created.senderId, clientVersions: config.smpClientVersions,
                              dhPublicKey: new.e2e.publicKey, senderCanSecure: new.created.senderCanSecure)
        let replaced: SndQAddr
        do { replaced = SndQAddr(server: try SMPServerAddress(parsing: old.server), senderId: [UInt8](old.sndId)) } catch {
            throw .internalError("bad stored server \(old.server)")
        }
        let stats = try write { db -> ConnectionStats in
            var rq = new.record(connId: connId)
            rq.replaceRcvQueueId = old.rcvQueueId
            rq.primaryQueue = false
            try rq.insert(db)
            _ = try self.enqueue(db, connId: connId, .qAdd([QueueAddition(queue: uri, replaces: replaced)]), type: .qAdd)
            try db.setRcvSwitchStatus(old.rcvQueueId, .sendingQADD)
            return try self.connectionStats(db, connId)
        }
        wake(connId)
        emit(connId, .switchProgress(.rcv, .started, stats))
        return stats
    }

    /// Cancels a switch of the receiving queue that has not reached QUSE: the new queue is deleted.
    public func abortConnectionSwitch(connId: String) async throws(AgentError) -> ConnectionStats {
        let (removed, stats) = try write { db -> ([RcvQueueRecord], ConnectionStats) in
            guard let conn = try db.connectionRecord(connId) else { throw AgentError.connection(.notFound, connId) }
            guard try db.isDuplex(connId) else { throw AgentError.command(.prohibited, "abortConnectionSwitch: not duplex") }
            let rqs = try db.rcvQueues(connId)
            guard let switching = rqs.first(where: { $0.switchStatus != nil }) else {
                throw AgentError.command(.prohibited, "abortConnectionSwitch: not allowed")
            }
            guard RcvSwitchStatus(rawValue: switching.switchStatus ?? "")?.canAbort == true else {
                throw AgentError.command(.prohibited, "abortConnectionSwitch: no rcv queues left")
            }
            guard !conn.ratchetSyncState.sendProhibited else { throw AgentError.command(.prohibited, "abortConnectionSwitch: send prohibited") }
            let removed = rqs.filter { $0.replaceRcvQueueId == switching.rcvQueueId }
            guard removed.count < rqs.count else { throw AgentError.internalError("won't delete all rcv queues in connection") }
            for q in removed { try db.deleteRcvQueue(q.rcvQueueId) }
            self.forgetUnacked(connId)
            try db.setRcvSwitchStatus(switching.rcvQueueId, nil)
            return (removed, try self.connectionStats(db, connId))
        }
        for q in removed { await deleteAtRelay(q) }
        return stats
    }

    // MARK: messages of the switch (inside the received message's transaction)

    /// QADD, at the sender: a new send queue replacing the one the recipient names; QKEY answers.
    func queueAdded(_ db: Database, _ conn: ConnectionRecord, _ items: [QueueAddition]) throws -> [AgentEventKind] {
        guard !conn.ratchetSyncState.sendProhibited else { throw AgentError.agent(.queue("ratchet is not synchronized")) }
        guard let item = items.first, let replaces = item.replaces else { throw AgentError.agent(.queue("adding queue without switching is not supported")) }
        guard let version = item.queue.clientVersions.intersection(config.smpClientVersions)?.max else { throw AgentError.agent(.version) }
        let sqs = try db.sndQueues(conn.connId)
        if sqs.contains(where: { Self.sameQueue($0.server, $0.sndId, item.queue.server, item.queue.senderId) }) {
            throw AgentError.agent(.queue("QADD: queue address is already used in connection"))
        }
        guard let old = sqs.first(where: { Self.sameQueue($0.server, $0.sndId, replaces.server, replaces.senderId) }) else {
            throw AgentError.agent(.queue("QADD: replaced queue address is not found in connection"))
        }
        let stale = sqs.filter { $0.replaceSndQueueId == old.sndQueueId }
        guard sqs.count - stale.count > 0 else { throw AgentError.agent(.queue("QADD: won't delete all snd queues in connection")) }
        for q in stale { try db.deleteSndQueue(q.sndQueueId) }
        let sndKey: PrivateAuthKey
        let e2e = X25519PrivateKey()
        let secret: [UInt8]
        do {
            sndKey = try PrivateAuthKey.generate(.ed25519)
            secret = try e2e.sharedSecret(with: item.queue.dhPublicKey)
        } catch {
            throw AgentError.internalError("queue keys: \(error)")
        }
        var sq = SndQueueRecord(sndQueueId: nil, connId: conn.connId, server: item.queue.server.description, sndId: Data(item.queue.senderId),
                                sndPrivateKey: Data(sndKey.pkcs8Encoded), e2ePrivateKey: Data(e2e.rawRepresentation), e2eDhSecret: Data(secret),
                                sndSecure: false, status: .new, smpClientVersion: Int(version))
        sq.replaceSndQueueId = old.sndQueueId
        try sq.insert(db)
        let info = SMPQueueInfo(clientVersion: version, server: item.queue.server, senderId: item.queue.senderId, dhPublicKey: e2e.publicKey,
                                queueMode: item.queue.queueMode)
        _ = try enqueue(db, connId: conn.connId, .qKey([QueueSenderKey(queue: info, senderKey: sndKey.publicKey)]), type: .qKey,
                        sndQueueId: old.sndQueueId)
        try db.setSndSwitchStatus(old.sndQueueId, .sendingQKEY)
        return [.switchProgress(.snd, .started, try connectionStats(db, conn.connId))]
    }

    /// QKEY, at the recipient (on the old queue): the sender's keys for the new queue, which is
    /// then secured (KEY) in the background before QUSE.
    func queueKeyReceived(_ db: Database, _ conn: ConnectionRecord, on rq: RcvQueueRecord, _ items: [QueueSenderKey]) throws -> [AgentEventKind] {
        guard !conn.ratchetSyncState.sendProhibited else { throw AgentError.agent(.queue("ratchet is not synchronized")) }
        guard let item = items.first else { throw AgentError.agent(.queue("QKEY: no queue")) }
        guard config.smpClientVersions.contains(item.queue.clientVersion) else { throw AgentError.agent(.version) }
        let rqs = try db.rcvQueues(conn.connId)
        guard let new = rqs.first(where: { Self.sameQueue($0.server, $0.sndId, item.queue.server, item.queue.senderId) }) else {
            throw AgentError.agent(.queue("QKEY: queue address not found in connection"))
        }
        guard new.status == .new || new.status == .confirmed else { throw AgentError.agent(.queue("QKEY: queue already secured")) }
        try Self.checkSwitch(rq.switchStatus, RcvSwitchStatus.sendingQADD.rawValue)
        let secret: [UInt8]
        do { secret = try X25519PrivateKey(rawRepresentation: [UInt8](new.e2ePrivateKey)).sharedSecret(with: item.queue.dhPublicKey) } catch {
            throw AgentError.internalError("queue key agreement: \(error)")
        }
        try db.confirmSwitchQueue(new.rcvQueueId, dhSecret: Data(secret), senderKey: Data(item.senderKey.x509Encoded),
                                  smpClientVersion: min(new.smpClientVersion, Int(item.queue.clientVersion)))
        return [.switchProgress(.rcv, .confirmed, try connectionStats(db, conn.connId))]
    }

    /// QUSE, at the sender: the new queue is secured; QTEST goes to it alone.
    func queueUseReceived(_ db: Database, _ conn: ConnectionRecord, _ items: [QueueUse]) throws -> [AgentEventKind] {
        guard !conn.ratchetSyncState.sendProhibited else { throw AgentError.agent(.queue("ratchet is not synchronized")) }
        guard let item = items.first else { throw AgentError.agent(.queue("QUSE: no queue")) }
        let sqs = try db.sndQueues(conn.connId)
        guard let new = sqs.first(where: { Self.sameQueue($0.server, $0.sndId, item.queue.server, item.queue.senderId) }),
            let replacedId = new.replaceSndQueueId
        else { throw AgentError.agent(.queue("QUSE: switched queue address not found in connection")) }
        guard let old = sqs.first(where: { $0.sndQueueId == replacedId }) else {
            throw AgentError.agent(.queue("QUSE: switching SndQueue not found in connection"))
        }
        try Self.checkSwitch(old.switchStatus, SndSwitchStatus.sendingQKEY.rawValue)
        try db.setSndQueueStatus(new.sndQueueId, "secured")
        _ = try enqueue(db, connId: conn.connId, .qTest([item.queue]), type: .qTest, sndQueueId: new.sndQueueId)
        try db.setSndSwitchStatus(old.sndQueueId, .sendingQTEST)
        return [.switchProgress(.snd, .secured, try connectionStats(db, conn.connId))]
    }

    /// Any message on a queue that replaces another: the switch worked, the old queue goes
    /// (simplexmq marks it `received_message` and deletes it with ICQDelete).
    func messageOnNewQueue(_ db: Database, _ rq: RcvQueueRecord) throws -> RcvQueueRecord? {
        guard let oldId = rq.replaceRcvQueueId else { return nil }
        try db.makeRcvQueuePrimary(rq.rcvQueueId)
        guard let old = try db.rcvQueue(oldId) else { return nil }
        guard old.switchStatus == RcvSwitchStatus.sendingQUSE.rawValue else { return nil }
        try db.setRcvSwitchStatus(old.rcvQueueId, .receivedMessage)
        return old
    }

    // MARK: background steps

    /// `ICQSecure`: KEY the new queue with the sender's key, then QUSE (SWITCH rcv secured).
    /// Resumed at start when a previous attempt did not finish.
    func secureSwitchQueue(connId: String) async {
        guard let rq = try? store.read({ db in
            try db.switchQueueToSecure(connId)
        }), let k = rq.sndKey else { return }
        do {
            let senderKey = try AnyPublicKey(x509Encoded: [UInt8](k), allowing: AnyPublicKey.authAlgorithms)
            let key = try authKey(rq.rcvPrivateKey)
            try await smp(rq.server) { c throws(SMPClientError) in try await c.secure(recipientId: [UInt8](rq.rcvId), key: key, senderKey: senderKey) }
            let addr = SndQAddr(server: try SMPServerAddress(parsing: rq.server), senderId: [UInt8](rq.sndId))
            let stats = try write { db -> ConnectionStats in
                try db.markRcvQueueSecured(rq.rcvQueueId)
                _ = try self.enqueue(db, connId: connId, .qUse([QueueUse(queue: addr, primary: true)]), type: .qUse)
                try db.setRcvSwitchStatus(rq.replaceRcvQueueId, .sendingQUSE)
                return try self.connectionStats(db, connId)
            }
            wake(connId)
            emit(connId, .switchProgress(.rcv, .secured, stats))
        } catch {
            let e = AgentError.wrapStore(error)
            if e.isTemporary, !stopped {
                let delay = config.maxRetryInterval
                Task {
                    try? await Task.sleep(nanoseconds: UInt64(delay * 1e9))
                    await self.secureSwitchQueue(connId: connId)
                }
            } else {
                emit(connId, .err(e))
            }
        }
    }

    /// `ICQDelete`: the old receiving queue is deleted at its relay and here (SWITCH rcv completed).
    func deleteReplacedQueue(connId: String, _ old: RcvQueueRecord) async {
        forgetUnacked(connId)
        await deleteAtRelay(old)
        do {
            let stats = try write { db -> ConnectionStats in
                try db.deleteReplacedRcvQueue(old.rcvQueueId)
                return try self.connectionStats(db, connId)
            }
            emit(connId, .switchProgress(.rcv, .completed, stats))
        } catch {
            emit(connId, .err(error))
        }
    }

    /// After delivery of a switch message: QKEY sent (SWITCH snd confirmed); QTEST sent to the new
    /// queue, which replaces the old one from now on (SWITCH snd completed).
    func switchMessageSent(_ msg: SndMessageRecord, _ sq: SndQueueRecord) {
        do {
            switch msg.msgType {
            case .qKey:
                let stats = try store.read { db in try self.connectionStats(db, msg.connId) }
                emit(msg.connId, .switchProgress(.snd, .confirmed, stats))
            case .qTest:
                guard let oldId = sq.replaceSndQueueId else { return }
                let stats = try write { db -> ConnectionStats in
                    // Messages still waiting for the old queue go to the new one instead.
                    try db.completeSndQueueSwitch(connId: msg.connId, new: sq.sndQueueId, old: oldId)
                    return try self.connectionStats(db, msg.connId)
                }
                // The delivery worker is woken by reconnects of the new queue's relay from now on.
                if let w = workers[msg.connId] { workers[msg.connId] = DeliveryWorker(server: sq.server, task: w.task, wakeup: w.wakeup) }
                emit(msg.connId, .switchProgress(.snd, .completed, stats))
            default:
                return
            }
        } catch {
            emit(msg.connId, .err(error))
        }
    }

    func deleteAtRelay(_ q: RcvQueueRecord) async {
        guard let key = try? authKey(q.rcvPrivateKey), let c = try? client(q.server) else { return }
        c.forget(recipientId: [UInt8](q.rcvId))
        try? await c.delete(recipientId: [UInt8](q.rcvId), key: key)
    }

    /// Same queue: same sender ID on a relay with the same identity and a common host.
    static func sameQueue(_ server: String, _ senderId: Data, _ other: SMPServerAddress, _ otherSenderId: [UInt8]) -> Bool {
        guard [UInt8](senderId) == otherSenderId, let s = try? SMPServerAddress(parsing: server) else { return false }
        return s.keyHash == other.keyHash && !Set(s.hosts).isDisjoint(with: other.hosts)
    }

    static func checkSwitch(_ status: String?, _ expected: String) throws {
        guard status == expected else {
            throw AgentError.internalError("unexpected switch status \(status ?? "none"), expected \(expected)")
        }
    }
}
