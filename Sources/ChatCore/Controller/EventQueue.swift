import Foundation
import NIOConcurrencyHelpers

/// Events waiting for the layer above (`chat_recv_msg_wait`): a FIFO with a timed wait, so a
/// caller that asks with a timeout gets the next event or nothing when the time is up. Events
/// are kept as values and encoded as JSON by the reader, so the controller's actor never spends
/// its time encoding them.
final class EventQueue: Sendable {
    private struct State {
        var buffer: [ChatEvent] = []
        var waiters: [(id: UInt64, cont: CheckedContinuation<ChatEvent?, Never>)] = []
        var nextId: UInt64 = 0
        var closed = false
    }

    private let state = NIOLockedValueBox(State())
    /// JSON of the user, profiles, connections and preferences that recur in every event; the
    /// controller's answers to commands use it too.
    let memo = JSONFragmentMemo()

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
        let id = state.withLockedValue { s -> UInt64 in
            s.nextId += 1
            return s.nextId
        }
        return await withCheckedContinuation { (cont: CheckedContinuation<ChatEvent?, Never>) in
            let immediate = state.withLockedValue { s -> ChatEvent?? in
                if !s.buffer.isEmpty { return .some(s.buffer.removeFirst()) }
                if s.closed || timeout <= 0 { return .some(nil) }
                s.waiters.append((id, cont))
                return nil
            }
            if let immediate {
                cont.resume(returning: immediate)
                return
            }
            // A Dispatch timer, not a Task: a busy cooperative pool must not stretch the wait.
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) {
                let expired = self.state.withLockedValue { s -> CheckedContinuation<ChatEvent?, Never>? in
                    guard let i = s.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                    return s.waiters.remove(at: i).cont
                }
                expired?.resume(returning: nil)
            }
        }
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
