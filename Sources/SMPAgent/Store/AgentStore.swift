import Foundation
import GRDB
import NIOConcurrencyHelpers
import SimplexStore

/// The agent's own SQLite file (seed 002 §4: the agent database beside the chat database).
/// One serialized connection in WAL mode; every state change of the protocol is one transaction.
final class AgentStore: Sendable {
    let dbQueue: DatabaseQueue
    let path: String
    /// Every access goes through it: async callers wait suspended instead of parking a pool thread.
    private let gate = AccessGate()
    /// WAL checkpoints off the committing thread (their fsyncs would park a pool thread).
    private let checkpoints: BackgroundCheckpoint
    /// Changes waiting for the next write transaction (DeferredWrites.swift).
    private let deferred = NIOLockedValueBox(DeferredWriteState())
    /// Seconds a deferred change waits for another transaction before it gets one of its own.
    let deferredWriteDelay: Double
    /// Write transactions committed (for tests and benchmarks: commits per message).
    private let commits = NIOLockedValueBox(0)
    var committedWrites: Int { commits.withLockedValue { $0 } }
    /// Database pages written by commits (WAL frames), for benchmarks.
    var pagesWritten: Int { checkpoints.framesWritten }

    /// Opens (creating if needed) and migrates the database at `path`, sealed with `key` when it
    /// is not empty (the chat database's passphrase: SimpleX keys both files alike).
    init(path: String, key: String = "", deferredWriteDelay: Double = 1) throws(AgentError) {
        self.path = path
        self.deferredWriteDelay = deferredWriteDelay
        var config = Configuration()
        DatabaseEncryption.configure(&config, key: key)
        config.foreignKeysEnabled = true
        config.busyMode = .timeout(10)
        let checkpoints = BackgroundCheckpoint()
        self.checkpoints = checkpoints
        config.prepareDatabase { db in
            // WAL with NORMAL sync survives a killed process (not a power cut), which is the
            // guarantee the agent gives; the relay keeps messages until we ACK them anyway.
            try db.execute(sql: "PRAGMA locking_mode = EXCLUSIVE")
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            checkpoints.install(on: db)
        }
        do {
            dbQueue = try DatabaseQueue(path: path, configuration: config)
            try AgentMigrations.migrator.migrate(dbQueue)
        } catch {
            throw .store("cannot open agent database \(path): \(error)")
        }
    }

    /// Migrations applied to this file, in order.
    func appliedMigrations() throws(AgentError) -> [String] {
        try read { db in try AgentMigrations.migrator.appliedMigrations(db) }
    }

    /// Reads without GRDB's read-only guard: toggling `PRAGMA query_only` expires every prepared
    /// statement, so the statement cache would be recompiled on each read (60% of the agent's
    /// CPU when measured).
    func read<T>(_ body: (Database) throws -> T) throws(AgentError) -> T {
        do { return try gate.withBlockingAccess { try dbQueue.inDatabase(body) } } catch { throw AgentError.wrapStore(error) }
    }

    /// `read` for async callers: while the database is busy the task waits without its thread.
    func readAsync<T>(isolation: isolated (any Actor)? = #isolation, _ body: (Database) throws -> T) async throws(AgentError) -> T {
        do { return try await gate.withAccess { try dbQueue.inDatabase(body) } } catch { throw AgentError.wrapStore(error) }
    }

    /// One IMMEDIATE transaction, as GRDB's `write`, but BEGIN and COMMIT come from the statement
    /// cache: GRDB compiles both (with its authorizer) on every transaction, 2-3% of agent-bench's
    /// CPU when profiled. Any error rolls the transaction back.
    /// `committed` runs after the COMMIT, before the database is released (RatchetStates).
    /// Deferred changes go first in the transaction; if it fails they wait for the next one.
    func write<T>(_ body: (Database) throws -> T, committed: () -> Void = {}) throws(AgentError) -> T {
        defer { checkpointIfDue() }
        return try gate.withBlockingAccess { () throws(AgentError) -> T in try transaction(body, committed: committed) }
    }

    /// `write` for async callers: while the database is busy the task waits without its thread.
    func writeAsync<T>(isolation: isolated (any Actor)? = #isolation, _ body: (Database) throws -> T,
                       committed: () -> Void = {}) async throws(AgentError) -> T {
        defer { checkpointIfDue() }
        return try await gate.withAccess { () throws(AgentError) -> T in try transaction(body, committed: committed) }
    }

    /// Schedules the WAL checkpoint a commit found due, on its own thread.
    private func checkpointIfDue() {
        checkpoints.scheduleIfDue { [self] checkpoint in
            gate.withBlockingAccess {
                // A store closed meanwhile has nothing to checkpoint (SQLite did it on close).
                guard !deferred.withLockedValue({ $0.closed }) else { return }
                try? dbQueue.inDatabase(checkpoint)
            }
        }
    }

    private func transaction<T>(_ body: (Database) throws -> T, committed: () -> Void) throws(AgentError) -> T {
        let pending = deferred.withLockedValue { $0.take() }
        do {
            return try dbQueue.immediateTransaction({ db in
                if !pending.isEmpty { try db.applyDeferredWrites(pending) }
                return try body(db)
            }, committed: {
                commits.withLockedValue { $0 += 1 }
                committed()
            })
        } catch {
            if !pending.isEmpty { deferWrites(pending, first: true) }
            throw AgentError.wrapStore(error)
        }
    }

    /// Writes what waits now (the delay's transaction, and the last one before closing).
    func flushDeferredWrites() {
        let pending = deferred.withLockedValue { d -> Bool in
            d.flushScheduled = false
            return !d.writes.isEmpty
        }
        if pending { _ = try? write { _ in } }
    }

    /// The highest id of the connection's messages marked sent in this run, whose mark may still
    /// wait: the connection's next message to send comes after it.
    func lastMarkedSent(_ connId: String) -> Int64? {
        deferred.withLockedValue { $0.lastSent[connId] }
    }

    /// Changes waiting to be written (for tests).
    var deferredWriteCount: Int { deferred.withLockedValue { $0.writes.count } }

    /// Whether the acknowledgement of this received message waits to be written.
    func isAcknowledgementDeferred(_ connId: String, internalId: Int64) -> Bool {
        deferred.withLockedValue { $0.acknowledged.contains(.init(connId: connId, internalId: internalId)) }
    }

    /// Whether receipts of the connection wait to be written (they count as pending receipts).
    func hasDeferredReceipts(_ connId: String) -> Bool {
        deferred.withLockedValue { d in
            d.writes.contains { if case .receipt(connId, _) = $0 { true } else { false } }
        }
    }

    /// Queues changes for the next write transaction (a failed transaction's go back first); one
    /// is started after `deferredWriteDelay` if none comes first.
    func deferWrites(_ writes: [DeferredWrite], first: Bool = false) {
        guard !writes.isEmpty else { return }
        let schedule = deferred.withLockedValue { d -> Bool in
            guard !d.closed else { return false }
            d.add(writes, first: first)
            guard !d.flushScheduled else { return false }
            d.flushScheduled = true
            return true
        }
        if schedule { scheduleFlush() }
    }

    private func scheduleFlush() {
        DispatchQueue.global().asyncAfter(deadline: .now() + deferredWriteDelay) { [weak self] in
            self?.flushDeferredWrites()
        }
    }

    /// Writes what is deferred, then closes: a clean stop loses nothing.
    func close() {
        flushDeferredWrites()
        deferred.withLockedValue { $0.closed = true }
        gate.withBlockingAccess { try? dbQueue.close() }
    }
}
