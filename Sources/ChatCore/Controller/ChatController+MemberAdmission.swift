import Foundation
import GRDB
import SMPAgent

/// Member admission (chat versions 14 and 15): hosts refusing joins (x.grp.link.reject), holding
/// joiners for approval or review, admitting them (x.grp.link.acpt), and the member support chats
/// a pending member and the admins talk in (messages with a `scope`).
extension ChatController {
    // MARK: host: decisions on join requests

    /// What we do with a join request through our group link: the `acceptMember` hook decides
    /// (everyone is accepted with the link's role without one), and a group that reviews all
    /// members holds even accepted joiners (`acceptanceToStatus`).
    func joinDecision(_ g: GroupInfo, _ profile: Profile, linkRole: GroupMemberRole) -> GroupJoinDecision {
        config.acceptMember?(g, profile) ?? .accept(.accepted, role: linkRole)
    }

    /// simplex-chat `acceptGroupJoinSendRejectAsync`: the refused joiner is recorded as a rejected
    /// observer and gets x.grp.link.reject as our answer to its request.
    func rejectGroupJoin(user: User, _ g: GroupInfo, link: Row, invitationId: String, profile: Profile,
                         _ reason: GroupRejectionReason) async throws(ChatError) {
        guard let hostId = MemberId(base64url: g.membership.memberId) else { return }
        let memberId = MemberId.random()
        let rejection = GroupLinkRejection(
            fromMember: MemberIdRole(memberId: hostId, memberRole: g.membership.memberRole),
            invitedMember: MemberIdRole(memberId: memberId, memberRole: .observer), groupProfile: g.groupProfile, rejectionReason: reason)
        let agent = try runningAgent()
        let agentConnId: String
        let connInfo = try encodeInfo(.grpLinkReject(rejection))
        do { agentConnId = try await agent.acceptContact(invitationId: invitationId, connInfo: connInfo, pqSupport: false) } catch {
            throw Self.agentError(error)
        }
        let gmId = try store.write { db -> Int64 in
            let pid = try db.insertContactProfile(userId: user.userId, profile, at: Self.now)
            let gmId = try db.insertGroupMember(
                groupId: g.groupId, userId: user.userId, memberId: memberId.base64url, role: GroupMemberRole.observer.rawValue,
                category: "invitee", status: GroupMemberStatus.rejected.rawValue, localDisplayName: Self.validDisplayName(profile.displayName),
                profileId: pid, invitedByUser: true, at: Self.now)
            try db.insertMemberConnection(userId: user.userId, agentConnId: agentConnId, groupMemberId: gmId, status: "accepted", initiated: false,
                                          viaGroupLinkId: link["group_link_id"] as String, at: Self.now)
            return gmId
        }
        emit(.rejectingGroupJoinRequestMember(user: user, groupInfo: try groupInfo(g.groupId), member: try member(gmId), groupRejectionReason: reason))
    }

    // MARK: joiner: the host's answer

    /// CONF with x.grp.link.reject on a connection we made through a group link: the group is
    /// recorded with our membership rejected (the host named only by its member ID, as
    /// `createGroupRejectedViaLink`), and the connection is not continued.
    func groupLinkRejectionReceived(_ conn: Row, _ rejection: GroupLinkRejection) throws(ChatError) {
        let userId: Int64 = conn["user_id"]
        let user = try userById(userId)
        let agentConnId: String = conn["agent_conn_id"]
        let incognitoId: Int64? = conn["custom_user_profile_id"]
        let profileJSON = try json(rejection.groupProfile)
        let prepared: Int64? = conn["prepared_group_id"]
        let hostName = Self.nameFromMemberId(rejection.fromMember.memberId)
        let (groupId, hostGmId) = try store.write { db -> (Int64, Int64) in
            let groupId: Int64
            if let prepared {
                try db.completePreparedGroup(prepared, profileJSON: profileJSON, at: Self.now)
                groupId = prepared
            } else {
                let name = try self.uniqueGroupName(db, userId: userId, Self.validDisplayName(rejection.groupProfile.displayName))
                groupId = try db.insertGroup(userId: userId, localDisplayName: name, profileJSON: profileJSON, viaGroupLinkURI: conn["via_link"],
                                             viaGroupLinkId: conn["via_group_link_id"], at: Self.now)
            }
            let pid = try db.insertContactProfile(userId: userId, Profile(displayName: hostName), at: Self.now)
            let hostGmId = try db.insertGroupMember(
                groupId: groupId, userId: userId, memberId: rejection.fromMember.memberId.base64url, role: rejection.fromMember.memberRole.rawValue,
                category: "host", status: GroupMemberStatus.accepted.rawValue, localDisplayName: hostName, profileId: pid, at: Self.now)
            _ = try db.insertGroupMember(
                groupId: groupId, userId: userId, memberId: rejection.invitedMember.memberId.base64url,
                role: rejection.invitedMember.memberRole.rawValue, category: "user", status: GroupMemberStatus.rejected.rawValue,
                localDisplayName: user.localDisplayName, profileId: incognitoId, invitedByGroupMemberId: hostGmId, at: Self.now)
            try db.assignConnectionToMember(agentConnId: agentConnId, groupMemberId: hostGmId, at: Self.now)
            return (groupId, hostGmId)
        }
        let g = try groupInfo(groupId)
        emit(.groupLinkConnecting(user: user, groupInfo: g, hostMember: try member(hostGmId)))
        emit(.groupLinkRejected(user: user, groupInfo: g, groupRejectionReason: rejection.rejectionReason))
    }

    /// x.grp.link.acpt from an admin: the pending member `memberId` (us or, for a moderator,
    /// another joiner) is admitted or moved on to review, with its role (`xGrpLinkAcpt`).
    func memberAcceptanceReceived(user: User, _ g: GroupInfo, by sender: GroupMember, _ acceptance: GroupAcceptance,
                                  role: GroupMemberRole, memberId: MemberId, shared: String?) async throws(ChatError) {
        guard sender.memberRole >= .moderator else {
            return reportMessageError(g, "x.grp.link.acpt from \(sender.localDisplayName), who is not a moderator")
        }
        let status: GroupMemberStatus = acceptance == .accepted ? .connected : acceptance.initialStatus(admission: g.groupProfile.memberAdmission)
        if memberId.base64url == g.membership.memberId {
            guard g.membership.memberStatus == .pendingApproval || g.membership.memberStatus == .pendingReview else { return }
            try store.write { db in
                try db.setMemberRoleAndStatus(g.membership.groupMemberId, role: role.rawValue, status: status.rawValue, at: Self.now)
            }
            if status == .pendingReview, g.membership.memberStatus == .pendingApproval {
                // Moved on from approval to review (simplex-chat `SGEUserPendingReview`, in our support chat).
                var item = NewChatItem(userId: user.userId, groupId: g.groupId, sent: true, itemTs: Self.now,
                                       text: "please wait for group moderators to review your request to join the group",
                                       contentJSON: try json(CIContent.sndGroupEvent(sndGroupEvent: SndGroupEvent(type: "userPendingReview"))),
                                       statusJSON: try json(CIStatus.sndSent(sndProgress: .complete)))
                item.scopeMemberGmId = g.membership.groupMemberId
                let pending = item
                let itemId = try store.write { db in try db.insertChatItem(pending, at: Self.now) }
                emit(.newChatItems(user: user, chatItems: [try supportItem(try groupInfo(g.groupId), itemId, scopeGmId: g.membership.groupMemberId)]))
                let g2 = try groupInfo(g.groupId)
                emit(.memberAcceptedByOther(user: user, groupInfo: g2, acceptingMember: sender, member: g2.membership))
            }
            guard status == .connected else { return }
            // simplex-chat `processUserAccepted`: the main chat's e2e notice, features and welcome, and
            // `userAccepted` in both chats, then `userJoinedGroup`.
            try acceptedMembershipItems(user: user, groupId: g.groupId, by: sender)
            emit(.userJoinedGroup(user: user, groupInfo: try groupInfo(g.groupId), hostMember: sender))
        } else {
            guard let gmId = try store.read({ db in try db.groupMemberGmId(groupId: g.groupId, memberId: memberId.base64url) }) else {
                return reportMessageError(g, "x.grp.link.acpt error: referenced member does not exist")
            }
            let before = try member(gmId)
            guard status == .connected else {
                try store.write { db in try db.setMemberRoleAndStatus(gmId, role: role.rawValue, status: status.rawValue, at: Self.now) }
                return
            }
            // simplex-chat `xGrpLinkAcpt` for another member: connected when we have a ready connection
            // with it, otherwise announced (the host will introduce it).
            let ready = try store.read { db in try db.memberHasReadyConnection(gmId) }
            let newStatus: GroupMemberStatus = ready ? .connected : .announced
            try store.write { db in try db.setMemberRoleAndStatus(gmId, role: role.rawValue, status: newStatus.rawValue, at: Self.now) }
            let admitted = try member(gmId)
            // Another moderator admitted a member we host: we introduce it to the remaining members and
            // send it the history (as APIAcceptMember does for the host itself).
            if before.memberCategory == .invitee, before.memberStatus == .pendingReview || before.memberStatus == .pendingApproval {
                try await introduceToAll(g, newMember: admitted)
                try await sendHistory(g, to: admitted)
            }
            // Items in both chats, as the reference: "connected" in the main chat, and the moderator's
            // acceptance (the received message) in the member's support chat.
            let g2 = try groupInfo(g.groupId)
            let connectedId = try insertConnectedItem(userId: user.userId, admitted, scopeGmId: nil)
            emit(.newChatItems(user: user, chatItems: [try groupItem(g.groupId, connectedId)]))
            var item = NewChatItem(userId: user.userId, groupId: g.groupId, memberGmId: sender.groupMemberId, sent: false, itemTs: Self.now,
                                   text: "accepted \(admitted.memberProfile.profile.displayName)",
                                   contentJSON: try json(CIContent.rcvGroupEvent(rcvGroupEvent: RcvGroupEvent(type: "memberAccepted", fields: .member(
                                       groupMemberId: gmId, profile: admitted.memberProfile.profile)))),
                                   statusJSON: try json(CIStatus.rcvRead), sharedMsgId: shared)
            item.scopeMemberGmId = gmId
            let accepted = item
            let acceptedId = try store.write { db in try db.insertChatItem(accepted, at: Self.now) }
            emit(.newChatItems(user: user, chatItems: [try supportItem(g2, acceptedId, scopeGmId: gmId)]))
            emit(.memberAcceptedByOther(user: user, groupInfo: g2, acceptingMember: sender, member: admitted))
        }
    }

    /// The support chat a member connection's items go to (simplex-chat `mkGroupChatScope`): ours while
    /// we are pending, the member's while it is; nil (the main chat) otherwise.
    func pendingConnectionScope(_ m: GroupMember) throws(ChatError) -> Int64? {
        let membership = try groupInfo(m.groupId).membership
        if membership.memberStatus == .pendingApproval || membership.memberStatus == .pendingReview { return membership.groupMemberId }
        if m.memberStatus == .pendingApproval || m.memberStatus == .pendingReview { return m.groupMemberId }
        return nil
    }

    /// The `memberConnected` item (read, as simplex-chat makes it), in the main chat or a support chat.
    func insertConnectedItem(userId: Int64, _ m: GroupMember, scopeGmId: Int64?) throws(ChatError) -> Int64 {
        var item = NewChatItem(userId: userId, groupId: m.groupId, memberGmId: m.groupMemberId, sent: false, itemTs: Self.now, text: "connected",
                               contentJSON: try json(CIContent.rcvGroupEvent(rcvGroupEvent: RcvGroupEvent(type: "memberConnected"))),
                               statusJSON: try json(CIStatus.rcvRead))
        item.scopeMemberGmId = scopeGmId
        let connected = item
        return try store.write { db in try db.insertChatItem(connected, at: Self.now) }
    }

    /// Which members a host may forward a message to (chat version 15, as simplex-chat's member
    /// support delivery scope): `.some(nil)` everyone it forwards to; `.some(gmId)` only that
    /// member's support chat participants (the member and moderators); nil nobody: a support chat
    /// message naming a member we do not know, or a pending member's message outside its support
    /// chat (refused when received, so not passed on either).
    func supportForwardScope(_ g: GroupInfo, sender: GroupMember, _ msg: ChatMessage) -> Int64?? {
        let pendingSender = sender.memberStatus == .pendingApproval || sender.memberStatus == .pendingReview
        if case .msgFileDescr(let msgId, _) = msg.event {
            // A file's description goes where its offer went (the scope of the sender's item).
            guard let found = try? store.read({ db in
                try db.memberItemSupportScope(groupId: g.groupId, memberGmId: sender.groupMemberId, sharedMsgId: msgId.base64url)
            }) else { return pendingSender ? nil : .some(nil) }
            return .some(found)
        }
        guard let scope = msg.event.supportScope else { return pendingSender ? nil : .some(nil) }
        guard case .member(let memberId) = scope,
              let gmId = try? store.read({ db in try db.groupMemberGmId(groupId: g.groupId, memberId: memberId.base64url) })
        else { return nil }
        return .some(gmId)
    }

    // MARK: host: admitting

    /// `/_accept member #<groupId> <groupMemberId> <role>` (simplex-chat APIAcceptMember): a member
    /// pending approval goes on to review when the group reviews members, otherwise (and from
    /// review) it is admitted: x.grp.link.acpt to it, then the introductions and history every
    /// new member gets.
    func acceptMember(groupId: Int64, groupMemberId: Int64, role: GroupMemberRole) async throws(ChatError) -> ChatResponse {
        let (user, g) = try groupContext(groupId)
        try assertUserRole(g, .moderator)
        let m = try member(groupMemberId)
        guard m.groupId == groupId, let mid = MemberId(base64url: m.memberId) else {
            throw .errorStore(storeError: .groupMemberNotFound(groupMemberId: groupMemberId))
        }
        let toReview = m.memberStatus == .pendingApproval && g.groupProfile.memberAdmission?.review == .all
        // As APIAcceptMember: only the host approves (its invitee); anyone moderating admits a member under review.
        switch m.memberStatus {
        case .pendingApproval where m.memberCategory == .invitee, .pendingReview:
            break
        default:
            throw .error(errorType: .commandError(message: "member should be pending approval and invitee, or pending review and not invitee"))
        }
        // To review: `introduceToModerators` below tells the member (x.grp.link.acpt pending_review).
        if !toReview { try await sendToMember(groupMemberId, .grpLinkAcpt(acceptance: .accepted, role: role, memberId: mid)) }
        let status: GroupMemberStatus = toReview ? .pendingReview : .connected
        try store.write { db in try db.setMemberRoleAndStatus(groupMemberId, role: role.rawValue, status: status.rawValue, at: Self.now) }
        let accepted = try member(groupMemberId)
        if !toReview {
            // Items in both chats, as APIAcceptMember: the member connected (main chat), and our
            // acceptance in its support chat.
            let connectedId = try insertItem(userId: user.userId, groupId: groupId, memberGmId: groupMemberId, sent: false,
                                             content: .rcvGroupEvent(rcvGroupEvent: RcvGroupEvent(type: "memberConnected")), text: "connected")
            var acceptedItem = NewChatItem(userId: user.userId, groupId: groupId, sent: true, itemTs: Self.now, text: "you accepted this member",
                                           contentJSON: try json(CIContent.sndGroupEvent(sndGroupEvent: SndGroupEvent(type: "memberAccepted", fields: .member(
                                               groupMemberId: groupMemberId, profile: accepted.memberProfile.profile)))),
                                           statusJSON: try json(CIStatus.sndSent(sndProgress: .complete)))
            acceptedItem.scopeMemberGmId = groupMemberId
            let item = acceptedItem
            let acceptedId = try store.write { db in try db.insertChatItem(item, at: Self.now) }
            emit(.newChatItems(user: user, chatItems: [try groupItem(groupId, connectedId)]))
            emit(.newChatItems(user: user, chatItems: [try supportItem(g, acceptedId, scopeGmId: groupMemberId)]))
            try await notifyModeratorsOfAcceptance(g, accepted, role: role)
            // The host introduces it to the members it does not know yet (not the moderators it met
            // under review) and sends the history (`introduceToRemaining`, `sendHistory`).
            if m.memberCategory == .invitee {
                try await introduceToAll(g, newMember: accepted)
                try await sendHistory(g, to: accepted)
            }
        } else {
            try await introduceToModerators(g, accepted)
        }
        return .memberAccepted(user: user, groupInfo: try groupInfo(groupId), member: accepted)
    }

    /// `/_delete member chat #<groupId> <groupMemberId>` (simplex-chat APIDeleteMemberSupportChat):
    /// the member's support chat, items and counters, is deleted here only; not while the member is
    /// pending (its review happens there).
    func deleteMemberSupportChat(groupId: Int64, groupMemberId: Int64) throws(ChatError) -> ChatResponse {
        let (user, _) = try groupContext(groupId)
        let m = try member(groupMemberId)
        guard m.groupId == groupId else { throw .errorStore(storeError: .groupMemberNotFound(groupMemberId: groupMemberId)) }
        guard m.supportChat != nil else { throw .error(errorType: .commandError(message: "member has no support chat")) }
        guard m.memberStatus != .pendingApproval, m.memberStatus != .pendingReview else {
            throw .error(errorType: .commandError(message: "member is pending"))
        }
        try store.write { db in try db.deleteMemberSupportChat(groupMemberId, at: Self.now) }
        return .memberSupportChatDeleted(user: user, groupInfo: try groupInfo(groupId), member: try member(groupMemberId))
    }

    // MARK: support chats

    /// The support chat a received message belongs to: `scope` names the member whose chat it is
    /// (us, the sender, or for a moderator any pending member). Nil: the main chat.
    func supportScopeMember(_ g: GroupInfo, sender: GroupMember, _ scope: MsgScope?) throws(ChatError) -> Int64?? {
        guard case .member(let memberId)? = scope else { return .some(nil) }
        // Members may only use their own scope; moderators any member's (Protocol.hs MsgScope).
        guard memberId.base64url == sender.memberId || sender.memberRole >= .moderator else { return nil }
        guard let gmId = try store.read({ db in try db.groupMemberGmId(groupId: g.groupId, memberId: memberId.base64url) }) else { return nil }
        return .some(gmId)
    }

    /// Whether `sender` may send this message: a pending member only in its support chat
    /// (simplex-chat `memberCanSend`).
    func memberCanSend(_ sender: GroupMember, scope: MsgScope?) -> Bool {
        switch sender.memberStatus {
        case .pendingApproval, .pendingReview: scope != nil
        default: true
        }
    }

    /// An item of a support chat with its chat info: the member's own chat has no member in the
    /// info, a moderator's view names the member (GroupChatScopeInfo).
    func supportItem(_ g: GroupInfo, _ itemId: Int64, scopeGmId: Int64) throws(ChatError) -> AChatItem {
        let info: GroupChatScopeInfo = scopeGmId == g.membership.groupMemberId ? .memberSupport(groupMember_: nil)
            : .memberSupport(groupMember_: try member(scopeGmId))
        return AChatItem(chatInfo: .group(groupInfo: try groupInfo(g.groupId), groupChatScope: info), chatItem: try chatItem(itemId))
    }

    /// The member whose support chat a command names: ours without an ID, a member's for a moderator.
    func supportScopeGmId(_ g: GroupInfo, _ scope: GroupChatScope) throws(ChatError) -> Int64 {
        switch scope {
        case .memberSupport(let id?):
            try assertUserRole(g, .moderator)
            let m = try member(id)
            guard m.groupId == g.groupId else { throw .errorStore(storeError: .groupMemberNotFound(groupMemberId: id)) }
            return id
        case .memberSupport(nil):
            return g.membership.groupMemberId
        }
    }

    /// `/_send #<groupId>(_support[:<groupMemberId>]) json [...]`: messages (with quotes of the same
    /// chat and mentions) in a support chat, sent with the member's scope to the member and the
    /// group's moderators we are connected to.
    func sendSupportMessages(_ ref: ChatRef, _ messages: [ComposedMessage]) async throws(ChatError) -> ChatResponse {
        guard let scope = ref.chatScope else { throw .error(errorType: .commandError(message: "no chat scope")) }
        let (user, g) = try groupContext(ref.chatId)
        let scopeGmId = try supportScopeGmId(g, scope)
        let scopeMember = try member(scopeGmId)
        guard let scopeMemberId = MemberId(base64url: scopeMember.memberId) else { throw .error(errorType: .groupInternal(message: "bad member ID")) }
        let members = try supportRecipientMembers(g, scopeGmId: scopeGmId)
        let recipients = members.map(\.agentConnId)
        // Our message answers the member (a moderator's view): its attention count is cleared.
        let attention: SupportAttention = scopeGmId == g.membership.groupMemberId ? .inc(0, fromMemberTs: nil) : .reset
        var items: [AChatItem] = []
        for composed in messages {
            var p = try prepareItem(user: user, .group(g), content: composed.msgContent, quotedItemId: composed.quotedItemId,
                                    ttl: nil, live: false, forwarded: false)
            // A quote is of an item of the same support chat.
            if let q = composed.quotedItemId, try store.read({ db in try db.itemSupportScope(q) }) != scopeGmId {
                throw .errorStore(storeError: .chatItemNotFound(itemId: q))
            }
            try addMentions(&p, g, composed.mentions)
            p.container.scope = .member(memberId: scopeMemberId)
            // A file (simplex-chat sends files in any scope): offered in the scoped x.msg.new, uploaded
            // once the item exists, its descriptions only to this chat's recipients.
            let file = try composed.fileSource.map { source throws(ChatError) in
                try prepareSndFile(userId: user.userId, source: source, to: .members(groupId: g.groupId, members.map(\.gmId)))
            }
            p.container.file = file?.invitation
            let itemId: Int64
            do {
                let body = try chatMessage(.msgNew(p.container), msgId: p.sharedMsgId)
                for conn in recipients {
                    do { dropStatus(conn, try await sendToAgent(conn, body)) } catch { emit(.chatError(chatError: error)) }
                }
                p.item.statusJSON = try json(CIStatus.sndSent(sndProgress: .complete))
                p.item.scopeMemberGmId = scopeGmId
                let item = p.item, shared = p.sharedMsgId.base64url
                itemId = try store.write { db -> Int64 in
                    let id = try db.insertChatItem(item, at: Self.now)
                    try db.updateSupportChatStats(scopeGmId, unread: 0, mentions: 0, attention: attention, at: Self.now)
                    if let file { try db.setFileItem(file.fileId, chatItemId: id, sharedMsgId: shared, at: Self.now) }
                    return id
                }
            } catch {
                if let file { discardSndFiles([file.fileId]) }
                throw error
            }
            if let file { startUpload(file.fileId) }
            items.append(try supportItem(g, itemId, scopeGmId: scopeGmId))
        }
        return .newChatItems(user: user, chatItems: items)
    }

    /// `/_get chat #<groupId>(_support[:<groupMemberId>]) <pagination>`: a support chat's items.
    func getSupportChat(_ ref: ChatRef, pagination: ChatPagination) throws(ChatError) -> ChatResponse {
        guard let scope = ref.chatScope else { throw .error(errorType: .commandError(message: "no chat scope")) }
        let (user, g) = try groupContext(ref.chatId)
        let scopeGmId = try supportScopeGmId(g, scope)
        let deferred = store.deferredSentStatuses
        let items = try store.read { db in
            try db.chatItemRows(groupId: g.groupId, contentTag: nil, search: nil, pagination: pagination, scopeMemberGmId: scopeGmId)
                .map { try self.chatItem(db, $0, deferred: deferred) }
        }
        let info: GroupChatScopeInfo = scopeGmId == g.membership.groupMemberId ? .memberSupport(groupMember_: nil)
            : .memberSupport(groupMember_: try member(scopeGmId))
        return .apiChat(user: user, chat: AChat(chatInfo: .group(groupInfo: g, groupChatScope: info), chatItems: items), navInfo: nil)
    }
}

// MARK: version 16: the welcome message of a short link

extension ChatController {
    /// The auto-reply to a joiner that already shows our welcome from the link's data and named
    /// it in its request (`welcomeMsgId`): x.msg.update of that message instead of a new one
    /// (simplex-chat `sendAutoReply` with the request's welcomeSharedMsgId); our copy is the sent
    /// item with the same shared ID.
    func sendWelcomeUpdate(user: User, _ contact: Contact, agentConnId: String, _ reply: MsgContent, welcomeId: String) async throws(ChatError) {
        guard let shared = SharedMsgId(base64url: welcomeId) else { return }
        let body = try chatMessage(.msgUpdate(ChatMsgEvent.MsgUpdate(msgId: shared, content: reply)))
        dropStatus(agentConnId, try await sendToAgent(agentConnId, body))
        var item = NewChatItem(userId: user.userId, contactId: contact.contactId, sent: true, itemTs: Self.now, text: reply.text,
                               contentJSON: try json(CIContent.sndMsgContent(msgContent: reply)),
                               statusJSON: try json(CIStatus.sndSent(sndProgress: .complete)), sharedMsgId: welcomeId)
        item.forwarded = false
        let itemId = try store.write { db in try db.insertChatItem(item, at: Self.now) }
        emit(.newChatItems(user: user, chatItems: [try aItem(contact, itemId)]))
    }
}

extension ChatController {
    /// What our address's short link shows (simplex-chat `contactShortLinkData`): the profile, the
    /// auto-reply as the welcome `message` a v16 joiner shows before connecting, and whether it is a
    /// business address.
    func addressLinkData(_ profile: Profile, _ settings: AddressSettings) -> ContactShortLinkData {
        ContactShortLinkData(profile: redacted(profile), message: settings.autoReply, business: settings.businessAddress)
    }

    /// Re-publishes the address's link data after a profile or settings change (best effort: the
    /// relay may be away; the next change publishes again).
    func updateAddressLinkData(userId: Int64, profile: Profile? = nil) async {
        guard let agent = try? runningAgent(), let user = try? userById(userId),
              let addr = try? store.read({ db in try db.addressConnIdWithShortLink(userId: userId) }),
              let row = try? store.read({ db in try db.userContactLinkRow(userId: userId) }),
              let data = try? shortLinkData(addressLinkData(profile ?? user.profile.profile, Self.contactLink(row).addressSettings))
        else { return }
        _ = try? await agent.setConnShortLink(connId: addr, userData: data)
    }
}

extension ChatController {
    /// simplex-chat `memberAttentionChange`: in a member's support chat (seen by a moderator) the
    /// member's own message needs attention; a moderator's message newer than the member's last
    /// one answers it. Our own support chat counts no attention.
    func supportAttention(_ g: GroupInfo, scopeGmId: Int64, sender: GroupMember, itemTs: Double) throws(ChatError) -> SupportAttention {
        guard scopeGmId != g.membership.groupMemberId else { return .inc(0, fromMemberTs: nil) }
        if scopeGmId == sender.groupMemberId { return .inc(1, fromMemberTs: itemTs) }
        let last = try member(scopeGmId).supportChat?.lastMsgFromMemberTs
        if let last, last.date.timeIntervalSince1970 < itemTs { return .reset }
        return .inc(0, fromMemberTs: nil)
    }
}

// MARK: moderators of a member under review

extension ChatController {
    /// The current moderators (and above) that can take part in support chats: version 15+, connected.
    func reviewModerators(_ g: GroupInfo, except m: GroupMember) throws(ChatError) -> [GroupMember] {
        try store.read { db in try self.groupMembers(db, g.groupId) }.filter { mod in
            mod.groupMemberId != m.groupMemberId && mod.groupMemberId != g.membership.groupMemberId && mod.memberRole >= .moderator
                && mod.memberStatus.isCurrent && mod.activeConn?.connStatus == .ready
                && ((try? memberVRange(mod.groupMemberId)) ?? nil).map { $0.max >= ChatProtocolVersion.groupKnocking } == true
        }
    }

    /// simplex-chat `introduceToModerators`: a member held for review is told so (x.grp.link.acpt
    /// `pending_review`, to 15+) and introduced to the group's moderators only, who get it
    /// announced with its scope (x.grp.mem.new `scope`) and can then talk in its support chat.
    func introduceToModerators(_ g: GroupInfo, _ m: GroupMember) async throws(ChatError) {
        guard let mid = MemberId(base64url: m.memberId) else { return }
        if let v = try memberVRange(m.groupMemberId), v.max >= ChatProtocolVersion.groupKnocking {
            do { try await sendToMember(m.groupMemberId, .grpLinkAcpt(acceptance: .pendingReview, role: m.memberRole, memberId: mid)) } catch {
                emit(.chatError(chatError: error))
            }
        }
        let moderators = try reviewModerators(g, except: m)
        guard !moderators.isEmpty else { return }
        try await introduceToAll(g, newMember: m, only: Set(moderators.map(\.groupMemberId)), scope: .member(memberId: mid))
    }

    /// The moderators a member under review was introduced to learn that it was admitted
    /// (x.grp.link.acpt naming it), so they record it as a member too.
    /// A host tells the moderators it introduced the member to; another moderator tells all the current
    /// moderators (the host among them, who then introduces the member to everyone else), as
    /// APIAcceptMember sends x.grp.link.acpt to the member's support chat recipients.
    func notifyModeratorsOfAcceptance(_ g: GroupInfo, _ m: GroupMember, role: GroupMemberRole) async throws(ChatError) {
        guard let mid = MemberId(base64url: m.memberId) else { return }
        let introduced = try reviewModerators(g, except: m).filter { mod in
            m.memberCategory != .invitee
                || (try? store.read { db in try db.hasIntroduction(reGroupMemberId: m.groupMemberId, toGroupMemberId: mod.groupMemberId) }) == true
        }
        for mod in introduced {
            do { try await sendToMember(mod.groupMemberId, .grpLinkAcpt(acceptance: .accepted, role: role, memberId: mid)) } catch {
                emit(.chatError(chatError: error))
            }
        }
    }

    /// x.grp.mem.new with the new member's own scope, to us as a moderator (simplex-chat `xGrpMemNew`):
    /// the member is recorded pending review; the announcement and a "wants to join" item open its
    /// support chat here.
    func reviewedMemberAnnounced(user: User, _ g: GroupInfo, by sender: GroupMember, _ info: MemberInfo) throws(ChatError) {
        let gmId = try createIntroducedMember(g, userId: user.userId, info, category: .post, status: .pendingReview, invitedBy: sender.groupMemberId)
        let m = try member(gmId)
        var added = NewChatItem(userId: user.userId, groupId: g.groupId, memberGmId: sender.groupMemberId, sent: false, itemTs: Self.now,
                                text: "added \(m.localDisplayName)",
                                contentJSON: try json(CIContent.rcvGroupEvent(rcvGroupEvent: RcvGroupEvent(
                                    type: "memberAdded", fields: .member(groupMemberId: gmId, profile: m.memberProfile.profile)))),
                                statusJSON: try json(CIStatus.rcvNew))
        added.scopeMemberGmId = gmId
        var review = NewChatItem(userId: user.userId, groupId: g.groupId, memberGmId: sender.groupMemberId, sent: false, itemTs: Self.now,
                                 text: "new member wants to join the group",
                                 contentJSON: try json(CIContent.rcvGroupEvent(rcvGroupEvent: RcvGroupEvent(type: "newMemberPendingReview"))),
                                 statusJSON: try json(CIStatus.rcvNew))
        review.scopeMemberGmId = gmId
        added.forwardedByGmId = Self.forwardingHost
        review.forwardedByGmId = Self.forwardingHost
        let (addedId, reviewId) = try store.write { db -> (Int64, Int64) in
            // simplex-chat `xGrpMemNew`: a member announced pending counts at once.
            try db.increaseMembersRequireAttention(memberOf: gmId)
            let a = try db.insertChatItem(added, at: Self.now)
            let r = try db.insertChatItem(review, at: Self.now)
            try db.updateSupportChatStats(gmId, unread: 2, mentions: 0, attention: .inc(0, fromMemberTs: nil), at: Self.now)
            return (a, r)
        }
        emit(.joinedGroupMemberConnecting(user: user, groupInfo: try groupInfo(g.groupId), hostMember: sender, member: try member(gmId)))
        emit(.newChatItems(user: user, chatItems: [try supportItem(g, addedId, scopeGmId: gmId), try supportItem(g, reviewId, scopeGmId: gmId)]))
    }
}

// MARK: edits, deletions and reactions in support chats

extension ChatController {
    /// Items of a member support chat are never acted on from the main chat: an edit, deletion,
    /// reaction, quote or forward there would reach the whole group.
    func assertMainChatItem(_ r: Row) throws(ChatError) {
        guard (r["group_scope_group_member_id"] as Int64?) == nil else {
            throw .errorStore(storeError: .chatItemNotFound(itemId: r["chat_item_id"]))
        }
    }

    /// The connections a support chat's messages go to: the member whose chat it is, and the
    /// moderators (and above) we are connected to.
    func supportRecipients(_ g: GroupInfo, scopeGmId: Int64) throws(ChatError) -> [String] {
        try supportRecipientMembers(g, scopeGmId: scopeGmId).map(\.agentConnId)
    }

    /// The same recipients with their member IDs (a file's description goes to each of them).
    func supportRecipientMembers(_ g: GroupInfo, scopeGmId: Int64) throws(ChatError) -> [(gmId: Int64, agentConnId: String)] {
        try store.read { db in try self.groupMembers(db, g.groupId) }.filter { m in
            m.groupMemberId != g.membership.groupMemberId && m.activeConn?.connStatus == .ready
                && (m.groupMemberId == scopeGmId || (m.memberRole >= .moderator && (m.memberStatus.isCurrent || m.memberStatus == .connected)))
        }.compactMap { m in m.activeConn.map { (m.groupMemberId, $0.agentConnId) } }
    }

    func sendSupportEvent(_ g: GroupInfo, scopeGmId: Int64, _ event: ChatMsgEvent) async throws(ChatError) {
        let body = try chatMessage(event)
        for conn in try supportRecipients(g, scopeGmId: scopeGmId) {
            do { dropStatus(conn, try await sendToAgent(conn, body)) } catch { emit(.chatError(chatError: error)) }
        }
    }

    /// A support chat's item by ID, with the chat's group and scope.
    func supportItemRow(_ ref: ChatRef, _ itemId: Int64) throws(ChatError) -> (User, GroupInfo, scopeGmId: Int64, MsgScope, Row) {
        guard let scope = ref.chatScope else { throw .error(errorType: .commandError(message: "no chat scope")) }
        let (user, g) = try groupContext(ref.chatId)
        let scopeGmId = try supportScopeGmId(g, scope)
        guard let memberId = MemberId(base64url: try member(scopeGmId).memberId),
              let r = try store.read({ db in try db.groupItemRow(itemId, groupId: g.groupId) }),
              (r["group_scope_group_member_id"] as Int64?) == scopeGmId else {
            throw .errorStore(storeError: .chatItemNotFound(itemId: itemId))
        }
        return (user, g, scopeGmId, .member(memberId: memberId), r)
    }

    /// `/_update item #<g>(_support[:<id>]) ...`: x.msg.update with the chat's scope, to its members.
    func updateSupportItem(_ ref: ChatRef, _ itemId: Int64, live: Bool, _ updated: UpdatedMessage) async throws(ChatError) -> ChatResponse {
        let (user, g, scopeGmId, scope, r) = try supportItemRow(ref, itemId)
        guard r["item_sent"] as Bool, r["item_deleted"] as String? == nil,
              let shared = (r["shared_msg_id"] as String?).flatMap({ SharedMsgId(base64url: $0) }),
              let current = (try? ChatJSON.decode(CIContent.self, from: r["item_content"] as String))?.msgContent
        else { throw .error(errorType: .invalidChatItemUpdate) }
        let mentions = try sndMentions(g, text: updated.msgContent.text, updated.mentions)
        if current == updated.msgContent, try store.read({ db in try db.itemMentions(itemId) }) == mentions.stored {
            return .chatItemNotChanged(user: user, chatItem: try supportItem(g, itemId, scopeGmId: scopeGmId))
        }
        try await sendSupportEvent(g, scopeGmId: scopeGmId, .msgUpdate(ChatMsgEvent.MsgUpdate(
            msgId: shared, content: updated.msgContent, mentions: mentions.wire, scope: scope)))
        let contentJSON = try json(CIContent.sndMsgContent(msgContent: updated.msgContent))
        try store.write { db in
            try db.updateItemContent(itemId, text: updated.msgContent.text, contentJSON: contentJSON, live: live, at: Self.now)
            try db.setItemMentions(itemId, groupId: g.groupId, mentions.stored, userMention: false)
        }
        return .chatItemUpdated(user: user, chatItem: try supportItem(g, itemId, scopeGmId: scopeGmId))
    }

    /// `/_delete item #<g>(_support[:<id>]) ...`: for us, or (our own messages) for everyone with x.msg.del and the scope.
    func deleteSupportItems(_ ref: ChatRef, _ itemIds: [Int64], mode: CIDeleteMode) async throws(ChatError) -> ChatResponse {
        guard !itemIds.isEmpty else { throw .error(errorType: .commandError(message: "no items")) }
        var user: User?
        var deletions: [ChatItemDeletion] = []
        for itemId in itemIds {
            let (u, g, scopeGmId, scope, r) = try supportItemRow(ref, itemId)
            user = u
            let before = try supportItem(g, itemId, scopeGmId: scopeGmId)
            cancelItemFile(itemId, deleteLocal: mode == .internal)
            if mode == .internal {
                try store.write { db in try db.deleteChatItem(itemId) }
                deletions.append(ChatItemDeletion(deletedChatItem: before, toChatItem: nil))
                continue
            }
            var mark = CIDeleted.deleted(deletedTs: Self.ts(Self.now), chatType: .group)
            if mode == .broadcast {
                if let shared = broadcastDeletable(r, before.chatItem) {
                    try await sendSupportEvent(g, scopeGmId: scopeGmId, .msgDel(msgId: shared, scope: scope))
                } else if let (shared, author) = try moderatableSupportItem(g, r) {
                    // A moderator deletes a member's message for everyone (x.msg.del naming its author).
                    try await sendSupportEvent(g, scopeGmId: scopeGmId, .msgDel(msgId: shared, memberId: author, scope: scope))
                    mark = .moderated(deletedTs: Self.ts(Self.now), byGroupMember: g.membership)
                } else {
                    throw .error(errorType: .invalidChatItemDelete)
                }
            }
            try markDeleted(itemId, mark)
            deletions.append(ChatItemDeletion(deletedChatItem: before, toChatItem: try supportItem(g, itemId, scopeGmId: scopeGmId)))
        }
        guard let user else { throw .error(errorType: .commandError(message: "no items")) }
        return .chatItemsDeleted(user: user, chatItemDeletions: deletions, byUser: true, timed: false)
    }

    /// A received support chat message we may delete for everyone: we are a moderator with a role
    /// at least its author's (as in the main chat).
    func moderatableSupportItem(_ g: GroupInfo, _ r: Row) throws(ChatError) -> (SharedMsgId, MemberId)? {
        guard !(r["item_sent"] as Bool), r["item_deleted"] as String? == nil, g.membership.memberRole >= .moderator,
              let shared = (r["shared_msg_id"] as String?).flatMap({ SharedMsgId(base64url: $0) }),
              let authorGm = r["group_member_id"] as Int64? else { return nil }
        let author = try member(authorGm)
        guard g.membership.memberRole >= author.memberRole, let authorId = MemberId(base64url: author.memberId) else { return nil }
        return (shared, authorId)
    }

    /// `/_reaction #<g>(_support[:<id>]) ...`: x.msg.react with the scope, naming the item's author.
    func reactInSupportChat(_ ref: ChatRef, _ itemId: Int64, add: Bool, _ reaction: MsgReaction) async throws(ChatError) -> ChatResponse {
        let (user, g, scopeGmId, scope, r) = try supportItemRow(ref, itemId)
        guard let shared = (r["shared_msg_id"] as String?).flatMap({ SharedMsgId(base64url: $0) }), r["item_deleted"] as String? == nil else {
            throw .error(errorType: .commandError(message: "this item cannot have reactions"))
        }
        let author = try itemAuthorMemberId(.group(g), r).flatMap { MemberId(base64url: $0) }
        let reactionJSON = try json(reaction)
        let present = try store.read { db in try db.hasReaction(itemId, reactionJSON, sent: true) }
        guard present != add else { throw .error(errorType: .commandError(message: add ? "reaction already added" : "no such reaction")) }
        try await sendSupportEvent(g, scopeGmId: scopeGmId, .msgReact(msgId: shared, memberId: author, scope: scope, reaction: reaction, add: add))
        try setReaction(itemId, reactionJSON, sent: true, add: add)
        let item = try supportItem(g, itemId, scopeGmId: scopeGmId)
        let cr = CIReaction(chatDir: .groupSnd, chatItem: item.chatItem, sentAt: Self.ts(Self.now), reaction: reaction)
        return .chatItemReaction(user: user, added: add, reaction: ACIReaction(chatInfo: item.chatInfo, chatReaction: cr))
    }
}

extension ChatMsgEvent {
    /// The member support chat a content event is about (chat version 15 `scope`); nil: the main chat.
    var supportScope: MsgScope? {
        switch self {
        case .msgNew(let c): c.scope
        case .msgUpdate(let u): u.scope
        case .msgDel(_, _, let scope): scope
        case .msgReact(_, _, let scope, _, _): scope
        default: nil
        }
    }
}
