/// Runs `body`, giving up with `XFTPClientError.responseTimeout` after `seconds`.
func withTimeout<R: Sendable>(_ seconds: Double, _ body: @escaping @Sendable () async throws -> R) async throws -> R {
    try await withThrowingTaskGroup(of: R.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
            throw XFTPClientError.responseTimeout
        }
        defer { group.cancelAll() }
        guard let r = try await group.next() else { throw XFTPClientError.responseTimeout }
        return r
    }
}
