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
}
