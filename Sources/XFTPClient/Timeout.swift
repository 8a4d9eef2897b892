import XFTPTransport

/// Runs `body`, giving up with `XFTPClientError.responseTimeout` after `seconds`.
func withTimeout<R: Sendable>(_ seconds: Double, _ body: @escaping @Sendable () async throws -> R) async throws -> R {
    try await withTimeLimit(seconds, error: XFTPClientError.responseTimeout, body)
}
