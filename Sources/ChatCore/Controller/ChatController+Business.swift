import Foundation
import GRDB
import SMPAgent
import SimplexFoundation

/// Business chats (chat version 10, simplex-chat `createBusinessRequestGroup`,
/// `acceptBusinessJoinRequestAsync`): a request to a business address becomes a group of two,
/// the business (us, owner) and the customer (member), instead of a contact.
extension ChatController {
    /// REQ on our address with `businessAddress` on: the group is made and accepted at once
    /// (simplex-chat accepts business requests without asking, whatever `autoAccept` says).
    /// The host side names the chat after the customer, so its group profile is the customer's
    /// profile with our business preferences; the customer is sent our profile as the group's.
    /// The request's message (x.contact `content`) becomes the customer's first item, after the
    /// e2e notice and the feature items; its `welcomeMsgId` (the welcome the customer already
    /// shows) is kept, so the auto-reply updates that item instead of arriving as a new one.
    /// A repeated request (the same `contactReqId`, as a customer retrying its join sends) is not
    /// accepted again: `businessRequestAlreadyAccepted` with the chat made for it.
    func businessRequest(_ link: Row, invitationId: String, customer profile: Profile, peerVRange: VersionRange,
                         welcomeMsgId: SharedMsgId? = nil, requestMsg: ChatMsgEvent.RequestMsg? = nil,
                         contactReqId: XContactId? = nil) async throws(ChatError) {
        let userId: Int64 = link["user_id"]
        let user = try userById(userId)
        if let contactReqId, let existing = try store.read({ db in try db.businessGroupId(userId: userId, xContactId: contactReqId.base64url) }) {
            emit(.businessRequestAlreadyAccepted(user: user, groupInfo: try groupInfo(existing)))
            return
        }
        let userProfile = user.profile.profile
        let preferences = Self.businessGroupPreferences(userProfile.preferences)
        let hostProfile = GroupProfile(displayName: profile.displayName, fullName: profile.fullName, shortDescr: profile.shortDescr,
                                       image: profile.image, groupPreferences: preferences)
        let ownId = MemberId.random()
        let customerId = MemberId.random()
        let invitation = GroupLinkInvitation(
            fromMember: MemberIdRole(memberId: ownId, memberRole: .owner), fromMemberName: userProfile.displayName,
            invitedMember: MemberIdRole(memberId: customerId, memberRole: .member),
            groupProfile: Self.businessGroupProfile(userProfile, preferences), accepted: "accepted",
            business: BusinessChatInfo(chatType: .business, businessId: ownId.base64url, customerId: customerId.base64url), groupSize: 1)
        let version = Self.negotiatedVersion(ours: ourChatVRange, peerMin: Int(peerVRange.min), peerMax: Int(peerVRange.max))
        let connInfo = try encodeInfo(.grpLinkInv(invitation), chatVersion: version)
        let agent = try runningAgent()
        let agentConnId: String
        do { agentConnId = try await agent.acceptContact(invitationId: invitationId, connInfo: connInfo, pqSupport: false) } catch {
            throw Self.agentError(error)
        }
        let profileJSON = try json(hostProfile)
        let linkId: Int64 = link["user_contact_link_id"]
        let (groupId, customerGmId) = try store.write { db -> (Int64, Int64) in
            let name = try self.uniqueGroupName(db, userId: userId, Self.validDisplayName(profile.displayName))
            let groupId = try db.insertGroup(userId: userId, localDisplayName: name, profileJSON: profileJSON, at: Self.now)
            try db.setBusinessChat(groupId, type: .customer, businessMemberId: ownId.base64url, customerMemberId: customerId.base64url)
            _ = try db.insertGroupMember(
                groupId: groupId, userId: userId, memberId: ownId.base64url, role: GroupMemberRole.owner.rawValue, category: "user",
                status: "creator", localDisplayName: user.localDisplayName, profileId: nil, invitedByUser: true, at: Self.now)
            let pid = try db.insertContactProfile(userId: userId, profile, at: Self.now)
            let gmId = try db.insertGroupMember(
                groupId: groupId, userId: userId, memberId: customerId.base64url, role: GroupMemberRole.member.rawValue, category: "invitee",
                status: "accepted", localDisplayName: Self.validDisplayName(profile.displayName), profileId: pid, invitedByUser: true, at: Self.now)
            try db.insertMemberConnection(userId: userId, agentConnId: agentConnId, groupMemberId: gmId, status: "accepted", initiated: false,
                                          viaGroupLinkId: nil, at: Self.now)
            try db.setConnectionUserContactLink(agentConnId: agentConnId, linkId)
            try db.setPeerChatVersionRange(agentConnId: agentConnId, min: Int(peerVRange.min), max: Int(peerVRange.max))
            if let welcomeMsgId { try db.setGroupWelcomeId(groupId, welcomeMsgId.base64url) }
            if let contactReqId { try db.setBusinessRequestId(groupId, contactReqId.base64url) }
            return (groupId, gmId)
        }
        // simplex-chat `acceptBusinessJoinRequestAsync` (e2e notice, feature items) and the banner
        // `profileContactRequest` adds (made first here: our listings go by item ID).
        try joiningGroupBanner(userId: userId, groupId: groupId)
        try createdGroupItems(user: user, groupId: groupId, banner: false)
        if let welcomeMsgId, let reply = Self.contactLink(link).addressSettings.autoReply {
            // simplex-chat `profileContactRequest`: our auto-reply under the request's welcomeMsgId, made now
            // (no event), so it comes before the customer's message; at CON it goes as x.msg.update of that ID.
            _ = try insertItem(userId: userId, groupId: groupId, sent: true, content: .sndMsgContent(msgContent: reply), text: reply.text,
                               shared: welcomeMsgId.base64url, status: .sndNew)
        }
        if let requestMsg {
            let itemId = try createRequestItem(user: user, groupId: groupId, customerGmId: customerGmId, requestMsg)
            emit(.newChatItems(user: user, chatItems: [try groupItem(groupId, itemId)]))
        }
        emit(.acceptingBusinessRequest(user: user, groupInfo: try groupInfo(groupId)))
    }

    /// simplex-chat `businessGroupProfile`: the business's own profile as the customer sees the group.
    static func businessGroupProfile(_ p: Profile, _ preferences: GroupPreferences) -> GroupProfile {
        GroupProfile(displayName: p.displayName, fullName: p.fullName, shortDescr: p.shortDescr, image: p.image, groupPreferences: preferences)
    }

    /// simplex-chat `defaultBusinessGroupPrefs`.
    static var defaultBusinessGroupPreferences: GroupPreferences {
        GroupPreferences(
            timedMessages: TimedMessagesGroupPreference(enable: .off, ttl: nil), directMessages: RoleGroupPreference(enable: .off, role: nil),
            fullDelete: GroupPreference(enable: .off), reactions: GroupPreference(enable: .on), voice: RoleGroupPreference(enable: .off, role: nil),
            files: RoleGroupPreference(enable: .on, role: nil), simplexLinks: RoleGroupPreference(enable: .on, role: nil),
            reports: GroupPreference(enable: .off), history: GroupPreference(enable: .on), sessions: nil, commands: nil)
    }

    /// simplex-chat `businessGroupPrefs`: the user's contact preferences for disappearing
    /// messages, full deletion, reactions and voice carried over (allowed unless "no").
    static func businessGroupPreferences(_ prefs: Preferences?) -> GroupPreferences {
        var g = defaultBusinessGroupPreferences
        guard let prefs else { return g }
        func on(_ a: FeatureAllowed?, _ absent: GroupFeatureEnabled) -> GroupFeatureEnabled {
            guard let a else { return absent }
            return a == .no ? .off : .on
        }
        g.timedMessages = TimedMessagesGroupPreference(enable: on(prefs.timedMessages?.allow, .off), ttl: nil)
        g.fullDelete = GroupPreference(enable: on(prefs.fullDelete?.allow, .off))
        g.reactions = GroupPreference(enable: on(prefs.reactions?.allow, .on))
        g.voice = RoleGroupPreference(enable: on(prefs.voice?.allow, .off), role: nil)
        return g
    }

    /// Whether the member is the customer of a business chat we host (they get our profile
    /// with x.grp.link.mem and no group history, as simplex-chat's `memberIsCustomer`).
    func isBusinessCustomer(_ g: GroupInfo, _ m: GroupMember) -> Bool {
        guard let b = g.businessChat, b.chatType == .customer else { return false }
        return b.customerId == m.memberId
    }

    /// The address's welcome message (auto-reply) to a new customer, in the business chat
    /// (simplex-chat `sendGroupAutoReply`: sent to the customer only, a sent group item).
    func sendBusinessWelcome(_ g: GroupInfo, customer m: GroupMember, conn: Row) async throws(ChatError) {
        guard let linkId = conn["user_contact_link_id"] as Int64?,
            let link = try store.read({ db in try db.userContactLinkRow(id: linkId) }),
            let reply = Self.contactLink(link).addressSettings.autoReply
        else { return }
        let user = try userById(conn["user_id"])
        if let welcomeId = try store.read({ db in try db.groupWelcomeId(g.groupId) }), let shared = SharedMsgId(base64url: welcomeId) {
            // The customer shows our welcome from the address's link data under this ID: our reply
            // updates it (simplex-chat `sendGroupAutoReply` with the request's welcomeSharedMsgId).
            try await sendToMember(m.groupMemberId, .msgUpdate(ChatMsgEvent.MsgUpdate(msgId: shared, content: reply)))
            // Our copy was made with the request (`businessRequest`); made here only if the address had
            // no auto-reply then.
            guard try store.read({ db in try db.sentGroupItemRow(g.groupId, sharedMsgId: welcomeId) }) == nil else { return }
            let itemId = try insertItem(userId: user.userId, groupId: g.groupId, sent: true, content: .sndMsgContent(msgContent: reply),
                                        text: reply.text, shared: welcomeId, status: .sndNew)
            emit(.newChatItems(user: user, chatItems: [try groupItem(g.groupId, itemId)]))
            return
        }
        let target = MessageTarget.group(g)
        let prepared = try prepareItem(user: user, target, content: reply, quotedItemId: nil, ttl: nil, live: false, forwarded: false)
        for itemId in try await sendPrepared(target, [prepared], only: [m.groupMemberId]) {
            emit(.newChatItems(user: user, chatItems: [try targetItem(target, itemId)]))
        }
    }

    /// simplex-chat `updateBusinessChatProfile`: a business chat is named after the other side, so
    /// when that side's main member (the business, or the customer) changes its profile, the
    /// group's name, full name, description and picture follow it (preferences stay).
    func businessChatProfileFollows(user: User, _ g: GroupInfo, member m: GroupMember, _ p: Profile) throws(ChatError) {
        guard let b = g.businessChat else { return }
        let main = b.chatType == .business ? b.businessId : b.customerId
        guard m.memberId == main else { return }
        var profile = g.groupProfile
        profile.displayName = p.displayName
        profile.fullName = p.fullName
        profile.shortDescr = p.shortDescr
        profile.image = p.image
        guard profile != g.groupProfile else { return }
        let j = try json(profile)
        try store.write { db in try db.setGroupProfile(g.groupId, profileJSON: j, at: Self.now) }
        emit(.groupUpdated(user: user, fromGroup: g, toGroup: try groupInfo(g.groupId), member_: m))
    }

    /// `/_prepare contact` with `business: true` (simplex-chat `APIPrepareContact`): a prepared
    /// group named after the business, with its business preferences and its welcome message;
    /// `/_connect group` joins the address and the business's x.grp.link.inv completes it.
    func prepareBusinessChat(user: User, link: CreatedConnLink, _ parsed: ConnectionRequestURI, _ data: ContactShortLinkData) throws(ChatError) -> ChatResponse {
        guard parsed.mode == .contact else { throw .error(errorType: .commandError(message: "a business chat needs a contact address")) }
        let profile = Self.businessGroupProfile(data.profile, Self.businessGroupPreferences(data.profile.preferences))
        let profileJSON = try json(profile)
        let welcomeJSON = try data.message.map { m throws(ChatError) in try json(CIContent.rcvMsgContent(msgContent: m)) }
        // The welcome's shared ID goes in x.contact (`welcomeMsgId`): the business's auto-reply updates it.
        let welcomeId = data.message.map { _ in SharedMsgId.random().base64url }
        let rcvNew = try json(CIStatus.rcvNew)
        let userId = user.userId
        let groupId = try store.write { db -> Int64 in
            let name = try self.uniqueGroupName(db, userId: userId, Self.validDisplayName(profile.displayName))
            let groupId = try db.insertPreparedGroup(userId: userId, localDisplayName: name, profileJSON: profileJSON,
                                                     connLink: parsed.withSimplexScheme.uriString, groupLinkId: nil,
                                                     shortLink: link.connShortLink, memberId: MemberId.random().base64url,
                                                     membershipName: user.localDisplayName, at: Self.now)
            return groupId
        }
        // simplex-chat makes the feature items when preparing (`createGroupFeatureItems_`), then the
        // welcome; the e2e notice comes when the business is connected.
        try joiningGroupBanner(userId: userId, groupId: groupId)
        _ = try createGroupFeatureItems(userId: userId, groupId: groupId, memberGmId: nil, sent: false)
        if let welcome = data.message, let welcomeJSON, let welcomeId {
            try store.write { db in
                try db.insertLinkWelcomeItem(userId: userId, groupId: groupId, text: welcome.text, contentJSON: welcomeJSON, statusJSON: rcvNew,
                                             sharedMsgId: welcomeId, at: Self.now)
                try db.setGroupWelcomeId(groupId, welcomeId)
            }
        }
        // As simplex-chat's answer: the chat with its welcome item only (the feature items are in the chat).
        let (g, items) = try store.read { db -> (GroupInfo?, [ChatItem]) in
            let rows = try db.allGroupItemRows(groupId).filter { welcomeId != nil && $0["shared_msg_id"] as String? == welcomeId }
            return (try self.groupInfo(db, groupId), try rows.map { r in try self.chatItem(db, r, deferred: self.store.deferredSentStatuses) })
        }
        guard let g else { throw .errorStore(storeError: .groupNotFound(groupId: groupId)) }
        return .newPreparedChat(user: user, chat: AChat(chatInfo: .group(groupInfo: g, groupChatScope: nil), chatItems: items,
                                                        chatStats: ChatStats(unreadCount: items.count, minUnreadItemId: items.first?.meta.itemId ?? 0)))
    }

    // MARK: x.grp.prefs (chat version 11)

    /// x.grp.prefs from an owner: only the group's preferences change (in a business chat each
    /// side keeps its own group name and picture, so x.grp.info would overwrite the wrong one).
    func groupPreferencesReceived(user: User, _ g: GroupInfo, sender: GroupMember, _ prefs: GroupPreferences) throws(ChatError) {
        guard sender.memberRole == .owner else {
            return reportMessageError(g, "x.grp.prefs with insufficient member permissions")
        }
        guard g.groupProfile.groupPreferences != prefs else { return }
        var profile = g.groupProfile
        profile.groupPreferences = prefs
        let j = try json(profile)
        try store.write { db in try db.setGroupProfile(g.groupId, profileJSON: j, at: Self.now) }
        emit(.groupUpdated(user: user, fromGroup: g, toGroup: try groupInfo(g.groupId), member_: sender))
    }

    /// `/_connect group` of a prepared business chat (simplex-chat APIConnectPreparedGroup with
    /// `connectViaContact`): x.contact with a request ID, the welcome's shared ID and the
    /// optional message, which becomes our first sent item.
    func connectPreparedBusinessChat(user: User, _ g: GroupInfo, _ parsed: ConnectionRequestURI, incognito: Bool,
                                     message: MsgContent?) async throws(ChatError) -> ChatResponse {
        let agent = try runningAgent()
        let incognitoId = incognito ? try newIncognitoProfile(user.userId) : nil
        let profile = try profileToSend(user, incognitoProfileId: incognitoId)
        let welcomeId = try store.read { db in try db.groupWelcomeId(g.groupId) }.flatMap { SharedMsgId(base64url: $0) }
        let requestMsg = message.map { ChatMsgEvent.RequestMsg(msgId: SharedMsgId.random(), content: $0) }
        let request = ChatMsgEvent.contact(profile: profile, contactReqId: XContactId(bytes: SecureRandom.bytes(16)), welcomeMsgId: welcomeId,
                                           requestMsg: requestMsg)
        let info = try await encodeJoinInfo(request, link: parsed)
        let agentConnId: String
        do { agentConnId = try await agent.joinConnection(link: parsed, connInfo: info, userId: user.userId) } catch {
            throw Self.agentError(error)
        }
        try store.write { db in
            try db.startPreparedGroup(g.groupId, userId: user.userId, agentConnId: agentConnId, viaLink: parsed.withSimplexScheme.uriString,
                                      groupLinkId: nil, customProfileId: incognitoId, at: Self.now)
        }
        if let requestMsg {
            let itemId = try insertItem(userId: user.userId, groupId: g.groupId, sent: true, content: .sndMsgContent(msgContent: requestMsg.content),
                                        text: requestMsg.content.text, shared: requestMsg.msgId.base64url)
            emit(.newChatItems(user: user, chatItems: [try groupItem(g.groupId, itemId)]))
        }
        return .startedConnectionToGroup(user: user, groupInfo: try groupInfo(g.groupId), customUserProfile: incognito ? profile : nil)
    }

    /// x.grp.link.inv in the CONF of a contact's connection (simplex-chat `processDirectMessage`
    /// CONF, "connecting via business contact card"): the address we joined from a contact card
    /// (a prepared contact) is a business address, so the contact card is replaced by the business
    /// chat on the same connection (`deleteContactCardKeepConn`), announced as `businessLinkConnecting`.
    func businessCardAnswered(_ conn: Row, contactId: Int64, confirmationId: String, _ inv: GroupLinkInvitation) async throws(ChatError) {
        guard let contact = try store.read({ db in try self.contact(db, contactId) }), contact.activeConn?.connStatus != .ready else {
            throw .error(errorType: .commandError(message: "x.grp.link.inv for an existing contact"))
        }
        let agentConnId: String = conn["agent_conn_id"]
        try store.write { db in
            try db.detachConnectionFromContact(agentConnId: agentConnId)
            try db.deleteContact(contactId)
        }
        guard let detached = try connectionRow(agentConnId) else { return }
        try await groupLinkInvitationReceived(detached, confirmationId: confirmationId, inv, fromContact: contact)
    }
}
