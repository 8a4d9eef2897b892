import DoubleRatchet
import SMPClient
import SMPProtocol

/// Errors of agent API calls and error events, after simplexmq's AgentErrorType: the layer above
/// maps them to `ChatError.errorAgent`.
public enum AgentError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The command cannot run now or with these arguments (CMD PROHIBITED / SIZE ...).
    case command(CommandErrorType, String)
    /// The connection (or request) is unknown, duplicate, or not in a state for this call.
    case connection(ConnectionErrorType, String)
    /// A relay answered ERR.
    case smp(server: String, ErrorType)
    /// A relay could not be reached or answered badly (retryable when NETWORK/TIMEOUT).
    case broker(server: String, BrokerErrorType)
    /// A proxy relay could not forward a command to the destination relay (simplexmq `PROXY`):
    /// the proxy's own ERR, or an answer that is not PRES.
    case proxy(proxyServer: String, relayServer: String, ProxyClientError)
    /// Another agent sent something that breaks the protocol.
    case agent(AgentProtocolErrorType)
    /// A connection link that cannot be used.
    case link(LinkError)
    /// The database failed.
    case store(String)
    /// A bug or an impossible state; the connection stays usable.
    case internalError(String)

    public enum CommandErrorType: String, Sendable, Equatable { case prohibited = "PROHIBITED", size = "SIZE", syntax = "SYNTAX" }
    public enum ConnectionErrorType: String, Sendable, Equatable {
        case notFound = "NOT_FOUND", duplicate = "DUPLICATE", simplex = "SIMPLEX", notAccepted = "NOT_ACCEPTED", notAvailable = "NOT_AVAILABLE"
    }
    public enum BrokerErrorType: Sendable, Equatable {
        case network(String), timeout, transport(String), unexpected(String), closed
    }
    public enum AgentProtocolErrorType: Sendable, Equatable {
        /// Could not parse an agent message.
        case message(String)
        /// A message not allowed in this state.
        case prohibited(String)
        /// Incompatible agent or e2e version.
        case version
        /// Decryption failed: tampered, replayed or out of the ratchet's reach (`A_CRYPTO`).
        case crypto(AgentCryptoError)
        /// A message seen before (dropped).
        case duplicate
        /// A queue or ratchet message that does not fit the connection (`A_QUEUE`).
        case queue(String)
    }

    public var description: String {
        switch self {
        case .command(let t, let s): "CMD \(t.rawValue) \(s)"
        case .connection(let t, let s): "CONN \(t.rawValue) \(s)"
        case .smp(let srv, let e): "SMP \(e) (\(srv))"
        case .broker(let srv, let e): "BROKER \(e) (\(srv))"
        case .proxy(let p, let r, let e): "PROXY \(p) \(r) \(e)"
        case .agent(let e): "AGENT \(e)"
        case .link(let e): "LINK \(e)"
        case .store(let s): "STORE \(s)"
        case .internalError(let s): "INTERNAL \(s)"
        }
    }

    /// Worth retrying later (the relay may come back).
    /// simplexmq `temporaryAgentError`, with a proxy's report of an unreachable destination and
    /// a proxied session the proxy no longer has.
    public var isTemporary: Bool {
        switch self {
        case .broker(_, .network), .broker(_, .timeout): true
        case .smp(_, .proxy(.broker(.network))), .smp(_, .proxy(.broker(.timeout))): true
        case .proxy(_, _, .protocolError(.proxy(.broker(.network)))), .proxy(_, _, .protocolError(.proxy(.broker(.timeout)))): true
        case .proxy(_, _, .protocolError(.proxy(.noSession))): true
        default: false
        }
    }

    /// simplexmq `serverHostError`: the host cannot be used, or does not speak a version with
    /// private routing (the proxy, or the destination as the proxy reports it). Only these
    /// failures of a proxied command may fall back to a direct one.
    public var isServerHostError: Bool {
        switch self {
        case .broker(_, .transport(let t)): t == Self.transportText(.version)
        case .smp(_, .proxy(.broker(.host))), .smp(_, .proxy(.broker(.transport(.version)))): true
        case .proxy(_, _, .protocolError(.proxy(.broker(.host)))), .proxy(_, _, .protocolError(.proxy(.broker(.transport(.version))))): true
        default: false
        }
    }

    /// How `from` writes a transport error of the client into `.broker(_, .transport)`.
    static func transportText(_ t: TransportError) -> String { "\(t)" }

    static func from(_ e: SMPClientError, server: String) -> AgentError {
        switch e {
        case .server(let t): .smp(server: server, t)
        case .network(let s): .broker(server: server, .network(s))
        case .timeout: .broker(server: server, .timeout)
        case .transport(let t): .broker(server: server, .transport(transportText(t)))
        case .unexpectedResponse(let s), .badMessage(let s): .broker(server: server, .unexpected(s))
        case .closed: .broker(server: server, .closed)
        }
    }

    /// simplexmq `cryptoError` for ratchet failures: decryption errors become `A_CRYPTO` (and may
    /// start a re-synchronization), a repeated message `A_DUPLICATE`, bad encodings `A_MESSAGE`.
    static func ratchet(_ e: RatchetError) -> AgentError {
        switch e {
        case .duplicateMessage: .agent(.duplicate)
        case .header: .agent(.crypto(.ratchetHeader))
        case .earlierMessage(let n): .agent(.crypto(.ratchetEarlier(n)))
        case .tooManySkipped(let n): .agent(.crypto(.ratchetSkipped(n)))
        case .decrypt: .agent(.crypto(.decryptAES))
        case .badEncoding(let why): .agent(.message(why))
        case .messageTooLarge: .command(.size, "message too large")
        default: .internalError("ratchet: \(e)")
        }
    }

    static func wrapStore(_ error: any Error) -> AgentError {
        if let e = error as? AgentError { return e }
        return .store("\(error)")
    }
}
