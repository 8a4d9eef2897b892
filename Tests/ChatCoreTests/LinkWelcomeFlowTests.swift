import Foundation
import SMPAgent
import Testing

@testable import ChatCore

private func texts(_ r: [String: Any]) -> [String] {
    (((r["chat"] as? [String: Any])?["chatItems"] as? [[String: Any]]) ?? []).compactMap {
        ($0["meta"] as? [String: Any])?["itemText"] as? String
    }
}

/// Chat version 16 (short link data) between two real cores over a real relay: a joiner that
/// shows the address's welcome from the link's data names it in its request (`welcomeMsgId`),
/// and the owner's auto-reply updates that message instead of adding a second greeting.
@Suite(.serialized) struct LinkWelcomeFlowTests {
    @Test func autoReplyUpdatesTheWelcomeShownFromLinkData() async throws {
        let dir = NSTemporaryDirectory() + "link-welcome-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (relay, server) = try await startRelay(dir)
        let v16 = VersionRange(1...16)
        let alice = try await Client("alice", dir: dir, server: server) { $0.chatVRange = v16 }
        let bob = try await Client("bob", dir: dir, server: server) { $0.chatVRange = v16 }
        let address = try await alice.cmd("/_address 1")
        let links = try #require(address["connLinkContact"] as? [String: Any])
        let link = try #require(links["connFullLink"] as? String), short = try #require(links["connShortLink"] as? String)
        try await alice.cmd(#"/_address_settings 1 {"businessAddress":false,"autoAccept":{"acceptIncognito":false},"autoReply":{"type":"text","text":"Welcome!"}}"#)

        // The address's link data carries the auto-reply as its welcome message; bob shows it.
        let plan = try await bob.cmd("/_connect plan 1 \(short)")
        let data = try #require(((plan["connectionPlan"] as? [String: Any])?["contactAddressPlan"] as? [String: Any])?["contactSLinkData_"] as? [String: Any])
        #expect((data["message"] as? [String: Any])?["text"] as? String == "Welcome!")
        let dataJSON = String(decoding: try JSONSerialization.data(withJSONObject: data), as: UTF8.self)
        let prepared = try await bob.cmd("/_prepare contact 1 \(link) \(short) \(dataJSON)")
        let ct = try #require(((((prepared["chat"] as? [String: Any])?["chatInfo"] as? [String: Any])?["contact"] as? [String: Any])?["contactId"] as? NSNumber)?.int64Value)
        // The prepared chat: banner, e2e notice, five features, then the welcome (simplex-chat `APIPrepareContact`).
        let shown = texts(try await bob.cmd("/_get chat @\(ct) count=10"))
        #expect(shown.count == 8 && shown.last == "Welcome!", "\(shown)")
        // Alice changes her greeting after bob saw the old one.
        try await alice.cmd(#"/_address_settings 1 {"businessAddress":false,"autoAccept":{"acceptIncognito":false},"autoReply":{"type":"text","text":"Welcome, friend!"}}"#)
        try await bob.cmd("/_connect contact @\(ct)")
        try await alice.event("acceptingContactRequest")
        let atAlice = try await alice.event("contactConnected")
        try await bob.event("contactConnected")

        // The auto-reply arrives as an update of the welcome bob already shows.
        let updated = try await bob.event("chatItemUpdated")
        let item = (updated["chatItem"] as? [String: Any])?["chatItem"] as? [String: Any]
        #expect((item?["meta"] as? [String: Any])?["itemText"] as? String == "Welcome, friend!")
        try await Task.sleep(nanoseconds: 1_000_000_000)
        let bobChat = texts(try await bob.cmd("/_get chat @\(ct) count=10"))
        #expect(bobChat.filter { $0.hasPrefix("Welcome") } == ["Welcome, friend!"], "one greeting, not two: \(bobChat)")
        // Alice's copy is her sent welcome, with the shared ID bob named.
        let aliceCt = try #require(contactId(atAlice))
        #expect(texts(try await alice.cmd("/_get chat @\(aliceCt) count=10")).contains("Welcome, friend!"))
        let bobWelcomeId = try await bob.c.testString("SELECT shared_msg_id FROM chat_items WHERE item_text = 'Welcome, friend!'")
        let aliceWelcomeId = try await alice.c.testString("SELECT shared_msg_id FROM chat_items WHERE item_text = 'Welcome, friend!'")
        #expect(bobWelcomeId != nil && bobWelcomeId == aliceWelcomeId)

        await relay.shutdown()
        await alice.c.close()
        await bob.c.close()
    }

    /// A prepared group shows its description (the welcome) from the link's data; its join request
    /// names that item (`welcomeMsgId`), so the host leaves the welcome out of the history and the
    /// joiner makes no local copy at connection: one welcome, whether the group keeps history or not.
    @Test func preparedGroupShowsTheWelcomeOnce() async throws {
        let dir = NSTemporaryDirectory() + "group-welcome-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (relay, server) = try await startRelay(dir)
        let v16 = VersionRange(1...16)
        let alice = try await Client("alice", dir: dir, server: server) { $0.chatVRange = v16 }
        for (i, history) in [true, false].enumerated() {
            let prefs = history ? "" : #","groupPreferences":{"history":{"enable":"off"}}"#
            let created = try await alice.cmd(#"/_group 1 {"displayName":"club\#(i)","fullName":"","description":"welcome to club\#(i)"\#(prefs)}"#)
            let g = try #require(((created["groupInfo"] as? [String: Any])?["groupId"] as? NSNumber)?.int64Value)
            try await alice.cmd(#"/_send #\#(g) json [{"msgContent":{"type":"text","text":"earlier news \#(i)"}}]"#)
            let linkRes = try await alice.cmd("/_create link #\(g) member")
            let link = try #require(((linkRes["groupLink"] as? [String: Any])?["connLinkContact"] as? [String: Any])?["connFullLink"] as? String)
            let joiner = try await Client("joiner\(i)", dir: dir, server: server) { $0.chatVRange = v16 }
            let prepared = try await joiner.cmd(#"/_prepare group 1 \#(link) {"groupProfile":{"displayName":"club\#(i)","fullName":"","description":"welcome to club\#(i)"}}"#)
            let pg = try #require(((((prepared["chat"] as? [String: Any])?["chatInfo"] as? [String: Any])?["groupInfo"] as? [String: Any])?["groupId"] as? NSNumber)?.int64Value)
            #expect(texts(prepared) == ["welcome to club\(i)"])
            try await joiner.cmd("/_connect group #\(pg)")
            try await joiner.event("userJoinedGroup")
            if history { try await joiner.event("newChatItems") { itemText($0) == "earlier news \(i)" } }
            try await Task.sleep(nanoseconds: 1_500_000_000)
            let chat = texts(try await joiner.cmd("/_get chat #\(pg) count=50"))
            #expect(chat.filter { $0 == "welcome to club\(i)" }.count == 1, "one welcome (history \(history)): \(chat)")
            await joiner.c.close()
        }
        await relay.shutdown()
        await alice.c.close()
    }
}
