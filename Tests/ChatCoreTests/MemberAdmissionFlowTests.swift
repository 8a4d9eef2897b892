import Foundation
import SMPAgent
import Testing

@testable import ChatCore

private func groupId(_ e: [String: Any]) -> Int64? {
    ((e["groupInfo"] as? [String: Any])?["groupId"] as? NSNumber)?.int64Value
}

private func membershipStatus(_ e: [String: Any]) -> String? {
    ((e["groupInfo"] as? [String: Any])?["membership"] as? [String: Any])?["memberStatus"] as? String
}

private func member(_ e: [String: Any], _ key: String = "member") -> [String: Any]? {
    e[key] as? [String: Any]
}

private func memberName(_ e: [String: Any], _ key: String = "member") -> String? {
    (member(e, key)?["memberProfile"] as? [String: Any])?["displayName"] as? String
}

/// The scope of an event's first item: nil for the main chat, "" for the user's own support
/// chat, the member's name for a moderator's view of a member's chat.
private func scopeOf(_ e: [String: Any]) -> String? {
    guard let info = (e["chatItems"] as? [[String: Any]])?.first?["chatInfo"] as? [String: Any],
          let scope = info["groupChatScope"] as? [String: Any] else { return nil }
    #expect(scope["type"] as? String == "memberSupport")
    return ((scope["groupMember_"] as? [String: Any])?["memberProfile"] as? [String: Any])?["displayName"] as? String ?? ""
}

private func chatTexts(_ r: [String: Any]) -> [String] {
    (((r["chat"] as? [String: Any])?["chatItems"] as? [[String: Any]]) ?? []).compactMap {
        ($0["meta"] as? [String: Any])?["itemText"] as? String
    }
}

/// Chat versions 14 and 15 between two real cores over a real relay: a host refusing a join
/// (x.grp.link.reject), and a group that reviews its members (pending joiners, x.grp.link.acpt,
/// messages in the member's support chat, kept out of the main chat).
@Suite(.serialized) struct MemberAdmissionFlowTests {
    static let v16 = VersionRange(min: 1, max: 16)!

    @Test func rejectedJoinerGetsTheReasonAndNeverJoins() async throws {
        let dir = NSTemporaryDirectory() + "admission-reject-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (relay, server) = try await startRelay(dir)
        // The host's hook (as a bot's `acceptMember`) refuses one name.
        let alice = try await Client("alice", dir: dir, server: server) { c in
            c.chatVRange = Self.v16
            c.acceptMember = { _, p in p.displayName.hasPrefix("spammer") ? .reject(.blockedName) : .accept(.accepted, role: .member) }
        }
        let spammer = try await Client("spammer", dir: dir, server: server) { $0.chatVRange = Self.v16 }
        let old = try await Client("spammer2", dir: dir, server: server) { $0.chatVRange = VersionRange(min: 1, max: 13)! }
        let g = try #require(groupId(try await alice.cmd(#"/_group 1 {"displayName":"club","fullName":""}"#)))
        let created = try await alice.cmd("/_create link #\(g) member")
        let link = try #require(((created["groupLink"] as? [String: Any])?["connLinkContact"] as? [String: Any])?["connFullLink"] as? String)

        try await spammer.cmd("/_connect 1 \(link)")
        let rejecting = try await alice.event("rejectingGroupJoinRequestMember")
        #expect(rejecting["groupRejectionReason"] as? String == "blocked_name")
        #expect(member(rejecting)?["memberStatus"] as? String == "rejected")
        #expect(member(rejecting)?["memberRole"] as? String == "observer")

        try await spammer.event("groupLinkConnecting")
        let rejected = try await spammer.event("groupLinkRejected")
        #expect(rejected["groupRejectionReason"] as? String == "blocked_name")
        #expect(membershipStatus(rejected) == "rejected")
        #expect((rejected["groupInfo"] as? [String: Any])?["groupProfile"].flatMap { ($0 as? [String: Any])?["displayName"] as? String } == "club")
        let sg = try #require(groupId(rejected))
        // Never joined: no userJoinedGroup, and the group cannot be written to.
        try await Task.sleep(nanoseconds: 2_000_000_000)
        #expect(await !spammer.c.send("/_get chat #\(sg) count=10").contains("userJoinedGroup"))
        #expect(await spammer.c.send(#"/_send #\#(sg) json [{"msgContent":{"type":"text","text":"let me in"}}]"#).contains("\"error\""))
        let members = try await alice.cmd("/_members #\(g)")
        #expect(!String(describing: members).contains("\"connected\""))

        // A prepared group (from the link's data) is the one marked rejected.
        let third = try await Client("spammer3", dir: dir, server: server) { $0.chatVRange = Self.v16 }
        let prepared = try await third.cmd(#"/_prepare group 1 \#(link) {"groupProfile":{"displayName":"club","fullName":""}}"#)
        let pg = try #require(((((prepared["chat"] as? [String: Any])?["chatInfo"] as? [String: Any])?["groupInfo"] as? [String: Any])?["groupId"] as? NSNumber)?.int64Value)
        try await third.cmd("/_connect group #\(pg)")
        try await alice.event("rejectingGroupJoinRequestMember") { memberName($0) == "spammer3" }
        let thirdRejected = try await third.event("groupLinkRejected")
        #expect(groupId(thirdRejected) == pg && membershipStatus(thirdRejected) == "rejected")
        await third.c.close()

        // A joiner below version 14 cannot read a refusal: its request stays unanswered.
        try await old.cmd("/_connect 1 \(link)")
        let warning = try await alice.event("messageError")
        #expect((warning["errorMessage"] as? String)?.contains("below 14") == true)

        await relay.shutdown()
        await alice.c.close()
        await spammer.c.close()
        await old.c.close()
    }

    @Test func reviewedJoinerTalksInItsSupportChatUntilAccepted() async throws {
        let dir = NSTemporaryDirectory() + "admission-review-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (relay, server) = try await startRelay(dir)
        let alice = try await Client("alice", dir: dir, server: server) { $0.chatVRange = Self.v16 }
        let bob = try await Client("bob", dir: dir, server: server) { $0.chatVRange = Self.v16 }
        let g = try #require(groupId(try await alice.cmd(#"/_group 1 {"displayName":"club","fullName":"","memberAdmission":{"review":"all"}}"#)))
        let created = try await alice.cmd("/_create link #\(g) member")
        let link = try #require(((created["groupLink"] as? [String: Any])?["connLinkContact"] as? [String: Any])?["connFullLink"] as? String)

        try await bob.cmd("/_connect 1 \(link)")
        let accepting = try await alice.event("acceptingGroupJoinRequestMember")
        #expect(member(accepting)?["memberStatus"] as? String == "pending_review")
        let bobGm = try #require((member(accepting)?["groupMemberId"] as? NSNumber)?.int64Value)
        try await bob.event("groupLinkConnecting")
        let joined = try await alice.event("joinedGroupMember") { memberName($0) == "bob" }
        #expect(member(joined)?["memberStatus"] as? String == "pending_review")
        let review = try await alice.event("newChatItems") { scopeOf($0) == "bob" && itemText($0) != "connected" }
        #expect(itemText(review) == "new member wants to join the group")
        let bobJoined = try await bob.event("userJoinedGroup")
        #expect(membershipStatus(bobJoined) == "pending_review", "connected to the host, but held for review")
        let bg = try #require(groupId(bobJoined))

        // Held for review: the main chat is closed to bob's own client...
        #expect(try await bob.cmdError(#"/_send #\#(bg) json [{"msgContent":{"type":"text","text":"early"}}]"#)["type"] as? String == "error")
        // ...and the host refuses what a pending member may not send: a main-chat message, a
        // scope naming another member, an acceptance (only moderators accept).
        let toAliceRow = try await bob.c.testString("SELECT agent_conn_id FROM connections WHERE group_member_id IS NOT NULL AND conn_status = 'ready'")
        let toAlice = try #require(toAliceRow)
        let aliceIdText = try await alice.c.testString("SELECT member_id FROM group_members WHERE member_category = 'user' AND group_id = \(g)")
        let aliceMemberId = try #require(aliceIdText.flatMap { MemberId(base64url: $0) })
        let bobIdText = try await bob.c.testString("SELECT member_id FROM group_members WHERE member_category = 'user' AND group_id = \(bg)")
        let bobMemberId = try #require(bobIdText.flatMap { MemberId(base64url: $0) })
        for (event, problem) in [
            (ChatMsgEvent.msgNew(MsgContainer(content: .text("sneaked in"))), "outside of its support chat"),
            (.msgNew(MsgContainer(content: .text("in someone else's chat"), scope: .member(memberId: aliceMemberId))), "outside of its support chat"),
            (.grpLinkAcpt(acceptance: .accepted, role: .owner, memberId: bobMemberId), "not a moderator"),
        ] {
            _ = try await bob.c.sendToAgent(toAlice, try ChatMessage(chatVRange: Self.v16, msgId: .random(), event: event).encoded())
            let refused = try await alice.event("messageError")
            #expect((refused["errorMessage"] as? String)?.contains(problem) == true, "\(refused)")
        }

        // The support chat: both ways, with the member's scope, never in the main chat.
        try await bob.cmd(#"/_send #\#(bg)(_support) json [{"msgContent":{"type":"text","text":"may I join?"}}]"#)
        let asked = try await alice.event("newChatItems") { itemText($0) == "may I join?" }
        #expect(scopeOf(asked) == "bob")
        try await alice.cmd(#"/_send #\#(g)(_support:\#(bobGm)) json [{"msgContent":{"type":"text","text":"tell me about you"}}]"#)
        let answered = try await bob.event("newChatItems") { itemText($0) == "tell me about you" }
        #expect(scopeOf(answered) == "")
        let aliceMain = chatTexts(try await alice.cmd("/_get chat #\(g) count=50"))
        #expect(!aliceMain.contains("may I join?") && !aliceMain.contains("sneaked in") && !aliceMain.contains("in someone else's chat"))
        #expect(try await alice.cmd("/_members #\(g)").description.contains("pending_review"), "refused events changed nothing")
        #expect(chatTexts(try await alice.cmd("/_get chat #\(g)(_support:\(bobGm)) count=50")) == ["connected", "new member wants to join the group", "may I join?", "tell me about you"])
        #expect(!chatTexts(try await bob.cmd("/_get chat #\(bg) count=50")).contains("tell me about you"))
        // The host's e2e notice and features come first, in the support chat while pending (`mkGroupChatScope`).
        let bobSupport = chatTexts(try await bob.cmd("/_get chat #\(bg)(_support) count=50"))
        #expect(bobSupport.first == ChatController.e2eInfoNoPQText && Array(bobSupport.suffix(3)) == ["connected", "may I join?", "tell me about you"],
                "\(bobSupport)")

        // Admitted: x.grp.link.acpt, and then bob writes to the main chat.
        let accepted = try await alice.cmd("/_accept member #\(g) \(bobGm) member")
        #expect(accepted["type"] as? String == "memberAccepted")
        #expect(member(accepted)?["memberStatus"] as? String == "connected")
        let nowMember = try await bob.event("userJoinedGroup")
        #expect(membershipStatus(nowMember) == "connected")
        try await bob.cmd(#"/_send #\#(bg) json [{"msgContent":{"type":"text","text":"hello everyone"}}]"#)
        let main = try await alice.event("newChatItems") { itemText($0) == "hello everyone" }
        #expect(scopeOf(main) == nil)
        #expect(try await alice.cmdError("/_accept member #\(g) \(bobGm) member")["type"] as? String == "error")

        // Carol is held for review too, and removed instead: only she is told.
        let carol = try await Client("carol", dir: dir, server: server) { $0.chatVRange = Self.v16 }
        try await carol.cmd("/_connect 1 \(link)")
        let carolJoining = try await alice.event("acceptingGroupJoinRequestMember") { memberName($0) == "carol" }
        let carolGm = try #require((member(carolJoining)?["groupMemberId"] as? NSNumber)?.int64Value)
        let carolJoined = try await carol.event("userJoinedGroup")
        #expect(membershipStatus(carolJoined) == "pending_review")
        try await alice.event("joinedGroupMember") { memberName($0) == "carol" }
        let removed = try await alice.cmd("/_remove #\(g) \(carolGm)")
        #expect(removed["type"] as? String == "userDeletedMembers")
        try await carol.event("deletedMemberUser")
        try await Task.sleep(nanoseconds: 1_000_000_000)
        #expect(try await bob.cmd("/_members #\(bg)").description.contains("carol") == false, "bob never learned of carol")
        await carol.c.close()

        await relay.shutdown()
        await alice.c.close()
        await bob.c.close()
    }

    /// simplex-chat `introduceToModerators`: a member held for review meets the group's moderators
    /// (announced to them with its scope, x.grp.mem.new `scope`), talks with them in its support
    /// chat, and once admitted is introduced to the others only.
    @Test func moderatorsMeetTheMemberUnderReview() async throws {
        let dir = NSTemporaryDirectory() + "admission-mods-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (relay, server) = try await startRelay(dir)
        let alice = try await Client("alice", dir: dir, server: server) { $0.chatVRange = Self.v16 }
        let carol = try await Client("carol", dir: dir, server: server) { $0.chatVRange = Self.v16 }
        let bob = try await Client("bob", dir: dir, server: server) { $0.chatVRange = Self.v16 }
        let dan = try await Client("dan", dir: dir, server: server) { $0.chatVRange = Self.v16 }
        let g = try #require(groupId(try await alice.cmd(#"/_group 1 {"displayName":"club","fullName":""}"#)))
        let created = try await alice.cmd("/_create link #\(g) member")
        let link = try #require(((created["groupLink"] as? [String: Any])?["connLinkContact"] as? [String: Any])?["connFullLink"] as? String)

        // Carol (a moderator) and Dan (a member) join before the group starts reviewing members.
        try await carol.cmd("/_connect 1 \(link)")
        let carolJoined = try await alice.event("joinedGroupMember") { memberName($0) == "carol" }
        let carolGm = try #require((member(carolJoined)?["groupMemberId"] as? NSNumber)?.int64Value)
        let cg = try #require(groupId(try await carol.event("userJoinedGroup")))
        try await dan.cmd("/_connect 1 \(link)")
        try await alice.event("joinedGroupMember") { memberName($0) == "dan" }
        let dg = try #require(groupId(try await dan.event("userJoinedGroup")))
        try await carol.event("connectedToGroupMember", timeout: 20) { memberName($0) == "dan" }
        try await alice.cmd("/_member role #\(g) \(carolGm) moderator")
        try await alice.cmd(#"/_group_profile #\#(g) {"displayName":"club","fullName":"","memberAdmission":{"review":"all"}}"#)
        try await Task.sleep(nanoseconds: 1_000_000_000)

        // Bob is held for review: announced to Carol only, with his scope.
        try await bob.cmd("/_connect 1 \(link)")
        try await alice.event("joinedGroupMember") { memberName($0) == "bob" }
        let bg = try #require(groupId(try await bob.event("userJoinedGroup")))
        let announced = try await carol.event("joinedGroupMemberConnecting", timeout: 20) { memberName($0) == "bob" }
        #expect(member(announced)?["memberStatus"] as? String == "pending_review")
        let bobAtCarol = try #require((member(announced)?["groupMemberId"] as? NSNumber)?.int64Value)
        let opened = try await carol.event("newChatItems") { scopeOf($0) == "bob" }
        #expect(((opened["chatItems"] as? [[String: Any]]) ?? []).count == 2)
        try await carol.event("connectedToGroupMember", timeout: 20) { memberName($0) == "bob" }
        try await bob.event("connectedToGroupMember", timeout: 20) { memberName($0) == "carol" }
        #expect(chatTexts(try await carol.cmd("/_get chat #\(cg) count=50")).allSatisfy { !$0.contains("bob") }, "not in carol's main chat")

        // The support chat now has three parties.
        try await bob.cmd(#"/_send #\#(bg)(_support) json [{"msgContent":{"type":"text","text":"hello moderators"}}]"#)
        #expect(scopeOf(try await alice.event("newChatItems") { itemText($0) == "hello moderators" }) == "bob")
        #expect(scopeOf(try await carol.event("newChatItems") { itemText($0) == "hello moderators" }) == "bob")
        try await carol.cmd(#"/_send #\#(cg)(_support:\#(bobAtCarol)) json [{"msgContent":{"type":"text","text":"welcome, bob"}}]"#)
        #expect(scopeOf(try await bob.event("newChatItems") { itemText($0) == "welcome, bob" }) == "")
        #expect(scopeOf(try await alice.event("newChatItems") { itemText($0) == "welcome, bob" }) == "bob")
        let counters = (try await carol.cmd("/_members #\(cg)")["group"] as? [String: Any]).flatMap { ($0["members"] as? [[String: Any]])?.first {
            (($0["memberProfile"] as? [String: Any])?["displayName"] as? String) == "bob" } }?["supportChat"] as? [String: Any]
        #expect((counters?["unread"] as? NSNumber)?.intValue == 3, "\(String(describing: counters))")

        // Admitted: Carol records it; Dan meets Bob now (Carol is not introduced twice).
        try await alice.cmd("/_accept member #\(g) \(try #require(await bobGm(alice, g))) member")
        try await bob.event("userJoinedGroup") { membershipStatus($0) == "connected" }
        try await dan.event("connectedToGroupMember", timeout: 20) { memberName($0) == "bob" }
        try await Task.sleep(nanoseconds: 1_000_000_000)
        #expect(try await carol.cmd("/_members #\(cg)").description.contains("pending_review") == false)
        try await bob.cmd(#"/_send #\#(bg) json [{"msgContent":{"type":"text","text":"hi all"}}]"#)
        #expect(scopeOf(try await carol.event("newChatItems") { itemText($0) == "hi all" }) == nil)
        try await dan.event("newChatItems") { itemText($0) == "hi all" }
        _ = dg

        // Eve, admitted later, gets the main chat's history only: nothing of Bob's support chat.
        let eve = try await Client("eve", dir: dir, server: server) { $0.chatVRange = Self.v16 }
        try await eve.cmd("/_connect 1 \(link)")
        let eveJoining = try await alice.event("joinedGroupMember") { memberName($0) == "eve" }
        let eveGm = try #require((member(eveJoining)?["groupMemberId"] as? NSNumber)?.int64Value)
        let eg = try #require(groupId(try await eve.event("userJoinedGroup")))
        try await alice.cmd("/_accept member #\(g) \(eveGm) member")
        try await eve.event("newChatItems", timeout: 20) { itemText($0) == "hi all" }
        try await Task.sleep(nanoseconds: 1_000_000_000)
        let eveTexts = chatTexts(try await eve.cmd("/_get chat #\(eg) count=100"))
        #expect(!eveTexts.contains("hello moderators") && !eveTexts.contains("welcome, bob"), "\(eveTexts)")
        await eve.c.close()

        await relay.shutdown()
        for c in [alice, bob, carol, dan] { await c.c.close() }
    }

    private func bobGm(_ alice: Client, _ g: Int64) async throws -> Int64? {
        let r = try await alice.cmd("/_members #\(g)")
        let bob = ((r["group"] as? [String: Any])?["members"] as? [[String: Any]])?.first {
            (($0["memberProfile"] as? [String: Any])?["displayName"] as? String) == "bob"
        }
        return (bob?["groupMemberId"] as? NSNumber)?.int64Value
    }
}
