import ChatCore
import Foundation

/// Decides whether to run a failed command again: gets the error and how many attempts failed so
/// far (1 after the first). The iOS app asks the user here (seed 001/003 "Retryable via
/// chatApiSendCmdWithRetry"); a front end can do the same by awaiting its dialog.
public typealias ShouldRetry = @Sendable (_ error: ChatError, _ failedAttempts: Int) async -> Bool

/// Ready-made retry decisions.
public enum RetryPolicy {
    /// Retries up to `retries` times, waiting `delay` seconds before each retry.
    public static func upTo(_ retries: Int, delay: Double = 0.3) -> ShouldRetry {
        { _, failed in
            guard failed <= retries else { return false }
            if delay > 0 { try? await Task.sleep(nanoseconds: UInt64(delay * 1_000_000_000)) }
            return !Task.isCancelled
        }
    }

    /// Up to 3 retries, 0.3 s apart.
    public static let `default`: ShouldRetry = upTo(3)

    /// Never retries.
    public static let never: ShouldRetry = { _, _ in false }
}

extension ChatError {
    /// A relay timeout or network failure (`errorAgent` with `BROKER TIMEOUT` / `BROKER NETWORK`):
    /// the command may succeed if run again.
    public var isRetryableNetworkError: Bool {
        switch self {
        case .errorAgent(agentError: .broker(_, .timeout), _, _), .errorAgent(agentError: .broker(_, .network), _, _): true
        default: false
        }
    }
}

/// The outcome of `chatApiSendCmdWithRetry`: the last answer and how many times the command ran.
public struct RetriedResult<R: Decodable> {
    public var result: APIResult<R>
    public var attempts: Int
}

extension RetriedResult: Sendable where R: Sendable {}

/// Sends `cmd`, and while it fails with a retryable network error and `shouldRetry` agrees, sends
/// it again (seed 002 / 001 error table). Other errors and successes return at once.
public func chatApiSendCmdWithRetry<R: Decodable>(
    _ backend: any ChatBackend, _ cmd: String, as type: R.Type = R.self, shouldRetry: ShouldRetry = RetryPolicy.default
) async -> RetriedResult<R> {
    var attempts = 0
    while true {
        attempts += 1
        let r = APIResult<R>.decode(await backend.send(cmd))
        guard case .error(let e) = r, e.isRetryableNetworkError, await shouldRetry(e, attempts) else {
            return RetriedResult(result: r, attempts: attempts)
        }
    }
}
