import Foundation
import Testing

@testable import SimpleXChat

/// A scripted backend. Used ONLY by these retry unit tests, because a real relay cannot be made
/// to fail with BROKER NETWORK on demand; every flow test runs against a real ChatController.
private actor ScriptedBackend: ChatBackend {
    private var answers: [String]
    private(set) var sent: [String] = []

    init(_ answers: [String]) { self.answers = answers }

    func send(_ cmd: String) async -> String {
        sent.append(cmd)
        return answers.isEmpty ? ChatError.error(errorType: .chatNotStarted).errorJSONString() : answers.removeFirst()
    }

    nonisolated func receive(timeout: Double) async -> String? { nil }
}

private let networkError = ChatError.errorAgent(
    agentError: .broker(brokerAddress: "smp://test@127.0.0.1", brokerErr: .network(networkError: .failedError)),
    agentConnId: "", connectionEntity_: nil)
private let timeoutError = ChatError.errorAgent(
    agentError: .broker(brokerAddress: "smp://test@127.0.0.1", brokerErr: .timeout), agentConnId: "", connectionEntity_: nil)

/// The failed-attempt counts a retry decision was asked with.
private actor Decisions {
    var asked: [Int] = []
    func record(_ n: Int) { asked.append(n) }
}

@Suite struct RetryTests {
    /// Fails twice with NETWORK, then succeeds: three attempts, two retry decisions.
    @Test func retriesNetworkErrorsUntilSuccess() async throws {
        let backend = ScriptedBackend([networkError.errorJSONString(), networkError.errorJSONString(),
                                       ChatResponse.cmdOk(user_: nil).resultJSONString()])
        let decisions = Decisions()
        let r = await chatApiSendCmdWithRetry(backend, "/_start", as: ChatResponse.self) { error, failed in
            #expect(error.isRetryableNetworkError)
            await decisions.record(failed)
            return true
        }
        #expect(r.attempts == 3)
        guard case .result(.cmdOk) = r.result else { Issue.record("\(r.result)"); return }
        #expect(await decisions.asked == [1, 2])
        #expect(await backend.sent == ["/_start", "/_start", "/_start"])
    }

    /// The default policy retries (here a TIMEOUT) with its short delay.
    @Test func defaultPolicyRetriesTimeout() async throws {
        let backend = ScriptedBackend([timeoutError.errorJSONString(), ChatResponse.chatStarted.resultJSONString()])
        let r = await chatApiSendCmdWithRetry(backend, "/_start", as: ChatResponse.self)
        #expect(r.attempts == 2)
        guard case .result(.chatStarted) = r.result else { Issue.record("\(r.result)"); return }
    }

    /// Other errors are not retried; a refused retry returns the error; the default gives up after 3 retries.
    @Test func stopsWhenNotRetryable() async throws {
        let other = ScriptedBackend([ChatError.error(errorType: .invalidConnReq).errorJSONString()])
        let r1 = await chatApiSendCmdWithRetry(other, "/_connect 1 x", as: ChatResponse.self) { _, _ in true }
        #expect(r1.attempts == 1)

        let refused = ScriptedBackend([networkError.errorJSONString(), ChatResponse.chatStarted.resultJSONString()])
        let r2 = await chatApiSendCmdWithRetry(refused, "/_start", as: ChatResponse.self, shouldRetry: RetryPolicy.never)
        #expect(r2.attempts == 1)
        guard case .error(let e) = r2.result else { Issue.record("\(r2.result)"); return }
        #expect(e == networkError)

        let down = ScriptedBackend(Array(repeating: networkError.errorJSONString(), count: 10))
        let r3 = await chatApiSendCmdWithRetry(down, "/_start", as: ChatResponse.self, shouldRetry: RetryPolicy.upTo(3, delay: 0.01))
        #expect(r3.attempts == 4)
    }
}
