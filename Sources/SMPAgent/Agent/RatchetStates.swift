import DoubleRatchet
import Synchronization

/// Committed ratchet states by connection, shared by the agent's actor and its receive lanes
/// (ReceiveLanes). Entries change only while the database is held: a committed state is
/// published inside the same database access as its COMMIT, and a state loaded from the file is
/// added inside the read, so a transaction always sees the state its own snapshot has.
/// Each change counts: a decryption made on a snapshot is kept only while its count stands.
final class RatchetStates: Sendable {
    private struct State {
        var cache: [String: PQRatchet] = [:]
        var changedAt: [String: UInt64] = [:]
        var changes: UInt64 = 0
    }

    private let state = Mutex(State())

    func cached(_ connId: String) -> PQRatchet? {
        state.withLock { $0.cache[connId] }
    }

    /// The cached state, if any, and the count of its last change.
    func snapshot(_ connId: String) -> (ratchet: PQRatchet?, epoch: UInt64) {
        state.withLock { ($0.cache[connId], $0.changedAt[connId] ?? 0) }
    }

    func epoch(_ connId: String) -> UInt64 {
        state.withLock { $0.changedAt[connId] ?? 0 }
    }

    /// A state read from the database: the same state, so nothing changed.
    func fill(_ connId: String, _ r: PQRatchet) {
        state.withLock { $0.cache[connId] = r }
    }

    /// A state just committed.
    func publish(_ connId: String, _ r: PQRatchet) {
        state.withLock { s in
            s.cache[connId] = r
            s.changes &+= 1
            s.changedAt[connId] = s.changes
        }
    }

    /// Forgets a state (its transaction failed): read again from the database when next needed.
    func drop(_ connId: String) {
        state.withLock { s in
            s.cache[connId] = nil
            s.changes &+= 1
            s.changedAt[connId] = s.changes
        }
    }
}
