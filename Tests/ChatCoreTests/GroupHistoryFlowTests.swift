import Foundation
import SimplexFoundation
import Testing

@testable import ChatCore

/// The item of a `newChatItems` event with this text.
private func item(_ text: String) -> (ChatEvent) -> AChatItem? {
    { e in
        guard case .newChatItems(_, let items) = e else { return nil }
        return items.first { $0.chatItem.meta.itemText == text }
    }
}

private func author(_ item: AChatItem) -> String? {
    if case .groupRcv(let m) = item.chatItem.chatDir { return m?.memberProfile.displayName }
    return nil
}

private func text(_ t: String, quoting: Int64? = nil) -> [ComposedMessage] {
    [ComposedMessage(quotedItemId: quoting, msgContent: .text(t))]
}

private func sentItemId(_ r: ChatResponse) -> Int64? {
    if case .newChatItems(_, let items) = r { return items.first?.chatItem.meta.itemId }
    return nil
}

/// Group history for new members (simplex-chat `sendHistory`, chat versions 5-6) between three
/// chat cores over a real relay: the host forwards the recent messages with their authors, then
/// the welcome message; with the group's history preference off only the welcome is shown.
@Suite(.serialized) struct GroupHistoryFlowTests {
    struct Group {
        let alice: Client, bob: Client, carol: Client
        let g: Int64, bg: Int64, carolId: Int64
    }

    /// Alice's group with Bob in it, and Carol as Alice's contact (not yet invited).
    func groupWithBob(_ flow: Flow, history: Bool) async throws -> Group {
        let (alice, bob, bobId, _) = try await flow.pair()
        let carol = try await flow.client("carol")
        let (carolId, _) = try await flow.connect(alice, carol)
        var prefs = GroupPreferences()
        prefs.history = GroupPreference(enable: history ? .on : .off)
        let profile = GroupProfile(displayName: "team", description: "welcome to the team", groupPreferences: prefs)
        guard case .groupCreated(_, let info) = try await alice.run(.apiNewGroup(userId: 1, incognito: false, groupProfile: profile)) else {
            Issue.record("no group")
            throw CancellationError()
        }
        let g = info.groupId
        try await alice.run(.apiAddMember(groupId: g, contactId: bobId, memberRole: .member))
        let bg = try await bob.next("invitation") { e -> Int64? in
            if case .receivedGroupInvitation(_, let gi, _, _, _) = e { gi.groupId } else { nil }
        }
        try await bob.run(.apiJoinGroup(groupId: bg))
        try await alice.next("bob joined") { e -> Bool? in
            if case .joinedGroupMember(_, _, let m) = e, m.memberProfile.displayName == "bob" { true } else { nil }
        }
        let welcome = try await bob.next("welcome", item("welcome to the team"))
        #expect(author(welcome) == "alice")
        return Group(alice: alice, bob: bob, carol: carol, g: g, bg: bg, carolId: carolId)
    }

    func carolJoins(_ t: Group) async throws -> Int64 {
        try await t.alice.run(.apiAddMember(groupId: t.g, contactId: t.carolId, memberRole: .member))
        let cg = try await t.carol.next("invitation") { e -> Int64? in
            if case .receivedGroupInvitation(_, let gi, _, _, _) = e { gi.groupId } else { nil }
        }
        try await t.carol.run(.apiJoinGroup(groupId: cg))
        return cg
    }

    @Test func newMemberReceivesRecentMessagesFromTheirAuthors() async throws {
        try await withFlow("chat-history") { flow in
            let t = try await groupWithBob(flow, history: true)
            let sentA1 = try await t.alice.run(.apiSendMessages(sendRef: .group(t.g), liveMessage: false, ttl: nil, composedMessages: text("a1")))
            guard case .newChatItems(_, let sentItems) = sentA1, let sentA1Ts = sentItems.first?.chatItem.meta.itemTs else {
                Issue.record("no sent item")
                throw CancellationError()
            }
            try await t.bob.next("a1", item("a1"))
            let b1Sent = try await t.bob.run(.apiSendMessages(sendRef: .group(t.bg), liveMessage: false, ttl: nil, composedMessages: text("b1")))
            #expect(sentItemId(b1Sent) != nil)
            let b1AtAlice = try await t.alice.next("b1", item("b1"))
            try await t.alice.run(.apiSendMessages(sendRef: .group(t.g), liveMessage: false, ttl: nil,
                                                   composedMessages: text("a2 replies", quoting: b1AtAlice.chatItem.meta.itemId)))
            try await t.bob.next("a2", item("a2 replies"))
            // A message deleted for everyone is not part of the history.
            let oops = try await t.alice.run(.apiSendMessages(sendRef: .group(t.g), liveMessage: false, ttl: nil, composedMessages: text("oops")))
            try await t.bob.next("oops", item("oops"))
            try await t.alice.run(.apiDeleteChatItem(chatRef: .group(t.g), chatItemIds: [try #require(sentItemId(oops))], deleteMode: .broadcast))

            _ = try await carolJoins(t)
            // In the order they were sent, as received items of their authors, then the welcome.
            let a1 = try await t.carol.next("history a1", timeout: 20, item("a1"))
            let b1 = try await t.carol.next("history b1", item("b1"))
            let a2 = try await t.carol.next("history a2", item("a2 replies"))
            let welcome = try await t.carol.next("welcome", item("welcome to the team"))
            #expect(author(a1) == "alice" && author(b1) == "bob" && author(a2) == "alice" && author(welcome) == "alice")
            // In the host's time order (a received item has the relay's whole-second time, so b1 may
            // sort before a1), with the items' original times; the welcome comes last.
            let history = [a1, b1, a2]
            let byTime = history.sorted { ($0.chatItem.meta.itemTs, $0.chatItem.meta.itemId) < ($1.chatItem.meta.itemTs, $1.chatItem.meta.itemId) }
            #expect(byTime.map(\.chatItem.meta.itemId) == byTime.map(\.chatItem.meta.itemId).sorted(), "history arrives in time order")
            #expect(history.allSatisfy { $0.chatItem.meta.itemId < welcome.chatItem.meta.itemId }, "the welcome follows the history")
            #expect(abs(a1.chatItem.meta.itemTs.date.timeIntervalSince(sentA1Ts.date)) < 0.001, "the author's time, not the time of forwarding")
            #expect(abs(b1.chatItem.meta.itemTs.date.timeIntervalSince(b1AtAlice.chatItem.meta.itemTs.date)) < 0.001)
            // The reply keeps its quote.
            #expect(a2.chatItem.quotedItem?.content.text == "b1")
            if case .groupRcv = a1.chatItem.chatDir {} else { Issue.record("history items are received items") }

            // Carol connects to Bob via the introduction and the group goes on.
            try await t.bob.run(.apiSendMessages(sendRef: .group(t.bg), liveMessage: false, ttl: nil, composedMessages: text("hi carol")))
            let hi = try await t.carol.next("hi", timeout: 20, item("hi carol"))
            #expect(author(hi) == "bob")
            #expect(!t.carol.events.contains { e in
                ((e["chatItems"] as? [[String: Any]]) ?? []).contains { (($0["chatItem"] as? [String: Any])?["meta"] as? [String: Any])?["itemText"] as? String == "oops" }
            }, "deleted items are not in the history")
        }
    }

    @Test func noHistoryWhenTheGroupKeepsNone() async throws {
        try await withFlow("chat-no-history") { flow in
            let t = try await groupWithBob(flow, history: false)
            try await t.alice.run(.apiSendMessages(sendRef: .group(t.g), liveMessage: false, ttl: nil, composedMessages: text("before carol")))
            try await t.bob.next("before", item("before carol"))
            _ = try await carolJoins(t)
            // The welcome is made locally; the host sends no history, so the first message Carol
            // receives from Alice is the one sent after she joined.
            try await t.carol.next("welcome", timeout: 20, item("welcome to the team"))
            try await t.carol.next("joined") { e -> Bool? in
                if case .userJoinedGroup = e { true } else { nil }
            }
            try await t.alice.next("carol joined") { e -> Bool? in
                if case .joinedGroupMember(_, _, let m) = e, m.memberProfile.displayName == "carol" { true } else { nil }
            }
            try await t.alice.run(.apiSendMessages(sendRef: .group(t.g), liveMessage: false, ttl: nil, composedMessages: text("after carol")))
            try await t.carol.next("after", item("after carol"))
            #expect(!t.carol.events.contains { e in
                ((e["chatItems"] as? [[String: Any]]) ?? []).contains { (($0["chatItem"] as? [String: Any])?["meta"] as? [String: Any])?["itemText"] as? String == "before carol" }
            }, "no history with the preference off")
        }
    }

    /// Files in the history: the new member gets each file offer with a description it can
    /// download with (the host's own upload and a file the host received), and both download.
    @Test func filesInTheHistoryCanBeDownloaded() async throws {
        let dir = NSTemporaryDirectory() + "chat-history-files-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (relay, server) = try await startRelay(dir)
        let xftp = try await FileTestXFTPServer(dir: dir + "/xftp")
        func fileClient(_ name: String) async throws -> (Client, String) {
            let folder = dir + "/\(name)-files"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let c = try await Client(name, dir: dir, server: server) { config in
                config.filesFolder = folder
                config.defaultXFTPServers = [xftp.address]
            }
            return (c, folder)
        }
        func connect(_ a: Client, _ b: Client) async throws -> Int64 {
            let inv = try await a.cmd("/_connect 1")
            let link = try #require((inv["connLinkInvitation"] as? [String: Any])?["connFullLink"] as? String)
            try await b.cmd("/connect \(link)")
            let ea = try await a.event("contactConnected", timeout: 30)
            try await b.event("contactConnected", timeout: 30)
            return try #require(contactId(ea))
        }
        func fileOf(_ e: [String: Any]) -> [String: Any]? { firstItem(e)?["file"] as? [String: Any] }
        let (alice, aliceFiles) = try await fileClient("alice")
        let (bob, bobFiles) = try await fileClient("bob")
        let (carol, carolFiles) = try await fileClient("carol")
        let bobId = try await connect(alice, bob)
        let carolId = try await connect(alice, carol)
        let created = try await alice.cmd(#"/_group 1 {"displayName":"team","fullName":""}"#)
        let g = try #require(((created["groupInfo"] as? [String: Any])?["groupId"] as? NSNumber)?.int64Value)
        try await alice.cmd("/_add #\(g) \(bobId) member")
        let inv = try await bob.event("receivedGroupInvitation")
        let bg = try #require(((inv["groupInfo"] as? [String: Any])?["groupId"] as? NSNumber)?.int64Value)
        try await bob.cmd("/_join #\(bg)")
        try await alice.event("joinedGroupMember", timeout: 30)
        try await bob.event("userJoinedGroup", timeout: 30)

        // Alice's own file, and one from Bob that Alice only has the description of.
        let aliceBytes = SecureRandom.bytes(70_000), bobBytes = SecureRandom.bytes(50_000)
        try Data(aliceBytes).write(to: URL(fileURLWithPath: aliceFiles + "/a.bin"))
        try Data(bobBytes).write(to: URL(fileURLWithPath: bobFiles + "/b.bin"))
        try await alice.cmd("/_send #\(g) json " + #"[{"fileSource":{"filePath":"a.bin"},"msgContent":{"type":"file","text":""}}]"#)
        try await alice.event("sndFileCompleteXFTP", timeout: 60)
        try await bob.event("rcvFileDescrReady", timeout: 60)
        try await bob.cmd("/_send #\(bg) json " + #"[{"fileSource":{"filePath":"b.bin"},"msgContent":{"type":"file","text":"from bob"}}]"#)
        try await bob.event("sndFileCompleteXFTP", timeout: 60)
        try await alice.event("rcvFileDescrReady", timeout: 60)

        try await alice.cmd("/_add #\(g) \(carolId) member")
        let cinv = try await carol.event("receivedGroupInvitation")
        let cg = try #require(((cinv["groupInfo"] as? [String: Any])?["groupId"] as? NSNumber)?.int64Value)
        try await carol.cmd("/_join #\(cg)")
        for (name, bytes) in [("a.bin", aliceBytes), ("b.bin", bobBytes)] {
            let offer = try await carol.event("newChatItems", timeout: 30) { fileOf($0)?["fileName"] as? String == name }
            let fid = try #require((fileOf(offer)?["fileId"] as? NSNumber)?.int64Value)
            try await carol.event("rcvFileDescrReady", timeout: 30) { e in
                (((e["chatItem"] as? [String: Any])?["chatItem"] as? [String: Any])?["file"] as? [String: Any])?["fileId"] as? NSNumber == NSNumber(value: fid)
            }
            try await carol.cmd("/freceive \(fid)")
            let done = try await carol.event("rcvFileComplete", timeout: 60)
            let path = try #require(((((done["chatItem"] as? [String: Any])?["chatItem"] as? [String: Any])?["file"] as? [String: Any])?["fileSource"] as? [String: Any])?["filePath"] as? String)
            #expect(Array(try Data(contentsOf: URL(fileURLWithPath: path.hasPrefix("/") ? path : carolFiles + "/" + path))) == bytes)
        }

        await alice.c.close()
        await bob.c.close()
        await carol.c.close()
        await xftp.stop()
        await relay.shutdown()
    }
}
