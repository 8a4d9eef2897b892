import Foundation
import GRDB

/// A change whose loss in a crash costs only a repeat the protocol already tolerates, so it
/// need not commit on its own: it rides in the next write transaction of the agent's database
/// (any connection's), or is flushed after `AgentConfig.deferredWriteDelay`, or on close
/// (docs/protocol-notes.md, Agent, "Deferred writes").
enum DeferredWrite: Sendable, Equatable {
    /// The layer above acknowledged a received message (`user_ack`): lost, a redelivery of the
    /// message reaches the layer above again, which drops the duplicate.
    case rcvAcknowledged(connId: String, internalId: Int64)
    /// The relay accepted a message (status `sent`, prepared form cleared): lost, the message is
    /// sent again after a restart, and the peer's ratchet refuses the repeat as a duplicate.
    case sndSent(connId: String, internalId: Int64)
    /// A delivery receipt waiting for the connection's next A_RCVD: lost, the sender does not
    /// learn that this message arrived.
    case receipt(connId: String, AMessageReceipt)
}

/// What waits to be written, and which deferred changes the queries must account for until it is.
struct DeferredWriteState: Sendable {
    private(set) var writes: [DeferredWrite] = []
    /// The acknowledgements among `writes`, for the per-message lookup.
    private(set) var acknowledged: Set<MessageKey> = []
    /// The highest message id of each connection marked sent while its mark waits (or since):
    /// messages go out in order, so the next to send is past it.
    var lastSent: [String: Int64] = [:]
    var flushScheduled = false
    var closed = false

    struct MessageKey: Hashable, Sendable {
        let connId: String
        let internalId: Int64
    }

    /// Adds changes, after those waiting or (a failed transaction's, back) before them.
    mutating func add(_ new: [DeferredWrite], first: Bool = false) {
        if first { writes.insert(contentsOf: new, at: 0) } else { writes.append(contentsOf: new) }
        for w in new {
            switch w {
            case .rcvAcknowledged(let connId, let id): acknowledged.insert(MessageKey(connId: connId, internalId: id))
            case .sndSent(let connId, let id): lastSent[connId] = max(lastSent[connId] ?? 0, id)
            case .receipt: break
            }
        }
    }

    /// Everything waiting, for a transaction to write.
    mutating func take() -> [DeferredWrite] {
        defer {
            writes.removeAll(keepingCapacity: true)
            acknowledged.removeAll(keepingCapacity: true)
        }
        return writes
    }
}

extension Database {
    /// Applies deferred changes in the caller's transaction. A change that no longer applies (its
    /// connection was deleted meanwhile) changes nothing and fails nothing; an error that ended
    /// the transaction itself (SQLITE_FULL, IOERR) fails it, so nothing after runs outside it.
    func applyDeferredWrites(_ writes: [DeferredWrite]) throws {
        for w in writes {
            switch w {
            case .rcvAcknowledged(let connId, let id):
                try? markRcvMessageAcknowledged(connId, internalId: id)
            case .sndSent(let connId, let id):
                try? markSndMessageSent(connId, internalId: id)
            case .receipt(let connId, let r):
                try? insertPendingReceiptIfConnected(connId, r)
            }
        }
        guard isInsideTransaction else { throw DatabaseError(resultCode: .SQLITE_ABORT, message: "deferred writes: transaction ended") }
    }
}
