import NIOConcurrencyHelpers

/// How long a chunk transfer may go without moving a byte before it is given up (`chunkTimeout`:
/// the reference's whole-transfer timeout, which we count from the last byte that moved instead
/// of from the start, so a slow but moving transfer never fails and a dead one still does).
/// Bytes written into HTTP/2 are only seen to move when the server opens its window again, and
/// the chunks in flight on one session share its link: any of their bytes may be queued ahead of
/// this chunk's next one. So the window counts the chunk bytes in flight on the session at each
/// check, this chunk's included (the reference moves one chunk at a time per server).
final class ChunkAllowance: Sendable {
    private let config: XFTPClientConfig
    private let inFlight = NIOLockedValueBox<Int64>(0)

    init(config: XFTPClientConfig) {
        self.config = config
    }

    /// Registers a transfer of `bytes` (nil: a request without a chunk) and returns its window now;
    /// `end` with the same bytes when it is over.
    @discardableResult
    func begin(_ bytes: UInt32?) -> Double {
        guard let bytes else { return config.timeout(bytes: nil) }
        inFlight.withLockedValue { $0 += Int64(bytes) }
        return window(bytes)
    }

    /// The stall window of a registered transfer of `bytes`: the time for every chunk byte in
    /// flight on the session (never less than its own).
    func window(_ bytes: UInt32?) -> Double {
        guard let bytes else { return config.timeout(bytes: nil) }
        return config.timeout(bytes: max(Int64(bytes), inFlight.withLockedValue { $0 }))
    }

    func end(_ bytes: UInt32?) {
        guard let bytes else { return }
        inFlight.withLockedValue { $0 -= Int64(bytes) }
    }
}
