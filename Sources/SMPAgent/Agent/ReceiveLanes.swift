import DoubleRatchet
import Foundation
import SimplexFoundation
import SMPClient

/// One receiving queue's lane: its messages are processed one at a time, in the order the relay
/// delivered them, while other queues' messages are processed at the same time. The relay sends
/// a queue's next message only after the ACK of the last, so a lane rarely holds more than one.
struct ReceiveLaneKey: Hashable, Sendable {
    let server: String
    let rcvId: [UInt8]
}

/// What a lane works out for a message off the actor (the queue-level crypto_box, the agent
/// envelope and, with a snapshot of the connection's ratchet, the ratchet decryption), so the
/// actor only checks and commits. The actor uses it only while the queue and the ratchet are
/// still as the lane saw them; otherwise it processes the message itself, as before.
struct ReceivePrepared: Sendable {
    /// The receiving queue as the lane read it.
    let rq: RcvQueueRecord
    /// The queue envelope opened and the agent envelope parsed, or why not (nil: nothing to open).
    let opened: Result<OpenedMessage, AgentError>?
    /// The ratchet decryption of an agent message, when it succeeded on the snapshot.
    let decrypted: RatchetDecrypted?
}

struct OpenedMessage: Sendable {
    let env: ClientMsgEnvelope
    let client: ClientMessage
    let envelope: AgentMsgEnvelope
}

/// A ratchet decryption made on a snapshot: valid while the connection's ratchet has not changed
/// since (`RatchetStates.epoch` still says `epoch`).
struct RatchetDecrypted: Sendable {
    let before: PQRatchet
    let after: PQRatchet
    /// `after` as stored (serialized here too, off the actor).
    let afterState: Data
    let plain: [UInt8]
    let message: AgentMessage
    let epoch: UInt64
}

extension SMPAgent {
    /// Queues a delivered message on its queue's lane.
    func enqueueReceive(server: String, _ m: ReceivedMessage) {
        let key = ReceiveLaneKey(server: server, rcvId: m.recipientId)
        let previous = receiveLanes[key]?.task
        receiveLaneSeq &+= 1
        let seq = receiveLaneSeq
        let task = Task.detached { [self] in
            await previous?.value
            await self.receive(server: server, m)
            await self.receiveLaneDone(key, seq)
        }
        receiveLanes[key] = (seq, task)
    }

    private func receiveLaneDone(_ key: ReceiveLaneKey, _ seq: UInt64) {
        if receiveLanes[key]?.seq == seq { receiveLanes[key] = nil }
    }

    /// Off the actor: reads the queue and opens what can be opened without the actor's state.
    /// Nil when the queue is unknown; throws only when the database could not be read.
    @concurrent nonisolated func prepareReceive(server: String, _ m: ReceivedMessage) async throws(AgentError) -> ReceivePrepared? {
        // The queue and, when cached, its connection's committed ratchet, in one database access
        // (the snapshot is taken as `ratchetSnapshot` takes it).
        let found = try await store.readAsync { db -> (RcvQueueRecord, (PQRatchet, UInt64)?)? in
            guard let rq = try db.rcvQueue(server: server, rcvId: m.recipientId) else { return nil }
            let (r, epoch) = ratchets.snapshot(rq.connId)
            return (rq, r.map { ($0, epoch) })
        }
        guard let (rq, snapshot) = found else { return nil }
        guard let body = m.body else { return ReceivePrepared(rq: rq, opened: nil, decrypted: nil) }
        let opened: OpenedMessage
        do { opened = try Self.openQueueMessage(rq, body) } catch {
            return ReceivePrepared(rq: rq, opened: .failure(error), decrypted: nil)
        }
        var decrypted: RatchetDecrypted?
        if case .message(_, let enc) = opened.envelope, opened.env.senderDhKey == nil {
            decrypted = decryptOnSnapshot(rq.connId, enc, snapshot: snapshot)
        }
        return ReceivePrepared(rq: rq, opened: .success(opened), decrypted: decrypted)
    }

    /// The queue-level crypto_box and the agent envelope inside it.
    nonisolated static func openQueueMessage(_ rq: RcvQueueRecord, _ body: [UInt8]) throws(AgentError) -> OpenedMessage {
        let env: ClientMsgEnvelope
        let client: ClientMessage
        do {
            (env, client) = try QueueCrypto.open(body) { (e: ClientMsgEnvelope) throws -> CryptoBoxKey in
                if let dh = e.senderDhKey {
                    let own = try X25519PrivateKey(rawRepresentation: [UInt8](rq.e2ePrivateKey))
                    return try CryptoBoxKey(dhSecret: try own.sharedSecret(with: dh))
                }
                guard let secret = rq.e2eDhSecret else { throw AgentError.agent(.prohibited("message before confirmation")) }
                return try CryptoBoxKey(dhSecret: [UInt8](secret))
            }
        } catch {
            if let e = error as? AgentError { throw e }
            throw .agent(.crypto(.decryptCB))
        }
        do { return OpenedMessage(env: env, client: client, envelope: try AgentMsgEnvelope.decode(client.body)) } catch {
            throw .agent(.message("envelope: \(error)"))
        }
    }

    /// Decrypts on a copy of the connection's ratchet (loaded from the database when not
    /// cached). Nil when anything fails: the actor then decrypts, and handles the failure.
    private nonisolated func decryptOnSnapshot(_ connId: String, _ enc: [UInt8], snapshot: (PQRatchet, UInt64)?) -> RatchetDecrypted? {
        guard let (cached, epoch) = snapshot ?? (try? ratchetSnapshot(connId)) else { return nil }
        var ratchet = cached
        guard let plain = try? ratchet.decrypt(enc), let message = try? AgentMessage.decode(plain),
              let state = try? ratchet.serialized() else { return nil }
        return RatchetDecrypted(before: cached, after: ratchet, afterState: Data(state), plain: plain, message: message, epoch: epoch)
    }

    /// The connection's committed ratchet and the count of its last change, read together in
    /// a database access (a state loaded from the file there is the one of that count).
    nonisolated func ratchetSnapshot(_ connId: String) throws(AgentError) -> (PQRatchet, UInt64) {
        try store.read { db in
            let (r, epoch) = ratchets.snapshot(connId)
            return (try r ?? Self.loadRatchet(db, connId, into: ratchets), epoch)
        }
    }

    /// Off the actor: commits a user message (A_MSG) or receipts (A_RCVD) on an active
    /// connection (the actor's handshake steps load and save ratchets unchecked) whose ratchet the lane decrypted with, in one transaction, as the actor would
    /// (`agentMessage`); the actor then only reports it. Anything else (other messages, a
    /// queue or ratchet changed since the lane read them, a connection re-synchronizing, a
    /// duplicate, a database failure) writes nothing and returns false: the actor processes it.
    @concurrent nonisolated func commitOnLane(server: String, _ m: ReceivedMessage, _ prepared: ReceivePrepared) async -> Bool {
        guard let d = prepared.decrypted, case .success(let opened)? = prepared.opened,
              case .message(let agentVersion, _) = opened.envelope, case .message(let header, let aMessage) = d.message,
              prepared.rq.replaceRcvQueueId == nil else { return false }
        enum Content { case message([UInt8]), receipts([AMessageReceipt]) }
        let content: Content
        switch aMessage {
        case .aMsg(let body): content = .message(body)
        case .aRcvd(let receipts): content = .receipts(receipts)
        default: return false
        }
        let connId = prepared.rq.connId
        let hash = Data(CryptoHash.sha256(d.plain))
        var committed = false
        let result: (RcvMessageRecord?, [AgentEventKind])?
        do {
            result = try await store.writeAsync({ db -> (RcvMessageRecord?, [AgentEventKind])? in
                // As the actor would find them now: the same queue, no copy stored, the ratchet
                // the lane decrypted with, and no re-synchronization to end.
                guard ratchets.epoch(connId) == d.epoch,
                      try db.rcvQueue(server: server, rcvId: m.recipientId) == prepared.rq,
                      try db.rcvMessage(connId, brokerId: m.msgId) == nil,
                      var conn = try db.connectionRecord(connId), conn.status == .active,
                      [.ok, .started].contains(conn.ratchetSyncState) else { return nil }
                let integrity = try advanceReceived(db, &conn, header: header, hash: hash, agentVersion: agentVersion)
                try db.saveRatchetState(connId, d.afterState)
                committed = true
                switch content {
                case .message(let body):
                    let rec = try Self.storeUserMessage(db, &conn, prepared.rq, m, header: header, hash: hash, body: body,
                                                        integrity: integrity, pqEncryption: d.after.pqEncryption)
                    return (rec, [.msg(meta(rec), body: body)])
                case .receipts(let receipts):
                    try db.saveCounters(conn)
                    return (nil, try Self.receiptsReceived(db, connId, receipts).map { [$0] } ?? [])
                }
            }, committed: {
                if committed { ratchets.publish(connId, d.after) }
            })
        } catch {
            // Rolled back: the actor tries again, and reports a failure if it fails too.
            return false
        }
        guard let (stored, events) = result else { return false }
        await laneCommitted(server: server, m, prepared.rq, stored: stored, events)
        return true
    }

    /// Reports what a lane committed, in order with the connection's other events; a user
    /// message then waits for ackMessage, receipts are acknowledged now.
    private func laneCommitted(server: String, _ m: ReceivedMessage, _ rq: RcvQueueRecord, stored: RcvMessageRecord?, _ events: [AgentEventKind]) async {
        if let stored { rememberUnacked(stored, rq) }
        for e in events { emit(rq.connId, e) }
        if stored == nil, let key = try? authKey(rq.rcvPrivateKey) {
            try? await clients[server]?.ack(recipientId: m.recipientId, key: key, msgId: m.msgId)
        }
    }
}
