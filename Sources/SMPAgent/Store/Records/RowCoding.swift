import Foundation
import GRDB
import SimplexStore

// Hand-written row decoding and encoding for the records read and written on every message.
// GRDB's Codable path converts each column name between snake_case and camelCase per row, which
// cost more than the SQL itself. Decoding is by column index: these records are always fetched
// with `SELECT *`, whose order is the table's, and migrations only ever append columns. The same
// decoder reads a GRDB `Row` and, on the per-message queries (`Database.one`), the statement's
// current row without making a `Row` (StatementColumns).

extension ConnectionRecord {
    init(row: Row) throws { self.init(columns: row) }

    init(columns row: some ColumnReading) {
        connId = row[0]
        connMode = row[1]
        initiator = row[2]
        status = ConnectionStatus(rawValue: row[3]) ?? .new
        agentVersion = row[4]
        pqSupport = row[5]
        userId = row[6]
        lastInternalMsgId = row[7]
        lastSndMsgId = row[8]
        lastSndMsgHash = row[9]
        lastExternalSndMsgId = row[10]
        lastRcvMsgHash = row[11]
        ownLink = row[12]
        createdAt = row[13]
        ratchetSyncState = RatchetSyncState(rawValue: row[14]) ?? .ok
    }

    func encode(to c: inout PersistenceContainer) throws {
        c["conn_id"] = connId
        c["conn_mode"] = connMode
        c["initiator"] = initiator
        c["status"] = status.rawValue
        c["agent_version"] = agentVersion
        c["pq_support"] = pqSupport
        c["user_id"] = userId
        c["last_internal_msg_id"] = lastInternalMsgId
        c["last_snd_msg_id"] = lastSndMsgId
        c["last_snd_msg_hash"] = lastSndMsgHash
        c["last_external_snd_msg_id"] = lastExternalSndMsgId
        c["last_rcv_msg_hash"] = lastRcvMsgHash
        c["own_link"] = ownLink
        c["created_at"] = createdAt
        c["ratchet_sync_state"] = ratchetSyncState.rawValue
    }
}

extension RcvQueueRecord {
    init(row: Row) throws { self.init(columns: row) }

    init(columns row: some ColumnReading) {
        rcvQueueId = row[0]
        connId = row[1]
        server = row[2]
        rcvId = row[3]
        sndId = row[4]
        rcvPrivateKey = row[5]
        rcvDhSecret = row[6]
        e2ePrivateKey = row[7]
        e2eDhSecret = row[8]
        sndKey = row[9]
        sndSecure = row[10]
        status = QueueStatus(rawValue: row[11]) ?? .new
        smpClientVersion = row[12]
        primaryQueue = row[13]
        replaceRcvQueueId = row[14]
        switchStatus = row[15]
    }
}

extension SndQueueRecord {
    init(row: Row) throws { self.init(columns: row) }

    init(columns row: some ColumnReading) {
        sndQueueId = row[0]
        connId = row[1]
        server = row[2]
        sndId = row[3]
        sndPrivateKey = row[4]
        e2ePrivateKey = row[5]
        e2eDhSecret = row[6]
        sndSecure = row[7]
        status = QueueStatus(rawValue: row[8]) ?? .new
        smpClientVersion = row[9]
        primaryQueue = row[10]
        replaceSndQueueId = row[11]
        switchStatus = row[12]
    }
}

extension SndMessageRecord {
    init(row: Row) throws { self.init(columns: row) }

    init(columns row: some ColumnReading) {
        connId = row[0]
        internalId = row[1]
        internalSndId = row[2]
        msgType = SndMessageType(rawValue: row[3]) ?? .message
        msgHash = row[4]
        envelope = row[5]
        status = SndMessageStatus(rawValue: row[6]) ?? .pending
        createdAt = row[7]
        sndQueueId = row[8]
        prepared = row[9]
    }

    func encode(to c: inout PersistenceContainer) throws {
        c["conn_id"] = connId
        c["internal_id"] = internalId
        c["internal_snd_id"] = internalSndId
        c["msg_type"] = msgType.rawValue
        c["msg_hash"] = msgHash
        c["envelope"] = envelope
        c["status"] = status.rawValue
        c["created_at"] = createdAt
        c["snd_queue_id"] = sndQueueId
        c["prepared"] = prepared
    }
}

extension RcvMessageRecord {
    init(row: Row) throws { self.init(columns: row) }

    init(columns row: some ColumnReading) {
        connId = row[0]
        internalId = row[1]
        externalSndId = row[2]
        brokerId = row[3]
        brokerTs = row[4]
        msgHash = row[5]
        body = row[6]
        integrity = row[7]
        pqEncryption = row[8]
        userAck = row[9]
        rcvQueueId = row[10]
    }

    func encode(to c: inout PersistenceContainer) throws {
        c["conn_id"] = connId
        c["internal_id"] = internalId
        c["external_snd_id"] = externalSndId
        c["broker_id"] = brokerId
        c["broker_ts"] = brokerTs
        c["msg_hash"] = msgHash
        c["body"] = body
        c["integrity"] = integrity
        c["pq_encryption"] = pqEncryption
        c["user_ack"] = userAck
        c["rcv_queue_id"] = rcvQueueId
    }
}
