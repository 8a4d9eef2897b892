import Foundation
import GRDB
import NIOPosix
import SMPServer
import SMPTransport
import Testing

@testable import ChatCore

/// Issue 14: answers carry what happened (no constants), whole profiles are kept and contact
/// preferences are enforced, parameters are never silently ignored, and a database failure
/// while receiving loses nothing.
@Suite(.serialized) struct ChatAnswersTests {
    private func dir(_ name: String) -> String { NSTemporaryDirectory() + "chat-\(name)-\(UInt32.random(in: 0...UInt32.max))" }

    /// The whole profile is stored (a bot re-sending it finds no change), the peer sees it, and
    /// the merged preferences follow both sides' choices and are enforced.
    @Test func profilesAndPreferences() async throws {
        let d = dir("prefs")
        defer { try? FileManager.default.removeItem(atPath: d) }
        let (relay, server) = try await startRelay(d)
        let (alice, bob, bobId, aliceId) = try await connectedPair(d, server)
        try await alice.cmd(#"/_send @\#(bobId) json [{"msgContent":{"type":"text","text":"hello"}}]"#)
        let received = try await bob.event("newChatItems") { itemText($0) == "hello" }
        let helloId = try #require(itemId(received))

        let profile = #"{"displayName":"alice","fullName":"","shortDescr":"a helpful bot","peerType":"bot","preferences":{"reactions":{"allow":"no"},"commands":[{"type":"command","keyword":"help","label":"Help"}]}}"#
        let updated = try await alice.cmd("/_profile 1 \(profile)")
        #expect(updated["type"] as? String == "userProfileUpdated")
        let user = try await alice.cmd("/user")
        let stored = try #require((user["user"] as? [String: Any])?["profile"] as? [String: Any])
        #expect(stored["peerType"] as? String == "bot")
        #expect(stored["shortDescr"] as? String == "a helpful bot")
        #expect(((stored["preferences"] as? [String: Any])?["reactions"] as? [String: Any])?["allow"] as? String == "no")
        #expect((((user["user"] as? [String: Any])?["fullPreferences"] as? [String: Any])?["reactions"] as? [String: Any])?["allow"] as? String == "no")
        // The bot SDK sends its profile at every start: the same profile is no change.
        #expect(try await alice.cmd("/_profile 1 \(profile)")["type"] as? String == "userProfileNoChange")

        let seen = try await bob.event("contactUpdated")
        let to = try #require(seen["toContact"] as? [String: Any])
        #expect((to["profile"] as? [String: Any])?["peerType"] as? String == "bot")
        let reactions = try #require((to["mergedPreferences"] as? [String: Any])?["reactions"] as? [String: Any])
        #expect((reactions["enabled"] as? [String: Any])?["forUser"] as? Bool == false)
        #expect((reactions["contactPreference"] as? [String: Any])?["allow"] as? String == "no")
        // Bob may not react to Alice's message now.
        let refused = try await bob.cmdError(#"/_reaction @\#(aliceId) \#(helloId) on {"type":"emoji","emoji":"👍"}"#)
        #expect(((refused["errorType"] as? [String: Any])?["message"] as? String)?.contains("Message reactions") == true)

        await alice.c.close()
        await bob.c.close()
        await relay.shutdown()
    }

    /// Connections report what was negotiated; /users counts unread items; deletable and
    /// editable follow the item; contactConnected has chatTs; agentUserId is a string; custom
    /// data is stored and returned.
    @Test func answersCarryState() async throws {
        let d = dir("answers")
        defer { try? FileManager.default.removeItem(atPath: d) }
        let (relay, server) = try await startRelay(d)
        let alice = try await Client("alice", dir: d, server: server)
        let bob = try await Client("bob", dir: d, server: server)
        let inv = try await alice.cmd("/_connect 1")
        let link = try #require((inv["connLinkInvitation"] as? [String: Any])?["connFullLink"] as? String)
        try await bob.cmd("/connect \(link)")
        let connected = try await alice.event("contactConnected")
        try await bob.event("contactConnected")
        let contact = try #require(connected["contact"] as? [String: Any])
        #expect(contact["chatTs"] as? String != nil)
        let bobId = try #require(contactId(connected))
        let conn = try #require(contact["activeConn"] as? [String: Any])
        let ours = alice.c.chatVRange
        #expect((conn["connChatVersion"] as? NSNumber)?.intValue == ours.maxVersion)
        #expect(((conn["peerChatVRange"] as? [String: Any])?["maxVersion"] as? NSNumber)?.intValue == ours.maxVersion)
        let agent = try #require(await alice.c.agent)
        let summary = try await agent.connection(try #require(conn["agentConnId"] as? String))
        #expect(conn["pqEncryption"] as? Bool == summary.pqEncryption)

        try await alice.cmd(#"/_send @\#(bobId) json [{"msgContent":{"type":"text","text":"m1"}}]"#)
        let sent = try await alice.cmd(#"/_send @\#(bobId) json [{"msgContent":{"type":"text","text":"m2"}}]"#)
        let meta = try #require(firstItem(sent)?["meta"] as? [String: Any])
        #expect(meta["deletable"] as? Bool == true && meta["editable"] as? Bool == true)
        let got = try await bob.event("newChatItems") { itemText($0) == "m2" }
        let rcvMeta = try #require(firstItem(got)?["meta"] as? [String: Any])
        #expect(rcvMeta["deletable"] as? Bool == false && rcvMeta["editable"] as? Bool == false)
        let users = try await bob.cmd("/users")
        #expect(((users["users"] as? [[String: Any]])?.first?["unreadCount"] as? NSNumber)?.intValue == 2)
        #expect(((users["users"] as? [[String: Any]])?.first?["user"] as? [String: Any])?["agentUserId"] as? String == "1")

        #expect(try await alice.cmd(#"/_set custom @\#(bobId) {"tier":"gold","n":3}"#)["type"] as? String == "cmdOk")
        let listed = try await alice.cmd("/_contacts 1")
        let custom = (listed["contacts"] as? [[String: Any]])?.first?["customData"] as? [String: Any]
        #expect(custom?["tier"] as? String == "gold" && (custom?["n"] as? NSNumber)?.intValue == 3)
        try await alice.cmd("/_set custom @\(bobId)")
        #expect((try await alice.cmd("/_contacts 1")["contacts"] as? [[String: Any]])?.first?["customData"] == nil)
        let g = try await alice.cmd(#"/_group 1 {"displayName":"team","fullName":""}"#)
        let groupId = try #require(((g["groupInfo"] as? [String: Any])?["groupId"] as? NSNumber)?.intValue)
        try await alice.cmd(#"/_set custom #\#(groupId) {"k":"v"}"#)
        let groups = try await alice.cmd("/_groups 1")
        #expect(((groups["groups"] as? [[String: Any]])?.first?["customData"] as? [String: Any])?["k"] as? String == "v")
        #expect((try await alice.cmdError("/_set custom @999 {}")["storeError"] as? [String: Any])?["type"] as? String == "contactNotFound")

        await alice.c.close()
        await bob.c.close()
        await relay.shutdown()
    }

    /// `count=N` limits all kinds of previews together; filters and content= work; what cannot
    /// be done is refused.
    @Test func listsFiltersAndRefusals() async throws {
        let d = dir("lists")
        defer { try? FileManager.default.removeItem(atPath: d) }
        let (relay, server) = try await startRelay(d)
        let alice = try await Client("alice", dir: d, server: server)
        for name in ["g1", "g2", "g3"] { try await alice.cmd(#"/_group 1 {"displayName":"\#(name)","fullName":""}"#) }
        try await alice.cmd("/_connect 1")
        try await alice.cmd("/_connect 1")
        #expect((try await alice.cmd("/_get chats 1 pcc=on count=2")["chats"] as? [Any])?.count == 2)
        #expect((try await alice.cmd("/_get chats 1 pcc=on count=100")["chats"] as? [Any])?.count == 5)
        #expect((try await alice.cmd(#"/_get chats 1 pcc=on count=100 {"type":"filters","favorite":false,"unread":true}"#)["chats"] as? [Any])?.count == 0)
        #expect((try await alice.cmd(#"/_get chats 1 pcc=on count=100 {"type":"filters","favorite":true,"unread":false}"#)["chats"] as? [Any])?.count == 0)

        try await alice.cmd(#"/_send #1 json [{"msgContent":{"type":"text","text":"t1"}},{"msgContent":{"type":"link","text":"see https://simplex.chat","preview":{"uri":"https://simplex.chat","title":"SimpleX","description":"","image":""}}}]"#)
        let texts = try await alice.cmd("/_get chat #1 content=text count=10")
        #expect(((texts["chat"] as? [String: Any])?["chatItems"] as? [Any])?.count == 1)
        let links = try await alice.cmd("/_get chat #1 content=link count=10")
        #expect(((links["chat"] as? [String: Any])?["chatItems"] as? [Any])?.count == 1)

        // Files are sent over XFTP (issue 15); a missing one is the reference's fileNotFound.
        let file = try await alice.cmdError(#"/_send #1 json [{"fileSource":{"filePath":"/nonexistent-dir/x.txt"},"msgContent":{"type":"file","text":""}}]"#)
        #expect((file["errorType"] as? [String: Any])?["type"] as? String == "fileNotFound")
        #expect((file["errorType"] as? [String: Any])?["message"] as? String == "/nonexistent-dir/x.txt")
        let mention = try await alice.cmdError(#"/_send #1 json [{"msgContent":{"type":"text","text":"@bob hi"},"mentions":{"bob":5}}]"#)
        // A mention of a member not in the group is refused (issue 13, as simplex-chat `getCIMentions`).
        #expect((mention["storeError"] as? [String: Any])?["type"] as? String == "groupMemberNotFound")
        try await alice.cmd("/_address 1")
        // A business address needs chat version 10: accepted at the release's range.
        let business = try await alice.cmd(#"/_address_settings 1 {"businessAddress":true}"#)
        #expect(((business["contactLink"] as? [String: Any])?["addressSettings"] as? [String: Any])?["businessAddress"] as? Bool == true)
        // Nothing was sent: the group has its new-chat items (banner, e2e notice, nine features) and the two items only.
        let all = try await alice.cmd("/_get chat #1 count=50")
        #expect(((all["chat"] as? [String: Any])?["chatItems"] as? [Any])?.count == 13)

        await alice.c.close()
        await relay.shutdown()
    }

    /// A database failure while storing a received message: an error event, the message stays
    /// unacknowledged, and it is stored once the database works again.
    @Test func receiveDatabaseFailureIsRetried() async throws {
        let d = dir("receive-retry")
        defer { try? FileManager.default.removeItem(atPath: d) }
        let (relay, server) = try await startRelay(d)
        let (alice, bob, bobId, _) = try await connectedPair(d, server)
        let store = await bob.c.store
        try await store.dbQueue.write { db in
            try db.execute(sql: "CREATE TEMP TRIGGER fail_items BEFORE INSERT ON chat_items BEGIN SELECT RAISE(ABORT, 'injected failure'); END")
        }
        try await alice.cmd(#"/_send @\#(bobId) json [{"msgContent":{"type":"text","text":"kept"}}]"#)
        let err = try await bob.event("chatError")
        #expect(((err["chatError"] as? [String: Any])?["storeError"] as? [String: Any])?["type"] as? String == "dBException")
        try await store.dbQueue.write { db in try db.execute(sql: "DROP TRIGGER fail_items") }
        try await bob.event("newChatItems", timeout: 20) { itemText($0) == "kept" }
        // Stored once, and the queue moves on.
        try await alice.cmd(#"/_send @\#(bobId) json [{"msgContent":{"type":"text","text":"next"}}]"#)
        try await bob.event("newChatItems") { itemText($0) == "next" }
        let chat = try await bob.cmd("/_get chat @1 count=10")
        let texts = ((chat["chat"] as? [String: Any])?["chatItems"] as? [[String: Any]])?.compactMap { ($0["meta"] as? [String: Any])?["itemText"] as? String }
        #expect(texts?.suffix(2) == ["kept", "next"] && texts?.count == 9, "stored once, after the new chat's 7 items: \(texts ?? [])")

        await alice.c.close()
        await bob.c.close()
        await relay.shutdown()
    }
}
