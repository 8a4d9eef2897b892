import Foundation
import SMPAgent
import Testing

@testable import ChatCore

/// `groupInfo.membersRequireAttention` as simplex-chat's stored counter, step by step through a
/// review: a held joiner counts once its connection is up (not at its request), its support chat
/// messages and our reading of them, and its admission (`increaseGroupMembersRequireAttention`,
/// `updateChatTsStats`, `updateSupportChatItemsRead`, `updateGroupMembersRequireAttention`).
@Suite(.serialized) struct AttentionCounterFlowTests {
    static let v16 = VersionRange(min: 1, max: 16)!

    private func counter(_ c: Client, _ g: Int64) async throws -> Int? {
        let info = try await c.cmd("/_members #\(g)")["group"].flatMap { ($0 as? [String: Any])?["groupInfo"] as? [String: Any] }
        return (info?["membersRequireAttention"] as? NSNumber)?.intValue
    }

    @Test func theCounterFollowsAReview() async throws {
        let dir = NSTemporaryDirectory() + "attention-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (relay, server) = try await startRelay(dir)
        let alice = try await Client("alice", dir: dir, server: server) { $0.chatVRange = Self.v16 }
        var bob = try await Client("bob", dir: dir, server: server) { $0.chatVRange = Self.v16 }
        let created = try await alice.cmd(#"/_group 1 {"displayName":"club","fullName":"","memberAdmission":{"review":"all"}}"#)
        let g = try #require(((created["groupInfo"] as? [String: Any])?["groupId"] as? NSNumber)?.int64Value)
        let linkResp = try await alice.cmd("/_create link #\(g) member")
        let link = try #require(((linkResp["groupLink"] as? [String: Any])?["connLinkContact"] as? [String: Any])?["connFullLink"] as? String)

        // Bob asks to join and goes away before the connection is up: Alice holds him for review,
        // but the release counts him only at CON.
        try await bob.cmd("/_connect 1 \(link)")
        await bob.c.close()
        try await alice.event("acceptingGroupJoinRequestMember")
        #expect(try await counter(alice, g) == 0)

        // Bob is back: CON, he counts.
        bob = try await Client("bob", dir: dir, server: server, create: false) { $0.chatVRange = Self.v16 }
        let joined = try await alice.event("joinedGroupMember", timeout: 30)
        let bobGm = try #require(((joined["member"] as? [String: Any])?["groupMemberId"] as? NSNumber)?.int64Value)
        #expect(try await counter(alice, g) == 1)
        let bobJoined = try await bob.event("userJoinedGroup", timeout: 30)
        let bg = try #require(((bobJoined["groupInfo"] as? [String: Any])?["groupId"] as? NSNumber)?.int64Value)

        // His question in his support chat: still one member to look at; reading it does not change
        // that while he is pending.
        try await bob.cmd(#"/_send #\#(bg)(_support) json [{"msgContent":{"type":"text","text":"may I join?"}}]"#)
        try await alice.event("newChatItems") { itemText($0) == "may I join?" }
        #expect(try await counter(alice, g) == 1)
        try await alice.cmd("/_read chat #\(g)(_support:\(bobGm))")
        #expect(try await counter(alice, g) == 1)

        // Admitted: nobody to look at.
        try await alice.cmd("/_accept member #\(g) \(bobGm) member")
        #expect(try await counter(alice, g) == 0)

        // A member's new support message counts again until it is read.
        try await bob.cmd(#"/_send #\#(bg)(_support) json [{"msgContent":{"type":"text","text":"thanks!"}}]"#)
        try await alice.event("newChatItems", timeout: 20) { itemText($0) == "thanks!" }
        #expect(try await counter(alice, g) == 1)
        try await alice.cmd("/_read chat #\(g)(_support:\(bobGm))")
        #expect(try await counter(alice, g) == 0)

        await alice.c.close()
        await bob.c.close()
        await relay.shutdown()
    }

    /// Bob's support chat counters at Alice (`unread`, `memberAttention`), nil without a support chat.
    private func bobSupport(_ alice: Client, _ g: Int64) async throws -> (unread: Int, attention: Int)? {
        guard let chat = try await SupportChatFlowTests.bobAtAlice(alice, g)?["supportChat"] as? [String: Any] else { return nil }
        return ((chat["unread"] as? NSNumber)?.intValue ?? -1, (chat["memberAttention"] as? NSNumber)?.intValue ?? -1)
    }

    private func errorMessage(_ e: [String: Any]) -> String? {
        (e["errorType"] as? [String: Any])?["message"] as? String
    }

    /// The two remaining sites of the counter, with their commands: reading a list of support chat
    /// items (`/_read chat items`, simplex-chat `updateGroupScopeUnreadStats`) and deleting a
    /// member's support chat (`/_delete member chat`, `deleteGroupMemberSupportChat`); and reading the
    /// whole support chat clears the member's attention count (`updateSupportChatItemsRead`), even for
    /// messages already read by item.
    @Test func readingItemsAndDeletingTheSupportChat() async throws {
        try await withFlow("attention-items") { flow in
            let alice = try await flow.client("alice"), bob = try await flow.client("bob")
            let t = try await LinkedGroup.make(alice, bob, profileJSON: #"{"displayName":"club","fullName":"","memberAdmission":{"review":"all"}}"#, held: true)
            try await alice.event("newChatItems") { (($0["chatItems"] as? [[String: Any]])?.first?["chatInfo"] as? [String: Any])?["groupChatScope"] != nil }
            #expect(try await counter(alice, t.g) == 1)
            let pending = try await alice.cmdError("/_delete member chat #\(t.g) \(t.bobGm)")
            #expect(errorMessage(pending) == "member is pending", "\(pending)")
            let read = try await alice.cmd("/_read chat #\(t.g)(_support:\(t.bobGm))")
            #expect(read["type"] as? String == "memberSupportChatRead")
            try await alice.cmd("/_accept member #\(t.g) \(t.bobGm) member")
            #expect(try await counter(alice, t.g) == 0)

            // Bob asks; Alice reads his message by item in the main chat's list: his counters stay.
            try await bob.cmd(#"/_send #\#(t.bg)(_support) json [{"msgContent":{"type":"text","text":"q1"}}]"#)
            let q1 = try #require(itemId(try await alice.event("newChatItems", timeout: 20) { itemText($0) == "q1" }))
            #expect(try await counter(alice, t.g) == 1)
            let listRead = try await alice.cmd("/_read chat items #\(t.g) \(q1)")
            #expect(listRead["type"] as? String == "itemsReadForChat")
            #expect(try await bobSupport(alice, t.g)?.attention == 1)
            // Reading his support chat clears his attention count (before: lowered only by his unread messages).
            try await alice.cmd("/_read chat #\(t.g)(_support:\(t.bobGm))")
            #expect(try await bobSupport(alice, t.g)?.attention == 0)
            #expect(try await counter(alice, t.g) == 0)

            // Two more: read one by one in his support chat, the counters go down with each.
            try await bob.cmd(#"/_send #\#(t.bg)(_support) json [{"msgContent":{"type":"text","text":"q2"}}]"#)
            let q2 = try #require(itemId(try await alice.event("newChatItems", timeout: 20) { itemText($0) == "q2" }))
            try await bob.cmd(#"/_send #\#(t.bg)(_support) json [{"msgContent":{"type":"text","text":"q3"}}]"#)
            let q3 = try #require(itemId(try await alice.event("newChatItems", timeout: 20) { itemText($0) == "q3" }))
            #expect(try await bobSupport(alice, t.g).map { [$0.unread, $0.attention] } == [2, 2])
            #expect(try await counter(alice, t.g) == 1)
            let one = try await alice.cmd("/_read chat items #\(t.g)(_support:\(t.bobGm)) \(q2)")
            let info = ((one["chatInfo"] as? [String: Any])?["groupInfo"] as? [String: Any])
            #expect((info?["membersRequireAttention"] as? NSNumber)?.intValue == 1)
            #expect(try await bobSupport(alice, t.g).map { [$0.unread, $0.attention] } == [1, 1])
            try await alice.cmd("/_read chat items #\(t.g)(_support:\(t.bobGm)) \(q3),\(q2)")
            #expect(try await bobSupport(alice, t.g).map { [$0.unread, $0.attention] } == [0, 0])
            #expect(try await counter(alice, t.g) == 0)

            // Deleting his support chat: its items and counters go, and he no longer counts.
            try await bob.cmd(#"/_send #\#(t.bg)(_support) json [{"msgContent":{"type":"text","text":"q4"}}]"#)
            try await alice.event("newChatItems", timeout: 20) { itemText($0) == "q4" }
            #expect(try await counter(alice, t.g) == 1)
            let deleted = try await alice.cmd("/_delete member chat #\(t.g) \(t.bobGm)")
            #expect(deleted["type"] as? String == "memberSupportChatDeleted")
            #expect((deleted["member"] as? [String: Any])?["supportChat"] == nil)
            #expect(((deleted["groupInfo"] as? [String: Any])?["membersRequireAttention"] as? NSNumber)?.intValue == 0)
            #expect(try await counter(alice, t.g) == 0)
            #expect(try await bobSupport(alice, t.g) == nil)
            let support = try await alice.cmd("/_get chat #\(t.g)(_support:\(t.bobGm)) count=50")
            #expect(((support["chat"] as? [String: Any])?["chatItems"] as? [[String: Any]])?.isEmpty == true)
            let none = try await alice.cmdError("/_delete member chat #\(t.g) \(t.bobGm)")
            #expect(errorMessage(none) == "member has no support chat", "\(none)")
        }
    }
}
