import ChatCore
import Foundation

/// Readable lines for the terminal from the core's typed answers, in the words of SimpleX's CLI
/// (its View.hs) where it has them, with what to do next; the WebSocket API keeps the JSON.
struct ChatView: Sendable {
    /// The active user of a `/user` or `/_create user` answer.
    static func user(of r: ChatResponse) -> User? {
        if case .activeUser(let u) = r { return u }
        return nil
    }

    static func describe(migrationResult r: DBMigrationResult) -> String {
        switch r {
        case .ok: "ok"
        case .invalidConfirmation: "invalid migration confirmation"
        case .errorNotADatabase(let f): "\(f): wrong passphrase or invalid database file (use -k KEY for an encrypted database)"
        case .errorMigration(let f, let e): "\(f): migration error: \(compact(e))"
        case .errorSQL(let f, let e): "\(f): database error: \(e)"
        case .unknown(let j): compact(j)
        }
    }

    /// One chat error as a sentence (never a bare type tag).
    static func describe(error e: ChatError) -> String {
        switch e {
        case .error(let t): describe(chatErrorType: t)
        case .errorStore(let s): describe(storeError: s)
        case .errorDatabase(let d):
            switch d {
            case .errorEncrypted: "error: chat database is already encrypted"
            case .errorPlaintext: "error: chat database is not encrypted"
            case .errorNoFile(let f): "error: no database file \(f)"
            case .errorExport(let s): "error encrypting database: \(sqlite(s))"
            case .errorOpen(let s): "error opening database after encryption: \(sqlite(s))"
            }
        case .errorAgent(let a, _, _): describe(agentError: a)
        case .unknown(let j): "chat error: \(compact(j))"
        }
    }

    static func describe(chatErrorType t: ChatErrorType) -> String {
        switch t {
        case .noActiveUser: return "error: active user is required (create one with /create user <name>)"
        case .userExists(let name): return "user with the name \(name) already exists"
        case .userUnknown: return "user does not exist or incorrect password"
        case .differentActiveUser(let c, let a): return "error: different active user, command user id: \(c), active user id: \(a)"
        case .cantDeleteActiveUser: return "cannot delete active user"
        case .cantDeleteLastUser: return "cannot delete last user"
        case .cantHideLastUser: return "cannot hide the only not hidden user"
        case .emptyUserPassword: return "user password is required"
        case .invalidDisplayName(let name, let valid):
            return "invalid display name: \(name)" + (valid.isEmpty ? "" : "\nyou could use this one: \(valid)")
        case .chatNotStarted: return "error: chat not started (start it with /_start)"
        case .chatNotStopped: return "error: chat not stopped (stop it first with /_stop)"
        case .chatStoreChanged: return "error: chat store changed, please restart chat"
        case .invalidConnReq:
            return "error: connection link is invalid, possibly it was created in a previous version.\n"
                + "Please ask your contact to check the link and send a new one."
        case .unsupportedConnReq: return "error: this connection link is not supported by this version"
        case .connReqMessageProhibited: return "error: a message cannot be sent with this link"
        case .contactNotReady(let c): return "\(c.localDisplayName): not ready"
        case .contactNotActive(let c): return "\(c.localDisplayName): not active"
        case .contactDisabled(let c):
            return "\(c.localDisplayName): disabled, to delete: /d @\(c.localDisplayName)"
        case .groupUserRole(let g, let role):
            return "#\(g.localDisplayName): you have insufficient permissions for this action, the required role is \(role.rawValue)"
        case .groupMemberInitialRole(let g, let role):
            return "#\(g.localDisplayName): initial role for group member cannot be \(role.rawValue), use member or observer"
        case .contactIncognitoCantInvite:
            return "you're using your main profile for this group - prohibited to invite contacts to whom you are connected incognito"
        case .groupIncognitoCantInvite: return "you are using an incognito profile for this group - prohibited to invite contacts"
        case .groupContactRole(let c): return "contact \(c) has insufficient permissions for this group action"
        case .groupDuplicateMember(let c): return "contact \(c) is already in the group"
        case .groupDuplicateMemberId: return "cannot add member - duplicate member ID"
        case .groupNotJoined(let g): return "you did not join this group, use /join #\(g.localDisplayName)"
        case .groupMemberNotActive: return "your group connection is not active yet, try later"
        case .groupMemberUserRemoved: return "you are no longer a member of the group"
        case .groupMemberNotFound: return "group doesn't have this member"
        case .groupInternal(let s): return "chat group bug: \(s)"
        case .fileNotFound(let f): return "file not found: \(f)"
        case .fileSize(let f): return "file size exceeds the limit: \(f)"
        case .invalidForward: return "cannot forward this message"
        case .invalidChatItemUpdate: return "cannot update this item"
        case .invalidChatItemDelete: return "cannot delete this item"
        case .hasCurrentCall: return "call already in progress"
        case .noCurrentCall: return "no call in progress"
        case .agentVersion: return "unsupported agent version"
        case .commandError(let m): return "bad chat command: \(m)"
        case .agentCommandError(let m): return "agent command error: \(m)"
        case .invalidFileDescription(let m): return "invalid file description: \(m)"
        case .connectionIncognitoChangeProhibited: return "incognito mode change prohibited"
        case .peerChatVRangeIncompatible: return "peer chat protocol version range incompatible"
        case .internalError(let m): return "internal chat error: \(m)"
        case .exception(let m): return "exception: \(m)"
        default: return "chat error: \(compact(t))"
        }
    }

    static func describe(storeError s: StoreError) -> String {
        switch s {
        case .duplicateName: "this display name is already used by user, contact or group"
        case .userNotFoundByName(let u): "no user \(u)"
        case .contactNotFoundByName(let c): "no contact \(c)"
        case .contactNotReady(let c): "contact \(c) is not active yet"
        case .groupNotFoundByName(let g): "no group #\(g)"
        case .groupAlreadyJoined: "you already joined this group"
        case .duplicateContactLink: "you already have chat address, to show: /sa"
        case .userContactLinkNotFound: "no chat address, to create: /ad"
        case .contactRequestNotFoundByName(let c): "no contact request from \(c)"
        case .chatItemNotFoundByText(let t): "message not found by text: \(t)"
        case .duplicateGroupLink(let g): "you already have link for this group, to show: /show link #\(g.localDisplayName)"
        case .groupLinkNotFound(let g): "no group link, to create: /create link #\(g.localDisplayName)"
        case .fileNotFound(let id), .sndFileNotFound(let id), .rcvFileNotFound(let id): "file \(id) not found"
        default: "chat db error: \(compact(s))"
        }
    }

    /// Agent errors say what failed and, for network and authorization failures, what to do.
    static func describe(agentError a: AgentErrorType) -> String {
        switch a {
        case .cmd(.prohibited, _): return "error: command is prohibited"
        case .smp(let server, .auth):
            return "error: connection authorization failed on \(server) - this could happen if connection was deleted, "
                + "secured with different credentials, or due to a bug - please re-create the connection"
        case .broker(let server, .network):
            return "error: cannot reach the relay \(server) (network error) - check that it is running and its address, then try again"
        case .broker(let server, .timeout):
            return "error: the relay \(server) did not answer in time - check your network and try again"
        case .broker(let server, .host):
            return "error: the relay host of \(server) is unknown - check the address"
        case .broker(let server, .transport(let t)):
            return "error: transport error with the relay \(server): \(compact(t)) - check the server address and its fingerprint"
        case .conn(.notFound, _): return "error: connection not found - it may have been deleted"
        case .conn(.notAvailable, _):
            return "error: this link is no longer available - it was used or deleted; ask your contact for a new one"
        case .conn(.duplicate, _): return "error: the connection already exists"
        case .agent(.version): return "error: the other side's version is not compatible"
        case .inactive: return "error: the chat is not running (start it with /_start)"
        default: return "smp agent error: \(compact(a))"
        }
    }

    private static func sqlite(_ e: SQLiteError) -> String {
        if case .errorNotADatabase = e { return "wrong passphrase or invalid database file" }
        return compact(e)
    }

    /// A value's JSON without quotes and braces: `{"type":"BROKER","brokerAddress":"smp://..","brokerErr":{"type":"NETWORK"}}`
    /// reads `BROKER smp://.. NETWORK`.
    static func compact<T: Encodable>(_ v: T) -> String {
        guard let data = try? JSONEncoder().encode(v), let obj = try? JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed)
        else { return "\(v)" }
        return words(obj)
    }

    private static func words(_ o: Any) -> String {
        if let d = o as? [String: Any] {
            var parts: [String] = []
            if let t = d["type"] as? String { parts.append(t) }
            for k in d.keys.sorted() where k != "type" {
                let w = words(d[k]!)
                if !w.isEmpty { parts.append(w) }
            }
            return parts.joined(separator: " ")
        }
        if let a = o as? [Any] { return a.map(words).joined(separator: ", ") }
        if o is NSNull { return "" }
        return "\(o)"
    }
}

/// The version line of `--version` and `/version`.
enum ChatVersionInfo {
    /// The simplex-chat release whose protocols and API this client follows.
    static let version = "7.0.2"
    static let versionString = "SimpleX Chat v\(version) (SimpleX-Swift)"
}
