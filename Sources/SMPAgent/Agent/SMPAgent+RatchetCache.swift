import DoubleRatchet
import Foundation
import GRDB

/// Ratchet states stay in memory between messages: rebuilding one from its serialized form
/// costs ~200 µs (its X448 keys are re-derived), more than the encryption itself. The database
/// stays the source of truth: a state enters the cache (`RatchetStates`) only when its
/// transaction committed, published before the database is released.
extension SMPAgent {
    /// A write transaction that also publishes the ratchet states it saved, or drops them (and
    /// any cached copy) when it fails.
    func write<T>(_ body: (Database) throws -> T) throws(AgentError) -> T {
        do {
            return try finishWrite(store.write({ db in try startWrite(db, body) }, committed: publishPendingRatchets))
        } catch {
            dropPendingRatchets()
            throw error
        }
    }

    /// `write` that waits for the database suspended (the actor runs other work meanwhile):
    /// the transaction itself still runs on the actor, with nothing else in between.
    func writeAsync<T>(_ body: (Database) throws -> T) async throws(AgentError) -> T {
        do {
            return try finishWrite(await store.writeAsync({ db in try startWrite(db, body) }, committed: publishPendingRatchets))
        } catch {
            dropPendingRatchets()
            throw error
        }
    }

    /// Inside the transaction, so states of another transaction waiting for the database are not mixed in.
    private func startWrite<T>(_ db: Database, _ body: (Database) throws -> T) throws -> T {
        ratchetPending.removeAll()
        return try body(db)
    }

    private func publishPendingRatchets() {
        for (connId, r) in ratchetPending { ratchets.publish(connId, r) }
    }

    private func finishWrite<T>(_ result: T) -> T {
        ratchetPending.removeAll()
        return result
    }

    private func dropPendingRatchets() {
        for connId in ratchetPending.keys { ratchets.drop(connId) }
        ratchetPending.removeAll()
    }

    /// The connection's ratchet as of this transaction.
    func ratchet(in db: Database, _ connId: String) throws -> PQRatchet {
        if let r = ratchetPending[connId] ?? ratchets.cached(connId) { return r }
        return try Self.loadRatchet(db, connId, into: ratchets)
    }

    /// Reads and caches a state, in the caller's database access (see `RatchetStates`).
    nonisolated static func loadRatchet(_ db: Database, _ connId: String, into ratchets: RatchetStates) throws -> PQRatchet {
        guard let state = try db.ratchetRecord(connId)?.ratchetState else {
            throw AgentError.internalError("no ratchet for \(connId)")
        }
        let r = try PQRatchet(serialized: [UInt8](state))
        ratchets.fill(connId, r)
        return r
    }

    /// Stores the new state in this transaction; it reaches the cache if the transaction commits.
    /// `serialized`: `r` as stored, when the caller has it already.
    func saveRatchet(in db: Database, _ connId: String, _ r: PQRatchet, serialized: Data? = nil) throws {
        try db.saveRatchetState(connId, try serialized ?? Data(try r.serialized()))
        ratchetPending[connId] = r
    }
}
