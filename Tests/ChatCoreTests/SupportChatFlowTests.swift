import Foundation
import SMPAgent
import Testing

@testable import ChatCore

private func supportChat(_ member: [String: Any]?) -> [String: Any]? {
    member?["supportChat"] as? [String: Any]
}

private func count(_ chat: [String: Any]?, _ key: String) -> Int? {
    (chat?[key] as? NSNumber)?.intValue
}

private func scopeOf(_ e: [String: Any]) -> String? {
    guard let info = (e["chatItems"] as? [[String: Any]])?.first?["chatInfo"] as? [String: Any],
          let scope = info["groupChatScope"] as? [String: Any] else { return nil }
    return ((scope["groupMember_"] as? [String: Any])?["memberProfile"] as? [String: Any])?["displayName"] as? String ?? ""
}

/// Member support chats (chat version 15, issue 13) between two real cores over a real relay:
/// the counters on GroupMember.supportChat, mentions and quotes in a support chat, and the
/// `scope` of x.msg.update / x.msg.react checked against the item's chat.
@Suite(.serialized) struct SupportChatFlowTests {
    static let v16 = VersionRange(min: 1, max: 16)!

    /// Bob's member row at Alice (from `/_members`).
    static func bobAtAlice(_ alice: Client, _ g: Int64) async throws -> [String: Any]? {
        let r = try await alice.cmd("/_members #\(g)")
        let members = ((r["group"] as? [String: Any])?["members"] as? [[String: Any]]) ?? []
        return members.first { (($0["memberProfile"] as? [String: Any])?["displayName"] as? String) == "bob" }
    }

    @Test func supportChatCountersMentionsQuotesAndScopes() async throws {
        let dir = NSTemporaryDirectory() + "support-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (relay, server) = try await startRelay(dir)
        let alice = try await Client("alice", dir: dir, server: server) { $0.chatVRange = Self.v16 }
        let bob = try await Client("bob", dir: dir, server: server) { $0.chatVRange = Self.v16 }
        let t = try await LinkedGroup.make(alice, bob, profileJSON: #"{"displayName":"club","fullName":"","memberAdmission":{"review":"all"}}"#, held: true)
        try await alice.event("newChatItems") { scopeOf($0) == "bob" }

        // The review item opens Bob's support chat at Alice: one unread item needing attention.
        var counters = supportChat(try await Self.bobAtAlice(alice, t.g))
        #expect(count(counters, "unread") == 1 && count(counters, "memberAttention") == 1 && count(counters, "mentions") == 0, "\(String(describing: counters))")
        let info = try await alice.cmd("/_members #\(t.g)")["group"].flatMap { ($0 as? [String: Any])?["groupInfo"] as? [String: Any] }
        #expect((info?["membersRequireAttention"] as? NSNumber)?.intValue == 1)

        // Bob asks, mentioning Alice: unread, attention and mentions grow, his last message time is kept.
        let asked = try await bob.cmd(#"/_send #\#(t.bg)(_support) json [{"msgContent":{"type":"text","text":"@alice may I join?"},"mentions":{"alice":\#(t.aliceAtBob)}}]"#)
        #expect(((firstItem(asked)?["mentions"] as? [String: Any])?["alice"]) != nil)
        let got = try await alice.event("newChatItems") { itemText($0) == "@alice may I join?" }
        #expect(scopeOf(got) == "bob")
        #expect((firstItem(got)?["meta"] as? [String: Any])?["userMention"] as? Bool == true)
        counters = supportChat(try await Self.bobAtAlice(alice, t.g))
        #expect(count(counters, "unread") == 2 && count(counters, "memberAttention") == 2 && count(counters, "mentions") == 1, "\(String(describing: counters))")
        #expect(counters?["lastMsgFromMemberTs"] is String)

        // Alice answers quoting him: the attention is cleared; Bob's own support chat counts it.
        let askedAtAlice = try #require(itemId(got))
        try await alice.cmd(#"/_send #\#(t.g)(_support:\#(t.bobGm)) json [{"quotedItemId":\#(askedAtAlice),"msgContent":{"type":"text","text":"tell me more"}}]"#)
        let answer = try await bob.event("newChatItems") { itemText($0) == "tell me more" }
        #expect(scopeOf(answer) == "")
        let quote = firstItem(answer)?["quotedItem"] as? [String: Any]
        #expect(((quote?["content"] as? [String: Any])?["text"] as? String) == "@alice may I join?")
        #expect((firstItem(answer)?["meta"] as? [String: Any])?["userMention"] as? Bool == true, "a reply to Bob's message")
        let bobOwn = supportChat(((answer["chatItems"] as? [[String: Any]])?.first?["chatInfo"] as? [String: Any])
            .flatMap { ($0["groupInfo"] as? [String: Any])?["membership"] as? [String: Any] })
        #expect(count(bobOwn, "unread") == 1 && count(bobOwn, "mentions") == 1 && count(bobOwn, "memberAttention") == 0, "\(String(describing: bobOwn))")
        counters = supportChat(try await Self.bobAtAlice(alice, t.g))
        #expect(count(counters, "memberAttention") == 0 && count(counters, "unread") == 2, "\(String(describing: counters))")

        // A quote of an item of another chat is refused.
        let mainItem = try await alice.cmd(#"/_send #\#(t.g) json [{"msgContent":{"type":"text","text":"main chat"}}]"#)
        let mainId = try #require(itemId(mainItem))
        _ = try await alice.cmdError(#"/_send #\#(t.g)(_support:\#(t.bobGm)) json [{"quotedItemId":\#(mainId),"msgContent":{"type":"text","text":"x"}}]"#)

        // Read: the unread items and mentions are gone.
        try await alice.cmd("/_read chat #\(t.g)(_support:\(t.bobGm))")
        counters = supportChat(try await Self.bobAtAlice(alice, t.g))
        #expect(count(counters, "unread") == 0 && count(counters, "mentions") == 0, "\(String(describing: counters))")

        // Scopes: an edit of Bob's support message without its scope names an item of another
        // chat and is refused (nothing changes); with the scope it is applied there.
        let bobItemShared = try #require(try await bob.c.testString(
            "SELECT shared_msg_id FROM chat_items WHERE group_id = \(t.bg) AND item_sent = 1 AND item_text = '@alice may I join?'"))
        let shared = try #require(SharedMsgId(base64url: bobItemShared))
        let unscoped = ChatMessage(chatVRange: Self.v16, msgId: .random(),
                                   event: .msgUpdate(.init(msgId: shared, content: .text("edited outside"))))
        _ = try await bob.c.sendToAgent(t.bobToAlice, try unscoped.encoded())
        let refusedEdit = try await alice.event("messageError")
        #expect((refusedEdit["errorMessage"] as? String)?.contains("not in the message's scope") == true, "\(refusedEdit)")
        let scoped = ChatMessage(chatVRange: Self.v16, msgId: .random(),
                                 event: .msgUpdate(.init(msgId: shared, content: .text("edited inside"), scope: .member(memberId: t.bobMemberId))))
        _ = try await bob.c.sendToAgent(t.bobToAlice, try scoped.encoded())
        let edited = try await alice.event("chatItemUpdated")
        let editedItem = edited["chatItem"] as? [String: Any]
        #expect(((editedItem?["chatItem"] as? [String: Any])?["meta"] as? [String: Any])?["itemText"] as? String == "edited inside")
        #expect((((editedItem?["chatInfo"] as? [String: Any])?["groupChatScope"] as? [String: Any])?["type"] as? String) == "memberSupport")
        let supportTexts = (((try await alice.cmd("/_get chat #\(t.g)(_support:\(t.bobGm)) count=50"))["chat"] as? [String: Any])?["chatItems"] as? [[String: Any]] ?? [])
            .compactMap { ($0["meta"] as? [String: Any])?["itemText"] as? String }
        #expect(supportTexts.contains("edited inside") && !supportTexts.contains("edited outside"))

        // A reaction to Alice's support message naming the main chat is refused too.
        let aliceShared = try #require(try await alice.c.testString(
            "SELECT shared_msg_id FROM chat_items WHERE group_id = \(t.g) AND item_sent = 1 AND item_text = 'tell me more'"))
        let react = ChatMessage(chatVRange: Self.v16, msgId: .random(),
                                event: .msgReact(msgId: try #require(SharedMsgId(base64url: aliceShared)), memberId: t.aliceMemberId,
                                                 reaction: .emoji("👍"), add: true))
        _ = try await bob.c.sendToAgent(t.bobToAlice, try react.encoded())
        let refusedReact = try await alice.event("messageError")
        #expect((refusedReact["errorMessage"] as? String)?.contains("x.msg.react") == true, "\(refusedReact)")
        #expect(try await alice.c.testCount("SELECT count(*) FROM chat_item_reactions") == 0)

        // Our own edits, reactions and deletions in a support chat go with its scope; from the main
        // chat its items are not found (they would reach the whole group).
        let answerId = try await alice.c.testCount("SELECT chat_item_id FROM chat_items WHERE item_text = 'tell me more'")
        _ = try await alice.cmdError(#"/_update item #\#(t.g) \#(answerId) json {"msgContent":{"type":"text","text":"leak"}}"#)
        _ = try await alice.cmdError(#"/_reaction #\#(t.g) \#(answerId) on {"type":"emoji","emoji":"👍"}"#)
        _ = try await alice.cmdError(#"/_send #\#(t.g) json [{"quotedItemId":\#(answerId),"msgContent":{"type":"text","text":"quoting"}}]"#)
        try await alice.cmd(#"/_update item #\#(t.g)(_support:\#(t.bobGm)) \#(answerId) json {"msgContent":{"type":"text","text":"tell me more, please"}}"#)
        let bobSees = try await bob.event("chatItemUpdated")
        let bobSeesItem = bobSees["chatItem"] as? [String: Any]
        #expect(((bobSeesItem?["chatItem"] as? [String: Any])?["meta"] as? [String: Any])?["itemText"] as? String == "tell me more, please")
        #expect((((bobSeesItem?["chatInfo"] as? [String: Any])?["groupChatScope"] as? [String: Any])?["type"] as? String) == "memberSupport")
        let answerAtBob = try await bob.c.testCount("SELECT chat_item_id FROM chat_items WHERE item_text = 'tell me more, please'")
        try await bob.cmd(#"/_reaction #\#(t.bg)(_support) \#(answerAtBob) on {"type":"emoji","emoji":"👍"}"#)
        try await alice.event("chatItemReaction")
        #expect(try await alice.c.testCount("SELECT count(*) FROM chat_item_reactions") == 1)
        let askedAtBob = try await bob.c.testCount("SELECT chat_item_id FROM chat_items WHERE item_text = '@alice may I join?'")
        try await bob.cmd("/_delete item #\(t.bg)(_support) \(askedAtBob) broadcast")
        let deleted = try await alice.event("chatItemsDeleted")
        #expect(String(describing: deleted).contains("edited inside"))

        // Alice, a moderator, deletes Bob's message in his support chat for everyone.
        try await bob.cmd(#"/_send #\#(t.bg)(_support) json [{"msgContent":{"type":"text","text":"spam here"}}]"#)
        let spam = try await alice.event("newChatItems") { itemText($0) == "spam here" }
        try await alice.cmd("/_delete item #\(t.g)(_support:\(t.bobGm)) \(try #require(itemId(spam))) broadcast")
        let moderated = try await bob.event("chatItemsDeleted")
        #expect(String(describing: moderated).contains("spam here") && String(describing: moderated).contains("moderated"))

        // x.grp.mem.new with a scope goes to moderators only, and names the announced member: Bob (not
        // a moderator) refuses both forms, and no member is added.
        let aliceToBob = try #require(try await alice.c.testString(
            "SELECT agent_conn_id FROM connections WHERE group_member_id = \(t.bobGm) AND conn_status = 'ready'"))
        let membersBefore = try await bob.c.testCount("SELECT count(*) FROM group_members")
        for scope in [MsgScope.member(memberId: MemberId.random()), nil] {
            let info = MemberInfo(memberId: MemberId.random(), memberRole: .member, profile: Profile(displayName: "stranger"))
            let announce = ChatMessage(chatVRange: Self.v16, msgId: .random(),
                                       event: .grpMemNew(info, scope: scope ?? .member(memberId: info.memberId)))
            _ = try await alice.c.sendToAgent(aliceToBob, try announce.encoded())
            let refused = try await bob.event("messageError")
            #expect((refused["errorMessage"] as? String)?.contains("x.grp.mem.new with a scope") == true, "\(refused)")
        }
        #expect(try await bob.c.testCount("SELECT count(*) FROM group_members") == membersBefore)

        await relay.shutdown()
        await alice.c.close()
        await bob.c.close()
    }
}
