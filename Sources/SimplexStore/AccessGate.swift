import Foundation

/// Mutual exclusion for a database connection that tasks wait for suspended rather than asleep.
/// GRDB serializes a `DatabaseQueue` with `DispatchQueue.sync`, which parks the calling thread:
/// on Swift's cooperative pool (as many threads as cores) every parked thread is a core lost
/// while the database is busy elsewhere. Async callers wait here instead and leave their thread
/// to other work; synchronous callers (actor code, dispatch timers) still block, as before.
///
/// The gate is held only by code that is running (the guarded sections are synchronous), and a
/// release hands nothing over: it frees the gate and wakes one waiter, which tries again. So a
/// thread that blocks here always waits for a running holder, never for a task that needs a
/// pool thread to start, and the two kinds of waiter cannot deadlock each other.
public final class AccessGate: @unchecked Sendable {
    private let condition = NSCondition()
    private var held = false
    private var blockedThreads = 0
    /// Suspended tasks, oldest first (a woken task that loses the race goes back to the front).
    private var waiters: [CheckedContinuation<Void, Never>] = []

    public init() {}

    /// Runs `body` holding the gate, blocking the calling thread while another holds it.
    public func withBlockingAccess<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        condition.lock()
        while held {
            blockedThreads += 1
            condition.wait()
            blockedThreads -= 1
        }
        held = true
        condition.unlock()
        defer { release() }
        return try body()
    }

    /// Runs `body` holding the gate; while another holds it the task is suspended.
    /// `isolation`: the caller's actor, which `body` runs on (it may use the actor's state).
    public func withAccess<T, E: Error>(isolation: isolated (any Actor)? = #isolation, _ body: () throws(E) -> T) async throws(E) -> T {
        await acquire()
        defer { release() }
        return try body()
    }

    private func acquire(isolation: isolated (any Actor)? = #isolation) async {
        var retry = false
        while true {
            if tryTake() { return }
            let again = retry
            await withCheckedContinuation(isolation: isolation) { (c: CheckedContinuation<Void, Never>) in
                condition.lock()
                if !held {
                    // Freed meanwhile: try again at once.
                    condition.unlock()
                    c.resume()
                    return
                }
                if again { waiters.insert(c, at: 0) } else { waiters.append(c) }
                condition.unlock()
            }
            retry = true
        }
    }

    private func tryTake() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if held { return false }
        held = true
        return true
    }

    private func release() {
        condition.lock()
        held = false
        let next = waiters.isEmpty ? nil : waiters.removeFirst()
        if blockedThreads > 0 { condition.signal() }
        condition.unlock()
        next?.resume()
    }
}
