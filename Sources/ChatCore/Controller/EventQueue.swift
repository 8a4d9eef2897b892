import Foundation
import NIOConcurrencyHelpers

/// Events waiting for the layer above (`chat_recv_msg_wait`): a FIFO with a timed wait, so a
/// caller that asks with a timeout gets the next event or nothing when the time is up. Events
/// are kept as values and encoded as JSON by the reader, so the controller's actor never spends
/// its time encoding them.
final class EventQueue: Sendable {
    private struct Waiter {
        /// `DispatchTime` uptime nanoseconds when the wait ends with nothing.
        let deadline: UInt64
        let cont: CheckedContinuation<ChatEvent?, Never>
    }

    private struct State {
        /// Events not read yet from `head` on: taking the first is O(1), the slots before `head`
        /// are dropped when the buffer empties or is mostly read (removeFirst moved them all).
        var buffer: [ChatEvent] = []
        var head = 0
        var waiters: [Waiter] = []
        var closed = false
        /// The deadline the timer is set for, nil when no wait needs it.
        var timerDeadline: UInt64?

        var isEmpty: Bool { head >= buffer.count }

        mutating func takeFirst() -> ChatEvent {
            let e = buffer[head]
            head += 1
            if head == buffer.count {
                buffer.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 256, head * 2 >= buffer.count {
                buffer.removeFirst(head)
                head = 0
            }
            return e
        }

        /// Removes the waits past `now`, and gives the earliest deadline left.
        mutating func expire(now: UInt64) -> (expired: [CheckedContinuation<ChatEvent?, Never>], next: UInt64?) {
            var expired: [CheckedContinuation<ChatEvent?, Never>] = []
            var next: UInt64?
            waiters.removeAll { w in
                if w.deadline <= now {
                    expired.append(w.cont)
                    return true
                }
                next = min(next ?? w.deadline, w.deadline)
                return false
            }
            return (expired, next)
        }
    }

    private let state = NIOLockedValueBox(State())
    /// One Dispatch timer ends every timed wait (a busy cooperative pool must not stretch a wait,
    /// so not a Task): a timer per wait lived for the whole timeout after an event had ended the
    /// wait, thousands of them pending at a few hundred events a second (issue 16).
    private let timer: WaitTimer
    /// JSON of the user, profiles, connections and preferences that recur in every event; the
    /// controller's answers to commands use it too.
    let memo = JSONFragmentMemo()

    init() {
        timer = WaitTimer()
        timer.source.setEventHandler { [weak self] in self?.timerFired() }
        timer.source.resume()
    }

    deinit { timer.source.cancel() }

    func push(_ event: ChatEvent) {
        let waiter = state.withLockedValue { s -> CheckedContinuation<ChatEvent?, Never>? in
            guard !s.closed else { return nil }
            if !s.waiters.isEmpty { return s.waiters.removeFirst().cont }
            s.buffer.append(event)
            return nil
        }
        waiter?.resume(returning: event)
    }

    /// The next event as `{"result": <event>}`, waiting up to `timeout` seconds; nil when none came.
    func pop(timeout: Double) async -> String? {
        await popEvent(timeout: timeout)?.resultJSONString(memo: memo)
    }

    func popEvent(timeout: Double) async -> ChatEvent? {
        await withCheckedContinuation { (cont: CheckedContinuation<ChatEvent?, Never>) in
            let immediate = state.withLockedValue { s -> ChatEvent?? in
                if !s.isEmpty { return .some(s.takeFirst()) }
                if s.closed || timeout <= 0 { return .some(nil) }
                // At most a year: the deadline stays far from overflowing.
                let deadline = DispatchTime.now().uptimeNanoseconds &+ UInt64(min(timeout, 31_536_000) * 1e9)
                s.waiters.append(Waiter(deadline: deadline, cont: cont))
                // A timer set for a later time is moved earlier; one set earlier (for a wait an
                // event has ended since) fires, finds nothing due and moves to the next deadline.
                if s.timerDeadline.map({ deadline < $0 }) ?? true {
                    s.timerDeadline = deadline
                    timer.source.schedule(deadline: DispatchTime(uptimeNanoseconds: deadline))
                }
                return nil
            }
            if let immediate { cont.resume(returning: immediate) }
        }
    }

    /// Ends the waits whose time is up and sets the timer for the next one.
    private func timerFired() {
        let expired = state.withLockedValue { s -> [CheckedContinuation<ChatEvent?, Never>] in
            let (expired, next) = s.expire(now: DispatchTime.now().uptimeNanoseconds)
            s.timerDeadline = next
            if let next { timer.source.schedule(deadline: DispatchTime(uptimeNanoseconds: next)) }
            return expired
        }
        for c in expired { c.resume(returning: nil) }
    }

    /// Wakes every waiter with nothing; later pushes are dropped.
    func close() {
        let waiters = state.withLockedValue { s -> [CheckedContinuation<ChatEvent?, Never>] in
            s.closed = true
            defer { s.waiters.removeAll() }
            return s.waiters.map(\.cont)
        }
        for w in waiters { w.resume(returning: nil) }
    }
}

/// The event queue's timer. Dispatch sources are thread-safe (schedule and cancel from any
/// thread); the type is not marked Sendable on Linux, hence the unchecked conformance.
private final class WaitTimer: @unchecked Sendable {
    let source = DispatchSource.makeTimerSource(queue: .global())
}
