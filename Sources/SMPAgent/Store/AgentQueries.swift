import GRDB

/// Agent queries named for what they answer, so the agent's logic holds no SQL.
extension Database {
    /// Connections with messages still waiting to be sent (resumed at start).
    func connIdsWithPendingMessages() throws -> [String] {
        try String.fetchAll(self, sql: """
            SELECT DISTINCT conn_id FROM snd_messages WHERE status = 'pending'
            UNION SELECT DISTINCT conn_id FROM pending_receipts
            """)
    }

    /// Connections whose queue was confirmed with a sender key but not yet secured (resumed at start).
    func connIdsToSecure() throws -> [String] {
        try String.fetchAll(self, sql: "SELECT conn_id FROM rcv_queues WHERE status = 'confirmed' AND snd_key IS NOT NULL AND replace_rcv_queue_id IS NULL")
    }

    /// Connections whose new queue of a switch got the sender's key (QKEY) but is not secured yet (resumed at start).
    func connIdsToSecureSwitch() throws -> [String] {
        try String.fetchAll(self, sql: "SELECT conn_id FROM rcv_queues WHERE status = 'confirmed' AND snd_key IS NOT NULL AND replace_rcv_queue_id IS NOT NULL")
    }

    func allConnIds() throws -> [String] {
        try String.fetchAll(self, sql: "SELECT conn_id FROM connections ORDER BY created_at")
    }

    /// Connections with a receiving queue on this relay.
    func connIds(onServer server: String) throws -> [String] {
        try String.fetchAll(self, sql: "SELECT DISTINCT conn_id FROM rcv_queues WHERE server = ?", arguments: [server])
    }

    func connectionUserId(_ connId: String) throws -> Int64? {
        try Int64.fetchOne(self, sql: "SELECT user_id FROM connections WHERE conn_id = ?", arguments: [connId])
    }

    func pendingMessageCount(_ connId: String) throws -> Int {
        try Int.fetchOne(self, sql: "SELECT count(*) FROM snd_messages WHERE conn_id = ? AND status = 'pending'", arguments: [connId]) ?? 0
    }

    func sndQueueStatus(_ connId: String) throws -> String? {
        try String.fetchOne(cachedStatement(sql: "SELECT status FROM snd_queues WHERE conn_id = ?"), arguments: [connId])
    }
}
