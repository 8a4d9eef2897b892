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
        case .agent(let e): "AGENT \(e)"
        case .link(let e): "LINK \(e)"
        case .store(let s): "STORE \(s)"
        case .internalError(let s): "INTERNAL \(s)"
        }
    }

    /// Worth retrying later (the relay may come back).
    public var isTemporary: Bool {
        switch self {
        case .broker(_, .network), .broker(_, .timeout): true
        default: false
        }
    }

    static func from(_ e: SMPClientError, server: String) -> AgentError {
        switch e {
        case .server(let t): .smp(server: server, t)
        case .network(let s): .broker(server: server, .network(s))
        case .timeout: .broker(server: server, .timeout)
        case .transport(let t): .broker(server: server, .transport("\(t)"))
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
