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
