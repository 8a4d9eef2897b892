import Foundation

/// ackMessage needs the message's broker id and the queue it came on; for a message received
/// in this run both are known when it is stored, so the acknowledgement skips a read. The
/// database stays the source of truth: an entry is added only after its transaction
/// committed, taken once (the first ackMessage), and a connection's entries go whenever its
/// receiving queues are deleted (the ACK then finds no queue, as the database says).
struct UnackedKey: Hashable {
    let connId: String
    let internalId: Int64
}

extension SMPAgent {
    /// Entries kept at most: a layer above that acknowledges late (or never) costs reads, not memory.
    static let unackedLimit = 4096

    func rememberUnacked(_ m: RcvMessageRecord, _ rq: RcvQueueRecord) {
        if unacked.count >= Self.unackedLimit { unacked.removeAll(keepingCapacity: true) }
        unacked[UnackedKey(connId: m.connId, internalId: m.internalId)] = (m, rq)
    }

    func takeUnacked(_ connId: String, _ internalId: Int64) -> (message: RcvMessageRecord, queue: RcvQueueRecord)? {
        unacked.removeValue(forKey: UnackedKey(connId: connId, internalId: internalId))
    }

    /// The connection's receiving queues changed (a switch deleted one, or the connection goes).
    func forgetUnacked(_ connId: String) {
        guard !unacked.isEmpty else { return }
        unacked = unacked.filter { $0.key.connId != connId }
    }
}
