import Foundation
import GRDB
import SMPAgent
import SimplexFoundation

/// Prepared contacts (seed 001 §3): a chat made from a link and the profile it carries, shown
/// before connecting, so the user can choose incognito (or write a first message) first.
extension ChatController {
    /// `/_prepare contact`: stores the contact with its link; nothing goes on the network.
    func prepareContact(userId: Int64, link: CreatedConnLink, data: ContactShortLinkData) throws(ChatError) -> ChatResponse {
        let user = try userById(userId)
        let parsed: ConnectionRequestURI
        do { parsed = try ConnectionRequestURI(parsing: link.connFullLink.trimmingCharacters(in: .whitespacesAndNewlines)) } catch {
            throw .error(errorType: .invalidConnReq)
        }
        if data.business {
            // A business address becomes a group chat (chat version 10).
            return try prepareBusinessChat(user: user, link: link, parsed, data)
        }
        switch try plan(userId: userId, parsed) {
        case .own: throw .error(errorType: .commandError(message: "this is your own link"))
        case .known(let contact): return .contactAlreadyExists(user: user, contact: contact)
        case .connecting, .fresh: break
        }
        let profile = data.profile
        let mode = parsed.mode == .contact ? "con" : "inv"
        let welcomeJSON = try data.message.map { m throws(ChatError) in try json(CIContent.rcvMsgContent(msgContent: m)) }
        let rcvNew = try json(CIStatus.rcvNew)
        let contactId = try store.write { db -> Int64 in
            let profileId = try db.insertContactProfile(userId: userId, profile, at: Self.now)
            let name = try self.uniqueName(db, userId: userId, Self.validDisplayName(profile.displayName))
            let contactId = try db.insertPreparedContact(userId: userId, localDisplayName: name, profileId: profileId,
                                                         connLink: parsed.withSimplexScheme.uriString, shortLink: link.connShortLink,
                                                         linkMode: mode, at: Self.now)
            return contactId
        }
        // simplex-chat `APIPrepareContact`: the banner, the e2e notice with the post-quantum state the
        // link offers (none for an address), the feature items, then the welcome.
        try createPreparedContactItems(user: user, contactId: contactId, linkPQ: Self.linkPQEncryption(parsed))
        let welcomeId = try store.write { db -> String? in
            if let welcome = data.message, let welcomeJSON {
                // The greeting the link carries, shown as the peer's first message; its shared ID goes
                // in the request (welcomeMsgId) so the owner's auto-reply updates it (chat version 16).
                let welcomeId = SharedMsgId.random().base64url
                try db.insertLinkWelcomeItem(userId: userId, contactId: contactId, text: welcome.text, contentJSON: welcomeJSON, statusJSON: rcvNew,
                                             sharedMsgId: welcomeId, at: Self.now)
                try db.setContactWelcomeId(contactId, welcomeId)
                return welcomeId
            }
            return nil
        }
        // As simplex-chat's answer: the chat with its welcome item only (unread 1).
        let (contact, items) = try store.read { db -> (Contact?, [ChatItem]) in
            let rows = try db.allContactItemRows(contactId).filter { welcomeId != nil && $0["shared_msg_id"] as String? == welcomeId }
            return (try self.contact(db, contactId), try rows.map { r in try self.chatItem(db, r, deferred: self.store.deferredSentStatuses) })
        }
        guard let contact else { throw .errorStore(storeError: .contactNotFound(contactId: contactId)) }
        return .newPreparedChat(user: user, chat: AChat(chatInfo: .direct(contact: contact), chatItems: items,
                                                        chatStats: ChatStats(unreadCount: items.count, minUnreadItemId: items.first?.meta.itemId ?? 0)))
    }

    /// `/_connect contact @<id>`: joins the invitation or sends the request (with the optional
    /// message) through the prepared link; the connection belongs to the prepared contact.
    func connectPreparedContact(contactId: Int64, incognito: Bool, message: MsgContent?) async throws(ChatError) -> ChatResponse {
        guard let contact = try store.read({ db in try self.contact(db, contactId) }) else {
            throw .errorStore(storeError: .contactNotFound(contactId: contactId))
        }
        guard let prepared = contact.preparedContact, contact.activeConn == nil else {
            throw .error(errorType: .commandError(message: "contact @\(contactId) is not a prepared contact"))
        }
        let userId = try store.read { db in try db.contactUserId(contactId) } ?? 0
        let user = try userById(userId)
        let parsed: ConnectionRequestURI
        do { parsed = try ConnectionRequestURI(parsing: prepared.connLinkToConnect.connFullLink) } catch { throw .error(errorType: .invalidConnReq) }
        if message != nil && parsed.mode != .contact {
            throw .error(errorType: .commandError(message: "a message goes with a request to an address; send it after connecting"))
        }
        let agent = try runningAgent()
        let incognitoId = incognito ? try newIncognitoProfile(userId) : nil
        let profile = try profileToSend(user, incognitoProfileId: incognitoId)
        let requestMsg = message.map { ChatMsgEvent.RequestMsg(msgId: SharedMsgId.random(), content: $0) }
        let welcomeId = try store.read { db in try db.contactWelcomeId(contactId) }.flatMap { SharedMsgId(base64url: $0) }
        // simplex-chat `connectViaContact` always sends a request ID (`contactReqId`).
        let request = ChatMsgEvent.contact(profile: profile, contactReqId: XContactId(bytes: SecureRandom.bytes(16)), welcomeMsgId: welcomeId,
                                           requestMsg: requestMsg)
        let info = try await encodeJoinInfo(parsed.mode == .contact ? request : .info(profile), link: parsed)
        let agentConnId: String
        do { agentConnId = try await agent.joinConnection(link: parsed, connInfo: info, userId: userId) } catch {
            throw Self.agentError(error)
        }
        let sentJSON = try message.map { m throws(ChatError) in try json(CIContent.sndMsgContent(msgContent: m)) }
        let sndSent = try json(CIStatus.sndSent(sndProgress: .complete))
        let updated = try store.write { db -> Contact? in
            try db.insertPreparedContactConnection(userId: userId, agentConnId: agentConnId, viaContactURI: parsed.mode == .contact,
                                                   viaLink: parsed.withSimplexScheme.uriString, customProfileId: incognitoId,
                                                   contactId: contactId, at: Self.now)
            if let message, let sentJSON, let requestMsg {
                try db.insertRequestMessageItem(userId: userId, contactId: contactId, text: message.text, contentJSON: sentJSON, statusJSON: sndSent,
                                                sharedMsgId: requestMsg.msgId.base64url, at: Self.now)
            }
            return try self.contact(db, contactId)
        }
        guard let updated else { throw .errorStore(storeError: .contactNotFound(contactId: contactId)) }
        return .startedConnectionToContact(user: user, contact: updated, customUserProfile: incognito ? profile : nil)
    }

    /// `/_prepare group`: a group shown from its link's data; nothing goes on the network.
    func prepareGroup(userId: Int64, link: CreatedConnLink, data: GroupShortLinkData) throws(ChatError) -> ChatResponse {
        let user = try userById(userId)
        let parsed: ConnectionRequestURI
        do { parsed = try ConnectionRequestURI(parsing: link.connFullLink.trimmingCharacters(in: .whitespacesAndNewlines)) } catch {
            throw .error(errorType: .invalidConnReq)
        }
        guard let linkId = Self.groupLinkId(parsed) else { throw .error(errorType: .commandError(message: "not a group link")) }
        switch try groupPlan(userId: userId, parsed) {
        case .ownLink: throw .error(errorType: .commandError(message: "this is your own group link"))
        case .known(let g), .connectingProhibit(let g?):
            throw .error(errorType: .commandError(message: "you are already in group \(g.localDisplayName)"))
        default: break
        }
        let profileJSON = try json(data.groupProfile)
        let welcome = data.groupProfile.description.flatMap { $0.isEmpty ? nil : $0 }
        let welcomeJSON = try welcome.map { w throws(ChatError) in try json(CIContent.rcvMsgContent(msgContent: .text(w))) }
        let rcvNew = try json(CIStatus.rcvNew)
        let full = parsed.withSimplexScheme.uriString
        let groupId = try store.write { db -> Int64 in
            let name = try self.uniqueGroupName(db, userId: userId, Self.validDisplayName(data.groupProfile.displayName))
            // Our membership is a placeholder until the host tells us our member ID and role.
            let groupId = try db.insertPreparedGroup(userId: userId, localDisplayName: name, profileJSON: profileJSON, connLink: full, groupLinkId: linkId,
                                                     shortLink: link.connShortLink, memberId: MemberId.random().base64url,
                                                     membershipName: user.localDisplayName, at: Self.now)
            return groupId
        }
        // simplex-chat `APIPrepareGroup`: the banner and the group's feature items, then the welcome.
        try joiningGroupBanner(userId: userId, groupId: groupId)
        _ = try createGroupFeatureItems(userId: userId, groupId: groupId, memberGmId: nil, sent: false)
        let welcomeId = try store.write { db -> String? in
            if let welcome, let welcomeJSON {
                // Its shared ID goes in the join request (welcomeMsgId), so the host leaves the
                // welcome out of the history it sends (chat version 16).
                let welcomeId = SharedMsgId.random().base64url
                try db.insertLinkWelcomeItem(userId: userId, groupId: groupId, text: welcome, contentJSON: welcomeJSON, statusJSON: rcvNew,
                                             sharedMsgId: welcomeId, at: Self.now)
                try db.setGroupWelcomeId(groupId, welcomeId)
                return welcomeId
            }
            return nil
        }
        // As simplex-chat's answer: the chat with its welcome item only (unread 1).
        let (g, items) = try store.read { db -> (GroupInfo?, [ChatItem]) in
            let rows = try db.allGroupItemRows(groupId).filter { welcomeId != nil && $0["shared_msg_id"] as String? == welcomeId }
            return (try self.groupInfo(db, groupId), try rows.map { r in try self.chatItem(db, r, deferred: self.store.deferredSentStatuses) })
        }
        guard let g else { throw .errorStore(storeError: .groupNotFound(groupId: groupId)) }
        return .newPreparedChat(user: user, chat: AChat(chatInfo: .group(groupInfo: g, groupChatScope: nil), chatItems: items,
                                                        chatStats: ChatStats(unreadCount: items.count, minUnreadItemId: items.first?.meta.itemId ?? 0)))
    }

    /// `/_connect group #<id>`: joins the prepared group's link (x.contact); the host's
    /// x.grp.link.inv then completes this group rather than making a new one.
    func connectPreparedGroup(groupId: Int64, incognito: Bool, message: MsgContent?) async throws(ChatError) -> ChatResponse {
        let (user, g) = try groupContext(groupId)
        guard let prepared = g.preparedGroup, !prepared.connLinkStartedConnection, g.membership.memberStatus == .unknown else {
            throw .error(errorType: .commandError(message: "group \(g.localDisplayName) is not a prepared group, or it is already joining"))
        }
        let parsed: ConnectionRequestURI
        do { parsed = try ConnectionRequestURI(parsing: prepared.connLinkToConnect.connFullLink) } catch { throw .error(errorType: .invalidConnReq) }
        // A business chat is prepared from a contact address: its request may carry a message.
        let business = parsed.mode == .contact && Self.groupLinkId(parsed) == nil
        if business { return try await connectPreparedBusinessChat(user: user, g, parsed, incognito: incognito, message: message) }
        if message != nil { throw .error(errorType: .connReqMessageProhibited) }
        let agent = try runningAgent()
        let incognitoId = incognito ? try newIncognitoProfile(user.userId) : nil
        let profile = try profileToSend(user, incognitoProfileId: incognitoId)
        let welcomeId = try store.read { db in try db.groupWelcomeId(groupId) }.flatMap { SharedMsgId(base64url: $0) }
        let info = try await encodeJoinInfo(.contact(profile: redacted(profile), contactReqId: XContactId(bytes: SecureRandom.bytes(16)),
                                                     welcomeMsgId: welcomeId), link: parsed)
        let agentConnId: String
        do { agentConnId = try await agent.joinConnection(link: parsed, connInfo: info, userId: user.userId) } catch {
            throw Self.agentError(error)
        }
        try store.write { db in
            try db.startPreparedGroup(groupId, userId: user.userId, agentConnId: agentConnId, viaLink: parsed.withSimplexScheme.uriString,
                                      groupLinkId: Self.groupLinkId(parsed), customProfileId: incognitoId, at: Self.now)
        }
        return .startedConnectionToGroup(user: user, groupInfo: try groupInfo(groupId), customUserProfile: incognito ? profile : nil)
    }
}
