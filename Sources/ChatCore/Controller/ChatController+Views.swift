import Foundation
import GRDB
import SMPAgent
import SMPProtocol

/// Building the API's JSON types from chat database rows, and errors from agent errors.
extension ChatController {
    static func ts(_ seconds: Double) -> UTCTime { UTCTime(Date(timeIntervalSince1970: seconds)) }
    static var now: Double { Date().timeIntervalSince1970 }

    /// Our features are simplex-chat's defaults on both sides until preferences are exchanged.
    static var defaultMergedPreferences: ContactUserPreferences {
        func pref(_ p: SimplePreference) -> ContactUserPreference {
            let on = p.allow != .no
            return ContactUserPreference(enabled: PrefEnabled(forUser: on, forContact: on), userPreference: .user(preference: p), contactPreference: p)
        }
        let d = FullPreferences.defaults
        return ContactUserPreferences(timedMessages: pref(SimplePreference(allow: d.timedMessages.allow)), fullDelete: pref(d.fullDelete),
                                      reactions: pref(d.reactions), voice: pref(d.voice), files: pref(d.files), calls: pref(d.calls),
                                      sessions: pref(d.sessions))
    }

    static let chatVRange = ChatVersionRange(minVersion: 1, maxVersion: 16)

    func userById(_ userId: Int64) throws(ChatError) -> User {
        guard let r = try store.read({ db in try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM users WHERE user_id = ?"), arguments: [userId]) }) else {
            throw .errorStore(storeError: .userNotFound(userId: userId))
        }
        return Self.user(r)
    }

    static func connection(_ r: Row) -> Connection {
        Connection(connId: r["connection_id"], agentConnId: r["agent_conn_id"], connChatVersion: 16, peerChatVRange: chatVRange,
                   viaUserContactLink: r["user_contact_link_id"], customUserProfileId: r["custom_user_profile_id"],
                   connType: ConnType(rawValue: r["conn_type"]) ?? .contact, connStatus: ConnStatus(rawValue: r["conn_status"]) ?? .new,
                   contactConnInitiated: r["initiated"], localAlias: r["local_alias"], entityId: r["contact_id"],
                   pqSupport: true, pqEncryption: true, createdAt: ts(r["created_at"]))
    }

    static func pending(_ r: Row) -> PendingContactConnection {
        let link: String? = r["conn_link_inv"]
        return PendingContactConnection(
            pccConnId: r["connection_id"], pccAgentConnId: r["agent_conn_id"], pccConnStatus: ConnStatus(rawValue: r["conn_status"]) ?? .new,
            viaContactUri: r["via_contact_uri"], viaUserContactLink: r["user_contact_link_id"], customUserProfileId: r["custom_user_profile_id"],
            connLinkInv: link.map { CreatedConnLink(connFullLink: $0, connShortLink: r["short_link_inv"]) }, localAlias: r["local_alias"],
            createdAt: ts(r["created_at"]), updatedAt: ts(r["updated_at"]))
    }

    static func profile(_ r: Row, prefix: String = "") -> LocalProfile {
        LocalProfile(profileId: r[prefix + "profile_id"],
                     profile: Profile(displayName: r[prefix + "display_name"], fullName: r[prefix + "full_name"], image: r[prefix + "image"],
                                      contactLink: r[prefix + "contact_link"]),
                     localAlias: r[prefix + "local_alias"])
    }

    func contact(_ db: Database, _ contactId: Int64) throws -> Contact? {
        guard let r = try Row.fetchOne(db.cachedStatement(sql: """
            SELECT c.*, p.display_name, p.full_name, p.image, p.contact_link, p.local_alias FROM contacts c
            JOIN contact_profiles p ON p.profile_id = c.profile_id WHERE c.contact_id = ?
            """), arguments: [contactId]) else { return nil }
        let conn = try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM connections WHERE contact_id = ? ORDER BY connection_id DESC LIMIT 1"), arguments: [contactId])
        let chatTs: Double? = r["chat_ts"]
        let prefs = (r["user_preferences"] as String?).flatMap { try? ChatJSON.decode(Preferences.self, from: $0) } ?? Preferences()
        return Contact(contactId: contactId, localDisplayName: r["local_display_name"], profile: Self.profile(r), activeConn: conn.map(Self.connection),
                       contactUsed: r["contact_used"], contactStatus: ContactStatus(rawValue: r["contact_status"]) ?? .active,
                       chatSettings: ChatSettings(), userPreferences: prefs, mergedPreferences: Self.defaultMergedPreferences, createdAt: Self.ts(r["created_at"]), updatedAt: Self.ts(r["updated_at"]),
                       chatTs: chatTs.map(Self.ts), preparedContact: Self.preparedContact(r), contactRequestId: r["contact_request_id"])
    }

    /// The link a prepared contact will connect through, until it does.
    static func preparedContact(_ r: Row) -> PreparedContact? {
        guard let full = r["prepared_conn_link"] as String?, let mode = (r["prepared_link_mode"] as String?).flatMap(ConnectionLinkMode.init(rawValue:))
        else { return nil }
        return PreparedContact(connLinkToConnect: CreatedConnLink(connFullLink: full, connShortLink: r["prepared_short_link"]), uiConnLinkType: mode)
    }

    func contactRequest(_ db: Database, _ id: Int64) throws -> UserContactRequest? {
        guard let r = try Row.fetchOne(db.cachedStatement(sql: """
            SELECT r.*, p.display_name, p.full_name, p.image, p.contact_link FROM contact_requests r
            JOIN contact_profiles p ON p.profile_id = r.profile_id WHERE r.contact_request_id = ?
            """), arguments: [id]) else { return nil }
        return UserContactRequest(
            contactRequestId: id, agentInvitationId: r["agent_invitation_id"], userContactLinkId_: r["user_contact_link_id"],
            cReqChatVRange: Self.chatVRange, localDisplayName: r["local_display_name"], profileId: r["profile_id"],
            profile: Profile(displayName: r["display_name"], fullName: r["full_name"], image: r["image"], contactLink: r["contact_link"]),
            createdAt: Self.ts(r["created_at"]), updatedAt: Self.ts(r["updated_at"]), pqSupport: true)
    }

    /// A chat item row with its quote, timer, deletion mark and reaction counts.
    static func chatItem(_ db: Database, _ r: Row) throws -> ChatItem {
        let sent: Bool = r["item_sent"]
        let itemId: Int64 = r["chat_item_id"]
        let content = (try? ChatJSON.decode(CIContent.self, from: r["item_content"] as String)) ?? .invalidJSON(json: r["item_content"])
        let status = (try? ChatJSON.decode(CIStatus.self, from: r["item_status"] as String)) ?? .invalid(text: r["item_status"])
        let deleted = (r["item_deleted"] as String?).flatMap { try? ChatJSON.decode(CIDeleted.self, from: $0) }
        let text: String = r["item_text"]
        let ttl: Int? = r["timed_ttl"]
        let deleteAt: Double? = r["timed_delete_at"]
        let forwarded: Bool = r["item_forwarded"]
        let meta = CIMeta(itemId: itemId, itemTs: ts(r["item_ts"]), itemText: text, itemStatus: status,
                          itemSharedMsgId: r["shared_msg_id"], itemForwarded: forwarded ? .unknown : nil, itemDeleted: deleted,
                          itemEdited: r["item_edited"], itemTimed: ttl.map { CITimed(ttl: $0, deleteAt: deleteAt.map(ts)) },
                          itemLive: (r["item_live"] as Bool) ? true : nil, deletable: true, editable: sent && deleted == nil,
                          createdAt: ts(r["created_at"]), updatedAt: ts(r["updated_at"]))
        let groupId: Int64? = r["group_id"]
        var quote: CIQuote?
        if let qc = r["quoted_content"] as String?, let qContent = try? ChatJSON.decode(MsgContent.self, from: qc) {
            let qSent: Bool? = r["quoted_sent"]
            var qDir: CIDirection? = qSent.map { $0 ? .directSnd : .directRcv }
            if let groupId, let qSent {
                qDir = qSent ? .groupSnd
                    : .groupRcv(groupMember: try (r["quoted_member_id"] as String?).flatMap { try groupMember(db, groupId: groupId, memberId: $0) })
            }
            quote = CIQuote(chatDir: qDir, itemId: r["quoted_item_id"], sharedMsgId: r["quoted_shared_msg_id"],
                            sentAt: ts(r["quoted_sent_at"] ?? 0), content: qContent, formattedText: Markdown.parse(qContent.text))
        }
        var counts: [CIReactionCount] = []
        for rr in try Row.fetchAll(db.cachedStatement(sql: """
            SELECT reaction, count(*) AS total, max(reaction_sent) AS mine FROM chat_item_reactions
            WHERE chat_item_id = ? GROUP BY reaction ORDER BY min(reaction_id)
            """), arguments: [itemId]) {
            guard let reaction = try? ChatJSON.decode(MsgReaction.self, from: rr["reaction"] as String) else { continue }
            counts.append(CIReactionCount(reaction: reaction, userReacted: rr["mine"], totalReacted: rr["total"]))
        }
        var dir: CIDirection = sent ? .directSnd : .directRcv
        if groupId != nil {
            dir = sent ? .groupSnd : .groupRcv(groupMember: try (r["group_member_id"] as Int64?).flatMap { try groupMember(db, $0) })
        }
        return ChatItem(chatDir: dir, meta: meta, content: content,
                        formattedText: deleted == nil ? Markdown.parse(text) : nil, quotedItem: quote, reactions: counts)
    }

    /// An agent failure as the API's `errorAgent`.
    static func agentError(_ e: AgentError, connId: String = "") -> ChatError {
        .errorAgent(agentError: apiAgentError(e), agentConnId: connId, connectionEntity_: nil)
    }

    static func apiAgentError(_ e: AgentError) -> AgentErrorType {
        switch e {
        case .command(let t, let s):
            let c: AgentCommandErrorType = switch t { case .prohibited: .prohibited; case .size: .size; case .syntax: .syntax }
            return .cmd(cmdErr: c, errContext: s)
        case .connection(let t, let s):
            let c: AgentConnectionErrorType = switch t {
            case .notFound: .notFound; case .duplicate: .duplicate; case .simplex: .simplex
            case .notAccepted: .notAccepted; case .notAvailable: .notAvailable
            }
            return .conn(connErr: c, errContext: s)
        case .smp(let server, let t):
            return .smp(serverAddress: server, smpErr: smpError(t))
        case .broker(let server, let t):
            let b: AgentBrokerErrorType = switch t {
            case .network(let s): .network(networkError: .connectError(connectError: s))
            case .timeout: .timeout
            case .transport(let s): .unexpected(respErr: "transport: \(s)")
            case .unexpected(let s): .unexpected(respErr: s)
            case .closed: .network(networkError: .failedError)
            }
            return .broker(brokerAddress: server, brokerErr: b)
        case .agent(let a):
            let x: SMPAgentError = switch a {
            case .message: .message
            case .prohibited(let s): .prohibited(prohibitedErr: s)
            case .version: .version
            case .crypto: .crypto(cryptoErr: .decryptCB)
            case .duplicate: .duplicate
            }
            return .agent(agentErr: x)
        case .link(let l): return .agent(agentErr: .link(linkErr: "\(l)"))
        case .store(let s): return .internal(internalErr: "store: \(s)")
        case .internalError(let s): return .internal(internalErr: s)
        }
    }

    static func smpError(_ e: ErrorType) -> SMPErrorType {
        switch e {
        case .block: .block
        case .session: .session
        case .auth: .auth
        case .quota: .quota
        case .largeMessage: .largeMsg
        case .noMessage: .noMsg
        case .internalError: .internal
        default: .internal
        }
    }
}
