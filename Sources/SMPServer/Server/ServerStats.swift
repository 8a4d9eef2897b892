import NIOConcurrencyHelpers

/// Counters the relay keeps for its operator: totals only, nothing about who talks to whom.
final class ServerStats: Sendable {
    let queuesCreated = Counter()
    let messagesReceived = Counter()
    let messagesDelivered = Counter()

    final class Counter: Sendable {
        private let value = NIOLockedValueBox(0)
        func add(_ n: Int) { value.withLockedValue { $0 += n } }
        var current: Int { value.withLockedValue { $0 } }
    }
}
