import Foundation
import SimplexStore
import Testing

/// `AccessGate`: one holder at a time across blocking threads and suspended tasks, and tasks
/// that wait for it leave the cooperative pool free for other work.
@Suite struct AccessGateTests {
    /// A counter that notices two holders at once.
    final class Guarded: @unchecked Sendable {
        var count = 0
        var inside = false
        var overlaps = 0

        func enter() {
            if inside { overlaps += 1 }
            inside = true
            count += 1
            // Widen the window a second holder would need.
            for _ in 0..<200 { _ = count.description }
            inside = false
        }
    }

    @Test func threadsAndTasksHoldItOneAtATime() async {
        let gate = AccessGate(), guarded = Guarded()
        let threads = 4, perThread = 300, tasks = 200, perTask = 3
        let done = DispatchGroup()
        for _ in 0..<threads {
            done.enter()
            Thread.detachNewThread {
                for _ in 0..<perThread { gate.withBlockingAccess { guarded.enter() } }
                done.leave()
            }
        }
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<tasks {
                group.addTask {
                    for _ in 0..<perTask { await gate.withAccess { guarded.enter() } }
                }
            }
        }
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in done.notify(queue: .global()) { c.resume() } }
        #expect(guarded.overlaps == 0)
        #expect(guarded.count == threads * perThread + tasks * perTask)
    }

    /// Fails with a gate that parks its waiters' threads (as `DispatchQueue.sync` does): 64
    /// waiting tasks would take every thread of the pool, and nothing else would run.
    @Test func waitingTasksLeaveThePoolFree() async {
        let gate = AccessGate(), guarded = Guarded()
        let held = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            gate.withBlockingAccess {
                held.signal()
                release.wait()
            }
        }
        await Self.wait(held)
        let waiters = (0..<64).map { _ in Task.detached { await gate.withAccess { guarded.enter() } } }
        // Checked from a thread of its own, which releases the gate whatever it finds.
        let otherWorkRan = await withCheckedContinuation { (c: CheckedContinuation<Bool, Never>) in
            Thread.detachNewThread {
                Thread.sleep(forTimeInterval: 0.2)
                let ran = DispatchSemaphore(value: 0)
                Task.detached { ran.signal() }
                let ok = ran.wait(timeout: .now() + 10) == .success
                release.signal()
                c.resume(returning: ok)
            }
        }
        #expect(otherWorkRan)
        for w in waiters { await w.value }
        #expect(guarded.count == 64)
        #expect(guarded.overlaps == 0)
    }

    /// Waits for a semaphore from a plain thread (never parks a pool thread).
    static func wait(_ s: DispatchSemaphore) async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                s.wait()
                c.resume()
            }
        }
    }
}
