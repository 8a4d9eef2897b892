import DoubleRatchet
import Foundation
import GRDB
import SimplexFoundation

/// Ratchet re-synchronization (agent version 3, simplexmq `synchronizeRatchet'`, `newRatchetKey`,
/// `ereadyMsg`): when one side can no longer decrypt, both exchange new X3DH keys (AgentRatchetKey,
/// sealed with the queue key only), recreate the ratchet, and the side that became the sender
/// announces the new ratchet with EREADY.
extension SMPAgent {
    /// Starts a re-synchronization: new keys are sent to the peer and the connection waits for its
    /// keys (state `started`). Allowed after a decryption error (`allowed`/`required`) or with
    /// `force`. `pqSupport` replaces the connection's PQ setting when given.
    public func synchronizeRatchet(connId: String, pqSupport: Bool? = nil, force: Bool = false) throws(AgentError) -> ConnectionStats {
        let stats = try write { db -> ConnectionStats in
            guard var conn = try db.connectionRecord(connId) else { throw AgentError.connection(.notFound, connId) }
            guard try db.isDuplex(connId) else { throw AgentError.command(.prohibited, "synchronizeRatchet: not duplex") }
            let allowed = conn.agentVersion >= Int(AgentVersion.ratchetSync) && conn.ratchetSyncState.syncAllowed
            guard allowed || force else { throw AgentError.command(.prohibited, "synchronizeRatchet: not allowed") }
            let pq = pqSupport ?? conn.pqSupport
            if pq != conn.pqSupport {
                try db.setConnectionPQSupport(connId, pq)
                conn.pqSupport = pq
            }
            let own: E2EPrivateParams
            do { own = try PQRatchet.generateReceiverParams(version: E2EVersion.current, pqSupport: pq) } catch {
                throw AgentError.internalError("ratchet keys: \(error)")
            }
            _ = try self.enqueueRatchetKey(db, connId: connId, own.publicParams)
            try db.setRatchetSyncState(connId, .started)
            try db.setRatchetSyncKeys(connId, try own.encoded())
            return try self.connectionStats(db, connId)
        }
        wake(connId)
        return stats
    }

    /// The connection's queues and ratchet state.
    public func connectionStats(connId: String) throws(AgentError) -> ConnectionStats {
        try store.read { db in try self.connectionStats(db, connId) }
    }

    func connectionStats(_ db: Database, _ connId: String) throws -> ConnectionStats {
        guard let conn = try db.connectionRecord(connId) else { throw AgentError.connection(.notFound, connId) }
        let rqs = try db.rcvQueueStatRows(connId)
        let sqs = try db.sndQueueStatRows(connId)
        return ConnectionStats(
            connAgentVersion: UInt16(conn.agentVersion),
            rcvQueuesInfo: rqs.map { r in
                let server: String = r["server"]
                let sub: QueueSubscriptionStatus = resubscribing[server] != nil ? .pending : clients[server] != nil ? .active : .noSub
                let swch = (r["switch_status"] as String?).flatMap(RcvSwitchStatus.init(rawValue:))
                return RcvQueueInfo(rcvServer: server, status: r["status"], rcvSwitchStatus: swch, subStatus: sub)
            },
            sndQueuesInfo: sqs.map {
                SndQueueInfo(sndServer: $0["server"], status: $0["status"], sndSwitchStatus: ($0["switch_status"] as String?).flatMap(SndSwitchStatus.init(rawValue:)))
            },
            ratchetSyncState: conn.ratchetSyncState,
            ratchetSyncSupported: conn.agentVersion >= Int(AgentVersion.ratchetSync))
    }

    /// simplexmq `enqueueRatchetKey`: the keys travel in an AgentRatchetKey envelope whose info is
    /// `AgentRatchetInfo ""`; the message takes the next sender ID and joins the hash chain.
    func enqueueRatchetKey(_ db: Database, connId: String, _ params: E2ERatchetParams) throws -> Int64 {
        let info = try AgentMessage.ratchetInfo([]).smpEncoded()
        let envelope = try AgentMsgEnvelope.ratchetKey(agentVersion: config.agentVersions.max, e2eParams: params, info: info).smpEncoded()
        return try storeSndMessage(db, connId: connId, type: .ratchetKey, plain: info, envelope: envelope)
    }

    /// simplexmq `newRatchetKey`: the peer's new keys. A repeated delivery of the same keys is
    /// ignored. Unless we started the exchange, we answer with our own keys; the ratchet is then
    /// recreated, and the side whose key hash is greater becomes the sender and sends EREADY.
    func ratchetKeyReceived(_ rq: RcvQueueRecord, _ peer: E2ERatchetParams) throws(AgentError) -> SMPAgent.ReceiveOutcome {
        let connId = rq.connId
        guard try store.read({ db in try db.isDuplex(connId) }) else {
            throw .agent(.queue("AgentRatchetKey: message must be sent to duplex connection"))
        }
        let peerHash = Self.ratchetKeyHash(peer.key1, peer.key2)
        // The same keys never count twice. The hash is recorded with the outcome (in its
        // transaction), so a message whose processing hit a database error is processed again.
        if try store.read({ db in try db.ratchetKeyHashExists(connId, peerHash) }) { return (.ack, [], nil) }
        func record(_ db: Database) throws {
            try db.recordRatchetKeyHash(connId, peerHash, at: Date().timeIntervalSince1970)
        }
        guard E2EVersion.supported.contains(peer.version) else {
            try write { db in try record(db) }
            throw .agent(.version)
        }
        let events = try write { db -> [AgentEventKind] in
            try record(db)
            guard let conn = try db.connectionRecord(connId) else { throw AgentError.connection(.notFound, connId) }
            let own: E2EPrivateParams
            switch conn.ratchetSyncState {
            case .ok, .allowed, .required:
                // The peer started: answer with our keys (at the peer's version).
                do { own = try PQRatchet.generateParams(version: peer.version, useKEM: conn.pqSupport ? .propose : nil) } catch {
                    throw AgentError.internalError("ratchet keys: \(error)")
                }
                _ = try self.enqueueRatchetKey(db, connId: connId, own.publicParams)
            case .started:
                guard let stored = try db.ratchetSyncKeys(connId) else {
                    throw AgentError.internalError("ratchet sync keys not found")
                }
                do { own = try E2EPrivateParams(encoded: [UInt8](stored)) } catch { throw AgentError.store("ratchet sync keys: \(error)") }
            case .agreed:
                // Keys after the ratchet was agreed: this side needs a new exchange.
                return []
            }
            let versions = RatchetVersions(current: peer.version, maxSupported: E2EVersion.current)
            let ownHash = Self.ratchetKeyHash(own.key1.publicKey, own.key2.publicKey)
            let ratchet: PQRatchet
            var sendsReady = false
            do {
                if ownHash.lexicographicallyPrecedes(peerHash) || ownHash == peerHash {
                    let params = try PQRatchet.pqX3dhRcv(own, peer)
                    ratchet = try PQRatchet.initReceive(versions: versions, dhRatchetKey: own.key2, params: params, pqSupport: conn.pqSupport)
                } else {
                    let params = try PQRatchet.pqX3dhSnd(own, peer)
                    ratchet = try PQRatchet.initSend(versions: versions, peerRatchetKey: peer.key2, dhRatchetKey: X448PrivateKey(), params: params)
                    sendsReady = true
                }
            } catch let e as RatchetError {
                throw AgentError.ratchet(e)
            }
            try self.saveRatchet(in: db, connId, ratchet)
            try db.setRatchetSyncKeys(connId, nil)
            try db.setRatchetSyncState(connId, .agreed)
            if sendsReady {
                _ = try self.enqueue(db, connId: connId, .eReady(conn.lastExternalSndMsgId), type: .eReady)
            }
            return [.rsync(.agreed, nil, try self.connectionStats(db, connId))]
        }
        if events.isEmpty {
            // State `agreed`: simplexmq marks the connection `required`, reports RSYNC and fails
            // the message with A_CRYPTO RATCHET_SYNC.
            let stats = try write { db -> ConnectionStats in
                try db.setRatchetSyncState(connId, .required)
                return try self.connectionStats(db, connId)
            }
            emit(connId, .rsync(.required, .ratchetSync, stats))
            throw .agent(.crypto(.ratchetSync))
        }
        return (.ack, events, { await self.wake(connId) })
    }

    /// simplexmq `notifySync`: a message the ratchet could not decrypt moves an in-sync (or
    /// already failing) connection to `allowed` or `required`; during a re-synchronization such
    /// errors are expected (messages of the old ratchet) and ignored.
    func decryptionFailed(_ rq: RcvQueueRecord, _ error: AgentCryptoError) throws(AgentError) -> SMPAgent.ReceiveOutcome {
        let connId = rq.connId
        let events = try write { db -> [AgentEventKind] in
            guard let conn = try db.connectionRecord(connId) else { throw AgentError.connection(.notFound, connId) }
            guard try db.isDuplex(connId) else {
                throw AgentError.agent(.queue("AGENT A_CRYPTO error: message must be sent to duplex connection"))
            }
            guard [.ok, .allowed, .required].contains(conn.ratchetSyncState) else { return [] }
            let state = error.syncState
            try db.setRatchetSyncState(connId, state)
            return [.rsync(state, error, try self.connectionStats(db, connId))]
        }
        return (.ack, events, nil)
    }

    /// simplexmq `resetRatchetSync`: any message the ratchet decrypts ends a failure state (and
    /// completes an agreed re-synchronization); called inside the message's transaction.
    func ratchetSyncAfterDecrypt(_ db: Database, _ conn: inout ConnectionRecord) throws -> AgentEventKind? {
        guard conn.ratchetSyncState != .ok, conn.ratchetSyncState != .started else { return nil }
        conn.ratchetSyncState = .ok
        try db.setRatchetSyncState(conn.connId, .ok)
        return .rsync(.ok, nil, try connectionStats(db, conn.connId))
    }

    /// `rkHash`: SHA-256 of the two raw X448 public keys, the order of the two sides.
    static func ratchetKeyHash(_ k1: X448PublicKey, _ k2: X448PublicKey) -> [UInt8] {
        CryptoHash.sha256(k1.rawRepresentation + k2.rawRepresentation)
    }
}
