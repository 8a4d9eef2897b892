import NIOConcurrencyHelpers

/// When a transfer's bytes last moved (a frame received, a body piece taken by HTTP/2), so its
/// timeout can count from there (`withStallLimit`) instead of from the request's start.
public final class TransferProgress: Sendable {
    private let last = NIOLockedValueBox(ContinuousClock.now)

    public init() {}

    public func moved() { last.withLockedValue { $0 = .now } }

    /// Seconds since the bytes last moved.
    public var idle: Double {
        let d = ContinuousClock.now - last.withLockedValue { $0 }
        return Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
    }
}
