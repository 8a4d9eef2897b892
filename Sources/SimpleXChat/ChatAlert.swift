import ChatCore
import Foundation

/// What the iOS app shows as a SwiftUI `Alert`: a title and a message. Without a UI toolkit the
/// app layer returns or reports it and leaves presenting it to the front end.
public struct ChatAlert: Sendable, Hashable, CustomStringConvertible {
    public var title: String
    public var message: String?

    public init(title: String, message: String? = nil) {
        self.title = title
        self.message = message
    }

    public var description: String { message.map { "\(title): \($0)" } ?? title }

    /// The alerts of seed 001 "Error Cases" for connection commands; a generic one otherwise.
    public static func connectionError(_ error: ChatError, title: String = "Connection error") -> ChatAlert {
        switch error {
        case .error(errorType: .invalidConnReq):
            return ChatAlert(title: "Invalid connection link", message: "Please check that you used the correct link or ask your contact to send you another one.")
        case .error(errorType: .unsupportedConnReq):
            return ChatAlert(title: "Unsupported connection link", message: "This link requires a newer app version.")
        case .errorAgent(agentError: .smp(_, .auth), _, _):
            return ChatAlert(title: "Connection error (AUTH)", message: "Unless your contact deleted the connection or this link was already used, it might be a bug.")
        case .errorAgent(agentError: .smp(_, .blocked(let info)), _, _):
            return ChatAlert(title: "Connection blocked", message: "Connection is blocked by server operator: \(info.reason.rawValue).")
        case .errorAgent(agentError: .smp(_, .quota), _, _):
            return ChatAlert(title: "Undelivered messages", message: "The connection reached the limit of undelivered messages, your contact may be offline.")
        case .errorAgent(agentError: .internal(internalErr: let e), _, _) where e.contains("SEUniqueID"):
            return ChatAlert(title: "Already connected?", message: "It seems like you are already connected via this link.")
        case .errorAgent(agentError: .broker(_, .timeout), _, _):
            return ChatAlert(title: "Connection timeout", message: "Please check your network connection and try again.")
        case .errorAgent(agentError: .broker(_, .network), _, _):
            return ChatAlert(title: "Connection error", message: "Please check your network connection and try again.")
        default:
            return ChatAlert(title: title, message: error.jsonString())
        }
    }
}

/// Why an api* function failed: the core's error, an answer this build could not decode, an
/// answer of an unexpected type, or a feature the core does not offer yet.
public enum ChatAPIError: Error, Sendable, Hashable {
    case chat(ChatError)
    case invalid(type: String, json: Data)
    case unexpectedResponse(type: String)
    case unsupported(String)
    case noActiveUser

    /// An alert for the front end.
    public var alert: ChatAlert {
        switch self {
        case .chat(let e): ChatAlert.connectionError(e, title: "Error")
        case .invalid(let type, _): ChatAlert(title: "Unexpected response", message: type)
        case .unexpectedResponse(let type): ChatAlert(title: "Unexpected response", message: type)
        case .unsupported(let what): ChatAlert(title: "Not supported", message: what)
        case .noActiveUser: ChatAlert(title: "No active user", message: "Create a user profile first.")
        }
    }

    /// The core's error, when there is one.
    public var chatError: ChatError? {
        if case .chat(let e) = self { return e }
        return nil
    }
}

/// The outcome of joining one relay of a channel (seed 000 §7b); basic groups have none.
public struct RelayConnectionResult: Sendable, Hashable {
    public var relayMember: GroupMember
    public var relayError: ChatError?

    public init(relayMember: GroupMember, relayError: ChatError? = nil) {
        self.relayMember = relayMember
        self.relayError = relayError
    }
}
