import SMPProtocol

/// Why an SMP command did not succeed, typed so the agent can tell retryable network failures
/// from final answers of the relay.
public enum SMPClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The relay answered ERR.
    case server(ErrorType)
    /// Connecting or the connection failed (retry later).
    case network(String)
    /// No response within the command timeout (retry later).
    case timeout
    /// The transport or its handshake failed (wrong identity, version...).
    case transport(TransportError)
    /// The relay answered something this command cannot answer with.
    case unexpectedResponse(String)
    /// A message body that could not be decrypted or parsed.
    case badMessage(String)
    /// The client was closed by its owner.
    case closed

    public var description: String {
        switch self {
        case .server(let e): "server error: \(e)"
        case .network(let s): "network error: \(s)"
        case .timeout: "timeout"
        case .transport(let t): "transport error: \(t)"
        case .unexpectedResponse(let s): "unexpected response: \(s)"
        case .badMessage(let s): "bad message: \(s)"
        case .closed: "client closed"
        }
    }

    /// Network failures and timeouts are worth retrying; relay answers are not.
    public var isTemporary: Bool {
        switch self {
        case .network, .timeout: true
        default: false
        }
    }
}
