import GRDB

/// Agent connections the chat no longer uses but the agent still has: deleting a contact,
/// address or member while the chat is stopped (or while the agent failed) leaves them here,
/// and starting the chat deletes them (with their relay queues) before anything else.
struct PendingAgentDeletion: Equatable {
    var agentConnId: String
    var deleteQueues: Bool
}

extension Database {
    func rememberAgentDeletion(_ agentConnId: String, deleteQueues: Bool, at now: Double) throws {
        try cachedStatement(sql: """
            INSERT INTO pending_agent_deletions (agent_conn_id, delete_queues, created_at) VALUES (?, ?, ?)
            ON CONFLICT (agent_conn_id) DO UPDATE SET delete_queues = max(delete_queues, excluded.delete_queues)
            """).execute(arguments: [agentConnId, deleteQueues, now])
    }

    func pendingAgentDeletions() throws -> [PendingAgentDeletion] {
        try Row.fetchAll(cachedStatement(sql: "SELECT agent_conn_id, delete_queues FROM pending_agent_deletions ORDER BY created_at")).map {
            PendingAgentDeletion(agentConnId: $0[0], deleteQueues: $0[1])
        }
    }

    func forgetAgentDeletion(_ agentConnId: String) throws {
        try cachedStatement(sql: "DELETE FROM pending_agent_deletions WHERE agent_conn_id = ?").execute(arguments: [agentConnId])
    }
}
