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
        let configured = try store.read { db in
            try String.fetchAll(db.cachedStatement(sql: "SELECT server FROM smp_servers WHERE protocol = 'smp' AND enabled = 1 AND user_id = (SELECT user_id FROM users WHERE active_user = 1)"))
        }
        let servers = (configured.isEmpty ? config.defaultSMPServers : configured).compactMap { try? SMPServerAddress(parsing: $0) }
        let a: SMPAgent
        do {
            a = try SMPAgent(config: AgentConfig(servers: servers), databasePath: Self.agentDatabasePath(dbPrefix), databaseKey: dbKey, group: group)
        } catch {
            throw .error(errorType: .internalError(message: "agent database: \(error)"))
        }
        agent = a
        await a.start()
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
        guard let due = try? store.read({ db in
            try Row.fetchAll(db.cachedStatement(sql: "SELECT chat_item_id, contact_id, group_id, user_id FROM chat_items WHERE timed_delete_at <= ?"), arguments: [Self.now])
        }) else { return }
        for r in due {
            let itemId: Int64 = r[0], contactId: Int64? = r[1], groupId: Int64? = r[2], userId: Int64 = r[3]
            let before: AChatItem?
            if let groupId {
                before = try? groupItem(groupId, itemId)
            } else if let contactId, let contact = try? store.read({ db in try self.contact(db, contactId) }) {
                before = try? aItem(contact, itemId)
            } else {
                before = nil
            }
            guard let before, let user = try? userById(userId) else {
                try? store.write { db in try db.run("DELETE FROM chat_items WHERE chat_item_id = ?", [itemId]) }
                continue
            }
            try? store.write { db in try db.run("DELETE FROM chat_items WHERE chat_item_id = ?", [itemId]) }
            emit(.chatItemsDeleted(user: user, chatItemDeletions: [ChatItemDeletion(deletedChatItem: before, toChatItem: nil)], byUser: false, timed: true))
        }
    }

    func stopAgent() async {
        timedDeletions?.cancel()
        timedDeletions = nil
        guard let a = agent else { return }
        agent = nil
        agentEvents?.cancel()
        agentEvents = nil
        await a.stop()
    }

    /// Agent events for our connections become chat state and chat events.
    func handleAgentEvent(_ e: AgentEvent) async {
        do {
            try await handle(e)
        } catch {
            emit(.chatError(chatError: error))
        }
    }

    private func connectionRow(_ agentConnId: String) throws(ChatError) -> Row? {
        try store.read { db in try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM connections WHERE agent_conn_id = ?"), arguments: [agentConnId]) }
    }

    private func decodeChatMessage(_ bytes: [UInt8]) -> ChatMessage? {
        try? ChatMessage.decode(Data(bytes))
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
            if conn["group_member_id"] as Int64? != nil {
                try await groupConfirmation(conn, confirmationId: confirmationId, msg)
                return
            }
            if case .grpLinkInv(let inv)? = msg?.event, conn["via_group_link_id"] as String? != nil {
                try await groupLinkInvitationReceived(conn, confirmationId: confirmationId, inv)
                return
            }
            guard case .info(let profile)? = msg?.event else {
                throw .error(errorType: .commandError(message: "confirmation without a profile"))
            }
            let userId: Int64 = conn["user_id"]
            let user = try userById(userId)
            _ = try createContact(conn, profile: profile, status: "requested")
            let ours = try encodeInfo(.info(try profileToSend(user, incognitoProfileId: conn["custom_user_profile_id"])))
            let agent = try runningAgent()
            do { try await agent.allowConnection(connId: agentConnId, confirmationId: confirmationId, connInfo: ours) } catch {
                throw Self.agentError(error, connId: agentConnId)
            }
            try store.write { db in try db.run("UPDATE connections SET conn_status = 'accepted' WHERE agent_conn_id = ?", [agentConnId]) }
        case .info(let info):
            guard let conn = try connectionRow(agentConnId) else { return }
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
        case .con:
            guard let conn = try connectionRow(agentConnId) else { return }
            if conn["group_member_id"] as Int64? != nil {
                try await groupConnected(conn)
                return
            }
            guard let contactId = conn["contact_id"] as Int64? else { return }
            let userId: Int64 = conn["user_id"]
            let contact = try store.write { db -> Contact? in
                try db.run("UPDATE connections SET conn_status = 'ready', updated_at = ? WHERE agent_conn_id = ?", [Self.now, agentConnId])
                // A prepared contact is an ordinary one from now on.
                try db.run("""
                    UPDATE contacts SET prepared_conn_link = NULL, prepared_short_link = NULL, prepared_link_mode = NULL WHERE contact_id = ?
                    """, [contactId])
                return try self.contact(db, contactId)
            }
            guard let contact else { return }
            let user = try userById(userId)
            let custom = try (conn["custom_user_profile_id"] as Int64?).map { id throws(ChatError) in try profileToSend(user, incognitoProfileId: id) }
            emit(.contactConnected(user: user, contact: contact, userCustomProfile: custom))
            try await sendWelcome(conn, user: user, contact: contact)
        case .msg(let meta, let body):
            try await messageReceived(agentConnId, meta, body)
        case .sent(let msgId):
            try statusUpdate(agentConnId, msgId, .sndSent(sndProgress: .complete))
        case .rcvd(let receipts):
            for r in receipts {
                try statusUpdate(agentConnId, r.agentMsgId, .sndRcvd(msgRcptStatus: r.ok ? .ok : .badMsgHash, sndProgress: .complete))
            }
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
        case .end, .del, .qcont:
            break
        }
    }

    /// The address's welcome message, to a contact that came through the address.
    private func sendWelcome(_ conn: Row, user: User, contact: Contact) async throws(ChatError) {
        guard let linkId = conn["user_contact_link_id"] as Int64?,
            let link = try store.read({ db in
                try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM user_contact_links WHERE user_contact_link_id = ?"), arguments: [linkId])
            }),
            let reply = Self.contactLink(link).addressSettings.autoReply
        else { return }
        let itemId = try await sendItem(user: user, contact: contact, agentConnId: conn["agent_conn_id"], content: reply,
                                        quotedItemId: nil, ttl: nil, live: false, forwarded: false)
        emit(.newChatItems(user: user, chatItems: [try aItem(contact, itemId)]))
    }

    /// Creates (once) the contact of a connection from the peer's profile.
    private func createContact(_ conn: Row, profile: Profile, status: String) throws(ChatError) -> Int64 {
        if let existing = conn["contact_id"] as Int64? { return existing }
        let userId: Int64 = conn["user_id"]
        let connectionId: Int64 = conn["connection_id"]
        return try store.write { db -> Int64 in
            try db.run("""
                INSERT INTO contact_profiles (user_id, display_name, full_name, image, contact_link, created_at) VALUES (?, ?, ?, ?, ?, ?)
                """, [userId, profile.displayName, profile.fullName, profile.image, profile.contactLink, Self.now])
            let profileId = db.lastInsertedRowID
            let name = try self.uniqueName(db, userId: userId, Self.validDisplayName(profile.displayName))
            try db.run("INSERT INTO contacts (user_id, local_display_name, profile_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?)", [userId, name, profileId, Self.now, Self.now])
            let contactId = db.lastInsertedRowID
            try db.run("UPDATE connections SET contact_id = ?, conn_status = ?, updated_at = ? WHERE connection_id = ?", [contactId, status, Self.now, connectionId])
            return contactId
        }
    }

    private func contactRequestReceived(_ agentConnId: String, _ invitationId: String, _ info: [UInt8]) async throws(ChatError) {
        if let groupLink = try store.read({ db in try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM group_links WHERE agent_conn_id = ?"), arguments: [agentConnId]) }) {
            try await groupLinkRequest(groupLink, invitationId: invitationId, decodeChatMessage(info))
            return
        }
        guard let link = try store.read({ db in try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM user_contact_links WHERE agent_conn_id = ?"), arguments: [agentConnId]) })
        else { return }
        guard case .contact(let profile, _, _, let requestMsg)? = decodeChatMessage(info)?.event else {
            throw .error(errorType: .commandError(message: "contact request without a profile"))
        }
        let requestContent = try requestMsg.map { m throws(ChatError) in try json(m.content) }
        let userId: Int64 = link["user_id"]
        let linkId: Int64 = link["user_contact_link_id"]
        let requestId = try store.write { db -> Int64 in
            try db.run("INSERT INTO contact_profiles (user_id, display_name, full_name, image, contact_link, created_at) VALUES (?, ?, ?, ?, ?, ?)", [userId, profile.displayName, profile.fullName, profile.image, profile.contactLink, Self.now])
            let profileId = db.lastInsertedRowID
            try db.run("""
                INSERT INTO contact_requests (user_id, user_contact_link_id, agent_invitation_id, profile_id, local_display_name,
                  request_msg_id, request_msg_content, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, [userId, linkId, invitationId, profileId, Self.validDisplayName(profile.displayName),
                      requestMsg?.msgId.base64url, requestContent, Self.now, Self.now])
            return db.lastInsertedRowID
        }
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
        if let conn = try connectionRow(agentConnId), conn["group_member_id"] as Int64? != nil {
            guard let msg = decodeChatMessage(body) else {
                emit(.messageError(user: try userById(conn["user_id"]), severity: "warning", errorMessage: "unreadable message"))
                try? await agent.ackMessage(connId: agentConnId, msgId: meta.agentMsgId)
                return
            }
            var receipt: [UInt8]?
            do { receipt = try await groupMessageReceived(conn, meta, msg) } catch {
                // Acknowledged all the same: a message we cannot process must not block the queue.
                acknowledge(agent, agentConnId, meta.agentMsgId)
                throw error
            }
            acknowledge(agent, agentConnId, meta.agentMsgId, receipt: receipt)
            return
        }
        guard let conn = try connectionRow(agentConnId), let contactId = conn["contact_id"] as Int64? else {
            try? await agent.ackMessage(connId: agentConnId, msgId: meta.agentMsgId)
            return
        }
        let userId: Int64 = conn["user_id"]
        guard let msg = decodeChatMessage(body) else {
            emit(.messageError(user: try userById(userId), severity: "warning", errorMessage: "unreadable message"))
            try? await agent.ackMessage(connId: agentConnId, msgId: meta.agentMsgId)
            return
        }
        // Agent messages may be delivered again after a restart; the shared id makes it one item.
        let shared = msg.msgId?.base64url
        let user = try userById(userId)
        var receipt: [UInt8]?
        var acked = false
        switch msg.event {
        case .msgNew(let container):
            let itemId = try storeReceived(userId: userId, contactId: contactId, meta: meta, shared: shared, container)
            // Stored: the relay can send the next message while we build the event.
            acknowledge(agent, agentConnId, meta.agentMsgId, receipt: [])
            acked = true
            if let itemId, let contact = try store.read({ db in try self.contact(db, contactId) }) {
                emit(.newChatItems(user: user, chatItems: [try aItem(contact, itemId)]))
            }
        case .msgUpdate(let u):
            if let (itemId, r) = try receivedItem(contactId, u.msgId.base64url, sent: false),
                (try? ChatJSON.decode(CIContent.self, from: r["item_content"] as String))?.msgContent != u.content {
                let contentJSON = try json(CIContent.rcvMsgContent(msgContent: u.content))
                try store.write { db in
                    try db.run("UPDATE chat_items SET item_text = ?, item_content = ?, item_edited = 1, updated_at = ? WHERE chat_item_id = ?", [u.content.text, contentJSON, Self.now, itemId])
                }
                if let contact = try store.read({ db in try self.contact(db, contactId) }) {
                    emit(.chatItemUpdated(user: user, chatItem: try aItem(contact, itemId)))
                }
            }
        case .msgDel(let msgId, _, _):
            if let (itemId, _) = try receivedItem(contactId, msgId.base64url, sent: false),
                let contact = try store.read({ db in try self.contact(db, contactId) }) {
                let before = try aItem(contact, itemId)
                try markDeleted(itemId, .deleted(deletedTs: Self.ts(Self.now), chatType: .direct))
                emit(.chatItemsDeleted(user: user, chatItemDeletions: [ChatItemDeletion(deletedChatItem: before, toChatItem: try aItem(contact, itemId))],
                                       byUser: false, timed: false))
            }
        case .msgReact(let msgId, _, _, let reaction, let add):
            // The peer reacts to one of our items or theirs: look the shared id up in both.
            if let (itemId, r) = try receivedItem(contactId, msgId.base64url, sent: nil),
                let contact = try store.read({ db in try self.contact(db, contactId) }) {
                try setReaction(itemId, try json(reaction), sent: false, add: add)
                let item = try chatItem(itemId)
                let cr = CIReaction(chatDir: .directRcv, chatItem: item, sentAt: Self.ts(Double(meta.brokerTs)), reaction: reaction)
                _ = r
                emit(.chatItemReaction(user: user, added: add, reaction: ACIReaction(chatInfo: .direct(contact: contact), chatReaction: cr)))
            }
        case .info(let profile):
            let change = try store.write { db -> (Contact, Contact)? in
                guard let from = try self.contact(db, contactId) else { return nil }
                try db.run("""
                    UPDATE contact_profiles SET display_name = ?, full_name = ?, image = ?, contact_link = ?
                    WHERE profile_id = (SELECT profile_id FROM contacts WHERE contact_id = ?)
                    """, [profile.displayName, profile.fullName, profile.image, profile.contactLink, contactId])
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
                try db.run("UPDATE contacts SET contact_status = 'deleted', updated_at = ? WHERE contact_id = ?", [Self.now, contactId])
                try db.run("UPDATE connections SET conn_status = 'deleted' WHERE contact_id = ?", [contactId])
                return try self.contact(db, contactId)
            }
            if let contact { emit(.contactDeletedByContact(user: user, contact: contact)) }
        default:
            break
        }
        if !acked { acknowledge(agent, agentConnId, meta.agentMsgId, receipt: receipt) }
    }

    /// Acknowledges a processed message without holding up the next agent event: the ACK is a
    /// round trip to the relay, and the relay sends a queue's next message only after it, so
    /// awaiting it here would serialise every connection behind one network round trip.
    func acknowledge(_ agent: SMPAgent, _ agentConnId: String, _ msgId: Int64, receipt: [UInt8]? = nil) {
        Task { try? await agent.ackMessage(connId: agentConnId, msgId: msgId, receipt: receipt) }
    }

    /// Stores a received x.msg.new once (by its shared id), with its quote and timer.
    private func storeReceived(userId: Int64, contactId: Int64, meta: MsgMeta, shared: String?, _ container: MsgContainer) throws(ChatError) -> Int64? {
        let contentJSON = try json(CIContent.rcvMsgContent(msgContent: container.content))
        let newStatus = try json(CIStatus.rcvNew)
        let quotedContent = try container.quote.map { q throws(ChatError) in try json(q.content) }
        return try store.write { db -> Int64? in
            if let shared, try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM chat_items WHERE contact_id = ? AND item_sent = 0 AND shared_msg_id = ?"),
                                             arguments: [contactId, shared]) == true { return nil }
            var quotedItemId: Int64?
            if let q = container.quote, let qid = q.msgRef.msgId?.base64url {
                // The peer's "sent" is from its side: its sent item is our received one.
                quotedItemId = try Int64.fetchOne(db.cachedStatement(sql: "SELECT chat_item_id FROM chat_items WHERE contact_id = ? AND shared_msg_id = ? AND item_sent = ?"),
                                                  arguments: [contactId, qid, !q.msgRef.sent])
            }
            try db.run("""
                INSERT INTO chat_items (user_id, contact_id, item_sent, item_ts, item_text, item_content, item_status, shared_msg_id, agent_msg_id,
                  item_forwarded, item_live, timed_ttl, timed_delete_at, quoted_item_id, quoted_shared_msg_id, quoted_sent, quoted_sent_at, quoted_content,
                  created_at, updated_at)
                VALUES (?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, [userId, contactId, Double(meta.brokerTs), container.content.text, contentJSON, newStatus, shared, meta.agentMsgId,
                                 container.forward, container.live ?? false, container.ttl, container.ttl.map { Self.now + Double($0) },
                                 quotedItemId, container.quote?.msgRef.msgId?.base64url, container.quote.map { !$0.msgRef.sent },
                                 container.quote?.msgRef.sentAt.date.timeIntervalSince1970, quotedContent, Self.now, Self.now])
            let id = db.lastInsertedRowID
            try db.run("UPDATE contacts SET chat_ts = ? WHERE contact_id = ?", [Self.now, contactId])
            return id
        }
    }

    /// An item of the contact's chat by shared message id; `sent` nil matches either direction.
    private func receivedItem(_ contactId: Int64, _ shared: String, sent: Bool?) throws(ChatError) -> (Int64, Row)? {
        try store.read { db -> (Int64, Row)? in
            let r: Row?
            if let sent {
                r = try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM chat_items WHERE contact_id = ? AND shared_msg_id = ? AND item_sent = ?"), arguments: [contactId, shared, sent])
            } else {
                r = try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM chat_items WHERE contact_id = ? AND shared_msg_id = ?"), arguments: [contactId, shared])
            }
            guard let r else { return nil }
            return (r["chat_item_id"], r)
        }
    }

    private func statusUpdate(_ agentConnId: String, _ msgId: Int64, _ status: CIStatus) throws(ChatError) {
        if try groupDeliveryUpdate(agentConnId, msgId, status) { return }
        let found = try store.read { db -> (Int64, Int64, Int64)? in
            guard let r = try Row.fetchOne(db.cachedStatement(sql: """
                SELECT ci.chat_item_id, ci.contact_id, ci.user_id FROM chat_items ci JOIN connections c ON c.contact_id = ci.contact_id
                WHERE c.agent_conn_id = ? AND ci.agent_msg_id = ? AND ci.item_sent = 1
                """), arguments: [agentConnId, msgId]) else { return nil }
            return (r[0], r[1], r[2])
        }
        guard let (itemId, contactId, userId) = found else {
            // Bounded: reports for messages that make no item (edits, events) are never claimed.
            if earlyStatuses.count >= 10_000 { earlyStatuses.removeAll() }
            earlyStatuses[EarlyKey(agentConnId: agentConnId, msgId: msgId)] = status
            return
        }
        // A late SENT must not overwrite "delivered".
        if case .sndSent = status, case .sndRcvd = try chatItem(itemId).meta.itemStatus { return }
        try setStatus(itemId, status)
        guard let contact = try store.read({ db in try self.contact(db, contactId) }) else { return }
        emit(.chatItemsStatusesUpdated(user: try userById(userId), chatItems: [AChatItem(chatInfo: .direct(contact: contact), chatItem: try chatItem(itemId))]))
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
