import Foundation
import Testing

@testable import ChatCore

/// Direct contacts between group members (x.grp.direct.inv): Bob makes a contact for Carol, a
/// member of Alice's group, sends her the invitation with a message, Carol accepts it and both
/// are connected (simplex-chat `APICreateMemberContact`, `APISendMemberContactInvitation`,
/// `xGrpDirectInv`, `APIAcceptMemberContact`).
@Suite(.serialized) struct MemberContactFlowTests {
    private func text(_ e: ChatEvent) -> [String] {
        if case .newChatItems(_, let items) = e { return items.map(\.chatItem.meta.itemText) }
        return []
    }

    /// Alice's group "team" (direct messages on) with Bob and Carol connected to each other.
    private func team(_ flow: Flow) async throws -> MemberTeam {
        var prefs = GroupPreferences()
        prefs.directMessages = RoleGroupPreference(enable: .on, role: nil)
        return try await MemberTeam.make(flow, profile: GroupProfile(displayName: "team", groupPreferences: prefs))
    }

    /// The texts of a contact's chat, oldest first.
    private func texts(_ c: Client, contact: Int64) async throws -> [String] {
        let r = try await c.cmd("/_get chat @\(contact) count=100")
        return ((r["chat"] as? [String: Any])?["chatItems"] as? [[String: Any]] ?? []).compactMap {
            ($0["meta"] as? [String: Any])?["itemText"] as? String
        }
    }

    /// `inviter` makes a member contact and sends x.grp.direct.inv; the contact.
    private func invite(_ inviter: Client, group: Int64, member: Int64, _ text: String?) async throws -> Contact {
        guard case .newMemberContact(_, let ct, _, _) = try await inviter.run(.apiCreateMemberContact(groupId: group, groupMemberId: member)) else {
            Issue.record("no member contact")
            throw CancellationError()
        }
        try await inviter.run(.apiSendMemberContactInvitation(contactId: ct.contactId, msgContent: text.map { .text($0) }))
        return ct
    }

    /// Both sides see the contact connected.
    private func connected(_ a: Client, _ aContact: Int64, _ b: Client, _ bContact: Int64) async throws {
        try await a.next("\(b.name) connected", timeout: 20) { e -> Bool? in
            if case .contactConnected(_, let c, _) = e, c.contactId == aContact { true } else { nil }
        }
        try await b.next("\(a.name) connected", timeout: 20) { e -> Bool? in
            if case .contactConnected(_, let c, _) = e, c.contactId == bContact { true } else { nil }
        }
    }

    @Test func aMemberInvitesAnotherToADirectContact() async throws {
        try await withFlow("member-contact") { flow in
            let t = try await team(flow)
            let (bob, carol, bg, cg, carolAtBob) = (t.bob, t.carol, t.bg, t.cg, t.carolAtBob)

            // Bob: a contact for Carol, then the invitation with a first message.
            guard case .newMemberContact(_, let ct, _, let m) = try await bob.run(.apiCreateMemberContact(groupId: bg, groupMemberId: carolAtBob)) else {
                Issue.record("no member contact")
                return
            }
            #expect(ct.contactGroupMemberId == carolAtBob && !ct.contactGrpInvSent && m.groupMemberId == carolAtBob)
            let again = try await bob.runError(.apiCreateMemberContact(groupId: bg, groupMemberId: carolAtBob))
            #expect(again == .error(errorType: .commandError(message: "member contact already exists")))
            guard case .newMemberContactSentInv(_, let sent, _, _) = try await bob.run(
                .apiSendMemberContactInvitation(contactId: ct.contactId, msgContent: .text("hi carol"))) else {
                Issue.record("invitation not sent")
                return
            }
            #expect(sent.contactGrpInvSent)
            let twice = try await bob.runError(.apiSendMemberContactInvitation(contactId: ct.contactId, msgContent: nil))
            #expect(twice == .error(errorType: .commandError(message: "x.grp.direct.inv already sent")))

            // Carol: the contact with Bob's link, his message, and the group's item.
            let (bobCt, bobMember) = try await carol.next("member contact invitation", timeout: 20) { e -> (Contact, GroupMember)? in
                if case .newMemberContactReceivedInv(_, let c, _, let m) = e { (c, m) } else { nil }
            }
            #expect(bobCt.groupDirectInv?.fromGroupId_ == cg && bobCt.groupDirectInv?.groupDirectInvStartedConnection == false)
            #expect(bobMember.memberContactId == bobCt.contactId)
            try await carol.next("link item") { e -> Bool? in text(e).contains("requested connection from group team") ? true : nil }
            try await carol.next("group item") { e -> Bool? in text(e).contains("started direct connection with you") ? true : nil }
            try await carol.next("bob's message") { e -> Bool? in text(e).contains("hi carol") ? true : nil }

            guard case .memberContactAccepted(_, let accepted) = try await carol.run(.apiAcceptMemberContact(contactId: bobCt.contactId)) else {
                Issue.record("not accepted")
                return
            }
            #expect(accepted.groupDirectInv?.groupDirectInvStartedConnection == true)
            let started = try await carol.runError(.apiAcceptMemberContact(contactId: bobCt.contactId))
            #expect(started == .error(errorType: .commandError(message: "connection already started")))
            let atBob = try await bob.next("carol connected", timeout: 20) { e -> Contact? in
                if case .contactConnected(_, let c, _) = e { c } else { nil }
            }
            #expect(atBob.contactId == ct.contactId && atBob.contactGroupMemberId == nil)
            let atCarol = try await carol.next("bob connected", timeout: 20) { e -> Contact? in
                if case .contactConnected(_, let c, _) = e { c } else { nil }
            }
            #expect(atCarol.contactId == bobCt.contactId)
            try await carol.run(.apiSendMessages(sendRef: .direct(bobCt.contactId), liveMessage: false, ttl: nil,
                                                composedMessages: [ComposedMessage(msgContent: .text("hello bob"))]))
            try await bob.next("carol's message") { e -> Bool? in text(e).contains("hello bob") ? true : nil }
        }
    }

    /// With auto-accept on (simplex-chat `/_set accept member contacts`), Carol joins Bob's link as
    /// soon as it arrives: no accept command, both connected.
    @Test func autoAcceptJoinsAtOnce() async throws {
        try await withFlow("member-contact-auto") { flow in
            let t = try await team(flow)
            guard case .cmdOk = try await t.carol.run(.apiSetUserAutoAcceptMemberContacts(userId: 1, onOff: true)) else {
                Issue.record("setting not saved")
                return
            }
            let ct = try await invite(t.bob, group: t.bg, member: t.carolAtBob, nil)
            let bobCt = try await t.carol.next("member contact invitation", timeout: 20) { e -> Contact? in
                if case .newMemberContactReceivedInv(_, let c, _, _) = e { c } else { nil }
            }
            #expect(bobCt.groupDirectInv?.groupDirectInvStartedConnection == true)
            try await connected(t.bob, ct.contactId, t.carol, bobCt.contactId)
        }
    }

    /// A member we already have a contact with (Bob deleted his side of it and invites Carol again):
    /// simplex-chat `joinExistingContact` puts the new link on Carol's contact, active again, without
    /// its old connection, and resets its security code (`securityCodeChanged`); she accepts and
    /// both are connected on the new connection.
    @Test func anExistingContactGetsTheNewLink() async throws {
        try await withFlow("member-contact-again") { flow in
            let t = try await team(flow)
            let first = try await invite(t.bob, group: t.bg, member: t.carolAtBob, "hi carol")
            let bobCt = try await t.carol.next("member contact invitation", timeout: 20) { e -> Contact? in
                if case .newMemberContactReceivedInv(_, let c, _, _) = e { c } else { nil }
            }
            try await t.carol.run(.apiAcceptMemberContact(contactId: bobCt.contactId))
            try await connected(t.bob, first.contactId, t.carol, bobCt.contactId)

            // Bob deletes the contact; Carol keeps hers, marked deleted.
            try await t.bob.run(.apiDeleteChat(chatRef: .direct(first.contactId), chatDeleteMode: .full(notify: true)))
            try await t.carol.next("contact deleted", timeout: 20) { e -> Bool? in
                if case .contactDeletedByContact(_, let c) = e, c.contactId == bobCt.contactId { true } else { nil }
            }

            // Bob invites her again: the same contact at Carol, with the new link.
            let second = try await invite(t.bob, group: t.bg, member: t.carolAtBob, "again")
            let (again, member) = try await t.carol.next("member contact invitation again", timeout: 20) { e -> (Contact, GroupMember)? in
                if case .newMemberContactReceivedInv(_, let c, _, let m) = e { (c, m) } else { nil }
            }
            #expect(again.contactId == bobCt.contactId && member.memberContactId == bobCt.contactId)
            #expect(again.contactStatus == .active && again.activeConn == nil, "the old connection's record is gone")
            #expect(again.groupDirectInv?.fromGroupId_ == t.cg && again.groupDirectInv?.groupDirectInvStartedConnection == false)
            #expect(again.contactGroupMemberId == nil && !again.contactGrpInvSent)
            let reset = try await t.carol.next("verification reset") { e -> Int64? in
                if case .contactVerificationReset(_, let c) = e { c.contactId } else { nil }
            }
            #expect(reset == bobCt.contactId)
            try await t.carol.next("bob's message") { e -> Bool? in text(e).contains("again") ? true : nil }
            let chat = try await texts(t.carol, contact: bobCt.contactId)
            #expect(Array(chat.suffix(3)) == ["security code changed", "requested connection from group team", "again"], "\(chat)")

            try await t.carol.run(.apiAcceptMemberContact(contactId: bobCt.contactId))
            try await connected(t.bob, second.contactId, t.carol, bobCt.contactId)
            try await t.carol.run(.apiSendMessages(sendRef: .direct(bobCt.contactId), liveMessage: false, ttl: nil,
                                                  composedMessages: [ComposedMessage(msgContent: .text("back again"))]))
            try await t.bob.next("carol's message", timeout: 20) { e -> Bool? in text(e).contains("back again") ? true : nil }
        }
    }

    /// Bob and Carol invite each other before either invitation arrives (simplex-chat `xGrpDirectInv`
    /// with `contactGrpInvSent`): only the one who received the greater link takes it (and accepts);
    /// the other keeps its own invitation, which the first one joins. The relay is down while both
    /// send, so neither invitation can arrive before the other is sent.
    @Test func simultaneousInvitationsTheGreaterLinkJoins() async throws {
        let dir = NSTemporaryDirectory() + "member-contact-tie-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let relay = try await RestartableRelay(dir: dir)
        let server = relay.server
        let (alice, bob, bobId, _) = try await connectedPair(dir, server)
        let carol = try await Client("carol", dir: dir, server: server)
        let inv = try await alice.cmd("/_connect 1")
        try await carol.cmd("/connect \(try #require((inv["connLinkInvitation"] as? [String: Any])?["connFullLink"] as? String))")
        let carolId = try #require(contactId(try await alice.event("contactConnected") { displayName($0) == "carol" }))
        var prefs = GroupPreferences()
        prefs.directMessages = RoleGroupPreference(enable: .on, role: nil)
        let t = try await MemberTeam.make(alice: alice, bob: bob, carol: carol, bobId: bobId, carolId: carolId,
                                          profile: GroupProfile(displayName: "team", groupPreferences: prefs))
        guard case .newMemberContact(_, let bobCt, _, _) = try await bob.run(.apiCreateMemberContact(groupId: t.bg, groupMemberId: t.carolAtBob)),
              case .newMemberContact(_, let carolCt, _, _) = try await carol.run(.apiCreateMemberContact(groupId: t.cg, groupMemberId: t.bobAtCarol))
        else {
            Issue.record("no member contacts")
            return
        }
        let bobStore = await bob.c.store, carolStore = await carol.c.store
        let bobLink = try #require(try bobStore.read { db in try db.contactInvitationLink(bobCt.contactId) })
        let carolLink = try #require(try carolStore.read { db in try db.contactInvitationLink(carolCt.contactId) })
        // Both send while the relay is away; their agents deliver when it is back.
        await relay.stop()
        try await carol.run(.apiSendMemberContactInvitation(contactId: carolCt.contactId, msgContent: .text("from carol")))
        try await bob.run(.apiSendMemberContactInvitation(contactId: bobCt.contactId, msgContent: .text("from bob")))
        try await relay.start()

        // simplex-chat compares the links' bytes: the side that received the greater one joins it.
        let bobJoins = bobLink.utf8.lexicographicallyPrecedes(carolLink.utf8)
        let (winner, loser) = bobJoins ? (bob, carol) : (carol, bob)
        let (winnerCt, loserCt) = bobJoins ? (bobCt.contactId, carolCt.contactId) : (carolCt.contactId, bobCt.contactId)
        let loserLink = bobJoins ? carolLink : bobLink
        let atWinner = try await winner.next("invitation at \(winner.name)", timeout: 60) { e -> Contact? in
            if case .newMemberContactReceivedInv(_, let c, _, _) = e { c } else { nil }
        }
        #expect(atWinner.contactId == winnerCt && atWinner.groupDirectInv?.groupDirectInvLink == loserLink)
        #expect(atWinner.contactGroupMemberId == nil && !atWinner.contactGrpInvSent && atWinner.activeConn == nil)
        try await winner.next("verification reset") { e -> Bool? in
            if case .contactVerificationReset(_, let c) = e, c.contactId == winnerCt { true } else { nil }
        }
        let atLoser = try await loser.next("invitation at \(loser.name)", timeout: 60) { e -> Contact? in
            if case .newMemberContactReceivedInv(_, let c, _, _) = e { c } else { nil }
        }
        #expect(atLoser.contactId == loserCt && atLoser.groupDirectInv == nil && atLoser.contactGrpInvSent)
        try await loser.next("message at \(loser.name)") { e -> Bool? in
            text(e).contains(bobJoins ? "from bob" : "from carol") ? true : nil
        }
        let loserChat = try await texts(loser, contact: loserCt)
        #expect(!loserChat.contains("security code changed") && !loserChat.contains("requested connection from group team"), "\(loserChat)")

        try await winner.run(.apiAcceptMemberContact(contactId: winnerCt))
        try await connected(loser, loserCt, winner, winnerCt)
        try await winner.run(.apiSendMessages(sendRef: .direct(winnerCt), liveMessage: false, ttl: nil,
                                             composedMessages: [ComposedMessage(msgContent: .text("joined yours"))]))
        try await loser.next("message over the contact", timeout: 20) { e -> Bool? in text(e).contains("joined yours") ? true : nil }
        for c in [alice, bob, carol] { await c.c.close() }
        await relay.stop()
    }

    /// A group without direct messages: no member contact (simplex-chat's check in
    /// `APICreateMemberContact`).
    @Test func directMessagesOffRefusesAMemberContact() async throws {
        try await withFlow("member-contact-off") { flow in
            let (alice, bob, bobId, _) = try await flow.pair()
            guard case .groupCreated(_, let info) = try await alice.run(.apiNewGroup(userId: 1, incognito: false, groupProfile: GroupProfile(displayName: "team"))) else {
                Issue.record("no group")
                return
            }
            try await alice.run(.apiAddMember(groupId: info.groupId, contactId: bobId, memberRole: .member))
            let bg = try await bob.next("invitation") { e -> Int64? in
                if case .receivedGroupInvitation(_, let gi, _, _, _) = e { gi.groupId } else { nil }
            }
            try await bob.run(.apiJoinGroup(groupId: bg))
            let hostGm = try await bob.next("joined") { e -> Int64? in if case .userJoinedGroup(_, _, let h) = e { h.groupMemberId } else { nil } }
            let e = try await bob.runError(.apiCreateMemberContact(groupId: bg, groupMemberId: hostGm))
            #expect(e == .error(errorType: .commandError(message: "direct messages not allowed")))
        }
    }
}
