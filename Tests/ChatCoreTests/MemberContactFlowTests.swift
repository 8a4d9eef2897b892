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

    @Test func aMemberInvitesAnotherToADirectContact() async throws {
        try await withFlow("member-contact") { flow in
            let (alice, bob, bobId, _) = try await flow.pair()
            let carol = try await flow.client("carol")
            let (carolId, _) = try await flow.connect(alice, carol)
            var prefs = GroupPreferences()
            prefs.directMessages = RoleGroupPreference(enable: .on, role: nil)
            guard case .groupCreated(_, let info) = try await alice.run(
                .apiNewGroup(userId: 1, incognito: false, groupProfile: GroupProfile(displayName: "team", groupPreferences: prefs))) else {
                Issue.record("no group")
                return
            }
            try await alice.run(.apiAddMember(groupId: info.groupId, contactId: bobId, memberRole: .member))
            let bg = try await bob.next("invitation") { e -> Int64? in
                if case .receivedGroupInvitation(_, let gi, _, _, _) = e { gi.groupId } else { nil }
            }
            try await bob.run(.apiJoinGroup(groupId: bg))
            try await bob.next("joined") { e -> Bool? in if case .userJoinedGroup = e { true } else { nil } }
            try await alice.run(.apiAddMember(groupId: info.groupId, contactId: carolId, memberRole: .member))
            let cg = try await carol.next("invitation") { e -> Int64? in
                if case .receivedGroupInvitation(_, let gi, _, _, _) = e { gi.groupId } else { nil }
            }
            try await carol.run(.apiJoinGroup(groupId: cg))
            let carolAtBob = try await bob.next("connected to carol", timeout: 20) { e -> Int64? in
                if case .connectedToGroupMember(_, _, let m, _) = e, m.memberProfile.displayName == "carol" { m.groupMemberId } else { nil }
            }
            try await carol.next("connected to bob", timeout: 20) { e -> Bool? in
                if case .connectedToGroupMember(_, _, let m, _) = e, m.memberProfile.displayName == "bob" { true } else { nil }
            }

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
            let (alice, bob, bobId, _) = try await flow.pair()
            let carol = try await flow.client("carol")
            let (carolId, _) = try await flow.connect(alice, carol)
            var prefs = GroupPreferences()
            prefs.directMessages = RoleGroupPreference(enable: .on, role: nil)
            guard case .groupCreated(_, let info) = try await alice.run(
                .apiNewGroup(userId: 1, incognito: false, groupProfile: GroupProfile(displayName: "team", groupPreferences: prefs))) else {
                Issue.record("no group")
                return
            }
            try await alice.run(.apiAddMember(groupId: info.groupId, contactId: bobId, memberRole: .member))
            let bg = try await bob.next("invitation") { e -> Int64? in
                if case .receivedGroupInvitation(_, let gi, _, _, _) = e { gi.groupId } else { nil }
            }
            try await bob.run(.apiJoinGroup(groupId: bg))
            try await bob.next("joined") { e -> Bool? in if case .userJoinedGroup = e { true } else { nil } }
            try await alice.run(.apiAddMember(groupId: info.groupId, contactId: carolId, memberRole: .member))
            let cg = try await carol.next("invitation") { e -> Int64? in
                if case .receivedGroupInvitation(_, let gi, _, _, _) = e { gi.groupId } else { nil }
            }
            try await carol.run(.apiJoinGroup(groupId: cg))
            let carolAtBob = try await bob.next("connected to carol", timeout: 20) { e -> Int64? in
                if case .connectedToGroupMember(_, _, let m, _) = e, m.memberProfile.displayName == "carol" { m.groupMemberId } else { nil }
            }
            guard case .cmdOk = try await carol.run(.apiSetUserAutoAcceptMemberContacts(userId: 1, onOff: true)) else {
                Issue.record("setting not saved")
                return
            }
            guard case .newMemberContact(_, let ct, _, _) = try await bob.run(.apiCreateMemberContact(groupId: bg, groupMemberId: carolAtBob)) else {
                Issue.record("no member contact")
                return
            }
            try await bob.run(.apiSendMemberContactInvitation(contactId: ct.contactId, msgContent: nil))
            let bobCt = try await carol.next("member contact invitation", timeout: 20) { e -> Contact? in
                if case .newMemberContactReceivedInv(_, let c, _, _) = e { c } else { nil }
            }
            #expect(bobCt.groupDirectInv?.groupDirectInvStartedConnection == true)
            try await bob.next("carol connected", timeout: 20) { e -> Bool? in
                if case .contactConnected(_, let c, _) = e, c.contactId == ct.contactId { true } else { nil }
            }
            try await carol.next("bob connected", timeout: 20) { e -> Bool? in
                if case .contactConnected(_, let c, _) = e, c.contactId == bobCt.contactId { true } else { nil }
            }
        }
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
