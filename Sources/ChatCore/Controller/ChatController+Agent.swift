import Foundation
import GRDB
import SMPAgent
import SMPTransport

/// Running the agent under the chat core (`/_start`, `/_stop`).
extension ChatController {
    /// Starts the agent (its database beside ours) with the user's relays, or the defaults.
    /// Returns false when it was already running.
    func startAgent() async throws(ChatError) -> Bool {
        if agent != nil { return false }
        let configured = try store.read { db in try db.activeUserServers(protocol: "smp") }
        let servers = (configured.isEmpty ? config.defaultSMPServers : configured).compactMap { try? SMPServerAddress(parsing: $0) }
        let a: SMPAgent
        do {
            var agentConfig = AgentConfig(servers: servers)
            (agentConfig.smpProxyMode, agentConfig.smpProxyFallback) = proxyRouting
            a = try SMPAgent(config: agentConfig, databasePath: Self.agentDatabasePath(dbPrefix), databaseKey: dbKey, group: group)
        } catch {
            throw .error(errorType: .internalError(message: "agent database: \(error)"))
        }
        agent = a
        await a.start()
        // Connections deleted while the agent was stopped go first (with their relay queues).
        await resumeAgentDeletions(a)
        // File uploads and downloads under way when the chat stopped continue (issue 15).
        resumeFileTransfers()
        // Strong captures: both tasks end in stopAgent (cancelled, and the agent's event stream
        // finishes), which every close path calls. A weak reference would give the controller a
        // side table that a controller living in libsimplex's registry keeps until exit.
        agentEvents = Task {
            for await e in a.events {
                await self.handleAgentEvent(e)
            }
        }
        timedDeletions = Task {
            while !Task.isCancelled {
                try? await Task.sleep(nanoseconds: 500_000_000)
                await self.deleteExpiredItems()
            }
        }
        return true
    }

    /// Timed messages past their time: removed, and reported as deleted with `timed`.
    func deleteExpiredItems() {
        guard let due = try? store.read({ db in try db.dueTimedItems(at: Self.now) }) else { return }
        for (itemId, contactId, groupId, userId) in due {
            let before: AChatItem?
            if let groupId {
                before = try? groupItem(groupId, itemId)
            } else if let contactId, let contact = try? store.read({ db in try self.contact(db, contactId) }) {
                before = try? aItem(contact, itemId)
            } else {
                before = nil
            }
            guard let before, let user = try? userById(userId) else {
                try? store.write { db in try db.deleteChatItem(itemId) }
                continue
            }
            try? store.write { db in try db.deleteChatItem(itemId) }
            emit(.chatItemsDeleted(user: user, chatItemDeletions: [ChatItemDeletion(deletedChatItem: before, toChatItem: nil)], byUser: false, timed: true))
        }
    }

    func stopAgent() async {
        files.cancelAll()
        await files.pool.closeAll()
        timedDeletions?.cancel()
        timedDeletions = nil
        guard let a = agent else { return }
        agent = nil
        agentEvents?.cancel()
        agentEvents = nil
        await a.stop()
    }

    /// Agent events for our connections become chat state and chat events.
    /// A database failure while handling is reported and the event handled again after a
    /// growing delay (the message stays unacknowledged meanwhile), so nothing received is lost.
    func handleAgentEvent(_ e: AgentEvent) async {
        var attempt = 0
        while true {
            do {
                try await handle(e)
                return
            } catch {
                emit(.chatError(chatError: error))
                guard error.isDatabaseError, agent != nil, !Task.isCancelled else { return }
                attempt += 1
                try? await Task.sleep(nanoseconds: UInt64(min(0.1 * Double(1 << min(attempt, 6)), 5) * 1e9))
            }
        }
    }

    func connectionRow(_ agentConnId: String) throws(ChatError) -> Row? {
        try store.read { db in try db.connectionRow(agentConnId: agentConnId) }
    }

    /// The first readable message of a handshake body (connection info may be compressed, as
    /// simplex-chat sends it on post-quantum connections of chat version 8+).
    private func decodeChatMessage(_ bytes: [UInt8]) -> ChatMessage? {
        for r in ChatMessageBody.parse(Data(bytes)) {
            if case .success(let m) = r { return m }
        }
        return nil
    }

    private func handle(_ e: AgentEvent) async throws(ChatError) {
        let agentConnId = e.connId
        switch e.kind {
        case .req(let invitationId, let info):
            try await contactRequestReceived(agentConnId, invitationId, info)
        case .conf(let confirmationId, let info):
            // The joiner's (or the address owner's) profile: make the contact, answer with ours.
            guard let conn = try connectionRow(agentConnId) else { return }
            let msg = decodeChatMessage(info)
            try recordPeerVersion(agentConnId, msg)
            if conn["group_member_id"] as Int64? != nil {
                try await groupConfirmation(conn, confirmationId: confirmationId, msg)
                return
            }
            // x.grp.link.inv on a connection made through a group link, or through an address that
            // answers as a business (simplex-chat `saveConnInfo`): the connection joins a group.
            if case .grpLinkInv(let inv)? = msg?.event, conn["contact_id"] as Int64? == nil {
                try await groupLinkInvitationReceived(conn, confirmationId: confirmationId, inv)
                return
            }
            if case .grpLinkInv(let inv)? = msg?.event, let contactId = conn["contact_id"] as Int64? {
                try await businessCardAnswered(conn, contactId: contactId, confirmationId: confirmationId, inv)
                return
            }
            if case .grpLinkReject(let rejection)? = msg?.event, conn["via_group_link_id"] as String? != nil {
                try groupLinkRejectionReceived(conn, rejection)
                return
            }
            guard case .info(let profile)? = msg?.event else {
                throw .error(errorType: .commandError(message: "confirmation without a profile"))
            }
            let userId: Int64 = conn["user_id"]
            let user = try userById(userId)
            let contactId = try createContact(conn, profile: profile, status: "requested")
            // A member contact's invitation was joined: it is an ordinary contact from now on
            // (simplex-chat `resetMemberContactFields` at CONF with x.info).
            try store.write { db in try db.resetMemberContactFields(contactId, at: Self.now) }
            let (version, pq) = try negotiated(agentConnId)
            let ours = try encodeInfo(.info(try profileToSend(user, incognitoProfileId: conn["custom_user_profile_id"])), pqSupport: pq, chatVersion: version)
            let agent = try runningAgent()
            do { try await agent.allowConnection(connId: agentConnId, confirmationId: confirmationId, connInfo: ours) } catch {
                throw Self.agentError(error, connId: agentConnId)
            }
            try store.write { db in try db.setConnectionStatus(agentConnId: agentConnId, "accepted", at: Self.now) }
        case .info(let info):
            guard let conn = try connectionRow(agentConnId) else { return }
            try recordPeerVersion(agentConnId, decodeChatMessage(info))
            if conn["group_member_id"] as Int64? != nil {
                try groupConnectionInfo(conn, decodeChatMessage(info))
                return
            }
            guard case .info(let profile)? = decodeChatMessage(info)?.event else {
                throw .error(errorType: .commandError(message: "connection info without a profile"))
            }
            let contactId = try createContact(conn, profile: profile, status: "requested")
            let userId: Int64 = conn["user_id"]
            if let c = try store.read({ db in try self.contact(db, contactId) }) { emit(.contactConnecting(user: try userById(userId), contact: c)) }
        case .con(let pq):
            guard let conn = try connectionRow(agentConnId) else { return }
            try store.write { db in try db.setConnectionPQEncryption(agentConnId: agentConnId, pq) }
            if conn["group_member_id"] as Int64? != nil {
                try await groupConnected(conn)
                return
            }
            guard let contactId = conn["contact_id"] as Int64? else { return }
            let userId: Int64 = conn["user_id"]
            let contact = try store.write { db -> Contact? in
                // simplex-chat starts the chat here (its feature items), so the contact has a chat time.
                try db.contactConnected(contactId, agentConnId: agentConnId, at: Self.now)
                return try self.contact(db, contactId)
            }
            guard let contact else { return }
            let user = try userById(userId)
            let custom = try (conn["custom_user_profile_id"] as Int64?).map { id throws(ChatError) in try profileToSend(user, incognitoProfileId: id) }
            emit(.contactConnected(user: user, contact: contact, userCustomProfile: custom))
            try contactConnectedItems(user: user, contact, pq: pq)
            // A connection we made or joined is probed once (simplex-chat `contactConnInitiated`).
            if conn["initiated"] as Bool? == true {
                do {
                    try await probeMatchingMembers(user: user, contact, agentConnId: agentConnId,
                                                   incognito: conn["custom_user_profile_id"] as Int64? != nil)
                } catch {
                    emit(.chatError(chatError: error))
                }
            }
            try await sendWelcome(conn, user: user, contact: contact)
        case .msg(let meta, let body):
            try await messageReceived(agentConnId, meta, body)
        case .sent(let msgId):
            // A file description makes no item: looked for only when the message made none.
            try statusesUpdate(agentConnId, [(msgId, .sndSent(sndProgress: .complete))], noItem: { fileDescrSent(agentConnId, $0) })
        case .rcvd(let receipts):
            try statusesUpdate(agentConnId, receipts.map { r in
                (r.agentMsgId, .sndRcvd(msgRcptStatus: r.ok ? .ok : .badMsgHash, sndProgress: .complete))
            })
        case .merr(let msgId, let err):
            try statusUpdate(agentConnId, msgId, .sndError(agentError: .other(sndError: "\(err)")))
        case .err(let err):
            emit(.chatError(chatError: Self.agentError(err, connId: agentConnId)))
        case .down(let server):
            if hostsUp[server] != false {
                hostsUp[server] = false
                emit(.hostDisconnected(protocol: "smp", transportHost: Self.host(server)))
            }
        case .up(let server):
            if hostsUp[server] != true {
                hostsUp[server] = true
                emit(.hostConnected(protocol: "smp", transportHost: Self.host(server)))
            }
        case .rsync(let state, let err, let stats): try ratchetSyncChanged(agentConnId, state, err, stats)
        case .switchProgress(let dir, let phase, let stats): try queueSwitchChanged(agentConnId, dir, phase, stats)
        case .end, .del, .qcont:
            break
        }
    }

    /// The peer's range as its latest message states it (simplex-chat `updatePeerChatVRange`),
    /// written only when it changed.
    private func recordPeerVersion(_ conn: Row, _ msg: ChatMessage) throws(ChatError) {
        try recordPeerVersion(conn["agent_conn_id"], recorded: (conn["peer_chat_min_version"], conn["peer_chat_max_version"]), msg)
    }

    private func recordPeerVersion(_ conn: MessageConnection, _ msg: ChatMessage) throws(ChatError) {
        try recordPeerVersion(conn.agentConnId, recorded: (conn.peerChatMinVersion, conn.peerChatMaxVersion), msg)
    }

    private func recordPeerVersion(_ agentConnId: String, recorded: (min: Int?, max: Int?), _ msg: ChatMessage) throws(ChatError) {
        let r = msg.effectiveVRange
        if recorded.min == Int(r.min), recorded.max == Int(r.max) { return }
        try recordPeerVersion(agentConnId, msg)
    }

    /// The peer's chat version range, from its handshake message (`v`; version 1 when absent).
    private func recordPeerVersion(_ agentConnId: String, _ msg: ChatMessage?) throws(ChatError) {
        guard let msg else { return }
        let r = msg.effectiveVRange
        try store.write { db in try db.setPeerChatVersionRange(agentConnId: agentConnId, min: Int(r.min), max: Int(r.max)) }
    }

    /// The address's welcome message, to a contact that came through the address.
    private func sendWelcome(_ conn: Row, user: User, contact: Contact) async throws(ChatError) {
        guard let linkId = conn["user_contact_link_id"] as Int64?,
            let link = try store.read({ db in try db.userContactLinkRow(id: linkId) }),
            let reply = Self.contactLink(link).addressSettings.autoReply
        else { return }
        let target = MessageTarget.direct(contact, agentConnId: conn["agent_conn_id"])
        if let welcomeId = try store.read({ db in try db.contactWelcomeId(contact.contactId) }) {
            return try await sendWelcomeUpdate(user: user, contact, agentConnId: conn["agent_conn_id"], reply, welcomeId: welcomeId)
        }
        let prepared = try prepareItem(user: user, target, content: reply, quotedItemId: nil, ttl: nil, live: false, forwarded: false)
        for itemId in try await sendPrepared(target, [prepared]) { emit(.newChatItems(user: user, chatItems: [try aItem(contact, itemId)])) }
    }

    /// Creates (once) the contact of a connection from the peer's profile.
    private func createContact(_ conn: Row, profile: Profile, status: String) throws(ChatError) -> Int64 {
        if let existing = conn["contact_id"] as Int64? { return existing }
        let userId: Int64 = conn["user_id"]
        let connectionId: Int64 = conn["connection_id"]
        return try store.write { db -> Int64 in
            let profileId = try db.insertContactProfile(userId: userId, profile, at: Self.now)
            let name = try self.uniqueName(db, userId: userId, Self.validDisplayName(profile.displayName))
            let contactId = try db.insertContact(userId: userId, localDisplayName: name, profileId: profileId, at: Self.now)
            try db.bindConnection(connectionId, toContact: contactId, status: status, at: Self.now)
            return contactId
        }
    }

    private func contactRequestReceived(_ agentConnId: String, _ invitationId: String, _ info: [UInt8]) async throws(ChatError) {
        if let groupLink = try store.read({ db in try db.groupLinkRow(agentConnId: agentConnId) }) {
            try await groupLinkRequest(groupLink, invitationId: invitationId, decodeChatMessage(info))
            return
        }
        guard let link = try store.read({ db in try db.userContactLinkRow(agentConnId: agentConnId) })
        else { return }
        let requestMessage = decodeChatMessage(info)
        guard case .contact(let profile, let contactReqId, let welcomeMsgId, let requestMsg)? = requestMessage?.event else {
            throw .error(errorType: .commandError(message: "contact request without a profile"))
        }
        if Self.contactLink(link).addressSettings.businessAddress, let req = requestMessage {
            // simplex-chat makes a business chat for every request to a business address (its only
            // exception is the SimpleX team's own address for peers below version 10).
            try await businessRequest(link, invitationId: invitationId, customer: profile, peerVRange: req.effectiveVRange,
                                      welcomeMsgId: welcomeMsgId, requestMsg: requestMsg, contactReqId: contactReqId)
            return
        }
        let requestContent = try requestMsg.map { m throws(ChatError) in try json(m.content) }
        let userId: Int64 = link["user_id"]
        let linkId: Int64 = link["user_contact_link_id"]
        let requestId = try store.write { db -> Int64 in
            let profileId = try db.insertContactProfile(userId: userId, profile, at: Self.now)
            return try db.insertContactRequest(
                userId: userId, linkId: linkId, invitationId: invitationId, profileId: profileId,
                localDisplayName: Self.validDisplayName(profile.displayName), requestMsgId: requestMsg?.msgId.base64url,
                requestContent: requestContent, peerVRange: requestMessage.map { ($0.effectiveVRange.min, $0.effectiveVRange.max) },
                at: Self.now)
        }
        if let welcomeMsgId { try store.write { db in try db.setRequestWelcomeId(requestId, welcomeMsgId.base64url) } }
        guard let req = try store.read({ db in try self.contactRequest(db, requestId) }) else { return }
        if let auto = Self.contactLink(link).addressSettings.autoAccept {
            // Auto-accept: answered like /_accept, reported as acceptingContactRequest.
            if case .acceptingContactRequest(let user, let contact) = try await acceptContact(requestId: requestId, incognito: auto.acceptIncognito) {
                emit(.acceptingContactRequest(user: user, contact: contact))
            }
            return
        }
        emit(.receivedContactRequest(user: try userById(userId), contactRequest: req, chat_: nil))
    }

    private func messageReceived(_ agentConnId: String, _ meta: MsgMeta, _ body: [UInt8]) async throws(ChatError) {
        let agent = try runningAgent()
        // One agent message may carry several chat messages (a batch, or compressed parts); each is
        // handled on its own and the agent message is acknowledged once, after all of them.
        let parsed = ChatMessageBody.parse(Data(body))
        let found = try store.read { db in try db.messageConnection(agentConnId: agentConnId) }
        if let conn = found?.memberRow {
            var receipt: [UInt8]?
            var readable: [ChatMessage] = []
            for r in parsed {
                guard case .success(let msg) = r else {
                    reportUnreadable(userId: conn["user_id"], r)
                    continue
                }
                readable.append(msg)
                do {
                    try recordPeerVersion(conn, msg)
                    if let rc = try await groupMessageReceived(conn, meta, msg) { receipt = rc }
                } catch {
                    // Acknowledged all the same: a message we cannot process must not block the queue;
                    // but not after a database failure, which is retried (handleAgentEvent).
                    if error.isDatabaseError { throw error }
                    emit(.chatError(chatError: error))
                }
            }
            // As a host, pass them on to members not yet connected to the sender.
            if !readable.isEmpty, let sender = try? member(conn["group_member_id"]), let g = try? groupInfo(sender.groupId) {
                await forwardToUnconnected(g, sender: sender, readable, brokerTs: Double(meta.brokerTs))
            }
            acknowledge(agent, agentConnId, meta.agentMsgId, receipt: receipt)
            return
        }
        guard let conn = found?.0, let contactId = conn.contactId else {
            acknowledge(agent, agentConnId, meta.agentMsgId)
            return
        }
        var receipt: [UInt8]?
        for r in parsed {
            guard case .success(let msg) = r else {
                reportUnreadable(userId: conn.userId, r)
                continue
            }
            do {
                if try await directMessageReceived(conn, contactId: contactId, meta, msg) { receipt = [] }
            } catch {
                if error.isDatabaseError { throw error }
                emit(.chatError(chatError: error))
            }
        }
        acknowledge(agent, agentConnId, meta.agentMsgId, receipt: receipt)
    }

    /// A chat message that could not be read: reported as simplex-chat does (a warning).
    private func reportUnreadable(userId: Int64, _ r: Result<ChatMessage, ChatProtocolError>) {
        guard case .failure(let e) = r, let user = try? userById(userId) else { return }
        emit(.messageError(user: user, severity: "warning", errorMessage: "unreadable message: \(e)"))
    }

    /// One chat message from a contact. Returns whether it asks for a delivery receipt (x.msg.new).
    private func directMessageReceived(_ conn: MessageConnection, contactId: Int64, _ meta: MsgMeta, _ msg: ChatMessage) async throws(ChatError) -> Bool {
        let userId = conn.userId
        try recordPeerVersion(conn, msg)
        // Agent messages may be delivered again after a restart; the shared id makes it one item.
        let shared = msg.msgId?.base64url
        // A new message (the common event) reads the user and the contact in one transaction.
        var contactNow: Contact?
        let user: User
        if case .msgNew = msg.event {
            (user, contactNow) = try store.read { db in (try self.user(db, userId), try self.contact(db, contactId)) }
        } else {
            user = try userById(userId)
        }
        var wantsReceipt = false
        switch msg.event {
        case .msgNew(var container):
            // Contact preferences on what arrives: no timer unless disappearing messages are on
            // for both; a voice message the contact may not send becomes a rejected-feature item.
            if let c = contactNow {
                container.ttl = c.mergedPreferences.timedMessages.enabled.forUser && c.mergedPreferences.timedMessages.enabled.forContact ? container.ttl : nil
            }
            var rejected: ChatFeature?
            if case .voice = container.content, let c = contactNow, !c.mergedPreferences.enabled(.voice).forContact { rejected = .voice }
            let itemId = try contactNow.flatMap { c throws(ChatError) in
                try storeReceivedItem(user: user, .contact(c), meta: meta, itemTs: Double(meta.brokerTs), shared: shared, container, rejected: rejected)
            }
            wantsReceipt = true
            // The offered file (issue 15), on the item before it is shown.
            let file = rejected == nil ? try itemId.flatMap { id throws(ChatError) in
                try receivedMessageFile(container.file, userId: userId, contactId: contactId, groupId: nil, sender: nil, itemId: id, shared: shared)
            } : nil
            if let itemId, let contact = contactNow {
                let item = try chatItem(itemId)
                emit(.newChatItems(user: user, chatItems: [AChatItem(chatInfo: .direct(contact: contact.withNewItem(item)), chatItem: item)]))
            }
            if let file { await autoAcceptFile(file.0, size: file.1) }
        case .msgUpdate(let u):
            if let c = try store.read({ db in try self.contact(db, contactId) }) { try receiveUpdate(user: user, .contact(c), u) }
        case .msgDel(let msgId, _, _):
            if let c = try store.read({ db in try self.contact(db, contactId) }) { try receiveDelete(user: user, .contact(c), msgId.base64url, authorMemberId: nil) }
        case .msgReact(let msgId, _, _, let reaction, let add):
            if let c = try store.read({ db in try self.contact(db, contactId) }) {
                try receiveReaction(user: user, .contact(c), msgId, authorMemberId: nil, reaction, add: add, sentAt: Double(meta.brokerTs))
            }
        case .info(let profile):
            let change = try store.write { db -> (Contact, Contact)? in
                guard let from = try self.contact(db, contactId) else { return nil }
                if let pid = try db.contactProfileId(contactId: contactId) { try db.updateContactProfile(profileId: pid, profile) }
                guard let to = try self.contact(db, contactId) else { return nil }
                return (from, to)
            }
            if let (from, to) = change, from.profile.profile != to.profile.profile {
                emit(.contactUpdated(user: user, fromContact: from, toContact: to))
            }
        case .grpInv(let inv):
            do { try groupInvitationReceived(user: user, contactId: contactId, inv, shared: shared) } catch {
                emit(.chatError(chatError: error))
            }
        case .directDel:
            let contact = try store.write { db -> Contact? in
                try db.markContactDeletedByPeer(contactId, at: Self.now)
                return try self.contact(db, contactId)
            }
            if let contact { emit(.contactDeletedByContact(user: user, contact: contact)) }
        case .infoProbe(let probe):
            if let c = try store.read({ db in try self.contact(db, contactId) }) { try await probeReceived(user: user, from: .contact(c), probe) }
        case .infoProbeCheck(let hash):
            if let c = try store.read({ db in try self.contact(db, contactId) }) { try await probeHashReceived(user: user, from: .contact(c), hash) }
        case .infoProbeOk(let probe):
            if let c = try store.read({ db in try self.contact(db, contactId) }) { try probeOkReceived(user: user, from: .contact(c), probe) }
        case .msgFileDescr(let msgId, let part):
            try await fileDescrReceived(contactId: contactId, groupId: nil, memberGmId: nil, msgId: msgId, part)
        case .fileCancel(let msgId):
            try fileCancelReceived(contactId: contactId, groupId: nil, memberGmId: nil, msgId: msgId)
        default:
            break
        }
        return wantsReceipt
    }

    /// Acknowledges a processed message without holding up the next agent event: the ACK is a
    /// round trip to the relay, and the relay sends a queue's next message only after it, so
    /// awaiting it here would serialise every connection behind one network round trip.
    /// A failed ACK is reported (the relay then delivers the message again, and the shared
    /// message id keeps it one item).
    func acknowledge(_ agent: SMPAgent, _ agentConnId: String, _ msgId: Int64, receipt: [UInt8]? = nil) {
        Task {
            do throws(AgentError) { try await agent.ackMessage(connId: agentConnId, msgId: msgId, receipt: receipt) } catch {
                self.emit(.chatError(chatError: Self.agentError(error, connId: agentConnId)))
            }
        }
    }

    private func statusUpdate(_ agentConnId: String, _ msgId: Int64, _ status: CIStatus) throws(ChatError) {
        try statusesUpdate(agentConnId, [(msgId, status)])
    }

    /// Statuses of messages sent on one connection (an A_RCVD lists many receipts): the items
    /// of direct messages change in one transaction and are reported in one event. `noItem`
    /// handles a message that made no item and is no group delivery (true: nothing more to do).
    private func statusesUpdate(_ agentConnId: String, _ updates: [(msgId: Int64, status: CIStatus)],
                                noItem: (Int64) -> Bool = { _ in false }) throws(ChatError) {
        // One read tells group deliveries (nil) from direct messages and finds the latter's items
        // (a message that made items on a contact's connection is no member's delivery, so the
        // delivery is looked up only when there are none).
        let lookups = try store.read { db in
            try updates.map { u -> [(Int64, Int64, Int64, String)]? in
                let items = try db.sentContactItems(agentConnId: agentConnId, agentMsgId: u.msgId)
                if items.isEmpty, try db.hasGroupItemDelivery(agentConnId: agentConnId, agentMsgId: u.msgId) { return nil }
                return items
            }
        }
        var direct: [(msgId: Int64, status: CIStatus)] = []
        var found: [[(Int64, Int64, Int64, String)]] = []
        for (u, items) in zip(updates, lookups) {
            if let items {
                direct.append(u)
                found.append(items)
            } else {
                _ = try groupDeliveryUpdate(agentConnId, u.msgId, u.status)
            }
        }
        var owner: (contactId: Int64, userId: Int64)?
        var changed: [Int64] = []
        var toWrite: [(items: [Int64], statusJSON: String, keepDelivered: Bool)] = []
        for (u, items) in zip(direct, found) {
            guard let first = items.first else {
                if noItem(u.msgId) { continue }
                // Bounded: reports for messages that make no item (edits, events) are never claimed.
                if earlyStatuses.count >= 10_000 { earlyStatuses.removeAll() }
                earlyStatuses[EarlyKey(agentConnId: agentConnId, msgId: u.msgId)] = u.status
                continue
            }
            owner = (first.1, first.2)
            // Every item that went in this agent message (one, or a batch).
            let statusJSON = try json(u.status)
            if Self.isSent(u.status) && config.deferredStatusDelay > 0 {
                // "Sent" is deferred to the next write (the receipt's, usually; at most
                // `config.deferredStatusDelay` later): a sent message costs two writes (issue 14).
                // An item already delivered keeps that status, as the deferred write does.
                let ids = items.filter { f in !isDelivered(f.3) }.map(\.0)
                store.deferSentStatus(ids, statusJSON: statusJSON, at: Self.now)
                scheduleDeferredFlush()
                changed += ids
            } else {
                // A late SENT must not overwrite "delivered" (checked in the same statement).
                toWrite.append((items.map(\.0), statusJSON, Self.isSent(u.status)))
            }
        }
        if !toWrite.isEmpty {
            changed += try store.write { db -> [Int64] in
                try toWrite.flatMap { w in
                    try w.items.filter { id in try db.setSentItemStatus(id, w.statusJSON, keepDelivered: w.keepDelivered, at: Self.now) }
                }
            }
        }
        guard !changed.isEmpty, let owner else { return }
        let deferred = store.deferredSentStatuses
        // A "sent" mark arriving before any other write finds its item as it was inserted.
        let inserted = changed.map { insertedItem($0) }
        let none = ItemRelations(reactions: false, mentions: false, file: false)
        let (contact, items, user) = try store.read { db -> (Contact?, [ChatItem], User?) in
            guard let contact = try self.contact(db, owner.contactId) else { return (nil, [], nil) }
            let items = try zip(changed, inserted).compactMap { id, row in
                if let row { return try self.chatItem(db, row, deferred: deferred, has: none) }
                return try db.withChatItemRow(id) { r, has in try self.chatItem(db, r, deferred: deferred, has: has) }
            }
            return (contact, items, items.isEmpty ? nil : try self.user(db, owner.userId))
        }
        guard let contact, let user, !items.isEmpty else { return }
        emit(.chatItemsStatusesUpdated(user: user, chatItems: items.map { AChatItem(chatInfo: .direct(contact: contact), chatItem: $0) }))
    }

    static func isSent(_ s: CIStatus) -> Bool {
        if case .sndSent = s { return true }
        return false
    }

    /// Whether a stored status (JSON) is "delivered" (sndRcvd).
    func isDelivered(_ statusJSON: String) -> Bool {
        if case .sndRcvd = decoded.statuses.decode(statusJSON) { return true }
        return false
    }

    /// Writes deferred "sent" marks after a short delay if no other write has carried them.
    func scheduleDeferredFlush() {
        guard deferredFlush == nil else { return }
        let delay = config.deferredStatusDelay
        deferredFlush = Task { [weak self] in
            try? await Task.sleep(nanoseconds: UInt64(max(0, delay) * 1e9))
            await self?.flushDeferredWrites()
        }
    }

    func flushDeferredWrites() {
        deferredFlush = nil
        guard !closed, !storeClosed else { return }
        do { try store.flushDeferred() } catch {
            emit(.chatError(chatError: error))
            scheduleDeferredFlush()
        }
    }

    /// The host part of a relay address, as hostConnected/hostDisconnected report it.
    static func host(_ server: String) -> String {
        (try? SMPServerAddress(parsing: server))?.hosts.first ?? server
    }

    static var placeholderUser: User {
        User(userId: 0, agentUserId: 0, userContactId: 0, localDisplayName: "",
             profile: LocalProfile(profileId: 0, profile: Profile(displayName: "")), activeUser: false)
    }
}
