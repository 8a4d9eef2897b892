import Foundation
import SMPAgent

/// Deleting agent connections whether or not the agent runs (issue 14: a deletion while the
/// chat is stopped must not leave the connection and its relay queues behind).
extension ChatController {
    /// Deletes the agent connections now when the agent runs; otherwise (or when the agent
    /// fails) remembers them, and the next start deletes them.
    func deleteAgentConnections(_ ids: [String], waitForDelivery: Double = 0, deleteQueues: Bool = true) async throws(ChatError) {
        guard !ids.isEmpty else { return }
        guard let agent else {
            try store.write { db in
                for id in ids { try db.rememberAgentDeletion(id, deleteQueues: deleteQueues, at: Self.now) }
            }
            return
        }
        for id in ids {
            do {
                try await agent.deleteConnection(connId: id, waitForDelivery: waitForDelivery, deleteQueues: deleteQueues)
            } catch {
                // Already gone at the agent: nothing left to do.
                if case .connection(.notFound, _) = error { continue }
                try store.write { db in try db.rememberAgentDeletion(id, deleteQueues: deleteQueues, at: Self.now) }
                emit(.chatError(chatError: Self.agentError(error, connId: id)))
            }
        }
    }

    /// Deletions left from while the agent was not running, done when it starts.
    func resumeAgentDeletions(_ agent: SMPAgent) async {
        let pending: [PendingAgentDeletion]
        do { pending = try store.read { db in try db.pendingAgentDeletions() } } catch {
            emit(.chatError(chatError: error))
            return
        }
        for p in pending {
            do {
                try await agent.deleteConnection(connId: p.agentConnId, deleteQueues: p.deleteQueues)
            } catch {
                if case .connection(.notFound, _) = error {} else {
                    emit(.chatError(chatError: Self.agentError(error, connId: p.agentConnId)))
                    continue
                }
            }
            do { try store.write { db in try db.forgetAgentDeletion(p.agentConnId) } } catch { emit(.chatError(chatError: error)) }
        }
    }
}
