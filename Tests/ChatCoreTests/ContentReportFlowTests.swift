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
}
