import Foundation
import SMPAgent
import SimplexFoundation
import Testing

@testable import ChatCore

private func gid(_ e: [String: Any]) -> Int64? {
    ((e["groupInfo"] as? [String: Any])?["groupId"] as? NSNumber)?.int64Value
}

private func memberOf(_ e: [String: Any]) -> [String: Any]? { e["member"] as? [String: Any] }

private func nameOf(_ m: [String: Any]?) -> String? {
    (m?["memberProfile"] as? [String: Any])?["displayName"] as? String
}

private func gmIdOf(_ m: [String: Any]?) -> Int64? { (m?["groupMemberId"] as? NSNumber)?.int64Value }

/// The scope of an AChatItem: nil for the main chat, "" for the user's own support chat, the
/// member's name for a moderator's view of a member's chat.
private func scope(_ aItem: [String: Any]?) -> String? {
    guard let info = aItem?["chatInfo"] as? [String: Any], let s = info["groupChatScope"] as? [String: Any] else { return nil }
    return nameOf(s["groupMember_"] as? [String: Any]) ?? ""
}

/// The first AChatItem of a newChatItems event, or the one of a file event.
private func aItem(_ e: [String: Any]) -> [String: Any]? {
    (e["chatItems"] as? [[String: Any]])?.first ?? (e["chatItem"] as? [String: Any])
}

private func fileOf(_ e: [String: Any]) -> [String: Any]? {
    (aItem(e)?["chatItem"] as? [String: Any])?["file"] as? [String: Any]
}

private func texts(_ r: [String: Any]) -> [String] {
    (((r["chat"] as? [String: Any])?["chatItems"] as? [[String: Any]]) ?? []).compactMap {
        ($0["meta"] as? [String: Any])?["itemText"] as? String
    }
}

private func link(_ created: [String: Any]) -> String? {
    ((created["groupLink"] as? [String: Any])?["connLinkContact"] as? [String: Any])?["connFullLink"] as? String
}

/// The last gaps of issue 13 between real cores over a real relay (and a real XFTP server): files
/// in member support chats, a member moved from approval to review, the chat list's counts of a
/// group with support chats, and items marked as forwarded by the host.
@Suite(.serialized) struct SupportChatGapsFlowTests {
    static let v16 = VersionRange(min: 1, max: 16)!

    private static func client(_ name: String, _ dir: String, _ relay: String, xftp: String? = nil,
                               _ more: @escaping (inout ChatController.Config) -> Void = { _ in }) async throws -> (Client, String) {
        let folder = dir + "/\(name)-files"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let c = try await Client(name, dir: dir, server: relay) { config in
            config.chatVRange = v16
            config.filesFolder = folder
            if let xftp { config.defaultXFTPServers = [xftp] }
            more(&config)
        }
        return (c, folder)
    }

    private static func members(_ c: Client, _ g: Int64) async throws -> [[String: Any]] {
        ((try await c.cmd("/_members #\(g)")["group"] as? [String: Any])?["members"] as? [[String: Any]]) ?? []
    }

    private static func gmId(_ c: Client, _ g: Int64, _ name: String) async throws -> Int64? {
        gmIdOf(try await members(c, g).first { nameOf($0) == name })
    }

    /// A moderator (carol) and a member (dan) join a group before it reviews members; bob then joins
    /// and is held for review.
    private static func reviewedGroup(_ alice: Client, carol: Client, dan: Client, bob: Client)
        async throws -> (g: Int64, cg: Int64, dg: Int64, bg: Int64, bobGm: Int64, bobAtCarol: Int64) {
        let g = try #require(gid(try await alice.cmd(#"/_group 1 {"displayName":"club","fullName":""}"#)))
        let l = try #require(link(try await alice.cmd("/_create link #\(g) member")))
        try await carol.cmd("/_connect 1 \(l)")
        let carolGm = try #require(gmIdOf(memberOf(try await alice.event("joinedGroupMember") { nameOf(memberOf($0)) == "carol" })))
        let cg = try #require(gid(try await carol.event("userJoinedGroup")))
        try await dan.cmd("/_connect 1 \(l)")
        try await alice.event("joinedGroupMember") { nameOf(memberOf($0)) == "dan" }
        let dg = try #require(gid(try await dan.event("userJoinedGroup")))
        try await carol.event("connectedToGroupMember", timeout: 20) { nameOf(memberOf($0)) == "dan" }
        try await alice.cmd("/_member role #\(g) \(carolGm) moderator")
        try await alice.cmd(#"/_group_profile #\#(g) {"displayName":"club","fullName":"","memberAdmission":{"review":"all"}}"#)
        try await Task.sleep(nanoseconds: 1_000_000_000)
        try await bob.cmd("/_connect 1 \(l)")
        let bobGm = try #require(gmIdOf(memberOf(try await alice.event("joinedGroupMember") { nameOf(memberOf($0)) == "bob" })))
        let bg = try #require(gid(try await bob.event("userJoinedGroup")))
        let announced = try await carol.event("joinedGroupMemberConnecting", timeout: 20) { nameOf(memberOf($0)) == "bob" }
        let bobAtCarol = try #require(gmIdOf(memberOf(announced)))
        try await carol.event("connectedToGroupMember", timeout: 20) { nameOf(memberOf($0)) == "bob" }
        try await bob.event("connectedToGroupMember", timeout: 20) { nameOf(memberOf($0)) == "carol" }
        return (g, cg, dg, bg, bobGm, bobAtCarol)
    }

    /// Files in a support chat (they were refused: "files in support chats are not supported"): the
    /// member's file reaches the host and the moderator in its support chat, a moderator's file
    /// reaches the member; each downloads the same bytes; the plain member gets nothing. A file
    /// offered outside the sender's support chat is refused and stores nothing.
    @Test func filesInSupportChatsReachOnlyThatChat() async throws {
        let dir = NSTemporaryDirectory() + "support-files-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (relay, server) = try await startRelay(dir)
        let xftp = try await FileTestXFTPServer(dir: dir + "/xftp")
        let (alice, aliceFiles) = try await Self.client("alice", dir, server, xftp: xftp.address)
        let (carol, carolFiles) = try await Self.client("carol", dir, server, xftp: xftp.address)
        let (dan, _) = try await Self.client("dan", dir, server, xftp: xftp.address)
        let (bob, bobFiles) = try await Self.client("bob", dir, server, xftp: xftp.address)
        let (g, cg, dg, bg, bobGm, bobAtCarol) = try await Self.reviewedGroup(alice, carol: carol, dan: dan, bob: bob)

        // Bob's file in his own support chat.
        let plea = SecureRandom.bytes(200_000)
        try Data(plea).write(to: URL(fileURLWithPath: bobFiles + "/plea.txt"))
        let sent = try await bob.cmd(#"/_send #\#(bg)(_support) json [{"fileSource":{"filePath":"plea.txt"},"msgContent":{"type":"file","text":"my papers"}}]"#)
        #expect(scope(aItem(sent)) == "" && fileOf(sent)?["fileName"] as? String == "plea.txt")
        let done = try await bob.event("sndFileCompleteXFTP", timeout: 60)
        #expect(scope(aItem(done)) == "", "file events carry the support chat")
        for (c, folder) in [(alice, aliceFiles), (carol, carolFiles)] {
            let offer = try await c.event("newChatItems") { fileOf($0) != nil }
            #expect(scope(aItem(offer)) == "bob")
            let fid = try #require((fileOf(offer)?["fileId"] as? NSNumber)?.int64Value)
            let ready = try await c.event("rcvFileDescrReady", timeout: 60)
            #expect(scope(aItem(ready)) == "bob")
            try await c.cmd("/freceive \(fid)")
            try await c.event("rcvFileComplete", timeout: 60)
            #expect(Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/plea.txt"))) == plea)
        }
        #expect(texts(try await alice.cmd("/_get chat #\(g)(_support:\(bobGm)) count=20")).contains("my papers"))
        #expect(!texts(try await alice.cmd("/_get chat #\(g) count=50")).contains("my papers"), "not in the main chat")

        // Carol's answer with a file in Bob's support chat: Bob and Alice get it.
        let form = SecureRandom.bytes(50_000)
        try Data(form).write(to: URL(fileURLWithPath: carolFiles + "/form.txt"))
        try await carol.cmd(#"/_send #\#(cg)(_support:\#(bobAtCarol)) json [{"fileSource":{"filePath":"form.txt"},"msgContent":{"type":"file","text":""}}]"#)
        try await carol.event("sndFileCompleteXFTP", timeout: 60)
        let got = try await bob.event("newChatItems") { fileOf($0) != nil }
        #expect(scope(aItem(got)) == "")
        try await bob.event("rcvFileDescrReady", timeout: 60)
        try await bob.cmd("/freceive \(try #require((fileOf(got)?["fileId"] as? NSNumber)?.int64Value))")
        try await bob.event("rcvFileComplete", timeout: 60)
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: bobFiles + "/form.txt"))) == form)
        #expect(scope(aItem(try await alice.event("newChatItems") { fileOf($0) != nil })) == "bob")

        // Dan, a plain member, got neither file.
        try await Task.sleep(nanoseconds: 500_000_000)
        #expect(try await dan.c.testString("SELECT count(*) FROM files") == "0")
        #expect(texts(try await dan.cmd("/_get chat #\(dg) count=50")).allSatisfy { $0 != "my papers" })

        // Hostile: bob offers a file in Alice's support chat (not his own): refused, nothing stored.
        let filesBefore = try await alice.c.testString("SELECT count(*) FROM files")
        let toAlice = try #require(try await bob.c.testString(
            "SELECT agent_conn_id FROM connections c JOIN group_members m ON m.group_member_id = c.group_member_id WHERE m.member_category = 'host'"))
        let aliceMemberId = try #require(try await alice.c.testString(
            "SELECT member_id FROM group_members WHERE member_category = 'user' AND group_id = \(g)").flatMap { MemberId(base64url: $0) })
        var sneaky = MsgContainer(content: .file(text: "sneaked"), scope: .member(memberId: aliceMemberId))
        sneaky.file = FileInvitation(fileName: "x.bin", fileSize: 10, fileDescr: ChatController.dummyFileDescr)
        _ = try await bob.c.sendToAgent(toAlice, try ChatMessage(chatVRange: Self.v16, msgId: .random(), event: .msgNew(sneaky)).encoded())
        let refused = try await alice.event("messageError")
        #expect((refused["errorMessage"] as? String)?.contains("outside of its support chat") == true, "\(refused)")
        #expect(try await alice.c.testString("SELECT count(*) FROM files") == filesBefore)

        // Forwarding (chat version 4) keeps support chats to their participants. With every introduction
        // at the host unconfirmed again (so it forwards to them), Carol's message in Bob's support chat
        // does not reach Dan, and Bob's refused main chat message does not reach Carol.
        try await alice.c.testSQL("UPDATE group_member_intros SET intro_status = 'fwd'")
        try await carol.cmd(#"/_send #\#(cg)(_support:\#(bobAtCarol)) json [{"msgContent":{"type":"text","text":"just for bob"}}]"#)
        try await alice.event("newChatItems") { itemText($0) == "just for bob" }
        let unscoped = MsgContainer(content: .text("sneaked in"))
        _ = try await bob.c.sendToAgent(toAlice, try ChatMessage(chatVRange: Self.v16, msgId: .random(), event: .msgNew(unscoped)).encoded())
        try await alice.event("messageError") { ($0["errorMessage"] as? String)?.contains("outside of its support chat") == true }
        try await Task.sleep(nanoseconds: 500_000_000)
        // Anything the host forwarded would arrive before its own next message on the same connection.
        try await alice.cmd(#"/_send #\#(g) json [{"msgContent":{"type":"text","text":"marker"}}]"#)
        try await dan.event("newChatItems") { itemText($0) == "marker" }
        try await carol.event("newChatItems") { itemText($0) == "marker" }
        #expect(!dan.events.contains { $0["type"] as? String == "messageError" || itemText($0) == "just for bob" }, "\(dan.events)")
        #expect(!carol.events.contains { itemText($0) == "sneaked in" })

        // The moderator too refuses what Bob may not send while under review (a main chat message, sent
        // straight to her), and then admits him herself: Alice, the host, learns it and introduces Bob to Dan.
        let toCarol = try #require(try await bob.c.testString("""
            SELECT agent_conn_id FROM connections c JOIN group_members m ON m.group_member_id = c.group_member_id
            WHERE m.member_category <> 'host' AND m.member_category <> 'user' AND c.conn_status = 'ready'
            """))
        _ = try await bob.c.sendToAgent(toCarol, try ChatMessage(chatVRange: Self.v16, msgId: .random(), event: .msgNew(MsgContainer(content: .text("to carol")))).encoded())
        let carolRefused = try await carol.event("messageError")
        #expect((carolRefused["errorMessage"] as? String)?.contains("outside of its support chat") == true, "\(carolRefused)")
        #expect(!texts(try await carol.cmd("/_get chat #\(cg) count=50")).contains("to carol"))
        let admitted = try await carol.cmd("/_accept member #\(cg) \(bobAtCarol) member")
        #expect(memberOf(admitted)?["memberStatus"] as? String == "connected")
        try await bob.event("userJoinedGroup") { (($0["groupInfo"] as? [String: Any])?["membership"] as? [String: Any])?["memberStatus"] as? String == "connected" }
        try await dan.event("connectedToGroupMember", timeout: 20) { nameOf(memberOf($0)) == "bob" }
        #expect(try await Self.members(alice, g).first { gmIdOf($0) == bobGm }?["memberStatus"] as? String == "connected")

        await relay.shutdown()
        for c in [alice, bob, carol, dan] { await c.c.close() }
        await xftp.stop()
    }

    /// simplex-chat APIAcceptMember on a member pending approval in a group that reviews members:
    /// the member goes on to review and meets the moderators (x.grp.link.acpt pending_review to it, its
    /// scoped x.grp.mem.new to them); the member's support chat says so (`userPendingReview`), the
    /// moderator's shows the new member. Admitting it makes the host's items in both chats
    /// (`memberConnected` in the main chat, `memberAccepted` in the support chat).
    @Test func approvalThenReviewTellsTheModerators() async throws {
        let dir = NSTemporaryDirectory() + "support-approval-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (relay, server) = try await startRelay(dir)
        // The host's hook holds bob for approval (as a bot's captcha); everyone else is accepted.
        let (alice, _) = try await Self.client("alice", dir, server) { c in
            c.acceptMember = { _, p in p.displayName == "bob" ? .accept(.pendingApproval, role: .member) : .accept(.accepted, role: .member) }
        }
        let (carol, _) = try await Self.client("carol", dir, server)
        let (bob, _) = try await Self.client("bob", dir, server)
        let g = try #require(gid(try await alice.cmd(#"/_group 1 {"displayName":"club","fullName":""}"#)))
        let l = try #require(link(try await alice.cmd("/_create link #\(g) member")))
        try await carol.cmd("/_connect 1 \(l)")
        let carolGm = try #require(gmIdOf(memberOf(try await alice.event("joinedGroupMember") { nameOf(memberOf($0)) == "carol" })))
        let cg = try #require(gid(try await carol.event("userJoinedGroup")))
        try await alice.cmd("/_member role #\(g) \(carolGm) moderator")
        try await alice.cmd(#"/_group_profile #\#(g) {"displayName":"club","fullName":"","memberAdmission":{"review":"all"}}"#)
        try await Task.sleep(nanoseconds: 1_000_000_000)

        try await bob.cmd("/_connect 1 \(l)")
        let joined = try await alice.event("joinedGroupMember") { nameOf(memberOf($0)) == "bob" }
        #expect(memberOf(joined)?["memberStatus"] as? String == "pending_approval")
        let bobGm = try #require(gmIdOf(memberOf(joined)))
        let bg = try #require(gid(try await bob.event("userJoinedGroup")))
        try await Task.sleep(nanoseconds: 1_000_000_000)
        #expect(try await Self.gmId(carol, cg, "bob") == nil, "no moderator knows a member pending approval")
        // While pending, the connection's items are in the support chat on both sides (`mkGroupChatScope`).
        #expect(texts(try await alice.cmd("/_get chat #\(g)(_support:\(bobGm)) count=10")) == ["connected", "new member wants to join the group"])
        // The host's e2e notice and features too, before "connected" (simplex-chat host CON with `mkGroupChatScope`).
        let bobSupport = texts(try await bob.cmd("/_get chat #\(bg)(_support) count=50"))
        #expect(bobSupport.first == ChatController.e2eInfoNoPQText && bobSupport.last == "connected", "\(bobSupport)")
        #expect(!texts(try await bob.cmd("/_get chat #\(bg) count=50")).contains("connected"))

        // Approved: on to review.
        let toReview = try await alice.cmd("/_accept member #\(g) \(bobGm) member")
        #expect(toReview["type"] as? String == "memberAccepted" && memberOf(toReview)?["memberStatus"] as? String == "pending_review")
        let waiting = try await bob.event("newChatItems") { itemText($0) == "please wait for group moderators to review your request to join the group" }
        #expect(scope(aItem(waiting)) == "")
        let announced = try await carol.event("joinedGroupMemberConnecting", timeout: 20) { nameOf(memberOf($0)) == "bob" }
        #expect(memberOf(announced)?["memberStatus"] as? String == "pending_review")
        let opened = try await carol.event("newChatItems") { scope(aItem($0)) == "bob" }
        #expect((opened["chatItems"] as? [[String: Any]])?.count == 2)
        try await carol.event("connectedToGroupMember", timeout: 20) { nameOf(memberOf($0)) == "bob" }
        let bobAtCarol = try #require(try await Self.gmId(carol, cg, "bob"))
        let carolSupport = texts(try await carol.cmd("/_get chat #\(cg)(_support:\(bobAtCarol)) count=10"))
        // The moderator keeps the member pending review once connected: its `memberConnected` is in the support chat.
        #expect(carolSupport == ["added bob", "new member wants to join the group", "connected"], "\(carolSupport)")
        #expect(try await Self.members(carol, cg).first { nameOf($0) == "bob" }?["memberStatus"] as? String == "pending_review")
        let bobMembership = (try await bob.cmd("/_members #\(bg)")["group"] as? [String: Any])?["groupInfo"] as? [String: Any]
        #expect((bobMembership?["membership"] as? [String: Any])?["memberStatus"] as? String == "pending_review")

        // A member under review is not approved twice; only a pending member can be accepted.
        let carolAtAlice = try await alice.cmdError("/_accept member #\(g) \(carolGm) member")
        #expect(((carolAtAlice["errorType"] as? [String: Any])?["message"] as? String)?.contains("member should be pending approval") == true)

        // Admitted: the host's items in both chats.
        try await alice.cmd("/_accept member #\(g) \(bobGm) member")
        try await bob.event("userJoinedGroup") { (($0["groupInfo"] as? [String: Any])?["membership"] as? [String: Any])?["memberStatus"] as? String == "connected" }
        #expect(texts(try await alice.cmd("/_get chat #\(g)(_support:\(bobGm)) count=10")).last == "you accepted this member")
        #expect(texts(try await alice.cmd("/_get chat #\(g) count=50")).last == "connected")

        await relay.shutdown()
        for c in [alice, bob, carol] { await c.c.close() }
    }

    /// The chat list's `unreadCount` and preview of a group leave its support chats out (simplex-chat
    /// group chat stats and `findGroupChatPreviews_`); reading the main chat leaves the support chat's
    /// counters as they were.
    @Test func chatListCountsTheMainChatOnly() async throws {
        let dir = NSTemporaryDirectory() + "support-list-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (relay, server) = try await startRelay(dir)
        let (alice, _) = try await Self.client("alice", dir, server)
        let (bob, _) = try await Self.client("bob", dir, server)
        let g = try #require(gid(try await alice.cmd(#"/_group 1 {"displayName":"club","fullName":"","memberAdmission":{"review":"all"}}"#)))
        let l = try #require(link(try await alice.cmd("/_create link #\(g) member")))
        try await bob.cmd("/_connect 1 \(l)")
        let bobGm = try #require(gmIdOf(memberOf(try await alice.event("joinedGroupMember") { nameOf(memberOf($0)) == "bob" })))
        let bg = try #require(gid(try await bob.event("userJoinedGroup")))
        func group(_ c: Client, _ id: Int64) async throws -> [String: Any]? {
            (try await c.cmd("/_get chats 1 count=10")["chats"] as? [[String: Any]])?.first {
                (($0["chatInfo"] as? [String: Any])?["groupInfo"] as? [String: Any]).map { ($0["groupId"] as? NSNumber)?.int64Value == id } ?? false
            }
        }
        func unread(_ chat: [String: Any]?) -> Int? { ((chat?["chatStats"] as? [String: Any])?["unreadCount"] as? NSNumber)?.intValue }
        func preview(_ chat: [String: Any]?) -> String? {
            ((chat?["chatItems"] as? [[String: Any]])?.last?["meta"] as? [String: Any])?["itemText"] as? String
        }
        for t in ["may I join?", "please"] {
            try await bob.cmd(#"/_send #\#(bg)(_support) json [{"msgContent":{"type":"text","text":"\#(t)"}}]"#)
            try await alice.event("newChatItems") { itemText($0) == t }
        }
        let before = try await group(alice, g)
        #expect(unread(before) == 0, "support chat items are not the group's unread items: \(String(describing: before?["chatStats"]))")
        #expect(preview(before) != "please", "the preview is the main chat's last item")

        try await alice.cmd("/_accept member #\(g) \(bobGm) member")
        try await bob.event("userJoinedGroup") { (($0["groupInfo"] as? [String: Any])?["membership"] as? [String: Any])?["memberStatus"] as? String == "connected" }
        try await bob.cmd(#"/_send #\#(bg) json [{"msgContent":{"type":"text","text":"hello all"}}]"#)
        try await alice.event("newChatItems") { itemText($0) == "hello all" }
        let after = try await group(alice, g)
        #expect(unread(after) == 1 && preview(after) == "hello all", "\(String(describing: after?["chatStats"]))")
        try await alice.cmd("/_read chat #\(g)")
        #expect(unread(try await group(alice, g)) == 0)
        let support = (try await Self.members(alice, g).first { gmIdOf($0) == bobGm })?["supportChat"] as? [String: Any]
        #expect((support?["unread"] as? NSNumber)?.intValue == 3, "the support chat stays unread: \(String(describing: support))")

        await relay.shutdown()
        for c in [alice, bob] { await c.c.close() }
    }

    /// Items made from a message the host forwarded (x.grp.msg.forward, here the group history)
    /// name the host as `meta.forwardedByMember` (simplex-chat `forwarded_by_group_member_id`);
    /// a message received from the author itself does not.
    @Test func forwardedItemsNameTheHost() async throws {
        let dir = NSTemporaryDirectory() + "support-fwd-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (relay, server) = try await startRelay(dir)
        let (alice, _) = try await Self.client("alice", dir, server)
        let (bob, _) = try await Self.client("bob", dir, server)
        let (carol, _) = try await Self.client("carol", dir, server)
        let g = try #require(gid(try await alice.cmd(#"/_group 1 {"displayName":"club","fullName":"","groupPreferences":{"history":{"enable":"on"}}}"#)))
        let l = try #require(link(try await alice.cmd("/_create link #\(g) member")))
        try await bob.cmd("/_connect 1 \(l)")
        try await alice.event("joinedGroupMember") { nameOf(memberOf($0)) == "bob" }
        let bg = try #require(gid(try await bob.event("userJoinedGroup")))
        try await bob.cmd(#"/_send #\#(bg) json [{"msgContent":{"type":"text","text":"before carol"}}]"#)
        try await alice.event("newChatItems") { itemText($0) == "before carol" }

        try await carol.cmd("/_connect 1 \(l)")
        try await alice.event("joinedGroupMember") { nameOf(memberOf($0)) == "carol" }
        let cg = try #require(gid(try await carol.event("userJoinedGroup")))
        let history = try await carol.event("newChatItems", timeout: 20) { itemText($0) == "before carol" }
        let aliceAtCarol = try #require(try await Self.gmId(carol, cg, "alice"))
        let meta = (aItem(history)?["chatItem"] as? [String: Any])?["meta"] as? [String: Any]
        #expect((meta?["forwardedByMember"] as? NSNumber)?.int64Value == aliceAtCarol)
        try await carol.event("connectedToGroupMember", timeout: 20) { nameOf(memberOf($0)) == "bob" }
        try await bob.event("connectedToGroupMember", timeout: 20) { nameOf(memberOf($0)) == "carol" }
        try await Task.sleep(nanoseconds: 1_000_000_000)
        try await bob.cmd(#"/_send #\#(bg) json [{"msgContent":{"type":"text","text":"direct now"}}]"#)
        let direct = try await carol.event("newChatItems") { itemText($0) == "direct now" }
        #expect(((aItem(direct)?["chatItem"] as? [String: Any])?["meta"] as? [String: Any])?["forwardedByMember"] == nil)
        // Stored: the chat shows it too.
        let items = ((try await carol.cmd("/_get chat #\(cg) count=20")["chat"] as? [String: Any])?["chatItems"] as? [[String: Any]]) ?? []
        let stored = items.first { ($0["meta"] as? [String: Any])?["itemText"] as? String == "before carol" }
        #expect(((stored?["meta"] as? [String: Any])?["forwardedByMember"] as? NSNumber)?.int64Value == aliceAtCarol)

        await relay.shutdown()
        for c in [alice, bob, carol] { await c.c.close() }
    }
}
