import Foundation
import GRDB
import SMPAgent
import SimplexFoundation

/// Connecting (seed 001 §1-7): invitations, joining links, addresses, contact requests, incognito.
extension ChatController {
    func runningAgent() throws(ChatError) -> SMPAgent {
        guard let agent else { throw .error(errorType: .chatNotStarted) }
        return agent
    }

    /// What we tell the peer about ourselves on a connection: our profile, or the connection's
    /// random incognito profile (the real one is never sent then).
    func profileToSend(_ user: User, incognitoProfileId: Int64?) throws(ChatError) -> Profile {
        if let id = incognitoProfileId,
            let r = try store.read({ db in try db.contactProfileRow(id) })
        {
            return Profile(displayName: r["display_name"], fullName: r["full_name"])
        }
        return user.profile.profile
    }

    func newIncognitoProfile(_ userId: Int64) throws(ChatError) -> Int64 {
        let adjectives = ["Quiet", "Brave", "Calm", "Bright", "Swift", "Gentle", "Bold", "Clever", "Kind", "Lucky", "Merry", "Noble"]
        let nouns = ["Otter", "Falcon", "Maple", "River", "Comet", "Badger", "Willow", "Heron", "Fox", "Lynx", "Cedar", "Robin"]
        let name = "\(adjectives.randomElement() ?? "Quiet")\(nouns.randomElement() ?? "Otter")"
        return try store.write { db in try db.insertIncognitoProfile(userId: userId, displayName: name, at: Self.now) }
    }

    /// Connection info (simplex-chat `encodeConnInfoPQ`): at most `maxEncodedInfoLength` bytes of
    /// JSON; on a post-quantum connection with chat version 8+, compressed when longer than
    /// `maxCompressedInfoLength`, and refused if still longer.
    func encodeInfo(_ event: ChatMsgEvent, pqSupport: Bool = false, chatVersion: UInt16? = nil) throws(ChatError) -> [UInt8] {
        do {
            let json = try ChatMessage(chatVRange: ourChatVRange, event: event).encoded(maxSize: ChatProtocolLimits.maxEncodedInfoLength)
            return [UInt8](try ChatCompression.bodyToSend(json, pqSupport: pqSupport, chatVersion: chatVersion ?? ourChatVRange.max,
                                                          limit: ChatProtocolLimits.maxCompressedInfoLength))
        } catch {
            throw .error(errorType: .internalError(message: "encoding \(event.tag): \(error)"))
        }
    }

    /// Connection info for joining a link: the peer's chat range is not known yet, so its version
    /// is taken from the link's agent versions as simplex-chat does (`agentToChatVersion`: 8 from
    /// the post-quantum agent version 5, else 1), with the PQ support the agent will use.
    func encodeJoinInfo(_ event: ChatMsgEvent, link: ConnectionRequestURI) async throws(ChatError) -> [UInt8] {
        let pq = await (try runningAgent()).config.pqSupport
        let version = link.agentVersions.max >= 5 ? ChatProtocolVersion.pqEncryptionCompression : ChatProtocolVersion.initial
        return try encodeInfo(event, pqSupport: pq, chatVersion: version)
    }

    /// `/_connect <userId>`: a new 1-time invitation, listed as a pending connection.
    func addContact(userId: Int64, incognito: Bool) async throws(ChatError) -> ChatResponse {
        let user = try userById(userId)
        let agent = try runningAgent()
        let incognitoId = incognito ? try newIncognitoProfile(userId) : nil
        // The short link carries the profile this connection will show (seed 001 §1.7).
        let data = try shortLinkData(ContactShortLinkData(profile: redacted(try profileToSend(user, incognitoProfileId: incognitoId))))
        let created: CreatedConnectionLink
        do { created = try await agent.createConnection(mode: .invitation, userLinkData: data, userId: userId) } catch {
            throw Self.agentError(error)
        }
        let row = try store.write { db -> Row? in
            try db.insertInvitationConnection(userId: userId, agentConnId: created.connId, link: created.link.uriString,
                                              shortLink: created.shortLink?.uriString, customProfileId: incognitoId, at: Self.now)
        }
        guard let row else { throw .error(errorType: .internalError(message: "connection not stored")) }
        return .invitation(user: user, connLinkInvitation: CreatedConnLink(connFullLink: created.link.uriString, connShortLink: created.shortLink?.uriString),
                           connection: Self.pending(row))
    }

    /// `/_connect <userId> <link>`: joins an invitation (sentConfirmation) or sends a request to
    /// an address (sentInvitation). Our own links and known contacts are refused.
    func connect(userId: Int64, incognito: Bool, link: String) async throws(ChatError) -> ChatResponse {
        let user = try userById(userId)
        let resolved = try await resolveLink(userId: userId, link)
        if case .own = resolved.ownShort { throw .error(errorType: .commandError(message: "this is your own link")) }
        let parsed = resolved.full
        let groupLinkId = Self.groupLinkId(parsed)
        if groupLinkId != nil {
            switch try groupPlan(userId: userId, parsed) {
            case .ownLink: throw .error(errorType: .commandError(message: "this is your own group link"))
            case .known(let g): throw .error(errorType: .commandError(message: "you are already a member of group \(g.localDisplayName)"))
            case .connectingProhibit: throw .error(errorType: .commandError(message: "you are already joining this group"))
            default: break
            }
        } else {
            switch try plan(userId: userId, parsed) {
            case .own: throw .error(errorType: .commandError(message: "this is your own link"))
            case .known(let contact): return .contactAlreadyExists(user: user, contact: contact)
            case .connecting, .fresh: break
            }
        }
        let agent = try runningAgent()
        let incognitoId = incognito ? try newIncognitoProfile(userId) : nil
        let profile = try profileToSend(user, incognitoProfileId: incognitoId)
        let info = try await encodeJoinInfo(parsed.mode == .contact
            ? .contact(profile: groupLinkId != nil ? redacted(profile) : profile, contactReqId: XContactId(bytes: SecureRandom.bytes(16)))
            : .info(profile), link: parsed)
        let agentConnId: String
        do { agentConnId = try await agent.joinConnection(link: parsed, connInfo: info, userId: userId) } catch {
            throw Self.agentError(error)
        }
        let row = try store.write { db -> Row? in
            try db.insertJoinedConnection(userId: userId, agentConnId: agentConnId, viaContactURI: parsed.mode == .contact,
                                          viaLink: parsed.withSimplexScheme.uriString, groupLinkId: groupLinkId, customProfileId: incognitoId, at: Self.now)
        }
        guard let row else { throw .error(errorType: .internalError(message: "connection not stored")) }
        let custom = incognito ? profile : nil
        return parsed.mode == .contact
            ? .sentInvitation(user: user, connection: Self.pending(row), customUserProfile: custom)
            : .sentConfirmation(user: user, connection: Self.pending(row), customUserProfile: custom)
    }

    enum LinkPlan {
        case own
        /// A contact we already have through this link (its address in its profile, or a
        /// connection made from this link).
        case known(Contact)
        /// We already joined this link; the connection is not complete yet.
        case connecting
        case fresh
    }

    /// Whether a link is one of ours (an invitation we created, our address) or new.
    func plan(userId: Int64, _ link: ConnectionRequestURI) throws(ChatError) -> LinkPlan {
        let s = link.withSimplexScheme.uriString
        return try store.read { db -> LinkPlan in
            if try db.isOwnFullLink(s) { return .own }
            if let id = try db.activeContactId(userId: userId, contactLink: s), let c = try self.contact(db, id) { return .known(c) }
            let via = try db.connectionViaLink(userId: userId, link: s)
            if via.found {
                if let id = via.contactId, let c = try self.contact(db, id), c.activeConn?.connStatus == .ready { return .known(c) }
                return .connecting
            }
            return .fresh
        }
    }

    /// The group link ID in a contact link's `data` (`{"groupLinkId":"..."}`): the link joins a
    /// group, not a contact.
    static func groupLinkId(_ link: ConnectionRequestURI) -> String? {
        guard link.mode == .contact, let data = link.clientData,
            case .object(let o)? = try? ChatJSON.decode(JSONValue.self, from: data), case .string(let id)? = o["groupLinkId"] else { return nil }
        return id
    }

    /// What joining a group link would do (simplex-chat `groupJoinRequestPlan`).
    func groupPlan(userId: Int64, _ link: ConnectionRequestURI) throws(ChatError) -> GroupLinkPlan {
        let s = link.withSimplexScheme.uriString
        return try store.read { db -> GroupLinkPlan in
            if let gid = try db.groupIdOwningLink(userId: userId, connLink: s), let g = try self.groupInfo(db, gid) {
                return .ownLink(groupInfo: g)
            }
            if let gid = try db.groupIdJoinedViaLink(userId: userId, link: s), let g = try self.groupInfo(db, gid) {
                let st = g.membership.memberStatus
                if st == .rejected || st.isActive { return .known(groupInfo: g) }
                if !st.isRemoved { return .connectingProhibit(groupInfo_: g) }
                return .ok(groupSLinkData_: nil)
            }
            if try db.hasPendingGroupJoin(userId: userId, link: s) { return .connectingConfirmReconnect }
            return .ok(groupSLinkData_: nil)
        }
    }

    /// `/_connect plan <userId> <link>`. A short link is resolved first (its data is fetched
    /// from the relay), unless it is one of ours.
    func connectPlan(userId: Int64, link: String) async throws(ChatError) -> ChatResponse {
        let user = try userById(userId)
        let resolved = try await resolveLink(userId: userId, link)
        if case .own(let mode, let group) = resolved.ownShort {
            let plan: ConnectionPlan
            if let group {
                plan = .groupLink(groupLinkPlan: .ownLink(groupInfo: group))
            } else {
                plan = mode == .invitation ? .invitationLink(invitationLinkPlan: .ownLink) : .contactAddress(contactAddressPlan: .ownLink)
            }
            return .connectionPlan(user: user, connLink: CreatedConnLink(connFullLink: link, connShortLink: link), connectionPlan: plan)
        }
        let parsed = resolved.full
        let connLink = CreatedConnLink(connFullLink: parsed.uriString, connShortLink: resolved.short)
        if Self.groupLinkId(parsed) != nil {
            var gp = try groupPlan(userId: userId, parsed)
            if case .ok = gp, let d = resolved.userData { gp = .ok(groupSLinkData_: try? ChatJSON.decode(GroupShortLinkData.self, from: Data(d))) }
            return .connectionPlan(user: user, connLink: connLink, connectionPlan: .groupLink(groupLinkPlan: gp))
        }
        let contactData = resolved.userData.flatMap { try? ChatJSON.decode(ContactShortLinkData.self, from: Data($0)) }
        let p = try plan(userId: userId, parsed)
        let plan: ConnectionPlan
        switch (parsed.mode, p) {
        case (.invitation, .own): plan = .invitationLink(invitationLinkPlan: .ownLink)
        case (.invitation, .known(let c)): plan = .invitationLink(invitationLinkPlan: .known(contact: c))
        case (.invitation, .connecting): plan = .invitationLink(invitationLinkPlan: .connecting(contact_: nil))
        case (.invitation, .fresh): plan = .invitationLink(invitationLinkPlan: .ok(contactSLinkData_: contactData))
        case (.contact, .own): plan = .contactAddress(contactAddressPlan: .ownLink)
        case (.contact, .known(let c)): plan = .contactAddress(contactAddressPlan: .known(contact: c))
        case (.contact, .connecting): plan = .contactAddress(contactAddressPlan: .connectingConfirmReconnect)
        case (.contact, .fresh): plan = .contactAddress(contactAddressPlan: .ok(contactSLinkData_: contactData))
        }
        return .connectionPlan(user: user, connLink: connLink, connectionPlan: plan)
    }

    /// A pasted link made joinable: a full link as is; a short link (not ours) resolved through
    /// its relay into the full link and the owner's data.
    struct ResolvedLink {
        enum Own { case none, own(ConnectionMode, GroupInfo?) }
        var full: ConnectionRequestURI
        var short: String?
        var userData: [UInt8]?
        var ownShort: Own = .none
    }

    func resolveLink(userId: Int64, _ text: String) async throws(ChatError) -> ResolvedLink {
        let link: ConnectionLink
        do { link = try ConnectionLink(parsing: text) } catch { throw .error(errorType: .invalidConnReq) }
        switch link {
        case .full(let full):
            return ResolvedLink(full: full)
        case .short(let short):
            let s = short.uriString
            let own = try store.read { db -> ResolvedLink.Own in
                guard let o = try db.ownShortLink(userId: userId, s) else { return .none }
                return .own(o.mode, try o.groupId.flatMap { gid throws in try self.groupInfo(db, gid) })
            }
            if case .own = own {
                // Our own link: its full form is in our database; nothing is fetched.
                return ResolvedLink(full: try ownFullLink(userId: userId, s), short: s, ownShort: own)
            }
            let agent = try runningAgent()
            do {
                let (full, data) = try await agent.getConnShortLink(short)
                return ResolvedLink(full: full, short: s, userData: data)
            } catch {
                throw Self.agentError(error)
            }
        }
    }

    private func ownFullLink(userId: Int64, _ short: String) throws(ChatError) -> ConnectionRequestURI {
        let text = try store.read { db in try db.ownFullLink(userId: userId, short: short) }
        guard let text, let full = try? ConnectionRequestURI(parsing: text) else { throw .error(errorType: .invalidConnReq) }
        return full
    }

    /// Link data as simplex-chat stores it: the JSON of ContactShortLinkData or GroupShortLinkData.
    func shortLinkData<T: Encodable>(_ v: T) throws(ChatError) -> [UInt8] {
        [UInt8](try json(v).utf8)
    }

    /// `/_address <userId>`: a long-lived contact address.
    func createAddress(userId: Int64, pqRatchet: Bool?) async throws(ChatError) -> ChatResponse {
        let user = try userById(userId)
        if try store.read({ db in try db.userContactLinkRow(userId: userId) }) != nil {
            throw .error(errorType: .commandError(message: "you already have an address"))
        }
        let agent = try runningAgent()
        let data = try shortLinkData(ContactShortLinkData(profile: redacted(user.profile.profile)))
        let created: CreatedConnectionLink
        do { created = try await agent.createConnection(mode: .contact, userLinkData: data, pqSupport: pqRatchet, userId: userId) } catch {
            throw Self.agentError(error)
        }
        try store.write { db in
            try db.insertUserContactLink(userId: userId, agentConnId: created.connId, link: created.link.uriString, shortLink: created.shortLink?.uriString,
                                         pqSupport: pqRatchet, at: Self.now)
        }
        return .userContactLinkCreated(user: user, connLinkContact: CreatedConnLink(connFullLink: created.link.uriString, connShortLink: created.shortLink?.uriString))
    }

    func showAddress(userId: Int64) throws(ChatError) -> ChatResponse {
        let user = try userById(userId)
        guard let r = try store.read({ db in try db.userContactLinkRow(userId: userId) }) else {
            throw .errorStore(storeError: .userContactLinkNotFound)
        }
        return .userContactLink(user: user, contactLink: Self.contactLink(r))
    }

    static func contactLink(_ r: Row) -> UserContactLink {
        let settings = (r["address_settings"] as String?).flatMap { try? ChatJSON.decode(AddressSettings.self, from: $0) } ?? AddressSettings()
        let short: String? = r["short_link"]
        return UserContactLink(userContactLinkId: r["user_contact_link_id"], connLinkContact: CreatedConnLink(connFullLink: r["conn_link"], connShortLink: short),
                               shortLinkDataSet: short != nil, shortLinkLargeDataSet: false, addressSettings: settings)
    }

    /// `/_address_settings <userId> <json>`: auto-accept (optionally incognito) and the welcome
    /// message sent to each contact made through the address.
    /// `pq_ratchet=on|off` sets post-quantum support for the contacts accepted through the
    /// address. A business address (requests become business chats) needs chat version 10, so
    /// a core configured with an older range refuses it.
    /// The address's short link data then says so (`business`, the welcome `message`), best effort.
    func setAddressSettings(userId: Int64, pqRatchet: Bool?, _ settings: AddressSettings) async throws(ChatError) -> ChatResponse {
        let user = try userById(userId)
        if settings.businessAddress && ourChatVRange.max < ChatProtocolVersion.businessChats {
            throw .error(errorType: .commandError(message: "business addresses need chat version \(ChatProtocolVersion.businessChats)"))
        }
        let json = try json(settings)
        let r = try store.write { db -> Row? in
            try db.setAddressSettings(userId: userId, json, pqSupport: pqRatchet)
            return try db.userContactLinkRow(userId: userId)
        }
        guard let r else { throw .errorStore(storeError: .userContactLinkNotFound) }
        await updateAddressLinkData(userId: userId)
        return .userContactLinkUpdated(user: user, contactLink: Self.contactLink(r))
    }

    /// `/_set prefs @<contactId> <json>`: our feature preferences for this contact, sent to it
    /// in our profile (x.info).
    func setContactPrefs(contactId: Int64, _ prefs: Preferences) async throws(ChatError) -> ChatResponse {
        let (user, from, agentConnId) = try contactConnection(contactId)
        let json = try json(prefs)
        try store.write { db in try db.setContactUserPreferences(contactId, json, at: Self.now) }
        let custom: Int64? = try store.read { db in try db.connectionIncognitoProfileId(agentConnId: agentConnId) }
        var profile = try profileToSend(user, incognitoProfileId: custom)
        // As simplex-chat (`userProfileToSend`): the contact gets our preferences for it merged
        // with our global ones (not the global ones when incognito).
        profile.preferences = Preferences(FullPreferences.merged(prefs, custom == nil ? user.profile.preferences : nil))
        try await sendEvent(agentConnId, .info(profile))
        guard let to = try store.read({ db in try self.contact(db, contactId) }) else { throw .errorStore(storeError: .contactNotFound(contactId: contactId)) }
        return .contactPrefsUpdated(user: user, fromContact: from, toContact: to)
    }

    func deleteAddress(userId: Int64) async throws(ChatError) -> ChatResponse {
        let user = try userById(userId)
        guard let agentConnId: String = try store.read({ db in try db.userContactLinkRow(userId: userId)?["agent_conn_id"] }) else {
            throw .errorStore(storeError: .userContactLinkNotFound)
        }
        try await deleteAgentConnections([agentConnId])
        try store.write { db in try db.deleteUserContactLink(userId: userId) }
        return .userContactLinkDeleted(user: user)
    }

    /// `/_accept <contactReqId>`: a new contact from a request to our address.
    func acceptContact(requestId: Int64, incognito: Bool) async throws(ChatError) -> ChatResponse {
        guard let (req, userId) = try store.read({ db -> (UserContactRequest, Int64)? in
            guard let req = try self.contactRequest(db, requestId),
                let uid = try db.contactRequestUserId(requestId)
            else { return nil }
            return (req, uid)
        }) else { throw .errorStore(storeError: .contactRequestNotFound(contactRequestId: requestId)) }
        let user = try userById(userId)
        let agent = try runningAgent()
        let incognitoId = incognito ? try newIncognitoProfile(userId) : nil
        // The address's pq_ratchet setting, when one was given.
        let pq = try store.read { db in try db.addressPQSupport(userContactLinkId: req.userContactLinkId_) }
        let agentDefaultPQ = await agent.config.pqSupport
        let pqSupport = pq ?? agentDefaultPQ
        let version = Self.negotiatedVersion(ours: ourChatVRange, peerMin: req.cReqChatVRange.minVersion, peerMax: req.cReqChatVRange.maxVersion)
        let info = try encodeInfo(.info(try profileToSend(user, incognitoProfileId: incognitoId)), pqSupport: pqSupport, chatVersion: version)
        let agentConnId: String
        do { agentConnId = try await agent.acceptContact(invitationId: req.agentInvitationId, connInfo: info, pqSupport: pq) } catch {
            throw Self.agentError(error)
        }
        // The first e2e notice shows the request's post-quantum support (simplex-chat makes it at REQ
        // from REQ's `PQSupport`), not our address's setting.
        let requestPQ: Bool
        do { requestPQ = try await agent.invitationPQSupport(invitationId: req.agentInvitationId) } catch { requestPQ = false }
        let contact = try store.write { db -> Contact? in
            let name = try self.uniqueName(db, userId: userId, req.localDisplayName)
            let contactId = try db.insertAcceptedContact(
                userId: userId, localDisplayName: name, profileId: req.profileId, requestId: requestId, agentConnId: agentConnId,
                userContactLinkId: req.userContactLinkId_, customProfileId: incognitoId, peerMinVersion: req.cReqChatVRange.minVersion,
                peerMaxVersion: req.cReqChatVRange.maxVersion, pqSupport: pqSupport, at: Self.now)
            // simplex-chat makes the chat's banner, e2e notice (the post-quantum support of the request)
            // and feature items with the contact it creates for the request (`profileContactRequest`).
            if let c = try self.contact(db, contactId) {
                for i in try self.directNewChatItems(user: user, c, pqEnabled: requestPQ) { _ = try db.insertChatItem(i, at: Self.now) }
            }
            // The message sent with the request becomes the first message of the chat.
            if let r = try db.contactRequestMessage(requestId),
                let content = r.contentJSON.flatMap({ try? ChatJSON.decode(MsgContent.self, from: $0) }),
                let itemContent = try? ChatJSON.string(CIContent.rcvMsgContent(msgContent: content)),
                let status = try? ChatJSON.string(CIStatus.rcvNew) {
                try db.insertRequestMessageReceived(userId: userId, contactId: contactId, text: content.text, contentJSON: itemContent,
                                                    statusJSON: status, sharedMsgId: r.sharedMsgId, at: Self.now)
            }
            try db.moveRequestWelcomeId(requestId, toContact: contactId)
            try db.deleteContactRequest(requestId)
            return try self.contact(db, contactId)
        }
        guard let contact else { throw .error(errorType: .internalError(message: "contact not stored")) }
        return .acceptingContactRequest(user: user, contact: contact)
    }

    func rejectContact(requestId: Int64) async throws(ChatError) -> ChatResponse {
        guard let (req, userId) = try store.read({ db -> (UserContactRequest, Int64)? in
            guard let req = try self.contactRequest(db, requestId),
                let uid = try db.contactRequestUserId(requestId)
            else { return nil }
            return (req, uid)
        }) else { throw .errorStore(storeError: .contactRequestNotFound(contactRequestId: requestId)) }
        let user = try userById(userId)
        if let agent { try? await agent.rejectContact(invitationId: req.agentInvitationId) }
        try store.write { db in try db.deleteContactRequest(requestId) }
        return .contactRequestRejected(user: user, contactRequest: req, contact_: nil)
    }

    /// `/_set incognito :<connId> on|off` for a pending connection that has not sent its profile.
    func setConnectionIncognito(connId: Int64, incognito: Bool) throws(ChatError) -> ChatResponse {
        guard let r = try store.read({ db in try db.unboundConnectionRow(connId) }) else {
            throw .errorStore(storeError: .connectionNotFoundById(connId: connId))
        }
        guard (r["conn_status"] as String) == "new" else {
            throw .error(errorType: .commandError(message: "the profile was already sent on this connection"))
        }
        let userId: Int64 = r["user_id"]
        let user = try userById(userId)
        let profileId = incognito ? try newIncognitoProfile(userId) : nil
        let row = try store.write { db -> Row? in
            try db.setConnectionCustomProfile(connId, profileId, at: Self.now)
            return try db.connectionRow(connectionId: connId)
        }
        guard let row else { throw .errorStore(storeError: .connectionNotFoundById(connId: connId)) }
        let custom = try profileId.map { id throws(ChatError) in try profileToSend(user, incognitoProfileId: id) }
        return .connectionIncognitoUpdated(user: user, toConnection: Self.pending(row), customUserProfile: custom)
    }

    /// A contact name not yet used by this user ("alice", "alice_1", ...).
    func uniqueName(_ db: Database, userId: Int64, _ name: String) throws -> String {
        var candidate = name.isEmpty ? "contact" : name
        var n = 0
        while try db.contactNameUsed(userId: userId, candidate) {
            n += 1
            candidate = "\(name)_\(n)"
        }
        return candidate
    }
}

/// Local aliases: names only we see, for contacts and pending connections.
extension ChatController {
    func setContactAlias(_ contactId: Int64, _ alias: String) throws(ChatError) -> ChatResponse {
        let found = try store.write { db -> (Int64, Contact)? in
            try db.setContactAlias(contactId, alias)
            guard let c = try self.contact(db, contactId), let uid = try db.contactUserId(contactId)
            else { return nil }
            return (uid, c)
        }
        guard let (userId, contact) = found else { throw .errorStore(storeError: .contactNotFound(contactId: contactId)) }
        return .contactAliasUpdated(user: try userById(userId), toContact: contact)
    }

    func setConnectionAlias(_ connId: Int64, _ alias: String) throws(ChatError) -> ChatResponse {
        let row = try store.write { db -> Row? in
            try db.setPendingConnectionAlias(connId, alias, at: Self.now)
            return try db.unboundConnectionRow(connId)
        }
        guard let row else { throw .errorStore(storeError: .connectionNotFoundById(connId: connId)) }
        return .connectionAliasUpdated(user: try userById(row["user_id"]), toConnection: Self.pending(row))
    }
}
