import DoubleRatchet
import Foundation
import GRDB

/// Ratchet states stay in memory between messages: rebuilding one from its serialized form
/// costs ~200 µs (its X448 keys are re-derived), more than the encryption itself. The database
/// stays the source of truth: a state enters the cache only when its transaction committed.
extension SMPAgent {
    /// A write transaction that also publishes the ratchet states it saved, or drops them (and
    /// any cached copy) when it fails.
    func write<T>(_ body: (Database) throws -> T) throws(AgentError) -> T {
        ratchetPending.removeAll()
        do {
            let result = try store.write(body)
            for (connId, r) in ratchetPending { ratchetCache[connId] = r }
            ratchetPending.removeAll()
            return result
        } catch {
            for connId in ratchetPending.keys { ratchetCache[connId] = nil }
            ratchetPending.removeAll()
            throw error
        }
    }

    /// The connection's ratchet as of this transaction.
    func ratchet(in db: Database, _ connId: String) throws -> PQRatchet {
        if let r = ratchetPending[connId] ?? ratchetCache[connId] { return r }
        guard let state = try db.ratchetRecord(connId)?.ratchetState else {
            throw AgentError.internalError("no ratchet for \(connId)")
        }
        let r = try PQRatchet(serialized: [UInt8](state))
        ratchetCache[connId] = r
        return r
    }

    /// Stores the new state in this transaction; it reaches the cache if the transaction commits.
    func saveRatchet(in db: Database, _ connId: String, _ r: PQRatchet) throws {
        try db.saveRatchetState(connId, Data(try r.serialized()))
        ratchetPending[connId] = r
    }
}
