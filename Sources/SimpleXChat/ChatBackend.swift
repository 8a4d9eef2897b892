import ChatCore

/// The transport between the app layer and a chat core: command strings in, JSON envelopes out,
/// exactly the shape of `chat_send_cmd_retry` and `chat_recv_msg_wait` in the C ABI (seed 002 §2).
public protocol ChatBackend: Sendable {
    /// Runs one command; answers `{"result": <ChatResponse>}` or `{"error": <ChatError>}`.
    func send(_ cmd: String) async -> String
    /// The next event envelope (`{"result": <ChatEvent>}`), or nil after `timeout` seconds.
    func receive(timeout: Double) async -> String?
}

/// A core running in this process: forwards to a `ChatController` without touching its Swift API
/// beyond strings, so the layer above behaves as it would over libsimplex.
public struct ControllerBackend: ChatBackend {
    public let controller: ChatController

    public init(_ controller: ChatController) {
        self.controller = controller
    }

    public func send(_ cmd: String) async -> String {
        await controller.send(cmd)
    }

    public func receive(timeout: Double) async -> String? {
        await controller.nextEvent(timeout: timeout)
    }
}
