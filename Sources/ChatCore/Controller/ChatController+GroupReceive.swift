import Foundation
import GRDB
import SMPAgent

/// The group sub-protocol as received (simplex-chat.md "Sub-protocol for chat groups"):
/// invitations, member connection handshakes, introductions, group links, content from
/// members and the group's state changes.
extension ChatController {
    // MARK: invitations and handshakes

    /// x.grp.inv over a contact's direct connection: the group, its host and our membership,
    /// recorded as invited until `/_join`.
    func groupInvitationReceived(user: User, contactId: Int64, _ inv: GroupInvitation, shared: String?) throws(ChatError) {
        guard let contact = try store.read({ db in try self.contact(db, contactId) }) else { return }
        guard inv.fromMember.memberRole >= .admin, inv.fromMember.memberRole >= inv.invitedMember.memberRole else {
            throw .error(errorType: .groupContactRole(contactName: contact.localDisplayName))
        }
        guard inv.fromMember.memberId != inv.invitedMember.memberId else { throw .error(errorType: .groupDuplicateMemberId) }
        let profileJSON = try json(inv.groupProfile)
        let incognitoId = contact.activeConn?.customUserProfileId
        // The same invitation again (the host re-sends it while we are still invited): the group we
        // have, with our member ID, role and the group profile as this one says (simplex-chat
        // `createGroupInvitation` returning the existing group).
        let existing = try store.write { db -> (Int64, Int64)? in
            guard let groupId = try db.groupIdInvitedWith(userId: user.userId, link: inv.connRequest),
                  let host = try db.groupHostRow(groupId: groupId), let membership = try db.membershipRow(groupId: groupId)
            else { return nil }
            try db.updateInvitedMembership(membership["group_member_id"], memberId: inv.invitedMember.memberId.base64url,
                                           role: inv.invitedMember.memberRole.rawValue, at: Self.now)
            try db.setGroupProfile(groupId, profileJSON: profileJSON, at: Self.now)
            return (groupId, host["group_member_id"])
        }
        if let (groupId, hostGmId) = existing {
            // simplex-chat `processGroupInvitation` writes the banner whether the group is new or
            // found by the link: a re-sent invitation adds another one.
            try joiningGroupBanner(userId: user.userId, groupId: groupId)
            return try groupInvitationItem(user: user, contact, inv, groupId: groupId, hostGmId: hostGmId, shared: shared)
        }
        let (groupId, hostGmId) = try store.write { db -> (Int64, Int64) in
            let name = try self.uniqueGroupName(db, userId: user.userId, Self.validDisplayName(inv.groupProfile.displayName))
            let groupId = try db.insertGroup(userId: user.userId, localDisplayName: name, profileJSON: profileJSON, at: Self.now)
            let hostGmId = try db.insertGroupMember(
                groupId: groupId, userId: user.userId, memberId: inv.fromMember.memberId.base64url, role: inv.fromMember.memberRole.rawValue,
                category: "host", status: "invited", localDisplayName: contact.localDisplayName, profileId: contact.profile.profileId,
                contactId: contactId, invitationLink: inv.connRequest, at: Self.now)
            _ = try db.insertGroupMember(
                groupId: groupId, userId: user.userId, memberId: inv.invitedMember.memberId.base64url, role: inv.invitedMember.memberRole.rawValue,
                category: "user", status: "invited", localDisplayName: user.localDisplayName, profileId: incognitoId,
                invitedByContactId: contactId, invitedByGroupMemberId: hostGmId, at: Self.now)
            // A member added to a business chat (chat version 10): the inviter's business info, so
            // this side too names the chat after the other side and follows its profile.
            if let b = inv.business, self.ourChatVRange.max >= ChatProtocolVersion.businessChats {
                try db.setBusinessChat(groupId, type: b.chatType, businessMemberId: b.businessId, customerMemberId: b.customerId)
            }
            return (groupId, hostGmId)
        }
        // simplex-chat `processGroupInvitation`: the new group chat's banner (no event).
        try joiningGroupBanner(userId: user.userId, groupId: groupId)
        try groupInvitationItem(user: user, contact, inv, groupId: groupId, hostGmId: hostGmId, shared: shared)
    }

    /// The received invitation as an item in the contact's chat, and `receivedGroupInvitation`.
    private func groupInvitationItem(user: User, _ contact: Contact, _ inv: GroupInvitation, groupId: Int64, hostGmId: Int64,
                                     shared: String?) throws(ChatError) {
        let g = try groupInfo(groupId)
        let ciInv = CIGroupInvitation(groupId: groupId, groupMemberId: hostGmId, localDisplayName: g.localDisplayName,
                                      groupProfile: inv.groupProfile, status: .pending)
        let itemId = try insertItem(userId: user.userId, contactId: contact.contactId, sent: false,
                                    content: .rcvGroupInvitation(groupInvitation: ciInv, memberRole: inv.invitedMember.memberRole),
                                    text: "invitation to join group \(g.localDisplayName) as \(inv.invitedMember.memberRole.rawValue)",
                                    shared: shared, status: .rcvNew)
        emit(.newChatItems(user: user, chatItems: [try aItem(contact, itemId)]))
        emit(.receivedGroupInvitation(user: user, groupInfo: g, contact: contact, fromMemberRole: inv.fromMember.memberRole,
                                      memberRole: inv.invitedMember.memberRole))
    }

    /// CONF on a member connection: the peer's x.grp.acpt (our invitee) or x.grp.mem.info (a
    /// member we were introduced to). The member ID must be the one we know.
    func groupConfirmation(_ conn: Row, confirmationId: String, _ msg: ChatMessage?) async throws(ChatError) {
        let gmId: Int64 = conn["group_member_id"]
        let agentConnId: String = conn["agent_conn_id"]
        let m = try member(gmId)
        let g = try groupInfo(m.groupId)
        let reply: ChatMsgEvent
        switch msg?.event {
        case .grpAcpt(let memberId)? where m.memberCategory == .invitee:
            guard memberId.base64url == m.memberId else { return reportMessageError(g, "x.grp.acpt with a wrong member ID") }
            reply = .ok
        case .grpMemInfo(let memberId, let profile)? where m.memberCategory == .pre || m.memberCategory == .post:
            guard memberId.base64url == m.memberId else { return reportMessageError(g, "x.grp.mem.info with a wrong member ID") }
            try updateMemberProfile(m, profile)
            guard let ownId = MemberId(base64url: g.membership.memberId) else { return }
            reply = .grpMemInfo(memberId: ownId, profile: membershipProfile(g))
        default:
            return reportMessageError(g, "unexpected confirmation on a member connection")
        }
        let agent = try runningAgent()
        let connInfo = try encodeInfo(reply)
        do { try await agent.allowConnection(connId: agentConnId, confirmationId: confirmationId, connInfo: connInfo) } catch {
            throw Self.agentError(error, connId: agentConnId)
        }
        try store.write { db in
            try db.setConnectionStatus(agentConnId: agentConnId, "accepted", at: Self.now)
            try db.setMemberAccepted(gmId, at: Self.now)
        }
    }

    /// INFO on a member connection: the peer's profile (x.grp.mem.info, x.info) or x.ok.
    func groupConnectionInfo(_ conn: Row, _ msg: ChatMessage?) throws(ChatError) {
        let m = try member(conn["group_member_id"])
        switch msg?.event {
        case .grpMemInfo(let memberId, let profile)? where memberId.base64url == m.memberId:
            try updateMemberProfile(m, profile)
        case .info(let profile)? where m.memberCategory == .invitee:
            try updateMemberProfile(m, profile)
        default:
            break
        }
    }

    /// CON on a member connection: the member is connected. The host then introduces the new
    /// member to everyone else; the new member learns it joined.
    func groupConnected(_ conn: Row) async throws(ChatError) {
        let gmId: Int64 = conn["group_member_id"]
        let agentConnId: String = conn["agent_conn_id"]
        let before = try member(gmId)
        let pending = before.memberStatus == .pendingApproval || before.memberStatus == .pendingReview
        // A member held for approval or review stays so when connected (simplex-chat `memberPending`).
        try store.write { db in
            try db.setConnectionStatus(agentConnId: agentConnId, "ready", at: Self.now)
            if !pending { try db.setMemberStatus(gmId, "connected", at: Self.now) }
        }
        let m = try member(gmId)
        let (user, _) = try groupContext(m.groupId)
        try await sendPendingGroupMessages(gmId, agentConnId: agentConnId)
        // While we or the member are pending, the items go to the support chat (simplex-chat `mkGroupChatScope`).
        let connectedScope = try pendingConnectionScope(m)
        let hostItems = m.memberCategory == .host ? try hostConnectedItems(user: user, m.groupId, host: gmId, scopeGmId: connectedScope) : []
        let itemId = try insertConnectedItem(userId: user.userId, m, scopeGmId: connectedScope)
        func connectedItem(_ g: GroupInfo) throws(ChatError) -> AChatItem {
            if let s = connectedScope { return try supportItem(g, itemId, scopeGmId: s) }
            return try groupItem(m.groupId, itemId)
        }
        switch m.memberCategory {
        case .host:
            let membershipPending = try groupInfo(m.groupId).membership.memberStatus
            let waiting = membershipPending == .pendingApproval || membershipPending == .pendingReview
            if !waiting {
                try store.write { db in
                    try db.setMembershipStatus(groupId: m.groupId, "connected", at: Self.now)
                }
            }
            let g = try groupInfo(m.groupId)
            emit(.userJoinedGroup(user: user, groupInfo: g, hostMember: try member(gmId)))
            for batch in hostItems where !batch.isEmpty {
                emit(.newChatItems(user: user, chatItems: try batch.map { id throws(ChatError) in
                    if let s = connectedScope { return try supportItem(g, id, scopeGmId: s) }
                    return try groupItem(m.groupId, id)
                }))
            }
            var items = [try connectedItem(g)]
            // A host of chat version 6+ sends the welcome message in the group history (when the
            // group keeps history), so it is only made locally otherwise (simplex-chat `expectHistory`).
            let expectHistory = g.fullGroupPreferences.history.enable == .on
                && ((try? memberVRange(gmId)) ?? nil).map { $0.max >= ChatProtocolVersion.groupHistoryIncludeWelcome } == true
            // A prepared group shows the welcome from the link's data already (chat version 16).
            let shownFromLink = try store.read { db in try db.groupWelcomeId(m.groupId) } != nil
            if !waiting, !expectHistory, !shownFromLink, let welcome = g.groupProfile.description, !welcome.isEmpty {
                let wid = try insertItem(userId: user.userId, groupId: m.groupId, memberGmId: gmId, sent: false,
                                         content: .rcvMsgContent(msgContent: .text(welcome)), text: welcome, status: .rcvNew)
                items.append(try groupItem(m.groupId, wid))
            }
            emit(.newChatItems(user: user, chatItems: items))
        case .invitee:
            // simplex-chat: a held joiner counts once its connection is up, not at its request.
            if pending { try store.write { db in try db.increaseMembersRequireAttention(memberOf: gmId) } }
            let g = try groupInfo(m.groupId)
            emit(.joinedGroupMember(user: user, groupInfo: g, member: m))
            emit(.newChatItems(user: user, chatItems: [try connectedItem(g)]))
            let customer = isBusinessCustomer(g, m)
            if conn["via_group_link_id"] as String? != nil || customer {
                try await sendToMember(gmId, .grpLinkMem(profile: membershipProfile(g)))
            }
            if pending {
                // Held: no history until admitted (`/_accept member`); its support chat opens with a
                // "wants to join" item (pending approval too, as simplex-chat), and a member for review
                // is introduced to the moderators.
                do {
                    var item = NewChatItem(userId: user.userId, groupId: m.groupId, memberGmId: gmId, sent: false, itemTs: Self.now,
                                           text: "new member wants to join the group",
                                           contentJSON: try json(CIContent.rcvGroupEvent(rcvGroupEvent: RcvGroupEvent(type: "newMemberPendingReview"))),
                                           statusJSON: try json(CIStatus.rcvNew))
                    item.scopeMemberGmId = gmId
                    let reviewId = try store.write { db -> Int64 in
                        let id = try db.insertChatItem(item, at: Self.now)
                        try db.updateSupportChatStats(gmId, unread: 1, mentions: 0, attention: .inc(1, fromMemberTs: nil), at: Self.now)
                        return id
                    }
                    emit(.newChatItems(user: user, chatItems: [try supportItem(g, reviewId, scopeGmId: gmId)]))
                }
                if m.memberStatus == .pendingReview { try await introduceToModerators(g, m) }
                return
            }
            try await introduceToAll(g, newMember: m)
            if customer {
                do { try await sendBusinessWelcome(g, customer: m, conn: conn) } catch { emit(.chatError(chatError: error)) }
            } else {
                try await sendHistory(g, to: m)
            }
        case .pre, .post, .user:
            let g = try groupInfo(m.groupId)
            emit(.connectedToGroupMember(user: user, groupInfo: g, member: m, memberContact: nil))
            emit(.newChatItems(user: user, chatItems: [try connectedItem(g)]))
            // A member who was in the group before us is probed (simplex-chat `probeMatchingMemberContact`).
            if m.memberCategory == .pre {
                do { try await probeMatchingMemberContact(user: user, g, m) } catch { emit(.chatError(chatError: error)) }
            }
            // Tell the member who introduced us that we no longer need it.
            let introducer = m.memberCategory == .pre ? g.membership.invitedByGroupMemberId : m.invitedByGroupMemberId
            if let introducer, let mid = MemberId(base64url: m.memberId) {
                try? await sendToMember(introducer, .grpMemCon(memberId: mid))
            }
        }
    }

    /// The host's side of a new member joining: x.grp.mem.new to each current member and, to the
    /// new member, one x.grp.mem.intro per existing member.
    /// `only`: the members to introduce (moderators, for a member under review, announced with its
    /// `scope`); members it was introduced to before are skipped (simplex-chat `introduceToRemaining`).
    func introduceToAll(_ g: GroupInfo, newMember m: GroupMember, only: Set<Int64>? = nil,
                        scope: MsgScope? = nil) async throws(ChatError) {
        guard let newId = MemberId(base64url: m.memberId) else { return }
        let newInfo = MemberInfo(memberId: newId, memberRole: m.memberRole, v: memberVRangeText(m.groupMemberId), profile: redacted(m.memberProfile.profile))
        let others = try store.read { db in
            try self.groupMembers(db, g.groupId).filter {
                try $0.groupMemberId != m.groupMemberId && $0.memberStatus.isCurrent && $0.activeConn?.connStatus == .ready
                    && !db.hasIntroduction(reGroupMemberId: m.groupMemberId, toGroupMemberId: $0.groupMemberId)
            }
        }.filter { only?.contains($0.groupMemberId) ?? true }
        var intros: [ChatMsgEvent] = []
        for other in others {
            guard let otherId = MemberId(base64url: other.memberId) else { continue }
            try store.write { db in
                try db.insertIntroduction(reGroupMemberId: m.groupMemberId, toGroupMemberId: other.groupMemberId, at: Self.now)
            }
            try? await sendToMember(other.groupMemberId, .grpMemNew(newInfo, scope: scope))
            let info = MemberInfo(memberId: otherId, memberRole: other.memberRole, v: memberVRangeText(other.groupMemberId), profile: redacted(other.memberProfile.profile))
            intros.append(.grpMemIntro(info, restrictions: other.blockedByAdmin ? MemberRestrictions(restriction: .blocked) : nil))
        }
        // The introductions go together, batched when the new member's version allows.
        do { try await sendToMember(m.groupMemberId, intros) } catch { emit(.chatError(chatError: error)) }
    }

    nonisolated var chatVRangeText: String { ourChatVRange.description }

    /// A profile as shown to group members: no address or preferences.
    func redacted(_ p: Profile) -> Profile {
        var p = p
        p.contactLink = nil
        p.preferences = nil
        return p
    }

    func reportMessageError(_ g: GroupInfo, _ text: String) {
        if let user = try? userById(try store.read { db in try db.groupUserId(g.groupId) } ?? 0) {
            emit(.messageError(user: user, severity: "error", errorMessage: text))
        }
    }

    func updateMemberProfile(_ m: GroupMember, _ profile: Profile) throws(ChatError) {
        guard m.memberProfile.profile != profile else { return }
        try store.write { db in
            if let pid = try db.memberProfileId(m.groupMemberId) {
                try db.updateContactProfile(profileId: pid, profile)
            }
        }
        let to = try member(m.groupMemberId)
        let (user, g) = try groupContext(m.groupId)
        emit(.groupMemberUpdated(user: user, groupInfo: g, fromMember: m, toMember: to))
        try businessChatProfileFollows(user: user, g, member: m, profile)
    }

    /// A member we learn about from the host (x.grp.mem.new, x.grp.mem.intro, x.grp.mem.fwd).
    func createIntroducedMember(_ g: GroupInfo, userId: Int64, _ info: MemberInfo, category: GroupMemberCategory, status: GroupMemberStatus,
                                invitedBy: Int64) throws(ChatError) -> Int64 {
        try store.write { db -> Int64 in
            let pid = try db.insertContactProfile(userId: userId, info.profile, at: Self.now)
            return try db.insertGroupMember(
                groupId: g.groupId, userId: userId, memberId: info.memberId.base64url, role: info.memberRole.rawValue, category: category.rawValue,
                status: status.rawValue, localDisplayName: Self.validDisplayName(info.profile.displayName), profileId: pid,
                invitedByGroupMemberId: invitedBy, at: Self.now)
        }
    }

    /// simplex-chat `createNewUnknownGroupMember`: a member known only by ID and the name a forwarding
    /// host gave (or a name made from the ID), with status `unknown` until announced or introduced.
    func createUnknownMember(user: User, _ g: GroupInfo, _ memberId: MemberId, name: String?) throws(ChatError) -> GroupMember {
        let given = name.map(Self.validDisplayName) ?? ""
        let displayName = given.isEmpty ? Self.nameFromMemberId(memberId) : given
        let gmId = try store.write { db -> Int64 in
            let pid = try db.insertContactProfile(userId: user.userId, Profile(displayName: displayName), at: Self.now)
            return try db.insertGroupMember(
                groupId: g.groupId, userId: user.userId, memberId: memberId.base64url, role: GroupMemberRole.author.rawValue,
                category: GroupMemberCategory.pre.rawValue, status: GroupMemberStatus.unknown.rawValue, localDisplayName: displayName,
                profileId: pid, at: Self.now)
        }
        return try member(gmId)
    }

    /// simplex-chat `nameFromMemberId`: the first 7 characters of the ID in base64.
    static func nameFromMemberId(_ memberId: MemberId) -> String {
        String(Data(memberId.bytes).base64EncodedString().prefix(7))
    }

    // MARK: group links

    /// REQ on our group link: the requester becomes a member right away (accepted with
    /// x.grp.link.inv); no contact request is made.
    func groupLinkRequest(_ link: Row, invitationId: String, _ msg: ChatMessage?) async throws(ChatError) {
        let groupId: Int64 = link["group_id"]
        let (user, g) = try groupContext(groupId)
        guard case .contact(let profile, _, let welcomeMsgId, let requestMsg)? = msg?.event else {
            return reportMessageError(g, "group link request without a profile")
        }
        if requestMsg != nil { return reportMessageError(g, "group link request with a message") }
        guard g.membership.memberStatus.isActive, let hostId = MemberId(base64url: g.membership.memberId) else { return }
        let linkRole = GroupMemberRole(rawValue: link["member_role"]) ?? .member
        let peerMax = Int(msg?.chatVRange?.max ?? ChatProtocolVersion.initial)
        let role: GroupMemberRole, acceptance: GroupAcceptance
        switch joinDecision(g, profile, linkRole: linkRole) {
        case .reject(let reason):
            // A joiner below chat version 14 could not read the refusal (simplex-chat leaves it unanswered).
            guard peerMax >= ChatProtocolVersion.groupJoinReject else {
                return reportMessageError(g, "join request rejected, but the joining member's chat version is below 14")
            }
            return try await rejectGroupJoin(user: user, g, link: link, invitationId: invitationId, profile: profile, reason)
        case .accept(let a, let r):
            acceptance = a
            role = r
        }
        let initialStatus = acceptance.initialStatus(admission: g.groupProfile.memberAdmission)
        if initialStatus != .accepted && peerMax < ChatProtocolVersion.groupKnocking {
            // A joiner below 15 would take itself for a member: it is not admitted without review.
            return reportMessageError(g, "join request needs review, but the joining member's chat version is below 15")
        }
        let memberId = MemberId.random()
        let invitation = GroupLinkInvitation(
            fromMember: MemberIdRole(memberId: hostId, memberRole: g.membership.memberRole), fromMemberName: membershipProfile(g).displayName,
            invitedMember: MemberIdRole(memberId: memberId, memberRole: role), groupProfile: g.groupProfile, accepted: acceptance.rawValue,
            business: g.businessChat, groupSize: Int(g.groupSummary.currentMembers))
        let agent = try runningAgent()
        let agentConnId: String
        let connInfo = try encodeInfo(.grpLinkInv(invitation))
        do { agentConnId = try await agent.acceptContact(invitationId: invitationId, connInfo: connInfo, pqSupport: false) } catch {
            throw Self.agentError(error)
        }
        let gmId = try store.write { db -> Int64 in
            let pid = try db.insertContactProfile(userId: user.userId, profile, at: Self.now)
            let gmId = try db.insertGroupMember(
                groupId: groupId, userId: user.userId, memberId: memberId.base64url, role: role.rawValue, category: "invitee",
                status: initialStatus.rawValue, localDisplayName: Self.validDisplayName(profile.displayName), profileId: pid, invitedByUser: true,
                at: Self.now)
            try db.insertMemberConnection(userId: user.userId, agentConnId: agentConnId, groupMemberId: gmId, status: "accepted", initiated: false,
                                          viaGroupLinkId: link["group_link_id"] as String, at: Self.now)
            if let welcomeMsgId { try db.setMemberWelcomeId(gmId, welcomeMsgId.base64url) }
            return gmId
        }
        let itemId = try insertItem(userId: user.userId, groupId: groupId, memberGmId: gmId, sent: false,
                                    content: .rcvGroupEvent(rcvGroupEvent: RcvGroupEvent(type: "invitedViaGroupLink")), text: "invited via your group link")
        emit(.acceptingGroupJoinRequestMember(user: user, groupInfo: try groupInfo(groupId), member: try member(gmId)))
        emit(.newChatItems(user: user, chatItems: [try groupItem(groupId, itemId)]))
    }

    /// CONF with x.grp.link.inv on a connection we made through a group link: the group, its
    /// host and our membership are created, and the connection becomes the host's.
    func groupLinkInvitationReceived(_ conn: Row, confirmationId: String, _ inv: GroupLinkInvitation,
                                     fromContact: Contact? = nil) async throws(ChatError) {
        let userId: Int64 = conn["user_id"]
        let user = try userById(userId)
        let agentConnId: String = conn["agent_conn_id"]
        let incognitoId: Int64? = conn["custom_user_profile_id"]
        let profileJSON = try json(inv.groupProfile)
        let prepared: Int64? = conn["prepared_group_id"]
        let (groupId, hostGmId) = try store.write { db -> (Int64, Int64) in
            let groupId: Int64
            if let prepared {
                // A prepared group (seed 001 §3): the placeholder membership gets its real ID and role.
                try db.completePreparedGroup(prepared, profileJSON: profileJSON, at: Self.now)
                groupId = prepared
            } else {
                let name = try self.uniqueGroupName(db, userId: userId, Self.validDisplayName(inv.groupProfile.displayName))
                groupId = try db.insertGroup(userId: userId, localDisplayName: name, profileJSON: profileJSON, viaGroupLinkURI: conn["via_link"],
                                             viaGroupLinkId: conn["via_group_link_id"], at: Self.now)
            }
            let pid = try db.insertContactProfile(userId: userId, Profile(displayName: inv.fromMemberName), at: Self.now)
            let hostGmId = try db.insertGroupMember(
                groupId: groupId, userId: userId, memberId: inv.fromMember.memberId.base64url, role: inv.fromMember.memberRole.rawValue,
                category: "host", status: "accepted", localDisplayName: Self.validDisplayName(inv.fromMemberName), profileId: pid, at: Self.now)
            // A v15 host may hold us for approval or review (`acceptanceToStatus`).
            let status = (inv.accepted.flatMap(GroupAcceptance.init(rawValue:)) ?? .accepted).initialStatus(admission: inv.groupProfile.memberAdmission)
            _ = try db.insertGroupMember(
                groupId: groupId, userId: userId, memberId: inv.invitedMember.memberId.base64url, role: inv.invitedMember.memberRole.rawValue,
                category: "user", status: status.rawValue, localDisplayName: user.localDisplayName, profileId: incognitoId,
                invitedByGroupMemberId: hostGmId, at: Self.now)
            try db.assignConnectionToMember(agentConnId: agentConnId, groupMemberId: hostGmId, at: Self.now)
            if prepared != nil { try db.attachReceivedItems(groupId: groupId, toMember: hostGmId) }
            // Chat version 10: a business address answered; a core of an older range ignores it.
            if let b = inv.business, self.ourChatVRange.max >= ChatProtocolVersion.businessChats {
                try db.setBusinessChat(groupId, type: b.chatType, businessMemberId: b.businessId, customerMemberId: b.customerId)
            }
            return (groupId, hostGmId)
        }
        // A group first recorded here gets its banner (a prepared one has it already).
        if prepared == nil { try joiningGroupBanner(userId: userId, groupId: groupId) }
        let g = try groupInfo(groupId)
        let agent = try runningAgent()
        let connInfo = try encodeInfo(.info(membershipProfile(g)))
        do { try await agent.allowConnection(connId: agentConnId, confirmationId: confirmationId, connInfo: connInfo) } catch {
            throw Self.agentError(error, connId: agentConnId)
        }
        if let fromContact {
            emit(.businessLinkConnecting(user: user, groupInfo: g, hostMember: try member(hostGmId), fromContact: fromContact))
        } else {
            emit(.groupLinkConnecting(user: user, groupInfo: g, hostMember: try member(hostGmId)))
        }
    }

    // MARK: messages from members

    /// A message on a member connection; or, with `author`, a message of `author` that the
    /// member of this connection (a host) forwarded in x.grp.msg.forward, received at `forwardedTs`.
    func groupMessageReceived(_ conn: Row, _ meta: MsgMeta, _ msg: ChatMessage, author: GroupMember? = nil,
                              forwardedTs: Double? = nil) async throws(ChatError) -> [UInt8]? {
        let relay = try member(conn["group_member_id"])
        let sender = author ?? relay
        let (user, g) = try groupContext(sender.groupId)
        let shared = msg.msgId?.base64url
        let itemTs = forwardedTs ?? Double(meta.brokerTs)
        switch msg.event {
        case .grpMsgForward(let memberId, let memberName, let inner, let msgTs):
            // simplex-chat `xGrpMsgForward`: only from an admin, about a member we know, and only
            // the events hosts forward; nested forwards are refused.
            guard author == nil else {
                reportMessageError(g, "x.grp.msg.forward inside a forwarded message")
                return nil
            }
            guard relay.memberRole >= .admin else {
                reportMessageError(g, "x.grp.msg.forward from \(relay.localDisplayName), who is not an admin")
                return nil
            }
            guard let memberId, memberId.base64url != g.membership.memberId else {
                reportMessageError(g, "x.grp.msg.forward: no author, or the author is us")
                return nil
            }
            guard inner.event.isForwardedGroupMsg else {
                reportMessageError(g, "x.grp.msg.forward: unsupported forwarded event \(inner.event.tag)")
                return nil
            }
            // An author we were never told about (e.g. one who left before we joined, in the group
            // history) becomes an unknown member, as simplex-chat's `getCreateUnknownGMByMemberId`.
            let known = try store.read { db in try self.groupMember(db, groupId: g.groupId, memberId: memberId.base64url) }
            let a: GroupMember
            if let known {
                a = known
            } else {
                a = try createUnknownMember(user: user, g, memberId, name: memberName)
                emit(.unknownMemberCreated(user: user, groupInfo: g, forwardedByMember: sender, member: a))
            }
            // Every item the forwarded message makes names the host that forwarded it
            // (simplex-chat `forwarded_by_group_member_id`, CIMeta.forwardedByMember).
            try await withForwardingHost(relay.groupMemberId) { () async throws(ChatError) in
                _ = try await self.groupMessageReceived(conn, meta, inner, author: a, forwardedTs: msgTs.date.timeIntervalSince1970)
            }
            return nil
        case .msgNew(let container) where container.scope != nil || !memberCanSend(sender, scope: nil):
            // Chat version 15: a message in a member's support chat, stored there only.
            guard memberCanSend(sender, scope: container.scope), let scopeGmId = try supportScopeMember(g, sender: sender, container.scope),
                  let scopeGmId else {
                reportMessageError(g, "x.msg.new from \(sender.localDisplayName) outside of its support chat")
                return nil
            }
            if case .report = container.content {
                // A report (chat version 15: in the reporter's support chat) keeps the message it quotes.
                return try reportInSupportChatReceived(user: user, g, sender: sender, meta: meta, itemTs: itemTs, shared: shared,
                                                       container, scopeGmId: scopeGmId)
            }
            let attention = try supportAttention(g, scopeGmId: scopeGmId, sender: sender, itemTs: itemTs)
            let itemId = try storeReceivedItem(user: user, .member(g, sender), meta: meta, itemTs: itemTs, shared: shared, container,
                                               support: (scopeGmId, attention))
            let file = try itemId.flatMap { id throws(ChatError) in
                try receivedMessageFile(container.file, userId: user.userId, contactId: nil, groupId: g.groupId, sender: sender, itemId: id, shared: shared)
            }
            if let itemId { emit(.newChatItems(user: user, chatItems: [try supportItem(g, itemId, scopeGmId: scopeGmId)])) }
            if let file { await autoAcceptFile(file.0, size: file.1) }
            return nil
        case .grpLinkAcpt(let acceptance, let role, let memberId):
            try await memberAcceptanceReceived(user: user, g, by: sender, acceptance, role: role, memberId: memberId, shared: shared)
        case .msgNew(let container):
            guard sender.memberRole >= .author else {
                reportMessageError(g, "x.msg.new from \(sender.localDisplayName) with insufficient member permissions")
                return nil
            }
            if case .report = container.content, g.membership.memberRole < .moderator {
                reportMessageError(g, "x.msg.new: a report to a member who is not a moderator")
                return nil
            }
            if let itemId = try storeReceivedItem(user: user, .member(g, sender), meta: meta, itemTs: itemTs, shared: shared, container) {
                // The offered file (issue 15), on the item before it is shown.
                let file = try receivedMessageFile(container.file, userId: user.userId, contactId: nil, groupId: g.groupId, sender: sender,
                                                   itemId: itemId, shared: shared)
                emit(.newChatItems(user: user, chatItems: [try groupItem(g.groupId, itemId)]))
                if let file { await autoAcceptFile(file.0, size: file.1) }
            }
            return author == nil ? [] : nil
        case .msgUpdate(let u):
            try receiveUpdate(user: user, .member(g, sender), u)
        case .msgDel(let msgId, let memberId, let scope):
            try receiveDelete(user: user, .member(g, sender), msgId.base64url, authorMemberId: memberId?.base64url, scope: scope)
        case .msgReact(let msgId, let memberId, let scope, let reaction, let add):
            try receiveReaction(user: user, .member(g, sender), msgId, authorMemberId: memberId, reaction, add: add, sentAt: itemTs, scope: scope)
        case .info(let profile):
            try updateMemberProfile(sender, profile)
        case .grpLinkMem(let profile):
            // The host of a group link (or business address) we joined, who has no contact: its
            // profile, then it is probed as a member who was in the group before us
            // (simplex-chat `xGrpLinkMem`).
            guard author == nil, sender.memberCategory == .host, sender.memberContactId == nil else {
                reportMessageError(g, "x.grp.link.mem error: invalid group link host profile update")
                return nil
            }
            try updateMemberProfile(sender, profile)
            do {
                try await probeMatchingMemberContact(user: user, try groupInfo(g.groupId), try member(sender.groupMemberId))
            } catch {
                emit(.chatError(chatError: error))
            }
        case .grpMemNew(let info, let scope):
            try memberAnnounced(user: user, g, by: sender, info, scope: scope)
        case .grpMemIntro(let info, let restrictions):
            try await memberIntroduced(user: user, g, by: sender, info, blocked: restrictions?.restriction == .blocked)
        case .grpMemInv(let memberId, let intro):
            try await memberInvitationToForward(g, from: sender, memberId.base64url, intro)
        case .grpMemFwd(let info, let intro):
            try await memberInvitationForwarded(user: user, g, by: sender, info, intro)
        case .grpMemCon(let memberId):
            try store.write { db in
                // Either member of the introduction may confirm it (simplex-chat `xGrpMemCon`).
                try db.markIntroductionConnected(groupMemberId: sender.groupMemberId, groupId: g.groupId, memberId: memberId.base64url)
            }
        case .grpMemRole(let memberId, let role):
            try memberRoleChanged(user: user, g, by: sender, memberId.base64url, role)
        case .grpMemRestrict(let memberId, let restrictions):
            try memberRestricted(user: user, g, by: sender, memberId.base64url, blocked: restrictions.restriction == .blocked)
        case .grpMemDel(let memberId, let messages):
            try await memberRemoved(user: user, g, by: sender, memberId.base64url, withMessages: messages ?? false)
        case .grpLeave:
            // The leaving member's own connections (not the host's, when the leave was forwarded).
            let leaverConns = try store.write { db -> [String] in
                let ids = try db.memberAgentConnIds(groupMemberId: sender.groupMemberId)
                try db.closeMember(sender.groupMemberId, status: "left", at: Self.now)
                return ids
            }
            try await deleteAgentConnections(leaverConns)
            let itemId = try insertItem(userId: user.userId, groupId: g.groupId, memberGmId: sender.groupMemberId, sent: false,
                                        content: .rcvGroupEvent(rcvGroupEvent: RcvGroupEvent(type: "memberLeft")), text: "left")
            emit(.leftMember(user: user, groupInfo: try groupInfo(g.groupId), member: try member(sender.groupMemberId)))
            emit(.newChatItems(user: user, chatItems: [try groupItem(g.groupId, itemId)]))
        case .grpDel:
            guard sender.memberRole == .owner else { throw .error(errorType: .groupUserRole(groupInfo: g, requiredRole: .owner)) }
            let itemId = try insertItem(userId: user.userId, groupId: g.groupId, memberGmId: sender.groupMemberId, sent: false,
                                        content: .rcvGroupEvent(rcvGroupEvent: RcvGroupEvent(type: "groupDeleted")), text: "deleted group")
            try await closeGroupConnections(g.groupId, waitForDelivery: 0)
            try store.write { db in
                try db.setMembershipStatus(groupId: g.groupId, "deleted", at: Self.now)
            }
            emit(.groupDeleted(user: user, groupInfo: try groupInfo(g.groupId), member: sender))
            emit(.newChatItems(user: user, chatItems: [try groupItem(g.groupId, itemId)]))
            return nil
        case .grpInfo(let profile):
            guard sender.memberRole == .owner else {
                reportMessageError(g, "x.grp.info from a member who is not an owner")
                return nil
            }
            let j = try json(profile)
            try store.write { db in try db.setGroupProfile(g.groupId, profileJSON: j, at: Self.now) }
            let to = try groupInfo(g.groupId)
            emit(.groupUpdated(user: user, fromGroup: g, toGroup: to, member_: sender))
            let itemId = try insertItem(userId: user.userId, groupId: g.groupId, memberGmId: sender.groupMemberId, sent: false,
                                        content: .rcvGroupEvent(rcvGroupEvent: RcvGroupEvent(type: "groupUpdated", fields: .groupProfile(profile))),
                                        text: "updated group profile")
            emit(.newChatItems(user: user, chatItems: [try groupItem(g.groupId, itemId)]))
        case .grpPrefs(let prefs):
            try groupPreferencesReceived(user: user, g, sender: sender, prefs)
        case .grpDirectInv(let connReq, let content, let scope) where author == nil:
            try await memberContactInvitationReceived(user: user, g, from: sender, connReq: connReq, content: content, scope: scope, shared: shared)
        case .infoProbe(let probe) where author == nil:
            try await probeReceived(user: user, from: .member(sender), probe)
        case .infoProbeCheck(let hash) where author == nil:
            try await probeHashReceived(user: user, from: .member(sender), hash)
        case .infoProbeOk(let probe) where author == nil:
            try probeOkReceived(user: user, from: .member(sender), probe)
        case .msgFileDescr(let msgId, let part):
            try await fileDescrReceived(contactId: nil, groupId: g.groupId, memberGmId: sender.groupMemberId, msgId: msgId, part)
        case .fileCancel(let msgId):
            try fileCancelReceived(contactId: nil, groupId: g.groupId, memberGmId: sender.groupMemberId, msgId: msgId)
        default:
            break
        }
        return nil
    }

    // MARK: introductions

    /// The host's role checks for x.grp.mem.new and x.grp.mem.fwd (`checkHostRole`): the new member's role.
    private func checkHostRole(_ sender: GroupMember, _ info: MemberInfo) throws(ChatError) {
        guard sender.memberRole >= .admin, sender.memberRole >= info.memberRole else {
            throw .error(errorType: .groupContactRole(contactName: sender.localDisplayName))
        }
    }

    /// x.grp.mem.new: a new member joined through `sender`; it will connect to us (x.grp.mem.fwd).
    private func memberAnnounced(user: User, _ g: GroupInfo, by sender: GroupMember, _ info: MemberInfo, scope: MsgScope? = nil) throws(ChatError) {
        try checkHostRole(sender, info)
        if info.memberId.base64url == g.membership.memberId { return }
        // A member under review, announced to us as a moderator (chat version 15): recorded pending
        // review, its announcement in its support chat (simplex-chat `xGrpMemNew` with a scope).
        if case .member(let scopeId)? = scope {
            guard scopeId == info.memberId, g.membership.memberRole >= .moderator,
                  try store.read({ db in try self.groupMember(db, groupId: g.groupId, memberId: info.memberId.base64url) }) == nil else {
                return reportMessageError(g, "x.grp.mem.new with a scope for another member, to a non-moderator, or a known member")
            }
            return try reviewedMemberAnnounced(user: user, g, by: sender, info)
        }
        let gmId: Int64
        if let existing = try store.read({ db in try self.groupMember(db, groupId: g.groupId, memberId: info.memberId.base64url) }) {
            // A member first seen as the author of a forwarded message is now announced
            // (simplex-chat `updateUnknownMemberAnnounced`); any other is a duplicate.
            guard existing.memberStatus == .unknown else { return reportMessageError(g, "x.grp.mem.new: member already exists") }
            try updateMemberProfile(existing, info.profile)
            try store.write { db in
                try db.setAnnouncedMember(existing.groupMemberId, role: info.memberRole.rawValue, category: GroupMemberCategory.post.rawValue,
                                          status: GroupMemberStatus.announced.rawValue, invitedBy: sender.groupMemberId, at: Self.now)
            }
            gmId = existing.groupMemberId
            emit(.unknownMemberAnnounced(user: user, groupInfo: g, announcingMember: sender, unknownMember: existing, announcedMember: try member(gmId)))
        } else {
            gmId = try createIntroducedMember(g, userId: user.userId, info, category: .post, status: .announced, invitedBy: sender.groupMemberId)
        }
        let m = try member(gmId)
        let itemId = try insertItem(userId: user.userId, groupId: g.groupId, memberGmId: sender.groupMemberId, sent: false,
                                    content: .rcvGroupEvent(rcvGroupEvent: RcvGroupEvent(type: "memberAdded", fields: .member(groupMemberId: gmId, profile: m.memberProfile.profile))),
                                    text: "added \(m.localDisplayName)")
        emit(.joinedGroupMemberConnecting(user: user, groupInfo: try groupInfo(g.groupId), hostMember: sender, member: m))
        emit(.newChatItems(user: user, chatItems: [try groupItem(g.groupId, itemId)]))
    }

    /// x.grp.mem.intro (we are the new member): a link for the existing member, sent back to
    /// the host in x.grp.mem.inv.
    private func memberIntroduced(user: User, _ g: GroupInfo, by sender: GroupMember, _ info: MemberInfo, blocked: Bool) async throws(ChatError) {
        guard sender.memberCategory == .host else { return reportMessageError(g, "x.grp.mem.intro from a member who is not our host") }
        // No role check here (simplex-chat `xGrpMemIntro` has none): an admin host introduces existing
        // members of any role, the owner included.
        if try store.read({ db in try self.groupMember(db, groupId: g.groupId, memberId: info.memberId.base64url) }) != nil {
            return reportMessageError(g, "x.grp.mem.intro: member already exists")
        }
        let gmId = try createIntroducedMember(g, userId: user.userId, info, category: .pre, status: .introduced, invitedBy: sender.groupMemberId)
        if blocked { try store.write { db in try db.setMemberBlockedByAdmin(gmId, true, at: Self.now) } }
        let agent = try runningAgent()
        let (agentConnId, link): (String, ConnectionRequestURI)
        do { (agentConnId, link) = try await agent.createConnection(mode: .invitation, pqSupport: false, userId: user.userId) } catch {
            throw Self.agentError(error)
        }
        try store.write { db in
            try db.insertMemberConnection(userId: user.userId, agentConnId: agentConnId, groupMemberId: gmId, status: "new", initiated: true, at: Self.now)
            try db.setMemberStatus(gmId, "intro-inv", at: Self.now)
        }
        try await sendToMember(sender.groupMemberId, .grpMemInv(memberId: info.memberId, intro: IntroInvitation(groupConnReq: link.uriString)))
    }

    /// x.grp.mem.inv (we are the host): the new member's link for an existing member, passed on
    /// to that member in x.grp.mem.fwd.
    private func memberInvitationToForward(_ g: GroupInfo, from sender: GroupMember, _ memberId: String, _ intro: IntroInvitation) async throws(ChatError) {
        guard sender.memberCategory == .invitee else { return reportMessageError(g, "x.grp.mem.inv from a member we did not invite") }
        guard let to = try store.read({ db in try self.groupMember(db, groupId: g.groupId, memberId: memberId) }),
            try store.read({ db in try db.hasIntroduction(reGroupMemberId: sender.groupMemberId, toGroupMemberId: to.groupMemberId) }),
            let newId = MemberId(base64url: sender.memberId)
        else { return reportMessageError(g, "x.grp.mem.inv for a member that was not introduced") }
        let info = MemberInfo(memberId: newId, memberRole: sender.memberRole, v: memberVRangeText(sender.groupMemberId), profile: redacted(sender.memberProfile.profile))
        try await sendToMember(to.groupMemberId, .grpMemFwd(info, intro: intro))
        try store.write { db in
            try db.markIntroductionForwarded(reGroupMemberId: sender.groupMemberId, toGroupMemberId: to.groupMemberId)
        }
    }

    /// x.grp.mem.fwd (we are an existing member): join the new member's link with our
    /// x.grp.mem.info.
    private func memberInvitationForwarded(user: User, _ g: GroupInfo, by sender: GroupMember, _ info: MemberInfo, _ intro: IntroInvitation) async throws(ChatError) {
        try checkHostRole(sender, info)
        var gmId = try store.read { db in try self.groupMember(db, groupId: g.groupId, memberId: info.memberId.base64url) }?.groupMemberId
        if gmId == nil {
            gmId = try createIntroducedMember(g, userId: user.userId, info, category: .post, status: .announced, invitedBy: sender.groupMemberId)
        }
        guard let gmId, let ownId = MemberId(base64url: g.membership.memberId) else { return }
        let pendingReview = try member(gmId).memberStatus == .pendingReview
        let agent = try runningAgent()
        let agentConnId: String
        let connInfo = try encodeInfo(.grpMemInfo(memberId: ownId, profile: membershipProfile(g)))
        do {
            agentConnId = try await agent.joinConnection(link: intro.groupConnReq, connInfo: connInfo,
                                                        pqSupport: false, userId: user.userId)
        } catch {
            throw Self.agentError(error)
        }
        try store.write { db in
            try db.insertMemberConnection(userId: user.userId, agentConnId: agentConnId, groupMemberId: gmId, status: "joined", initiated: true, at: Self.now)
            // A member under review (we are a moderator) stays so until it is accepted.
            if !pendingReview { try db.setMemberStatus(gmId, "intro-inv", at: Self.now) }
        }
    }

    // MARK: roles, restrictions, removal

    private func memberRoleChanged(user: User, _ g: GroupInfo, by sender: GroupMember, _ memberId: String, _ role: GroupMemberRole) throws(ChatError) {
        let target: GroupMember? = memberId == g.membership.memberId ? g.membership
            : try store.read { db in try self.groupMember(db, groupId: g.groupId, memberId: memberId) }
        guard let target else { return reportMessageError(g, "x.grp.mem.role for an unknown member") }
        guard sender.memberRole >= .admin, sender.memberRole >= target.memberRole else {
            return reportMessageError(g, "x.grp.mem.role with insufficient member permissions")
        }
        try store.write { db in try db.setMemberRole(target.groupMemberId, role.rawValue, at: Self.now) }
        let content: RcvGroupEvent = target.memberCategory == .user
            ? RcvGroupEvent(type: "userRole", fields: .role(role))
            : RcvGroupEvent(type: "memberRole", fields: .memberRole(groupMemberId: target.groupMemberId, profile: target.memberProfile.profile, role: role))
        let itemId = try insertItem(userId: user.userId, groupId: g.groupId, memberGmId: sender.groupMemberId, sent: false,
                                    content: .rcvGroupEvent(rcvGroupEvent: content), text: "changed role of \(target.localDisplayName) to \(role.rawValue)")
        let updated = try groupInfo(g.groupId)
        emit(.memberRole(user: user, groupInfo: updated, byMember: sender, member: try member(target.groupMemberId), fromRole: target.memberRole, toRole: role))
        emit(.newChatItems(user: user, chatItems: [try groupItem(g.groupId, itemId)]))
    }

    private func memberRestricted(user: User, _ g: GroupInfo, by sender: GroupMember, _ memberId: String, blocked: Bool) throws(ChatError) {
        if memberId == g.membership.memberId { return }
        guard let target = try store.read({ db in try self.groupMember(db, groupId: g.groupId, memberId: memberId) }) else {
            return reportMessageError(g, "x.grp.mem.restrict for an unknown member")
        }
        guard sender.memberRole >= .moderator, sender.memberRole >= target.memberRole else {
            return reportMessageError(g, "x.grp.mem.restrict with insufficient member permissions")
        }
        try store.write { db in try db.setMemberBlockedByAdmin(target.groupMemberId, blocked, at: Self.now) }
        let itemId = try insertItem(userId: user.userId, groupId: g.groupId, memberGmId: sender.groupMemberId, sent: false,
                                    content: .rcvGroupEvent(rcvGroupEvent: RcvGroupEvent(type: "memberBlocked", fields: .memberBlocked(groupMemberId: target.groupMemberId, profile: target.memberProfile.profile, blocked: blocked))),
                                    text: (blocked ? "blocked " : "unblocked ") + target.localDisplayName)
        emit(.memberBlockedForAll(user: user, groupInfo: try groupInfo(g.groupId), byMember: sender, member: try member(target.groupMemberId), blocked: blocked))
        emit(.newChatItems(user: user, chatItems: [try groupItem(g.groupId, itemId)]))
    }

    private func memberRemoved(user: User, _ g: GroupInfo, by sender: GroupMember, _ memberId: String, withMessages: Bool) async throws(ChatError) {
        if memberId == g.membership.memberId {
            guard sender.memberRole >= .admin, sender.memberRole >= g.membership.memberRole else {
                return reportMessageError(g, "x.grp.mem.del with insufficient member permissions")
            }
            let itemId = try insertItem(userId: user.userId, groupId: g.groupId, memberGmId: sender.groupMemberId, sent: false,
                                        content: .rcvGroupEvent(rcvGroupEvent: RcvGroupEvent(type: "userDeleted")), text: "removed you")
            try await closeGroupConnections(g.groupId, waitForDelivery: 0)
            try store.write { db in
                try db.setMembershipStatus(groupId: g.groupId, "removed", at: Self.now)
            }
            if withMessages { try moderateMemberItemsOfUser(g.groupId, by: sender) }
            emit(.deletedMemberUser(user: user, groupInfo: try groupInfo(g.groupId), member: sender, withMessages: withMessages))
            emit(.newChatItems(user: user, chatItems: [try groupItem(g.groupId, itemId)]))
            return
        }
        guard let target = try store.read({ db in try self.groupMember(db, groupId: g.groupId, memberId: memberId) }) else {
            return reportMessageError(g, "x.grp.mem.del for an unknown member")
        }
        guard sender.memberRole >= .admin, sender.memberRole >= target.memberRole else {
            return reportMessageError(g, "x.grp.mem.del with insufficient member permissions")
        }
        try await deleteAgentConnections(try memberConnections(target.groupMemberId))
        try store.write { db in
            try db.closeMember(target.groupMemberId, status: "removed", at: Self.now)
        }
        if withMessages { try moderateMemberItems(groupId: g.groupId, authorGmId: target.groupMemberId, by: sender) }
        let itemId = try insertItem(userId: user.userId, groupId: g.groupId, memberGmId: sender.groupMemberId, sent: false,
                                    content: .rcvGroupEvent(rcvGroupEvent: RcvGroupEvent(type: "memberDeleted", fields: .member(groupMemberId: target.groupMemberId, profile: target.memberProfile.profile))),
                                    text: "removed \(target.localDisplayName)")
        emit(.deletedMember(user: user, groupInfo: try groupInfo(g.groupId), byMember: sender, deletedMember: try member(target.groupMemberId), withMessages: withMessages))
        emit(.newChatItems(user: user, chatItems: [try groupItem(g.groupId, itemId)]))
    }

    private func moderateMemberItemsOfUser(_ groupId: Int64, by: GroupMember) throws(ChatError) {
        let mark = try json(CIDeleted.moderated(deletedTs: Self.ts(Self.now), byGroupMember: by))
        try store.write { db in
            try db.markSentGroupItemsDeleted(groupId, deletedJSON: mark, at: Self.now)
        }
    }
}
