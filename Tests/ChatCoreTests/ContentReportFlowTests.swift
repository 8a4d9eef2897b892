import Foundation
import SMPAgent
import Testing

@testable import ChatCore

private func groupId(_ e: [String: Any]) -> Int64? {
    ((e["groupInfo"] as? [String: Any])?["groupId"] as? NSNumber)?.int64Value
}

private func memberName(_ e: [String: Any], _ key: String = "member") -> String? {
    (((e[key] as? [String: Any])?["memberProfile"] as? [String: Any])?["displayName"] as? String)
}

private func msgContent(_ e: [String: Any]) -> [String: Any]? {
    (firstItem(e)?["content"] as? [String: Any])?["msgContent"] as? [String: Any]
}

/// Content reports (chat version 12) between real cores over a real relay.
@Suite(.serialized) struct ContentReportFlowTests {
    /// Bob reports Carol's message: the report (x.msg.new with `report` content quoting it) reaches
    /// Alice, the owner, and never Carol, a member; a report sent to a member anyway is refused.
    @Test func reportReachesModeratorsOnly() async throws {
        let dir = NSTemporaryDirectory() + "reports-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (relay, server) = try await startRelay(dir)
        let alice = try await versionedClient("alice", dir: dir, server: server, 1...12)
        let bob = try await versionedClient("bob", dir: dir, server: server, 1...12)
        let carol = try await versionedClient("carol", dir: dir, server: server, 1...12)
        let g = try #require(groupId(try await alice.cmd(#"/_group 1 {"displayName":"club","fullName":""}"#)))
        let created = try await alice.cmd("/_create link #\(g) member")
        let link = try #require(((created["groupLink"] as? [String: Any])?["connLinkContact"] as? [String: Any])?["connFullLink"] as? String)
        try await bob.cmd("/_connect 1 \(link)")
        let bg = try #require(groupId(try await bob.event("userJoinedGroup")))
        try await carol.cmd("/_connect 1 \(link)")
        let cg = try #require(groupId(try await carol.event("userJoinedGroup")))
        try await bob.event("connectedToGroupMember", timeout: 20) { memberName($0) == "carol" }
        try await carol.event("connectedToGroupMember", timeout: 20) { memberName($0) == "bob" }

        try await carol.cmd(#"/_send #\#(cg) json [{"msgContent":{"type":"text","text":"cheap pills here"}}]"#)
        let spam = try await bob.event("newChatItems") { itemText($0) == "cheap pills here" }
        let spamId = try #require(itemId(spam))
        try await alice.event("newChatItems") { itemText($0) == "cheap pills here" }

        let sent = try await bob.cmd("/_report #\(bg) \(spamId) reason=spam selling pills")
        #expect(sent["type"] as? String == "newChatItems")
        let report = try await alice.event("newChatItems") { msgContent($0)?["type"] as? String == "report" }
        #expect(msgContent(report)?["reason"] as? String == "spam")
        #expect(msgContent(report)?["text"] as? String == "selling pills")
        let quoted = ((firstItem(report)?["quotedItem"] as? [String: Any])?["content"] as? [String: Any])?["text"] as? String
        #expect(quoted == "cheap pills here", "the report quotes the reported message")

        // Carol (a member) gets the next message but never the report.
        try await bob.cmd(#"/_send #\#(bg) json [{"msgContent":{"type":"text","text":"after the report"}}]"#)
        try await carol.event("newChatItems") { itemText($0) == "after the report" }
        #expect(try await carol.c.testCount("SELECT count(*) FROM chat_items WHERE item_content LIKE '%\"report\"%'") == 0)

        // A report sent to a member anyway (as a peer could) is refused there: no item.
        let toCarol = try #require(try await bob.c.testString("""
            SELECT c.agent_conn_id FROM connections c JOIN group_members m ON m.group_member_id = c.group_member_id
            WHERE m.group_id = \(bg) AND m.local_display_name = 'carol'
            """))
        let forged = try ChatMessage(chatVRange: VersionRange(1...12), msgId: .random(),
                                     event: .msgNew(MsgContainer(content: .report(text: "", reason: .spam)))).encoded(maxSize: nil)
        _ = try await bob.c.sendToAgent(toCarol, forged)
        let refused = try await carol.event("messageError")
        #expect((refused["errorMessage"] as? String)?.contains("not a moderator") == true)
        #expect(try await carol.c.testCount("SELECT count(*) FROM chat_items WHERE item_content LIKE '%\"report\"%'") == 0)

        // No moderator to take it: refused, nothing sent.
        let solo = try #require(groupId(try await carol.cmd(#"/_group 1 {"displayName":"solo","fullName":""}"#)))
        let own = try await carol.cmd(#"/_send #\#(solo) json [{"msgContent":{"type":"text","text":"alone"}}]"#)
        let ownId = try #require(itemId(own))
        let noMods = try await carol.cmdError("/_report #\(solo) \(ownId) reason=other")
        #expect(String(describing: noMods).contains("no moderators support receiving reports"))

        await relay.shutdown()
        await alice.c.close()
        await bob.c.close()
        await carol.c.close()
    }

    /// Moderators deal with reports (simplex-chat APIArchiveReceivedReports, APIDeleteReceivedReports,
    /// `markMessageReportsDeleted`): moderating a reported message archives its reports at every
    /// moderator; `/_archive reports` archives the rest; `/_delete reports` takes received
    /// reports only. Also the terminal's `/report #group @member reason text`.
    @Test func moderatorsArchiveAndDeleteReports() async throws {
        let dir = NSTemporaryDirectory() + "reports-archive-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (relay, server) = try await startRelay(dir)
        let alice = try await versionedClient("alice", dir: dir, server: server, 1...12)
        let bob = try await versionedClient("bob", dir: dir, server: server, 1...12)
        let carol = try await versionedClient("carol", dir: dir, server: server, 1...12)
        let g = try #require(groupId(try await alice.cmd(#"/_group 1 {"displayName":"club","fullName":""}"#)))
        let created = try await alice.cmd("/_create link #\(g) member")
        let link = try #require(((created["groupLink"] as? [String: Any])?["connLinkContact"] as? [String: Any])?["connFullLink"] as? String)
        try await bob.cmd("/_connect 1 \(link)")
        let bg = try #require(groupId(try await bob.event("userJoinedGroup")))
        let bobAtAlice = try await alice.event("joinedGroupMember") { memberName($0) == "bob" }
        let bobGm = try #require(((bobAtAlice["member"] as? [String: Any])?["groupMemberId"] as? NSNumber)?.int64Value)
        try await carol.cmd("/_connect 1 \(link)")
        let cg = try #require(groupId(try await carol.event("userJoinedGroup")))
        try await carol.event("connectedToGroupMember", timeout: 20) { memberName($0) == "bob" }
        try await bob.event("connectedToGroupMember", timeout: 20) { memberName($0) == "carol" }
        // Bob becomes a moderator: reports go to him as well.
        try await alice.cmd("/_member role #\(g) \(bobGm) moderator")
        try await carol.event("memberRole") { $0["toRole"] as? String == "moderator" }
        try await bob.event("memberRole") { $0["toRole"] as? String == "moderator" }

        try await carol.cmd(#"/_send #\#(cg) json [{"msgContent":{"type":"text","text":"buy pills"}}]"#)
        try await carol.cmd(#"/_send #\#(cg) json [{"msgContent":{"type":"text","text":"buy more pills"}}]"#)
        let spam1 = try #require(itemId(try await alice.event("newChatItems") { itemText($0) == "buy pills" }))
        try await alice.event("newChatItems") { itemText($0) == "buy more pills" }
        try await bob.event("newChatItems") { itemText($0) == "buy more pills" }
        let carolItems = try #require(try await carol.cmd("/_get chat #\(cg) count=10")["chat"] as? [String: Any])
        let firstSpam = try #require((carolItems["chatItems"] as? [[String: Any]])?.first { ($0["meta"] as? [String: Any])?["itemText"] as? String == "buy pills" })
        let firstSpamId = try #require(((firstSpam["meta"] as? [String: Any])?["itemId"] as? NSNumber)?.int64Value)
        // Carol reports her own first message by ID and the second by text (the terminal command).
        try await carol.cmd("/_report #\(cg) \(firstSpamId) reason=spam first")
        let byText = try await carol.cmd("/report #club @carol spam buy more")
        #expect(byText["type"] as? String == "newChatItems")
        let quoted = ((firstItem(byText)?["quotedItem"] as? [String: Any])?["content"] as? [String: Any])?["text"] as? String
        #expect(quoted == "buy more pills", "the latest message starting with the text")
        try await carol.cmdError("/report #club @carol spam no such message")
        try await carol.cmdError("/report #nosuchgroup spam buy")

        let reportFirst = try #require(itemId(try await alice.event("newChatItems") { msgContent($0)?["text"] as? String == "first" }))
        let reportSecond = try #require(itemId(try await alice.event("newChatItems") {
            msgContent($0)?["type"] as? String == "report" && msgContent($0)?["text"] as? String == ""
        }))
        let bobReport = try #require(itemId(try await bob.event("newChatItems") { msgContent($0)?["text"] as? String == "first" }))
        try await bob.event("newChatItems") { msgContent($0)?["type"] as? String == "report" && msgContent($0)?["text"] as? String == "" }
        func reportsCount(_ c: Client) async throws -> Int? {
            let chats = try #require(try await c.cmd("/_get chats 1 count=10")["chats"] as? [[String: Any]])
            let group = chats.first { (($0["chatInfo"] as? [String: Any])?["groupInfo"] as? [String: Any]) != nil }
            return ((group?["chatStats"] as? [String: Any])?["reportsCount"] as? NSNumber)?.intValue
        }
        #expect(try await reportsCount(alice) == 2)

        // Alice moderates the first message: its report is archived at Alice and at Bob.
        let moderated = try await alice.cmd("/_delete member item #\(g) \(spam1)")
        #expect(moderated["type"] as? String == "chatItemsDeleted")
        let archived = try await alice.event("groupChatItemsDeleted")
        #expect((archived["chatItemIDs"] as? [NSNumber])?.map(\.int64Value) == [reportFirst])
        #expect(archived["byUser"] as? Bool == true)
        let atBob = try await bob.event("groupChatItemsDeleted")
        #expect((atBob["chatItemIDs"] as? [NSNumber])?.map(\.int64Value) == [bobReport])
        #expect(atBob["byUser"] as? Bool == false)
        #expect(memberName(atBob, "member_") == "alice", "archived by the moderator who deleted the message")
        #expect(try await reportsCount(alice) == 1)

        // Only received reports may be deleted with /_delete reports.
        let notReport = try await alice.cmdError("/_delete reports #\(g) \(spam1) internal")
        #expect(String(describing: notReport).contains("some items are not received reports"))
        // Broadcast: Bob's copy of the second report is moderated too.
        let deleted = try await alice.cmd("/_delete reports #\(g) \(reportSecond) broadcast")
        #expect(deleted["type"] as? String == "chatItemsDeleted")
        let deletion = (deleted["chatItemDeletions"] as? [[String: Any]])?.first
        let mark = (((deletion?["toChatItem"] as? [String: Any])?["chatItem"] as? [String: Any])?["meta"] as? [String: Any])?["itemDeleted"] as? [String: Any]
        #expect(mark?["type"] as? String == "moderated")
        // (Bob's earlier chatItemsDeleted is for the moderated message itself.)
        let bobDeleted = try await bob.event("chatItemsDeleted") { e in
            let item = ((e["chatItemDeletions"] as? [[String: Any]])?.first?["deletedChatItem"] as? [String: Any])?["chatItem"] as? [String: Any]
            return ((item?["content"] as? [String: Any])?["msgContent"] as? [String: Any])?["type"] as? String == "report"
        }
        let bobMark = ((((bobDeleted["chatItemDeletions"] as? [[String: Any]])?.first?["toChatItem"] as? [String: Any])?["chatItem"] as? [String: Any])?["meta"] as? [String: Any])?["itemDeleted"] as? [String: Any]
        #expect(bobMark?["type"] as? String == "moderated")
        #expect(try await reportsCount(alice) == 0)
        #expect(try await reportsCount(bob) == 0)

        // Archiving: a new report, then /_archive reports marks it deleted by us.
        try await carol.cmd(#"/_send #\#(cg) json [{"msgContent":{"type":"text","text":"third pills"}}]"#)
        try await alice.event("newChatItems") { itemText($0) == "third pills" }
        try await carol.cmd("/report #club spam third")
        let third = try #require(itemId(try await alice.event("newChatItems") { msgContent($0)?["type"] as? String == "report" }))
        #expect(try await reportsCount(alice) == 1)
        let archive = try await alice.cmd("/_archive reports #\(g)")
        #expect(archive["type"] as? String == "groupChatItemsDeleted")
        #expect((archive["chatItemIDs"] as? [NSNumber])?.map(\.int64Value) == [third])
        #expect(memberName(archive, "member_") == "alice")
        #expect(try await reportsCount(alice) == 0)
        let again = try await alice.cmd("/_archive reports #\(g)")
        #expect((again["chatItemIDs"] as? [NSNumber])?.isEmpty == true, "archived reports stay archived")
        // internal: removed here only.
        let removed = try await alice.cmd("/_delete reports #\(g) \(third) internal")
        #expect(((removed["chatItemDeletions"] as? [[String: Any]])?.first?["toChatItem"]) == nil)
        #expect(try await alice.c.testCount("SELECT count(*) FROM chat_items WHERE chat_item_id = \(third)") == 0)
        _ = bg

        await relay.shutdown()
        await alice.c.close()
        await bob.c.close()
        await carol.c.close()
    }

    /// Chat version 15+ (simplex-chat 7.0): a report goes in the reporter's support chat (x.msg.new
    /// with scope `member` naming the reporter), still quoting the message and still to moderators only.
    @Test func reportGoesInReportersSupportChat() async throws {
        let dir = NSTemporaryDirectory() + "reports-scope-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (relay, server) = try await startRelay(dir)
        let alice = try await versionedClient("alice", dir: dir, server: server, 1...16)
        let bob = try await versionedClient("bob", dir: dir, server: server, 1...16)
        let carol = try await versionedClient("carol", dir: dir, server: server, 1...16)
        let g = try #require(groupId(try await alice.cmd(#"/_group 1 {"displayName":"club","fullName":""}"#)))
        let created = try await alice.cmd("/_create link #\(g) member")
        let link = try #require(((created["groupLink"] as? [String: Any])?["connLinkContact"] as? [String: Any])?["connFullLink"] as? String)
        try await bob.cmd("/_connect 1 \(link)")
        let bg = try #require(groupId(try await bob.event("userJoinedGroup")))
        try await carol.cmd("/_connect 1 \(link)")
        let cg = try #require(groupId(try await carol.event("userJoinedGroup")))
        try await bob.event("connectedToGroupMember", timeout: 20) { memberName($0) == "carol" }
        try await carol.event("connectedToGroupMember", timeout: 20) { memberName($0) == "bob" }

        try await carol.cmd(#"/_send #\#(cg) json [{"msgContent":{"type":"text","text":"rude words"}}]"#)
        let rude = try #require(itemId(try await bob.event("newChatItems") { itemText($0) == "rude words" }))
        try await alice.event("newChatItems") { itemText($0) == "rude words" }

        let sent = try await bob.cmd("/_report #\(bg) \(rude) reason=content too rude")
        let sentInfo = (sent["chatItems"] as? [[String: Any]])?.first?["chatInfo"] as? [String: Any]
        #expect((sentInfo?["groupChatScope"] as? [String: Any])?["type"] as? String == "memberSupport", "our own support chat: \(sent)")
        let report = try await alice.event("newChatItems") { msgContent($0)?["type"] as? String == "report" }
        let scope = ((report["chatItems"] as? [[String: Any]])?.first?["chatInfo"] as? [String: Any])?["groupChatScope"] as? [String: Any]
        #expect(scope?["type"] as? String == "memberSupport")
        #expect(memberName(scope ?? [:], "groupMember_") == "bob", "in Bob's support chat")
        let quoted = ((firstItem(report)?["quotedItem"] as? [String: Any])?["content"] as? [String: Any])?["text"] as? String
        #expect(quoted == "rude words")
        // Not in the main chat; the moderator's report count includes it; /_archive reports archives it.
        let main = try await alice.cmd("/_get chat #\(g) count=50")
        let mainItems = ((main["chat"] as? [String: Any])?["chatItems"] as? [[String: Any]]) ?? []
        #expect(!mainItems.contains { (($0["content"] as? [String: Any])?["msgContent"] as? [String: Any])?["type"] as? String == "report" })
        let archived = try await alice.cmd("/_archive reports #\(g)")
        #expect((archived["chatItemIDs"] as? [NSNumber])?.count == 1)
        // Carol, a member, never gets it.
        try await bob.cmd(#"/_send #\#(bg) json [{"msgContent":{"type":"text","text":"after"}}]"#)
        try await carol.event("newChatItems") { itemText($0) == "after" }
        #expect(try await carol.c.testCount("SELECT count(*) FROM chat_items WHERE item_content LIKE '%\"report\"%'") == 0)
        // A scoped report sent to a member anyway (a misbehaving peer) is refused there, and the
        // connection goes on working.
        let toCarol = try #require(try await bob.c.testString("""
            SELECT c.agent_conn_id FROM connections c JOIN group_members m ON m.group_member_id = c.group_member_id
            WHERE m.group_id = \(bg) AND m.local_display_name = 'carol'
            """))
        let bobId = try #require(try await bob.c.testString("SELECT member_id FROM group_members WHERE group_id = \(bg) AND member_category = 'user'"))
        let forged = try ChatMessage(chatVRange: VersionRange(1...16), msgId: .random(),
                                     event: .msgNew(MsgContainer(content: .report(text: "", reason: .spam),
                                                                 scope: .member(memberId: try #require(MemberId(base64url: bobId)))))).encoded(maxSize: nil)
        _ = try await bob.c.sendToAgent(toCarol, forged)
        let refused = try await carol.event("messageError")
        #expect((refused["errorMessage"] as? String)?.contains("not a moderator") == true)
        try await bob.cmd(#"/_send #\#(bg) json [{"msgContent":{"type":"text","text":"still fine"}}]"#)
        try await carol.event("newChatItems") { itemText($0) == "still fine" }
        #expect(try await carol.c.testCount("SELECT count(*) FROM chat_items WHERE item_content LIKE '%\"report\"%'") == 0)

        await relay.shutdown()
        await alice.c.close()
        await bob.c.close()
        await carol.c.close()
    }
}
