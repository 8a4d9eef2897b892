import SMPAgent

extension ChatController {
    /// `/smp test` and `/_server test`: the agent's server test, answered as `serverTestResult`
    /// with the failed step and its agent error (no failure when every step worked).
    func testServer(userId: Int64, _ server: String) async throws(ChatError) -> ChatResponse {
        let user = try userById(userId)
        let agent = try runningAgent()
        let failure = await agent.testProtocolServer(server).map {
            ProtocolTestFailure(testStep: $0.step.rawValue, testError: Self.apiAgentError($0.error))
        }
        return .serverTestResult(user: user, testServer: server, testFailure: failure)
    }
}
