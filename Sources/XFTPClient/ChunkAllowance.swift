import NIOConcurrencyHelpers

/// The time a chunk transfer may take on one session (`chunkTimeout`). The reference agent moves
/// one chunk at a time per server, so its allowance for a chunk's bytes is the connection's whole
/// bandwidth; here chunks in flight on a session share it, so each one's allowance counts the bytes
/// of the transfers running beside it when it starts. Without that, parallel chunks on a slow link
/// (or a loaded machine) all time out together and their retries start the chunks over.
final class ChunkAllowance: Sendable {
    private let config: XFTPClientConfig
    private let inFlight = NIOLockedValueBox<Int64>(0)

    init(config: XFTPClientConfig) {
        self.config = config
    }

    /// Registers a transfer of `bytes` (nil: a request without a chunk) and returns its timeout;
    /// `end` with the same bytes when it is over.
    func begin(_ bytes: UInt32?) -> Double {
        guard let bytes else { return config.timeout(bytes: nil) }
        let sharing = inFlight.withLockedValue { n in
            n += Int64(bytes)
            return n
        }
        return config.timeout(bytes: sharing)
    }

    func end(_ bytes: UInt32?) {
        guard let bytes else { return }
        inFlight.withLockedValue { $0 -= Int64(bytes) }
    }
}
