import Foundation
import GRDB
import SMPAgent

/// The items simplex-chat puts at the start of every new chat, so a client shows the same chat:
/// the banner (`CIChatBanner`, dated at the epoch), the end-to-end encryption notice
/// (`CI*E2EEInfo`) and one item per feature (`createFeatureEnabledItems` for contacts,
/// `createGroupFeatureItems` for groups). Each call site mirrors one of the reference's.
extension ChatController {
    /// simplex-chat CIContent.hs `e2eInfoNoPQText` / `e2eInfoPQText` (groups always use the first).
    static let e2eInfoNoPQText =
        "This conversation is protected by end-to-end encryption with perfect forward secrecy, repudiation and break-in recovery."
    static let e2eInfoPQText =
        "This conversation is protected by quantum resistant end-to-end encryption. It has perfect forward secrecy, repudiation and quantum resistant break-in recovery."

    /// The features of a direct chat simplex-chat makes an item for (`allChatFeatures` of the release).
    static let itemChatFeatures: [ChatFeature] = [.timedMessages, .fullDelete, .reactions, .voice, .calls]

    /// An internal item of a new chat: sent items start `sndNew`, received ones `rcvRead` (simplex-chat
    /// `ciCreateStatus`: none of these needs attention), dated now unless `epoch`.
    private func newChatItemValue(userId: Int64, contactId: Int64? = nil, groupId: Int64? = nil, memberGmId: Int64? = nil, sent: Bool,
                                  content: CIContent, text: String, epoch: Bool = false, scopeGmId: Int64? = nil) throws(ChatError) -> NewChatItem {
        var item = NewChatItem(userId: userId, contactId: contactId, groupId: groupId, memberGmId: memberGmId, sent: sent,
                               itemTs: epoch ? 0 : Self.now, text: text, contentJSON: try json(content),
                               statusJSON: try json(sent ? CIStatus.sndNew : CIStatus.rcvRead), sharedMsgId: nil)
        item.scopeMemberGmId = scopeGmId
        return item
    }

    private func newChatItem(userId: Int64, contactId: Int64? = nil, groupId: Int64? = nil, memberGmId: Int64? = nil, sent: Bool,
                             content: CIContent, text: String, epoch: Bool = false, scopeGmId: Int64? = nil) throws(ChatError) -> Int64 {
        let item = try newChatItemValue(userId: userId, contactId: contactId, groupId: groupId, memberGmId: memberGmId, sent: sent,
                                        content: content, text: text, epoch: epoch, scopeGmId: scopeGmId)
        return try store.write { db in try db.insertChatItem(item, at: Self.now) }
    }

    /// `CIChatBanner`: a sent item dated 1970-01-01 that only draws the chat's header in the apps.
    /// It is made first, so it also comes first in our listings (ordered by item ID; simplex-chat
    /// orders by time, where the epoch puts it first too).
    func createBannerItem(userId: Int64, contactId: Int64? = nil, groupId: Int64? = nil) throws(ChatError) -> Int64 {
        try newChatItem(userId: userId, contactId: contactId, groupId: groupId, sent: true, content: .chatBanner, text: "", epoch: true)
    }

    // MARK: direct chats

    /// A direct chat's new items, in order: the banner, `CIRcvDirectE2EEInfo` with `pqEnabled`, and
    /// simplex-chat `createFeatureEnabledItems_` (one `rcvChatFeature` per feature, with the merged
    /// state; the parameter only when enabled for the user, `featureState`).
    func directNewChatItems(user: User, _ contact: Contact, pqEnabled: Bool?, banner: Bool = true) throws(ChatError) -> [NewChatItem] {
        let contactId = contact.contactId
        var items: [NewChatItem] = []
        if banner {
            items.append(try newChatItemValue(userId: user.userId, contactId: contactId, sent: true, content: .chatBanner, text: "", epoch: true))
        }
        items.append(try newChatItemValue(userId: user.userId, contactId: contactId, sent: false,
                                          content: .rcvDirectE2EEInfo(e2eeInfo: E2EInfo(pqEnabled: pqEnabled)),
                                          text: pqEnabled == true ? Self.e2eInfoPQText : Self.e2eInfoNoPQText))
        for f in Self.itemChatFeatures {
            let enabled = contact.mergedPreferences.enabled(f)
            let param: Int? = f == .timedMessages && enabled.forUser
                ? (contact.userPreferences.timedMessages?.ttl ?? user.profile.profile.preferences?.timedMessages?.ttl) : nil
            items.append(try newChatItemValue(userId: user.userId, contactId: contactId, sent: false,
                                              content: .rcvChatFeature(feature: f, enabled: enabled, param: param),
                                              text: Self.featureStateText(f, enabled, param)))
        }
        return items
    }

    /// simplex-chat `featureStateText`: the feature's name and for whom it is on.
    static func featureStateText(_ f: ChatFeature, _ e: PrefEnabled, _ param: Int?) -> String {
        let state = switch (e.forUser, e.forContact) {
        case (true, true): "enabled"
        case (true, false): "enabled for you"
        case (false, true): "enabled for contact"
        case (false, false): "off"
        }
        let p = param.map { " (\(timedTTLText($0)))" } ?? ""
        return f.displayName + ": " + state + ((e.forUser || e.forContact) ? p : "")
    }

    /// simplex-chat `timedTTLText`: months (30 days), days (7 and 14 as weeks), hours, minutes, seconds.
    static func timedTTLText(_ ttl: Int) -> String {
        if ttl == 0 { return "0 sec" }
        let s = ttl % 60, m = ttl / 60 % 60, h = ttl / 3600 % 24, d = ttl / 86_400 % 30, mm = ttl / 2_592_000
        var parts: [String] = []
        if mm != 0 { parts.append(mm == 1 ? "1 month" : "\(mm) months") }
        if d != 0 { parts.append(d == 1 ? "1 day" : d == 7 ? "1 week" : d == 14 ? "2 weeks" : "\(d) days") }
        if h != 0 { parts.append(h == 1 ? "1 hour" : "\(h) hours") }
        if m != 0 { parts.append("\(m) min") }
        if s != 0 { parts.append("\(s) sec") }
        return parts.joined(separator: " ")
    }

    /// At a contact's CON (simplex-chat `processDirectMessage` CON). A contact whose chat already has
    /// its e2e notice (prepared from a link, or accepted from a request: made then, as simplex-chat
    /// does at `APIPrepareContact` and at REQ) gets a new notice only when the negotiated post-quantum
    /// state differs from the one shown. Any other contact gets the banner (when its chat is empty),
    /// the notice and the feature items now: each `createInternalChatItem` its own `newChatItems`,
    /// the features one more.
    func contactConnectedItems(user: User, _ contact: Contact, pq: Bool) throws(ChatError) {
        let contactId = contact.contactId
        let (hasItems, shown) = try store.read { db in (try db.contactHasItems(contactId), try db.contactE2EInfo(contactId)) }
        if let shown {
            guard shown != pq else { return }
            let id = try newChatItem(userId: user.userId, contactId: contactId, sent: false, content: .rcvDirectE2EEInfo(e2eeInfo: E2EInfo(pqEnabled: pq)),
                                     text: pq ? Self.e2eInfoPQText : Self.e2eInfoNoPQText)
            emit(.newChatItems(user: user, chatItems: [try directItem(contactId, id)]))
            return
        }
        var items = try directNewChatItems(user: user, contact, pqEnabled: pq, banner: !hasItems)
        let now = Self.now
        func insert(_ i: NewChatItem) throws(ChatError) -> Int64 { try store.write { db in try db.insertChatItem(i, at: now) } }
        if !hasItems {
            let id = try insert(items.removeFirst())
            emit(.newChatItems(user: user, chatItems: [try directItem(contactId, id)]))
        }
        let e2e = try insert(items.removeFirst())
        emit(.newChatItems(user: user, chatItems: [try directItem(contactId, e2e)]))
        var features: [AChatItem] = []
        for i in items { features.append(try directItem(contactId, try insert(i))) }
        emit(.newChatItems(user: user, chatItems: features))
    }

    func directItem(_ contactId: Int64, _ itemId: Int64) throws(ChatError) -> AChatItem {
        guard let c = try store.read({ db in try self.contact(db, contactId) }) else {
            throw .errorStore(storeError: .contactNotFound(contactId: contactId))
        }
        return AChatItem(chatInfo: .direct(contact: c), chatItem: try chatItem(itemId))
    }

    // MARK: groups

    /// The e2e notice of a group chat (`CISndGroupE2EEInfo`/`CIRcvGroupE2EEInfo`, never post-quantum).
    func createGroupE2EItem(userId: Int64, groupId: Int64, memberGmId: Int64?, sent: Bool, scopeGmId: Int64? = nil) throws(ChatError) -> Int64 {
        let info = E2EInfo(pqEnabled: false)
        return try newChatItem(userId: userId, groupId: groupId, memberGmId: memberGmId, sent: sent,
                               content: sent ? .sndGroupE2EEInfo(e2eeInfo: info) : .rcvGroupE2EEInfo(e2eeInfo: info),
                               text: Self.e2eInfoNoPQText, scopeGmId: scopeGmId)
    }

    /// simplex-chat `createGroupFeatureItems_`: one item per group feature, sent or received from a member.
    func createGroupFeatureItems(userId: Int64, groupId: Int64, memberGmId: Int64?, sent: Bool, scopeGmId: Int64? = nil) throws(ChatError) -> [Int64] {
        let g = try groupInfo(groupId)
        var ids: [Int64] = []
        for (f, enable, param, role) in Self.groupFeatureStates(g.fullGroupPreferences) {
            let pref = GroupPreference(enable: enable)
            let content: CIContent = sent
                ? .sndGroupFeature(groupFeature: f, preference: pref, param: param, memberRole_: role)
                : .rcvGroupFeature(groupFeature: f, preference: pref, param: param, memberRole_: role)
            ids.append(try newChatItem(userId: userId, groupId: groupId, memberGmId: memberGmId, sent: sent, content: content,
                                       text: Self.groupFeatureText(f, enable, param, role), scopeGmId: scopeGmId))
        }
        return ids
    }

    /// simplex-chat `groupPrefStateText`.
    static func groupFeatureText(_ f: GroupFeature, _ enable: GroupFeatureEnabled, _ param: Int?, _ role: GroupMemberRole?) -> String {
        let p = param.map { " (\(timedTTLText($0)))" } ?? ""
        return groupFeatureName(f) + ": " + enable.rawValue + p + (role.map { " for \($0.rawValue)s" } ?? "")
    }

    /// A group we made (`APINewGroup`, and a business chat we accept): the banner, our e2e notice and
    /// our feature items, emitted as simplex-chat's three `newChatItems`.
    func createdGroupItems(user: User, groupId: Int64, banner: Bool = true) throws(ChatError) {
        if banner {
            let b = try createBannerItem(userId: user.userId, groupId: groupId)
            emit(.newChatItems(user: user, chatItems: [try groupItem(groupId, b)]))
        }
        let e2e = try createGroupE2EItem(userId: user.userId, groupId: groupId, memberGmId: nil, sent: true)
        emit(.newChatItems(user: user, chatItems: [try groupItem(groupId, e2e)]))
        let features = try createGroupFeatureItems(userId: user.userId, groupId: groupId, memberGmId: nil, sent: true)
        emit(.newChatItems(user: user, chatItems: try features.map { id throws(ChatError) in try groupItem(groupId, id) }))
    }

    /// A group we join (an invitation or a link): the banner when the group is first recorded
    /// (simplex-chat `createGroupInvitation` / `createGroupInvitedViaLink` call sites). Not emitted:
    /// the reference creates it with `createChatItem` (no event).
    func joiningGroupBanner(userId: Int64, groupId: Int64) throws(ChatError) {
        _ = try createBannerItem(userId: userId, groupId: groupId)
    }

    /// At the host's CON, before the "connected" item (simplex-chat `processGroupMessage` CON of a
    /// host): the received e2e notice and, unless the chat was prepared from the link (which made
    /// them), the feature items; returned as the two `newChatItems` to emit after `userJoinedGroup`.
    /// While our membership is pending they go to our own support chat (`mkGroupChatScope`), and the
    /// main chat gets its own set when we are admitted (`acceptedMembershipItems`).
    func hostConnectedItems(user: User, _ groupId: Int64, host gmId: Int64, scopeGmId: Int64?) throws(ChatError) -> [[Int64]] {
        let prepared = try store.read { db in try db.hasReceivedFeatureItems(groupId: groupId) }
        let e2e = try createGroupE2EItem(userId: user.userId, groupId: groupId, memberGmId: gmId, sent: false, scopeGmId: scopeGmId)
        let features = prepared ? [] : try createGroupFeatureItems(userId: user.userId, groupId: groupId, memberGmId: gmId, sent: false,
                                                                   scopeGmId: scopeGmId)
        return [[e2e], features]
    }

    /// Our membership admitted (x.grp.link.acpt `accepted` naming us; simplex-chat `xGrpLinkAcpt`
    /// `processUserAccepted`), from the admitting moderator, each its own `newChatItems` as
    /// `createInternalChatItem`: in the main chat the e2e notice, the feature items (not for a chat
    /// prepared from the link), the welcome (unless the link showed it or the history will bring it)
    /// and `userAccepted`; then `userAccepted` in our support chat. The caller emits `userJoinedGroup`.
    func acceptedMembershipItems(user: User, groupId: Int64, by sender: GroupMember) throws(ChatError) {
        let gmId = sender.groupMemberId
        let prepared = try store.read { db in try db.hasReceivedFeatureItems(groupId: groupId) }
        let e2e = try createGroupE2EItem(userId: user.userId, groupId: groupId, memberGmId: gmId, sent: false)
        emit(.newChatItems(user: user, chatItems: [try groupItem(groupId, e2e)]))
        if !prepared {
            let features = try createGroupFeatureItems(userId: user.userId, groupId: groupId, memberGmId: gmId, sent: false)
            emit(.newChatItems(user: user, chatItems: try features.map { id throws(ChatError) in try groupItem(groupId, id) }))
        }
        let g = try groupInfo(groupId)
        // simplex-chat `maybeCreateGroupDescrLocal`: a host of chat version 6+ sends the welcome in the history.
        let expectHistory = g.fullGroupPreferences.history.enable == .on
            && ((try? memberVRange(gmId)) ?? nil).map { $0.max >= ChatProtocolVersion.groupHistoryIncludeWelcome } == true
        let shownFromLink = try store.read { db in try db.groupWelcomeId(groupId) } != nil
        if !expectHistory, !shownFromLink, let welcome = g.groupProfile.description, !welcome.isEmpty {
            let wid = try insertItem(userId: user.userId, groupId: groupId, memberGmId: gmId, sent: false,
                                     content: .rcvMsgContent(msgContent: .text(welcome)), text: welcome, status: .rcvNew)
            emit(.newChatItems(user: user, chatItems: [try groupItem(groupId, wid)]))
        }
        let accepted = CIContent.rcvGroupEvent(rcvGroupEvent: RcvGroupEvent(type: "userAccepted"))
        let mainId = try newChatItem(userId: user.userId, groupId: groupId, memberGmId: gmId, sent: false, content: accepted, text: "you are accepted")
        emit(.newChatItems(user: user, chatItems: [try groupItem(groupId, mainId)]))
        let ownScope = g.membership.groupMemberId
        let supportId = try newChatItem(userId: user.userId, groupId: groupId, memberGmId: gmId, sent: false, content: accepted,
                                        text: "you are accepted", scopeGmId: ownScope)
        emit(.newChatItems(user: user, chatItems: [try supportItem(g, supportId, scopeGmId: ownScope)]))
    }

    /// simplex-chat `connRequestPQEncryption`: an invitation link says whether its ratchet will be
    /// post-quantum (a KEM key and a ratchet version that uses it); an address says nothing.
    static func linkPQEncryption(_ link: ConnectionRequestURI) -> Bool? {
        guard link.mode == .invitation else { return nil }
        guard let e2e = link.e2eParams else { return false }
        return e2e.versions.max >= 3 && e2e.kem != nil  // pqRatchetE2EEncryptVersion (3)
    }

    /// A contact prepared from a link (`APIPrepareContact`): the banner, the e2e notice as the link
    /// promises, the feature items; no events (the reference makes them with `createChatItem`).
    func createPreparedContactItems(user: User, contactId: Int64, linkPQ: Bool?) throws(ChatError) {
        guard let contact = try store.read({ db in try self.contact(db, contactId) }) else {
            throw .errorStore(storeError: .contactNotFound(contactId: contactId))
        }
        let items = try directNewChatItems(user: user, contact, pqEnabled: linkPQ)
        let now = Self.now
        try store.write { db in for i in items { _ = try db.insertChatItem(i, at: now) } }
    }
}
