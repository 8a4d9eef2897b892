import Foundation
import SMPAgent
import Testing

@testable import ChatCore

private func groupId(_ e: [String: Any]) -> Int64? {
    ((e["groupInfo"] as? [String: Any])?["groupId"] as? NSNumber)?.int64Value
}

private func memberName(_ e: [String: Any]) -> String? {
    ((e["member"] as? [String: Any])?["memberProfile"] as? [String: Any])?["displayName"] as? String
}

private func mentions(_ item: [String: Any]?) -> [String: [String: Any]] {
    (item?["mentions"] as? [String: [String: Any]]) ?? [:]
}

private func userMention(_ item: [String: Any]?) -> Bool? {
    (item?["meta"] as? [String: Any])?["userMention"] as? Bool
}

private func refGm(_ mention: [String: Any]?) -> Int64? {
    ((mention?["memberRef"] as? [String: Any])?["groupMemberId"] as? NSNumber)?.int64Value
}

private func errorKind(_ e: [String: Any]) -> String? {
    (e["storeError"] as? [String: Any])?["type"] as? String ?? (e["errorType"] as? [String: Any])?["type"] as? String
}

/// Alice's group "club" (created with `profileJSON`) that Bob joined through its link: the
/// group's IDs at both, Bob's member row at Alice and Alice's at Bob, their member IDs.
struct LinkedGroup {
    let g: Int64, bg: Int64, bobGm: Int64, aliceAtBob: Int64, aliceMemberId: MemberId, bobMemberId: MemberId
    /// Bob's connection to Alice (to send raw chat messages as a misbehaving Bob).
    let bobToAlice: String

    static func make(_ alice: Client, _ bob: Client, profileJSON: String = #"{"displayName":"club","fullName":""}"#,
                     held: Bool = false) async throws -> LinkedGroup {
        let g = try #require(groupId(try await alice.cmd("/_group 1 \(profileJSON)")))
        let created = try await alice.cmd("/_create link #\(g) member")
        let link = try #require(((created["groupLink"] as? [String: Any])?["connLinkContact"] as? [String: Any])?["connFullLink"] as? String)
        try await bob.cmd("/_connect 1 \(link)")
        let joined = try await alice.event("joinedGroupMember") { memberName($0) == "bob" }
        let bobGm = try #require(((joined["member"] as? [String: Any])?["groupMemberId"] as? NSNumber)?.int64Value)
        let bobJoined = try await bob.event("userJoinedGroup")
        let bg = try #require(groupId(bobJoined))
        let aliceAtBob = try #require(((bobJoined["hostMember"] as? [String: Any])?["groupMemberId"] as? NSNumber)?.int64Value)
        let aliceId = try await alice.c.testString("SELECT member_id FROM group_members WHERE member_category = 'user' AND group_id = \(g)")
        let bobId = try await bob.c.testString("SELECT member_id FROM group_members WHERE member_category = 'user' AND group_id = \(bg)")
        let conn = try await bob.c.testString("SELECT agent_conn_id FROM connections WHERE group_member_id = \(aliceAtBob) AND conn_status = 'ready'")
        if !held { try await Task.sleep(nanoseconds: 500_000_000) }
        return LinkedGroup(g: g, bg: bg, bobGm: bobGm, aliceAtBob: aliceAtBob,
                           aliceMemberId: try #require(aliceId.flatMap { MemberId(base64url: $0) }),
                           bobMemberId: try #require(bobId.flatMap { MemberId(base64url: $0) }), bobToAlice: try #require(conn))
    }
}

/// Mentions in groups (issue 13) between two real cores over a real relay: `mentions` on the
/// wire (simplex-chat MsgMention), kept on items (CIMention, `userMention`), the sender's limits
/// (`getCIMentions`) and what a receiver keeps of a peer's mentions (`uniqueMsgMentions`).
@Suite(.serialized) struct MentionsFlowTests {
    static let v16 = VersionRange(min: 1, max: 16)!

    @Test func mentionsReachTheMemberAndMarkItsItem() async throws {
        let dir = NSTemporaryDirectory() + "mentions-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (relay, server) = try await startRelay(dir)
        let alice = try await Client("alice", dir: dir, server: server) { $0.chatVRange = Self.v16 }
        let bob = try await Client("bob", dir: dir, server: server) { $0.chatVRange = Self.v16 }
        let t = try await LinkedGroup.make(alice, bob)

        // Alice mentions Bob: her item names him; his is marked as mentioning him.
        let sent = try await alice.cmd(#"/_send #\#(t.g) json [{"msgContent":{"type":"text","text":"@bob welcome"},"mentions":{"bob":\#(t.bobGm)}}]"#)
        let sentItem = firstItem(sent)
        #expect(mentions(sentItem)["bob"]?["memberId"] as? String == t.bobMemberId.base64url)
        #expect(refGm(mentions(sentItem)["bob"]) == t.bobGm)
        #expect(userMention(sentItem) == false)
        let got = try await bob.event("newChatItems") { itemText($0) == "@bob welcome" }
        let gotItem = firstItem(got)
        #expect(userMention(gotItem) == true)
        #expect(mentions(gotItem)["bob"]?["memberId"] as? String == t.bobMemberId.base64url)
        let bobMembership = try await bob.c.testCount("SELECT group_member_id FROM group_members WHERE member_category = 'user' AND group_id = \(t.bg)")
        #expect(refGm(mentions(gotItem)["bob"]) == Int64(bobMembership))
        // Counted in Bob's chat list until read.
        let chats = try await bob.cmd("/_get chats 1")
        let stats = ((chats["chats"] as? [[String: Any]]) ?? []).first { (($0["chatInfo"] as? [String: Any])?["type"] as? String) == "group" }?["chatStats"] as? [String: Any]
        #expect((stats?["unreadMentions"] as? NSNumber)?.intValue == 1)

        // A reply to one of Alice's messages is for her too.
        let quoted = try #require(itemId(got))
        try await bob.cmd(#"/_send #\#(t.bg) json [{"quotedItemId":\#(quoted),"msgContent":{"type":"text","text":"thanks"}}]"#)
        let reply = try await alice.event("newChatItems") { itemText($0) == "thanks" }
        #expect(userMention(firstItem(reply)) == true)
        #expect(mentions(firstItem(reply)).isEmpty)

        // An edit names the members of its new text.
        let sentId = try #require(itemId(sent))
        try await alice.cmd(#"/_update item #\#(t.g) \#(sentId) json {"msgContent":{"type":"text","text":"@bob welcome again"},"mentions":{"bob":\#(t.bobGm)}}"#)
        let edited = try await bob.event("chatItemUpdated")
        #expect(mentions(edited["chatItem"].flatMap { ($0 as? [String: Any])?["chatItem"] as? [String: Any] })["bob"] != nil)

        // The sender's limits (simplex-chat getCIMentions): every name in the text, each member
        // once, at most 3, members of this group. Nothing is sent then.
        let refused = [
            (#"{"msgContent":{"type":"text","text":"@a @b @c @d"},"mentions":{"a":101,"b":102,"c":103,"d":104}}"#, "invalidMention"),
            (#"{"msgContent":{"type":"text","text":"hi"},"mentions":{"bob":\#(t.bobGm)}}"#, nil),
            (#"{"msgContent":{"type":"text","text":"@bob hi"},"mentions":{"bob":\#(t.bobGm),"hidden":\#(t.bobGm)}}"#, "invalidMention"),
            (#"{"msgContent":{"type":"text","text":"@bob @bobby hi"},"mentions":{"bob":\#(t.bobGm),"bobby":\#(t.bobGm)}}"#, "invalidMention"),
            (#"{"msgContent":{"type":"text","text":"@nobody hi"},"mentions":{"nobody":9999}}"#, "groupMemberNotFound"),
        ]
        for (composed, kind) in refused {
            if let kind {
                let e = try await alice.cmdError("/_send #\(t.g) json [\(composed)]")
                #expect(errorKind(e) == kind, "\(composed): \(e)")
            } else {
                // Mentions without any `@name` in the text: the text has none, so none are sent.
                let r = try await alice.cmd("/_send #\(t.g) json [\(composed)]")
                #expect(mentions(firstItem(r)).isEmpty)
            }
        }
        let texts = (((try await alice.cmd("/_get chat #\(t.g) count=50"))["chat"] as? [String: Any])?["chatItems"] as? [[String: Any]] ?? [])
            .compactMap { ($0["meta"] as? [String: Any])?["itemText"] as? String }
        #expect(!texts.contains("@a @b @c @d") && !texts.contains("@nobody hi") && !texts.contains("@bob @bobby hi"))

        await relay.shutdown()
        await alice.c.close()
        await bob.c.close()
    }

    /// A peer's mentions are kept as simplex-chat `uniqueMsgMentions` does: names in the text only,
    /// in text order, a member once, at most 5; unknown members are kept without a member.
    @Test func receivedMentionsAreLimitedAsTheReference() async throws {
        let dir = NSTemporaryDirectory() + "mentions-rcv-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (relay, server) = try await startRelay(dir)
        let alice = try await Client("alice", dir: dir, server: server) { $0.chatVRange = Self.v16 }
        let bob = try await Client("bob", dir: dir, server: server) { $0.chatVRange = Self.v16 }
        let t = try await LinkedGroup.make(alice, bob)

        let ghosts = (0..<6).map { _ in MemberId.random() }
        var wire: [String: MsgMention] = ["alice": MsgMention(memberId: t.aliceMemberId), "alice2": MsgMention(memberId: t.aliceMemberId),
                                          "hidden": MsgMention(memberId: ghosts[5])]
        for (i, id) in ghosts.prefix(5).enumerated() { wire["g\(i)"] = MsgMention(memberId: id) }
        let text = "@alice @alice2 @g0 @g1 @g2 @g3 @g4 look"
        let msg = ChatMessage(chatVRange: Self.v16, msgId: .random(), event: .msgNew(MsgContainer(content: .text(text), mentions: wire)))
        _ = try await bob.c.sendToAgent(t.bobToAlice, try msg.encoded())
        let got = try await alice.event("newChatItems") { itemText($0) == text }
        let kept = mentions(firstItem(got))
        #expect(Set(kept.keys) == ["alice", "g0", "g1", "g2", "g3"], "\(kept.keys.sorted())")
        #expect(refGm(kept["alice"]) != nil && kept["g0"]?["memberRef"] == nil)
        #expect(kept["g2"]?["memberId"] as? String == ghosts[2].base64url)
        #expect(userMention(firstItem(got)) == true)

        // Mentions of others only: not for us.
        let other = ChatMessage(chatVRange: Self.v16, msgId: .random(),
                                event: .msgNew(MsgContainer(content: .text("@g0 hi"), mentions: ["g0": MsgMention(memberId: ghosts[0])])))
        _ = try await bob.c.sendToAgent(t.bobToAlice, try other.encoded())
        let notUs = try await alice.event("newChatItems") { itemText($0) == "@g0 hi" }
        #expect(userMention(firstItem(notUs)) == false)
        #expect(mentions(firstItem(notUs)).count == 1)

        await relay.shutdown()
        await alice.c.close()
        await bob.c.close()
    }
}
