/// Runs `body`, giving up with `error` after `seconds` (the body's task is cancelled). XFTP bounds
/// every wait on the network with it: a peer that stops sending never holds a request forever.
public func withTimeLimit<R: Sendable>(_ seconds: Double, error: any Error,
                                       _ body: @escaping @Sendable () async throws -> R) async throws -> R {
    try await withThrowingTaskGroup(of: R.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
            throw error
        }
        defer { group.cancelAll() }
        guard let r = try await group.next() else { throw error }
        return r
    }
}

/// Runs `body`, giving up with `error` only when `progress` saw no movement for `window()`
/// seconds (read again at each check, so it may grow while the body runs): a slow transfer
/// that keeps moving is never cut off, a stalled one is within one window of its last byte.
/// The watchdog sleeps to the next possible expiry, so a transfer costs no timer per byte.
public func withStallLimit<R: Sendable>(_ window: @escaping @Sendable () -> Double, progress: TransferProgress, error: any Error,
                                        _ body: @escaping @Sendable () async throws -> R) async throws -> R {
    try await withThrowingTaskGroup(of: R.self) { group in
        group.addTask { try await body() }
        group.addTask {
            while true {
                let left = window() - progress.idle
                if left <= 0 { throw error }
                try await Task.sleep(for: .milliseconds(Int(left * 1000) + 1))
            }
        }
        defer { group.cancelAll() }
        guard let r = try await group.next() else { throw error }
        return r
    }
}
