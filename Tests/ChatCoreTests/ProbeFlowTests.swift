import Foundation
import Testing

@testable import ChatCore

/// Contact-merging probes (x.info.probe, x.info.probe.check, x.info.probe.ok) over a real relay:
/// Bob and Carol are contacts, then members of Alice's group; Carol, the newer member, probes
/// Bob's member connection and sends the hash over her contact with Bob, and both record the
/// member as that contact's (simplex-chat `probeMatchingMemberContact`, `xInfoProbe*`).
@Suite(.serialized) struct ProbeFlowTests {
    private func members(_ c: Client, _ groupId: Int64) async throws -> [GroupMember] {
        guard case .groupMembers(_, let group) = try await c.run(.apiListMembers(groupId: groupId)) else {
            Issue.record("no members")
            throw CancellationError()
        }
        return group.members
    }

    @Test func aMemberIsRecordedAsTheContactItProbesTo() async throws {
        try await withFlow("probe-match") { flow in
            let (alice, bob, bobId, _) = try await flow.pair()
            let carol = try await flow.client("carol")
            let (carolId, _) = try await flow.connect(alice, carol)
            // Bob and Carol are contacts first (each probes the other at CON: nothing to match yet).
            let (carolAtBobCt, bobAtCarolCt) = try await flow.connect(bob, carol)
            let t = try await MemberTeam.make(alice: alice, bob: bob, carol: carol, bobId: bobId, carolId: carolId)

            // Bob got Carol's probe over her member connection and its hash over their contact
            // connection (in either order): he answers x.info.probe.ok and records the member as
            // his contact Carol; Carol does the same when the answer arrives.
            let atBob = try await bob.next("carol associated", timeout: 20) { e -> (Contact, GroupMember, Contact)? in
                if case .contactAndMemberAssociated(_, let c, _, let m, let updated) = e { (c, m, updated) } else { nil }
            }
            #expect(atBob.0.contactId == carolAtBobCt && atBob.1.groupMemberId == t.carolAtBob && atBob.1.memberContactId == nil)
            #expect(atBob.2.contactId == carolAtBobCt && atBob.2.localDisplayName == "carol")
            let atCarol = try await carol.next("bob associated", timeout: 20) { e -> (Contact, GroupMember, Contact)? in
                if case .contactAndMemberAssociated(_, let c, _, let m, let updated) = e { (c, m, updated) } else { nil }
            }
            #expect(atCarol.0.contactId == bobAtCarolCt && atCarol.1.groupMemberId == t.bobAtCarol)

            let carolMember = try #require(try await members(bob, t.bg).first { $0.groupMemberId == t.carolAtBob })
            #expect(carolMember.memberContactId == carolAtBobCt && carolMember.localDisplayName == "carol")
            let bobMember = try #require(try await members(carol, t.cg).first { $0.groupMemberId == t.bobAtCarol })
            #expect(bobMember.memberContactId == bobAtCarolCt && bobMember.localDisplayName == "bob")
            // The contact stays usable, and the member's messages still arrive.
            try await bob.run(.apiSendMessages(sendRef: .direct(carolAtBobCt), liveMessage: false, ttl: nil,
                                              composedMessages: [ComposedMessage(msgContent: .text("still here"))]))
            try await carol.next("direct message") { e -> Bool? in
                if case .newChatItems(_, let items) = e, items.contains(where: { $0.chatItem.meta.itemText == "still here" }) { true } else { nil }
            }
        }
    }

    /// Bob and Carol meet in the group first and become contacts later: at the contact's CON each
    /// probes the new contact and sends the hash to the member with the same profile, so both
    /// record the member as the contact (simplex-chat `probeMatchingMembers`).
    @Test func membersWhoBecomeContactsAreAssociated() async throws {
        try await withFlow("probe-later-contact") { flow in
            let (alice, bob, bobId, _) = try await flow.pair()
            let carol = try await flow.client("carol")
            let (carolId, _) = try await flow.connect(alice, carol)
            let t = try await MemberTeam.make(alice: alice, bob: bob, carol: carol, bobId: bobId, carolId: carolId)
            let (carolAtBobCt, bobAtCarolCt) = try await flow.connect(bob, carol)
            let atBob = try await bob.next("carol associated", timeout: 20) { e -> (Contact, GroupMember)? in
                if case .contactAndMemberAssociated(_, let c, _, let m, _) = e { (c, m) } else { nil }
            }
            #expect(atBob.0.contactId == carolAtBobCt && atBob.1.groupMemberId == t.carolAtBob)
            let atCarol = try await carol.next("bob associated", timeout: 20) { e -> (Contact, GroupMember)? in
                if case .contactAndMemberAssociated(_, let c, _, let m, _) = e { (c, m) } else { nil }
            }
            #expect(atCarol.0.contactId == bobAtCarolCt && atCarol.1.groupMemberId == t.bobAtCarol)
            #expect(try await members(bob, t.bg).first { $0.groupMemberId == t.carolAtBob }?.memberContactId == carolAtBobCt)
            #expect(try await members(carol, t.cg).first { $0.groupMemberId == t.bobAtCarol }?.memberContactId == bobAtCarolCt)
        }
    }

    /// Carol knows Bob only through an incognito contact: her probe's hash reaches that contact,
    /// but Bob sees another profile there, so nothing is associated (the release's warning).
    @Test func anIncognitoContactIsNotAssociated() async throws {
        try await withFlow("probe-incognito") { flow in
            let (alice, bob, bobId, _) = try await flow.pair()
            let carol = try await flow.client("carol")
            let (carolId, _) = try await flow.connect(alice, carol)
            guard case .invitation(_, let link, _) = try await carol.run(.apiAddContact(userId: 1, incognito: true)) else {
                Issue.record("no invitation")
                return
            }
            try await bob.cmd("/connect \(link.connFullLink)")
            let incognitoCarolAtBob = try await bob.next("incognito carol") { e -> Contact? in
                if case .contactConnected(_, let c, _) = e { c } else { nil }
            }
            #expect(incognitoCarolAtBob.profile.displayName != "carol")
            try await carol.next("bob") { e -> Bool? in if case .contactConnected(_, let c, _) = e, c.profile.displayName == "bob" { true } else { nil } }
            let t = try await MemberTeam.make(alice: alice, bob: bob, carol: carol, bobId: bobId, carolId: carolId)
            try await bob.next("profiles differ", timeout: 20) { e -> Bool? in
                if case .messageError(_, "warning", let text) = e, text.hasPrefix("probeMatch ignored: profiles don't match") { true } else { nil }
            }
            #expect(try await members(bob, t.bg).allSatisfy { $0.memberContactId == nil || $0.memberProfile.displayName == "alice" })
            #expect(try await members(carol, t.cg).allSatisfy { $0.memberContactId == nil || $0.memberProfile.displayName == "alice" })
        }
    }
}
