import Foundation
import GRDB
import SMPAgent

/// Direct contacts between group members (x.grp.direct.inv), as simplex-chat
/// Library/Commands.hs `APICreateMemberContact`, `APISendMemberContactInvitation`,
/// `APIAcceptMemberContact` and Subscriber.hs `xGrpDirectInv` (the path of a user who does not
/// auto-accept member contacts, the default: `users.auto_accept_member_contacts` 0).
extension ChatController {
    /// Whether the group lets `role` send direct messages (simplex-chat `groupFeatureUserAllowed` /
    /// `groupFeatureMemberAllowed` for SGFDirectMessages).
    static func directMessagesAllowed(_ g: GroupInfo, role: GroupMemberRole) -> Bool {
        let p = g.fullGroupPreferences.directMessages
        return p.enable == .on && (p.role.map { role >= $0 } ?? true)
    }

    /// `/_create member contact #g <groupMemberId>`: an invitation link and a contact for the member.
    func createMemberContact(groupId: Int64, groupMemberId: Int64) async throws(ChatError) -> ChatResponse {
        let (user, g) = try groupContext(groupId)
        let m = try member(groupMemberId)
        guard m.groupId == groupId else { throw .errorStore(storeError: .groupMemberNotFound(groupMemberId: groupMemberId)) }
        try assertUserRole(g, .author)
        guard Self.directMessagesAllowed(g, role: g.membership.memberRole) else {
            throw .error(errorType: .commandError(message: "direct messages not allowed"))
        }
        guard m.activeConn != nil else { throw .error(errorType: .groupMemberNotActive) }
        guard let vr = try memberVRange(groupMemberId), vr.max >= ChatProtocolVersion.groupDirectInv else {
            throw .error(errorType: .peerChatVRangeIncompatible)
        }
        if m.memberContactId != nil { throw .error(errorType: .commandError(message: "member contact already exists")) }
        let agent = try runningAgent()
        let (agentConnId, link): (String, ConnectionRequestURI)
        do { (agentConnId, link) = try await agent.createConnection(mode: .invitation, pqSupport: false, userId: user.userId) } catch {
            throw Self.agentError(error)
        }
        let contactId = try store.write { db -> Int64 in
            // [incognito] the membership's incognito profile is reused for the contact.
            let incognitoId = try db.isMembershipIncognito(groupId: groupId) ? try db.membershipIncognitoProfileId(groupId: groupId) : nil
            let name = try self.uniqueName(db, userId: user.userId, m.localDisplayName)
            let contactId = try db.insertMemberContact(userId: user.userId, localDisplayName: name, profileId: m.memberProfile.profileId,
                                                       groupMemberId: groupMemberId, at: Self.now)
            if let conn = try db.insertInvitationConnection(userId: user.userId, agentConnId: agentConnId, link: link.uriString, shortLink: nil,
                                                            customProfileId: incognitoId, at: Self.now) {
                try db.bindConnection(conn["connection_id"], toContact: contactId, status: "new", at: Self.now)
            }
            return contactId
        }
        _ = try createBannerItem(userId: user.userId, contactId: contactId)
        guard let ct = try store.read({ db in try self.contact(db, contactId) }) else {
            throw .errorStore(storeError: .contactNotFound(contactId: contactId))
        }
        return .newMemberContact(user: user, contact: ct, groupInfo: try groupInfo(groupId), member: try member(groupMemberId))
    }

    /// `/_invite member contact @<contactId>[ <json>]`: x.grp.direct.inv over the member connection,
    /// with the message as the contact's first item.
    func sendMemberContactInvitation(contactId: Int64, _ mc: MsgContent?) async throws(ChatError) -> ChatResponse {
        let found = try store.read { db -> (Contact, String)? in
            guard let ct = try self.contact(db, contactId), let link = try db.contactInvitationLink(contactId) else { return nil }
            return (ct, link)
        }
        guard let (ct, link) = found, let gmId = ct.contactGroupMemberId else {
            throw .errorStore(storeError: .memberContactGroupMemberNotFound(contactId: contactId))
        }
        if ct.contactGrpInvSent { throw .error(errorType: .commandError(message: "x.grp.direct.inv already sent")) }
        let m = try member(gmId)
        let (user, g) = try groupContext(m.groupId)
        guard let (memberConn, _) = try store.read({ db in try db.readyMemberConnection(groupMemberId: gmId) }) else {
            throw .error(errorType: .groupMemberNotActive)
        }
        let shared = SharedMsgId.random()
        _ = try await sendToAgent(memberConn, try chatMessage(.grpDirectInv(connReq: link, content: mc, scope: nil), msgId: shared))
        try store.write { db in try db.setContactGrpInvSent(contactId, true, at: Self.now) }
        guard let sent = try store.read({ db in try self.contact(db, contactId) }) else {
            throw .errorStore(storeError: .contactNotFound(contactId: contactId))
        }
        if let mc {
            let itemId = try insertItem(userId: user.userId, contactId: contactId, sent: true, content: .sndMsgContent(msgContent: mc),
                                        text: mc.text, shared: shared.base64url)
            emit(.newChatItems(user: user, chatItems: [try aItem(sent, itemId)]))
        }
        return .newMemberContactSentInv(user: user, contact: sent, groupInfo: g, member: m)
    }

    /// x.grp.direct.inv from a member: a contact holding the link until `/_accept member contact`, or
    /// joined at once when the user auto-accepts member contacts. A member we already have a contact
    /// with gets the new link on that contact (simplex-chat `joinExistingContact`), unless both sent
    /// x.grp.direct.inv at once and ours is the greater link: then the member joins ours.
    func memberContactInvitationReceived(user: User, _ g: GroupInfo, from m: GroupMember, connReq: String, content: MsgContent?,
                                         scope: MsgScope?, shared: String?) async throws(ChatError) {
        // simplex-chat `memberCanSend`: with a scope always; otherwise authors and above, or pending members.
        let pending = m.memberStatus == .pendingApproval || m.memberStatus == .pendingReview
        guard scope != nil || m.memberRole >= .author || pending else {
            return reportMessageError(g, "member is not allowed to send messages")
        }
        guard Self.directMessagesAllowed(g, role: m.memberRole) else {
            return reportMessageError(g, "x.grp.direct.inv: direct messages not allowed")
        }
        if m.blockedByAdmin || !m.memberSettings.showMessages {
            emit(.messageError(user: user, severity: "warning", errorMessage: "x.grp.direct.inv: member is blocked (ignoring)"))
            return
        }
        let contactId: Int64
        if let existing = m.memberContactId {
            guard let ct = try store.read({ db in try self.contact(db, existing) }) else { return }
            // The release acts on a contact with a connection (`forM_ activeConn`); one waiting for our
            // accept has none here, where the release has the prepared connection.
            guard ct.activeConn != nil || ct.groupDirectInv != nil else { return }
            if ct.contactGrpInvSent, let own = try store.read({ db in try db.contactInvitationLink(existing) }),
               !Self.greaterLink(connReq, than: own) {
                // Both invited at once and ours is greater: the member joins it; we only record its invitation.
                return try memberContactInvitationItems(user: user, g, m, contactId: existing, content: content, shared: shared)
            }
            // simplex-chat `updateMemberContactInvited`: the old connection's record goes, the contact
            // is active again and holds the new link (its agent connection is left, as the release does).
            let connId = try store.read { db in try db.memberConnectionId(groupMemberId: m.groupMemberId) }
            try store.write { db in
                if let old = ct.activeConn { try db.deleteConnection(old.connId) }
                try db.setMemberContactInvitation(existing, link: connReq, groupId: g.groupId, groupMemberId: m.groupMemberId,
                                                  memberConnId: connId, at: Self.now)
            }
            contactId = existing
        } else {
            contactId = try store.write { db -> Int64 in
                let connId = try db.memberConnectionId(groupMemberId: m.groupMemberId)
                let name = try self.uniqueName(db, userId: user.userId, m.localDisplayName)
                return try db.insertInvitedMemberContact(userId: user.userId, localDisplayName: name, profileId: m.memberProfile.profileId,
                                                         link: connReq, groupId: g.groupId, groupMemberId: m.groupMemberId, memberConnId: connId,
                                                         at: Self.now)
            }
            _ = try createBannerItem(userId: user.userId, contactId: contactId)
        }
        if user.autoAcceptMemberContacts {
            // simplex-chat `joinConn`: joined with our profile (the group's incognito one), started.
            try await joinMemberContactLink(user: user, contactId: contactId, groupId: g.groupId, link: connReq)
        }
        guard let ct = try store.read({ db in try self.contact(db, contactId) }) else { return }
        if m.memberContactId != nil {
            // simplex-chat `securityCodeChanged`: a new connection, so the verified code no longer holds.
            emit(.contactVerificationReset(user: user, contact: ct))
            let resetId = try insertItem(userId: user.userId, contactId: contactId, sent: false,
                                         content: .rcvConnEvent(rcvConnEvent: .verificationCodeReset), text: Self.verificationResetText,
                                         status: .rcvNew)
            emit(.newChatItems(user: user, chatItems: [try aItem(ct, resetId)]))
        }
        if !user.autoAcceptMemberContacts {
            let linkItem = try insertItem(userId: user.userId, contactId: contactId, sent: false,
                                          content: .rcvDirectEvent(rcvDirectEvent: .groupInvLinkReceived(groupProfile: g.groupProfile)),
                                          text: "requested connection from group \(g.groupProfile.displayName)", status: .rcvNew)
            emit(.newChatItems(user: user, chatItems: [try aItem(ct, linkItem)]))
        }
        try memberContactInvitationItems(user: user, g, m, contactId: contactId, content: content, shared: shared)
    }

    /// simplex-chat `createItems` of `xGrpDirectInv`: the group's "started direct connection with
    /// you", the event, and the member's message as a received item of the contact.
    private func memberContactInvitationItems(user: User, _ g: GroupInfo, _ m: GroupMember, contactId: Int64, content: MsgContent?,
                                              shared: String?) throws(ChatError) {
        guard let ct = try store.read({ db in try self.contact(db, contactId) }) else { return }
        let groupItemId = try insertItem(userId: user.userId, groupId: g.groupId, memberGmId: m.groupMemberId, sent: false,
                                         content: .rcvGroupEvent(rcvGroupEvent: RcvGroupEvent(type: "memberCreatedContact")),
                                         text: "started direct connection with you", status: .rcvNew)
        emit(.newChatItems(user: user, chatItems: [try groupItem(g.groupId, groupItemId)]))
        let m2 = try member(m.groupMemberId)
        emit(.newMemberContactReceivedInv(user: user, contact: ct, groupInfo: try groupInfo(g.groupId), member: m2))
        if let content {
            let itemId = try insertItem(userId: user.userId, contactId: contactId, sent: false, content: .rcvMsgContent(msgContent: content),
                                        text: content.text, shared: shared, status: .rcvNew)
            emit(.newChatItems(user: user, chatItems: [try aItem(ct, itemId)]))
        }
    }

    /// The tie-break of simultaneous invitations (simplex-chat `strEncode connReq > strEncode
    /// ownConnReq`): the links compared byte by byte in their canonical form.
    static func greaterLink(_ received: String, than own: String) -> Bool {
        func canonical(_ s: String) -> String { (try? ConnectionRequestURI(parsing: s))?.uriString ?? s }
        return canonical(own).utf8.lexicographicallyPrecedes(canonical(received).utf8)
    }

    /// `/_accept member contact @<contactId>`: joins the member's link with our profile (the
    /// membership's incognito profile in an incognito group).
    func acceptMemberContact(contactId: Int64) async throws(ChatError) -> ChatResponse {
        guard let ct = try store.read({ db in try self.contact(db, contactId) }), let inv = ct.groupDirectInv,
              let groupId = inv.fromGroupId_, let userId = try store.read({ db in try db.contactUserId(contactId) })
        else {
            throw .errorStore(storeError: .contactNotFound(contactId: contactId))
        }
        if inv.groupDirectInvStartedConnection { throw .error(errorType: .commandError(message: "connection already started")) }
        let user = try userById(userId)
        try await joinMemberContactLink(user: user, contactId: contactId, groupId: groupId, link: inv.groupDirectInvLink)
        guard let accepted = try store.read({ db in try self.contact(db, contactId) }) else {
            throw .errorStore(storeError: .contactNotFound(contactId: contactId))
        }
        return .memberContactAccepted(user: user, contact: accepted)
    }

    /// Joins a member's invitation link for its contact with our profile (or the group's incognito
    /// one), and marks the connection started.
    private func joinMemberContactLink(user: User, contactId: Int64, groupId: Int64, link: String) async throws(ChatError) {
        let incognitoId = try store.read { db in
            try db.isMembershipIncognito(groupId: groupId) ? try db.membershipIncognitoProfileId(groupId: groupId) : nil
        }
        let info = try encodeInfo(.info(try profileToSend(user, incognitoProfileId: incognitoId)))
        let agent = try runningAgent()
        let agentConnId: String
        do { agentConnId = try await agent.joinConnection(link: link, connInfo: info, pqSupport: false, userId: user.userId) } catch {
            throw Self.agentError(error)
        }
        try store.write { db in
            if let conn = try db.insertJoinedConnection(userId: user.userId, agentConnId: agentConnId, viaContactURI: false, viaLink: link,
                                                        groupLinkId: nil, customProfileId: incognitoId, at: Self.now) {
                try db.bindConnection(conn["connection_id"], toContact: contactId, status: "joined", at: Self.now)
            }
            try db.setMemberContactStartedConnection(contactId, at: Self.now)
        }
    }
}
