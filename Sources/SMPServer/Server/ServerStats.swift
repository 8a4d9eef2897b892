import NIOConcurrencyHelpers

/// Counters the relay keeps for its operator: totals only, nothing about who talks to whom.
final class ServerStats: Sendable {
    let queuesCreated = Counter()
    let messagesReceived = Counter()
    let messagesDelivered = Counter()
    /// Private routing: RFWD this relay executed as destination (`pMsgFwdsRecv`), PRXY sessions
    /// and PFWD forwards it served as proxy (successes).
    let messagesForwardedIn = Counter()
    let proxySessions = Counter()
    let proxyForwards = Counter()
    /// Transport blocks read from and written to clients (each costs a 16 KB seal and open
    /// whatever it carries, so blocks per message is what batching saves).
    let blocksReceived = Counter()
    let blocksSent = Counter()

    final class Counter: Sendable {
        private let value = NIOLockedValueBox(0)
        func add(_ n: Int) { value.withLockedValue { $0 += n } }
        var current: Int { value.withLockedValue { $0 } }
    }
}
