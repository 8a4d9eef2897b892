import Foundation
import GRDB
import SMPAgent
import SMPProtocol
import SimplexStore

/// Building the API's JSON types from chat database rows, and errors from agent errors.
extension ChatController {
    static func ts(_ seconds: Double) -> UTCTime { UTCTime(Date(timeIntervalSince1970: seconds)) }
    static var now: Double { Date().timeIntervalSince1970 }

    /// Our chat protocol range as the API reports it (the `v` we send in every message).
    nonisolated var chatVRange: ChatVersionRange {
        ChatVersionRange(minVersion: Int(ourChatVRange.min), maxVersion: Int(ourChatVRange.max))
    }

    func userById(_ userId: Int64) throws(ChatError) -> User {
        try store.read { db in try self.user(db, userId) }
    }

    /// A user inside a read that needs more (one read instead of two on the message paths).
    nonisolated func user(_ db: Database, _ userId: Int64) throws -> User {
        guard let r = try db.userRecord(userId, preferences: decoded.preferences.decode) else {
            throw ChatError.errorStore(storeError: .userNotFound(userId: userId))
        }
        return r.user
    }

    /// A connection as negotiated: the peer's chat version range from its handshake message
    /// (ours until it arrives), the version both use, and PQ encryption as the agent reported it.
    nonisolated func connection(_ r: some ColumnReading) -> Connection {
        let peerMin: Int? = r["peer_chat_min_version"], peerMax: Int? = r["peer_chat_max_version"]
        let peer = peerMin.flatMap { lo in peerMax.map { ChatVersionRange(minVersion: lo, maxVersion: $0) } } ?? chatVRange
        let version = min(peer.maxVersion, chatVRange.maxVersion)
        let code: String? = r["security_code"], verifiedAt: Double? = r["security_code_verified_at"]
        let securityCode = code.flatMap { c in verifiedAt.map { SecurityCode(securityCode: c, verifiedAt: Self.ts($0)) } }
        return Connection(connId: r["connection_id"], agentConnId: r["agent_conn_id"], connChatVersion: version, peerChatVRange: peer,
                          viaUserContactLink: r["user_contact_link_id"], customUserProfileId: r["custom_user_profile_id"],
                          connType: ConnType(rawValue: r["conn_type"]) ?? .contact, connStatus: ConnStatus(rawValue: r["conn_status"]) ?? .new,
                          contactConnInitiated: r["initiated"], localAlias: r["local_alias"], entityId: r["contact_id"],
                          connectionCode: securityCode, pqSupport: r["pq_support"], pqEncryption: r["pq_encryption"], createdAt: Self.ts(r["created_at"]))
    }

    static func pending(_ r: Row) -> PendingContactConnection {
        let link: String? = r["conn_link_inv"]
        return PendingContactConnection(
            pccConnId: r["connection_id"], pccAgentConnId: r["agent_conn_id"], pccConnStatus: ConnStatus(rawValue: r["conn_status"]) ?? .new,
            viaContactUri: r["via_contact_uri"], viaUserContactLink: r["user_contact_link_id"], customUserProfileId: r["custom_user_profile_id"],
            connLinkInv: link.map { CreatedConnLink(connFullLink: $0, connShortLink: r["short_link_inv"]) }, localAlias: r["local_alias"],
            createdAt: ts(r["created_at"]), updatedAt: ts(r["updated_at"]))
    }

    /// A stored profile, all of it (what the peer sent, or what the user set).
    static func profile(_ r: some ColumnReading, prefix: String = "", preferences: (String) -> Preferences? = ChatController.decodePreferences) -> LocalProfile {
        LocalProfile(profileId: r[prefix + "profile_id"], profile: publicProfile(r, prefix: prefix, preferences: preferences),
                     localAlias: (r[prefix + "local_alias"] as String?) ?? "")
    }

    /// `preferences`: how the preferences JSON is decoded (the controller's `decoded` cache on hot paths).
    static func publicProfile(_ r: some ColumnReading, prefix: String = "", preferences: (String) -> Preferences? = ChatController.decodePreferences) -> Profile {
        Profile(displayName: r[prefix + "display_name"], fullName: r[prefix + "full_name"], shortDescr: r[prefix + "short_descr"],
                image: r[prefix + "image"], contactLink: r[prefix + "contact_link"],
                preferences: (r[prefix + "preferences"] as String?).flatMap(preferences),
                peerType: (r[prefix + "peer_type"] as String?).flatMap(ChatPeerType.init(rawValue:)))
    }

    static func decodePreferences(_ json: String) -> Preferences? { try? ChatJSON.decode(Preferences.self, from: json) }

    func contact(_ db: Database, _ contactId: Int64) throws -> Contact? {
        try contactWithUserId(db, contactId)?.contact
    }

    /// A contact and its user's id, from one read of its row.
    func contactWithUserId(_ db: Database, _ contactId: Int64) throws -> (contact: Contact, userId: Int64)? {
        let activeConn = try db.withLatestContactConnectionRow(contactId) { r in connection(r) }
        return try db.withContactRow(contactId) { r -> (contact: Contact, userId: Int64) in (contact(r, activeConn: activeConn), r["user_id"]) }
    }

    /// A contact from its row (`withContactRow`); preferences decoded through `decoded`.
    nonisolated func contact(_ r: some ColumnReading, activeConn: Connection?) -> Contact {
        let contactId: Int64 = r["contact_id"]
        let chatTs: Double? = r["chat_ts"]
        let prefs = (r["user_preferences"] as String?).flatMap(decoded.preferences.decode) ?? Preferences()
        let userPrefs = (r["user_global_preferences"] as String?).flatMap(decoded.preferences.decode)
        let profile = Self.profile(r, preferences: decoded.preferences.decode)
        let merged = ContactUserPreferences.merged(user: userPrefs, override: prefs, contact: profile.preferences,
                                                   incognito: activeConn?.customUserProfileId != nil)
        let custom = (r["custom_data"] as String?).flatMap { try? ChatJSON.decode([String: JSONValue].self, from: $0) }
        return Contact(contactId: contactId, localDisplayName: r["local_display_name"], profile: profile, activeConn: activeConn,
                       contactUsed: r["contact_used"], contactStatus: ContactStatus(rawValue: r["contact_status"]) ?? .active,
                       chatSettings: ChatSettings(), userPreferences: prefs, mergedPreferences: merged, createdAt: Self.ts(r["created_at"]), updatedAt: Self.ts(r["updated_at"]),
                       chatTs: chatTs.map(Self.ts), preparedContact: Self.preparedContact(r), contactRequestId: r["contact_request_id"],
                       contactGroupMemberId: r["contact_group_member_id"], contactGrpInvSent: r["contact_grp_inv_sent"] ?? false,
                       groupDirectInv: Self.groupDirectInvitation(r), chatDeleted: r["chat_deleted"], customData: custom)
    }

    /// The invitation a member sent us in x.grp.direct.inv (simplex-chat `GroupDirectInvitation`).
    static func groupDirectInvitation(_ r: some ColumnReading) -> GroupDirectInvitation? {
        guard let link = r["grp_direct_inv_link"] as String? else { return nil }
        return GroupDirectInvitation(groupDirectInvLink: link, fromGroupId_: r["grp_direct_inv_from_group_id"],
                                     fromGroupMemberId_: r["grp_direct_inv_from_group_member_id"],
                                     fromGroupMemberConnId_: r["grp_direct_inv_from_member_conn_id"],
                                     groupDirectInvStartedConnection: r["grp_direct_inv_started_connection"] ?? false)
    }

    /// The link a prepared contact will connect through, until it does.
    static func preparedContact(_ r: some ColumnReading) -> PreparedContact? {
        guard let full = r["prepared_conn_link"] as String?, let mode = (r["prepared_link_mode"] as String?).flatMap(ConnectionLinkMode.init(rawValue:))
        else { return nil }
        return PreparedContact(connLinkToConnect: CreatedConnLink(connFullLink: full, connShortLink: r["prepared_short_link"]), uiConnLinkType: mode)
    }

    func contactRequest(_ db: Database, _ id: Int64) throws -> UserContactRequest? {
        guard let r = try db.contactRequestRow(id) else { return nil }
        return UserContactRequest(
            contactRequestId: id, agentInvitationId: r["agent_invitation_id"], userContactLinkId_: r["user_contact_link_id"],
            cReqChatVRange: Self.peerRange(min: r["peer_chat_min_version"], max: r["peer_chat_max_version"]) ?? chatVRange,
            localDisplayName: r["local_display_name"], profileId: r["profile_id"], profile: Self.publicProfile(r),
            createdAt: Self.ts(r["created_at"]), updatedAt: Self.ts(r["updated_at"]), pqSupport: true)
    }

    static func peerRange(min: Int?, max: Int?) -> ChatVersionRange? {
        guard let min, let max else { return nil }
        return ChatVersionRange(minVersion: min, maxVersion: max)
    }

    /// simplex-chat `deletable'`: our own message content, less than a day old, not deleted.
    static func deletable(_ content: CIContent, deleted: Bool, itemTs: Double, now: Double) -> Bool {
        guard case .sndMsgContent = content else { return false }
        return !deleted && now - itemTs < 86_400
    }

    /// A chat item row with its quote, timer, deletion mark and reaction counts.
    /// `deferred`: "sent" marks not written yet (ChatStore), shown as they will be stored.
    /// `has`: which of reactions, mentions and file exist (known from `withChatItemRow`; the
    /// others are queried).
    nonisolated func chatItem(_ db: Database, _ r: some ColumnReading, deferred: [Int64: String], has: ItemRelations = .unknown) throws -> ChatItem {
        let sent: Bool = r["item_sent"]
        let itemId: Int64 = r["chat_item_id"]
        let contentJSON: String = r["item_content"], statusJSON: String = r["item_status"]
        let content = decoded.contents.decode(contentJSON) ?? .invalidJSON(direction: sent ? .snd : .rcv, json: contentJSON)
        var status = decoded.statuses.decode(statusJSON) ?? .invalid(text: statusJSON)
        if let mark = deferred[itemId], let s = decoded.statuses.decode(mark) {
            // As the write will do it: "delivered" is kept.
            if case .sndRcvd = status {} else { status = s }
        }
        let deleted = (r["item_deleted"] as String?).flatMap { try? ChatJSON.decode(CIDeleted.self, from: $0) }
        let text: String = r["item_text"]
        let ttl: Int? = r["timed_ttl"]
        let deleteAt: Double? = r["timed_delete_at"]
        let forwarded: Bool = r["item_forwarded"]
        let deletable = Self.deletable(content, deleted: deleted != nil, itemTs: r["item_ts"], now: Self.now)
        let meta = CIMeta(itemId: itemId, itemTs: Self.ts(r["item_ts"]), itemText: text, itemStatus: status,
                          itemSharedMsgId: r["shared_msg_id"], itemForwarded: forwarded ? .unknown : nil, itemDeleted: deleted,
                          itemEdited: r["item_edited"], itemTimed: ttl.map { CITimed(ttl: $0, deleteAt: deleteAt.map(Self.ts)) },
                          itemLive: (r["item_live"] as Bool) ? true : nil, userMention: (r["user_mention"] as Bool?) ?? false,
                          deletable: deletable, editable: deletable && !forwarded,
                          forwardedByMember: r["forwarded_by_group_member_id"],
                          createdAt: Self.ts(r["created_at"]), updatedAt: Self.ts(r["updated_at"]))
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
                            sentAt: Self.ts(r["quoted_sent_at"] ?? 0), content: qContent, formattedText: Markdown.parse(qContent.text))
        }
        var counts: [CIReactionCount] = []
        for (json, total, mine) in try (has.reactions ? db.reactionCounts(itemId) : []) {
            guard let reaction = try? ChatJSON.decode(MsgReaction.self, from: json) else { continue }
            counts.append(CIReactionCount(reaction: reaction, userReacted: mine, totalReacted: total))
        }
        var dir: CIDirection = sent ? .directSnd : .directRcv
        if groupId != nil {
            dir = sent ? .groupSnd : .groupRcv(groupMember: try (r["group_member_id"] as Int64?).flatMap { try groupMember(db, $0) })
        }
        return ChatItem(chatDir: dir, meta: meta, content: content, mentions: try (has.mentions ? itemMentions(db, itemId, groupId: groupId) : [:]),
                        formattedText: deleted == nil ? decoded.formattedText(text) : nil, quotedItem: quote, reactions: counts,
                        file: try (has.file ? Self.itemFile(db, itemId) : nil))
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
        case .proxy(let proxy, let relay, let e):
            let p: ProxyClientError = switch e {
            case .protocolError(let t): .protocolError(protocolErr: smpError(t))
            case .unexpectedResponse(let s): .unexpectedResponse(responseStr: s)
            case .responseError(let t): .responseError(responseErr: smpError(t))
            }
            return .proxy(proxyServer: proxy, relayServer: relay, proxyErr: p)
        case .agent(let a):
            let x: SMPAgentError = switch a {
            case .message: .message
            case .prohibited(let s): .prohibited(prohibitedErr: s)
            case .version: .version
            case .crypto(let c): .crypto(cryptoErr: apiCryptoError(c))
            case .duplicate: .duplicate(droppedMsg_: nil)
            case .queue(let s): .queue(queueErr: s)
            }
            return .agent(agentErr: x)
        case .link(let l): return .agent(agentErr: .link(linkErr: "\(l)"))
        case .store(let s): return .internal(internalErr: "store: \(s)")
        case .internalError(let s): return .internal(internalErr: s)
        }
    }

    /// simplexmq's AgentCryptoError as the API encodes it.
    static func apiCryptoError(_ e: SMPAgent.CryptoError) -> AgentCryptoError {
        switch e {
        case .decryptAES: .decryptAES
        case .decryptCB: .decryptCB
        case .ratchetHeader: .ratchetHeader
        case .ratchetEarlier(let n): .ratchetEarlier(n)
        case .ratchetSkipped(let n): .ratchetSkipped(n)
        case .ratchetSync: .ratchetSync
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
        case .proxy(let p): .proxy(proxyErr: proxyError(p))
        default: .internal
        }
    }

    /// A proxy's report about the destination (simplexmq `ProxyError`), for private routing.
    static func proxyError(_ p: ProxyError) -> SMPProxyError {
        switch p {
        case .proto(let t): .protocol(protocolErr: smpError(t))
        case .basicAuth: .basicAuth
        case .noSession: .noSession
        case .broker(let b): .broker(brokerErr: brokerError(b))
        }
    }

    /// simplexmq `BrokerErrorType` inside a proxy's report.
    static func brokerError(_ b: BrokerError) -> AgentBrokerErrorType {
        switch b {
        case .response(let s): .response(respErr: s)
        case .unexpected(let s): .unexpected(respErr: s)
        case .network: .network(networkError: .failedError)
        case .timeout: .timeout
        case .host: .host
        case .noService: .noService
        case .transport(.version): .transport(transportErr: .version)
        case .transport(.block): .transport(transportErr: .badBlock)
        case .transport(.largeMessage): .transport(transportErr: .largeMsg)
        case .transport(.session): .transport(transportErr: .badSession)
        case .transport(.noAuth): .transport(transportErr: .noServerAuth)
        case .transport(.handshake(let h)): .transport(transportErr: .handshake(handshakeErr: SMPHandshakeError(rawValue: h.rawValue) ?? .parse))
        }
    }
}
