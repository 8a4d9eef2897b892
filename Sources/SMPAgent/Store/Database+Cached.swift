import GRDB
import SimplexStore

/// Hot-path SQL through SQLite's prepared-statement cache: compiling a statement (with GRDB's
/// authorizer reading every column) cost more per message than running it.
extension Database {
    func run(_ sql: String, _ arguments: StatementArguments = []) throws {
        try cachedStatement(sql: sql).execute(arguments: arguments)
    }

    /// The first row as a record, read from the statement without a GRDB `Row` (whose per-query
    /// set-up and cursor cost more than the agent's lookups themselves: agent-bench profile).
    func one<R: ColumnDecodable>(_ type: R.Type, _ sql: String, _ arguments: StatementArguments = []) throws -> R? {
        try firstRow(sql, arguments) { R(columns: $0) }
    }

    func connectionRecord(_ connId: String) throws -> ConnectionRecord? {
        try one(ConnectionRecord.self, "SELECT * FROM connections WHERE conn_id = ?", [connId])
    }
}

extension Database {
    /// Saves the message counters and hash chain of a connection (the only fields that change
    /// per message).
    func saveCounters(_ c: ConnectionRecord) throws {
        try run("""
            UPDATE connections SET last_internal_msg_id = ?, last_snd_msg_id = ?, last_snd_msg_hash = ?,
              last_external_snd_msg_id = ?, last_rcv_msg_hash = ? WHERE conn_id = ?
            """, [c.lastInternalMsgId, c.lastSndMsgId, c.lastSndMsgHash, c.lastExternalSndMsgId, c.lastRcvMsgHash, c.connId])
    }

    func insertSndMessage(_ m: SndMessageRecord) throws {
        try run("""
            INSERT INTO snd_messages (conn_id, internal_id, internal_snd_id, msg_type, msg_hash, envelope, status, created_at, snd_queue_id, prepared)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [m.connId, m.internalId, m.internalSndId, m.msgType.rawValue, m.msgHash, m.envelope, m.status.rawValue, m.createdAt, m.sndQueueId,
                  m.prepared])
    }

    func insertRcvMessage(_ m: RcvMessageRecord) throws {
        try run("""
            INSERT INTO rcv_messages (conn_id, internal_id, external_snd_id, broker_id, broker_ts, msg_hash, body, integrity, pq_encryption, user_ack,
              rcv_queue_id)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [m.connId, m.internalId, m.externalSndId, m.brokerId, m.brokerTs, m.msgHash, m.body, m.integrity, m.pqEncryption, m.userAck,
                  m.rcvQueueId])
    }
}

/// A record read by column index (Records/RowCoding.swift), from a `Row` or a statement's current row.
protocol ColumnDecodable {
    init(columns: some ColumnReading)
}

extension ConnectionRecord: ColumnDecodable {}
extension RcvQueueRecord: ColumnDecodable {}
extension SndQueueRecord: ColumnDecodable {}
extension SndMessageRecord: ColumnDecodable {}
extension RcvMessageRecord: ColumnDecodable {}
