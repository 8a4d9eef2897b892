import Foundation

/// The C API envelope (simplex-chat `APIResult`, what `chat_send_cmd` and `chat_recv_msg_wait`
/// return): `{"result": <response or event>}` or `{"error": <ChatError>}`, with `remoteHostId`
/// only when the answer comes from a remote host.
public enum APIResult<R: Sendable & Hashable>: Sendable, Hashable {
    case result(R, remoteHostId: Int64? = nil)
    case error(ChatError, remoteHostId: Int64? = nil)

    public init(_ r: Result<R, ChatError>) {
        switch r {
        case .success(let v): self = .result(v)
        case .failure(let e): self = .error(e)
        }
    }
}

extension APIResult: Encodable where R: Encodable {
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONKey.self)
        switch self {
        case .result(let r, let rh):
            try c.put(rh, "remoteHostId")
            try c.put(r, "result")
        case .error(let e, let rh):
            try c.put(rh, "remoteHostId")
            try c.put(e, "error")
        }
    }

    /// Compact JSON.
    public func jsonString() -> String {
        (try? ChatJSON.string(self)) ?? Self.encodingFailure
    }

    /// `jsonString`, with the recurring values `memo` keeps written from it (the same bytes).
    func jsonString(memo: JSONFragmentMemo) -> String {
        (try? ChatJSON.string(self, memo: memo)) ?? Self.encodingFailure
    }

    private static var encodingFailure: String {
        #"{"error":{"type":"error","errorType":{"type":"internalError","message":"encoding"}}}"#
    }
}

extension APIResult: Decodable where R: Decodable {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        let rh: Int64? = try c.opt("remoteHostId")
        if let e: ChatError = try c.opt("error") {
            self = .error(e, remoteHostId: rh)
        } else {
            self = .result(try c.v("result"), remoteHostId: rh)
        }
    }
}

/// A command over the WebSockets API (simplex-chat `ChatSrvRequest`).
public struct ChatSrvRequest: Codable, Sendable, Hashable {
    public var corrId: String
    public var cmd: String
    public init(corrId: String, cmd: String) {
        self.corrId = corrId
        self.cmd = cmd
    }
}

/// A message over the WebSockets API (simplex-chat `ChatSrvResponse`): `{"corrId": .., "resp": ..}`,
/// `corrId` only for answers to commands. Errors keep the older form bots parse: a failed command
/// is `{"type": "chatCmdError", "chatError": ..}` and an error event `{"type": "chatError", ..}`.
public struct ChatSrvResponse: Sendable, Hashable, Encodable {
    public enum Body: Sendable, Hashable {
        case response(Result<ChatResponse, ChatError>)
        case event(Result<ChatEvent, ChatError>)
    }

    public var corrId: String?
    public var body: Body

    public init(corrId: String?, response: Result<ChatResponse, ChatError>) {
        self.corrId = corrId
        body = .response(response)
    }

    public init(event: Result<ChatEvent, ChatError>) {
        corrId = nil
        body = .event(event)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONKey.self)
        try c.put(corrId, "corrId")
        switch body {
        case .response(.success(let r)): try c.put(r, "resp")
        case .response(.failure(let e)): try c.put(ChatResponse.chatCmdError(chatError: e), "resp")
        case .event(.success(let ev)): try c.put(ev, "resp")
        case .event(.failure(let e)): try c.put(ChatEvent.chatError(chatError: e), "resp")
        }
    }

    public func jsonString() -> String {
        (try? ChatJSON.string(self)) ?? "{}"
    }
}

extension ChatResponse {
    /// Compact JSON of the response alone (`{"type": ..}`).
    public func jsonString() -> String {
        (try? ChatJSON.string(self)) ?? ChatError.error(errorType: .internalError(message: "response encoding")).jsonString()
    }

    /// The C API form, `{"result": <response>}`.
    public func resultJSONString() -> String {
        APIResult<ChatResponse>.result(self).jsonString()
    }

    func resultJSONString(memo: JSONFragmentMemo) -> String {
        APIResult<ChatResponse>.result(self).jsonString(memo: memo)
    }
}

extension ChatEvent {
    /// Compact JSON of the event alone (`{"type": ..}`).
    public func jsonString() -> String {
        (try? ChatJSON.string(self)) ?? ChatError.error(errorType: .internalError(message: "event encoding")).jsonString()
    }

    /// The C API form, `{"result": <event>}`.
    public func resultJSONString() -> String {
        APIResult<ChatEvent>.result(self).jsonString()
    }

    func resultJSONString(memo: JSONFragmentMemo) -> String {
        APIResult<ChatEvent>.result(self).jsonString(memo: memo)
    }
}

extension ChatError {
    /// The C API form of a failed command, `{"error": <ChatError>}`.
    public func errorJSONString() -> String {
        APIResult<ChatResponse>.error(self).jsonString()
    }
}
