import Foundation
import GRDB
import SMPAgent
import Testing

@testable import ChatCore

private func activeConn(_ e: [String: Any]) -> [String: Any]? {
    (e["contact"] as? [String: Any])?["activeConn"] as? [String: Any]
}

private func allTexts(_ e: [String: Any]) -> [String] {
    ((e["chatItems"] as? [[String: Any]]) ?? []).compactMap { (($0["chatItem"] as? [String: Any])?["meta"] as? [String: Any])?["itemText"] as? String }
}

private func groupId(_ e: [String: Any]) -> Int64? {
    ((e["groupInfo"] as? [String: Any])?["groupId"] as? NSNumber)?.int64Value
}

private func memberName(_ e: [String: Any], _ key: String = "member") -> String? {
    (((e[key] as? [String: Any])?["memberProfile"] as? [String: Any])?["displayName"] as? String)
}

extension ChatController {
    /// Test access to the chat database, to put a group in a state that is hard to time.
    func testSQL(_ sql: String) throws(ChatError) {
        try store.write { db in try db.execute(sql: sql) }
    }

    func testString(_ sql: String) throws(ChatError) -> String? {
        try store.read { db in try String.fetchOne(db, sql: sql) }
    }

    func testCount(_ sql: String) throws(ChatError) -> Int {
        try store.read { db in try Int.fetchOne(db, sql: sql) ?? 0 }
    }
}

/// Two chat cores over a real relay at the release's chat versions (1-16): what they negotiate, and every body form
/// simplex-chat may send at those versions (batches, compressed bodies), good and bad, on the wire.
@Suite(.serialized) struct ChatVersionFlowTests {
    @Test func versionNineBatchesAndCompressedBodiesOverARelay() async throws {
        let dir = NSTemporaryDirectory() + "chat-versions-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (relay, server) = try await startRelay(dir)
        let alice = try await Client("alice", dir: dir, server: server)
        let bob = try await Client("bob", dir: dir, server: server)
        let inv = try await alice.cmd("/_connect 1")
        try await bob.cmd("/connect " + (try #require((inv["connLinkInvitation"] as? [String: Any])?["connFullLink"] as? String)))
        let aliceSide = try await alice.event("contactConnected")
        let bobSide = try await bob.event("contactConnected")
        let bobId = try #require(contactId(aliceSide))

        // Both announce the release's range, 1-16, and use 16 (batches from 9, compression from 8).
        for side in [aliceSide, bobSide] {
            let conn = try #require(activeConn(side))
            let peer = try #require(conn["peerChatVRange"] as? [String: Any])
            #expect(peer["minVersion"] as? Int == 1 && peer["maxVersion"] as? Int == 16, "\(peer)")
            #expect(conn["connChatVersion"] as? Int == 16)
        }
        let toBob = try #require(activeConn(aliceSide)?["agentConnId"] as? String)
        // The new chat's own items come first (banner, e2e notice, features: three newChatItems).
        for _ in 0..<3 { try await bob.event("newChatItems") }

        // A JSON batch of two messages in one agent message: two items.
        let batch = try #require(try ChatMessageBody.encode([
            ChatMessage(chatVRange: ChatProtocolVersion.supportedRange, msgId: .random(), event: .msgNew(MsgContainer(content: .text("batched one")))),
            ChatMessage(chatVRange: ChatProtocolVersion.supportedRange, msgId: .random(), event: .msgNew(MsgContainer(content: .text("batched two")))),
        ]).first?.get())
        #expect(batch.body.first == UInt8(ascii: "[") && batch.messageIndices == [0, 1])
        _ = try await alice.c.sendToAgent(toBob, batch.body)
        var texts: [String] = []
        while texts.count < 2 { texts += allTexts(try await bob.event("newChatItems")) }
        #expect(texts == ["batched one", "batched two"])

        // A compressed body holding a batch, one message long enough to be a zstd frame.
        let long = String(repeating: "a long message that compresses well. ", count: 200)
        let inner = try #require(try ChatMessageBody.encode([
            ChatMessage(chatVRange: ChatProtocolVersion.supportedRange, msgId: .random(), event: .msgNew(MsgContainer(content: .text(long)))),
            ChatMessage(chatVRange: ChatProtocolVersion.supportedRange, msgId: .random(), event: .msgNew(MsgContainer(content: .text("after the long one")))),
        ]).first?.get())
        let compressed = try ChatCompression.compressedBody(inner.body)
        #expect(compressed.count < inner.body.count / 4)
        _ = try await alice.c.sendToAgent(toBob, compressed)
        texts = []
        while texts.count < 2 { texts += allTexts(try await bob.event("newChatItems")) }
        #expect(texts == [long, "after the long one"])

        // Bad bodies: a zstd bomb, a frame that is not zstd, a batch with bad JSON, a bad part list.
        // Each gives a warning; the connection stays usable and later messages arrive.
        let bomb = try ChatCompression.body([try CompressedPart.compress(Data(repeating: UInt8(ascii: "["), count: 1_000_000).prefix(65_537))])
        let notZstd = try ChatCompression.body([.compressed(Data("not a zstd frame at all".utf8))])
        for bad in [bomb, notZstd, Data(#"[{"event":"x.msg.new""#.utf8), Data("X".utf8) + Data([3, UInt8(ascii: "0")])] {
            _ = try await alice.c.sendToAgent(toBob, bad)
            let warning = try await bob.event("messageError")
            #expect(warning["severity"] as? String == "warning")
        }
        try await alice.cmd(#"/_send @\#(bobId) json [{"msgContent":{"type":"text","text":"still connected"}}]"#)
        #expect(itemText(try await bob.event("newChatItems")) == "still connected")

        // A long message through the ordinary send path: compressed when the connection has
        // post-quantum support (version 16 >= 8), and it arrives whole.
        let longText = String(repeating: "0123456789 ", count: 1_300)
        let body = try await alice.c.chatMessage(.msgNew(MsgContainer(content: .text(longText))))
        #expect(body.count > ChatProtocolLimits.maxCompressedMsgLength)
        let (version, pq) = try await alice.c.negotiated(toBob)
        #expect(version == 16)
        let wire = try await alice.c.bodyToSend(toBob, body)
        #expect((wire.first == UInt8(ascii: "X")) == pq)
        try await alice.cmd(#"/_send @\#(bobId) json [{"msgContent":{"type":"text","text":"\#(longText)"}}]"#)
        #expect(itemText(try await bob.event("newChatItems")) == longText)

        // A profile too large for uncompressed connection info on a post-quantum connection
        // (over 10,968 bytes): sent compressed when joining, read whole by the other side.
        let dave = try await Client("dave", dir: dir, server: server)
        let image = "data:image/png;base64," + String(repeating: "iVBORw0KGgoAAAANSUhEUgAA", count: 520)
        try await dave.cmd(#"/_profile 1 {"displayName":"dave","fullName":"","image":"\#(image)"}"#)
        let infoJSON = try ChatMessage(chatVRange: ChatProtocolVersion.supportedRange, event: .info(Profile(displayName: "dave", image: image))).encoded(maxSize: nil)
        #expect(infoJSON.count > ChatProtocolLimits.maxCompressedInfoLength && infoJSON.count <= ChatProtocolLimits.maxEncodedInfoLength)
        let daveInv = try await alice.cmd("/_connect 1")
        let daveLink = try #require((daveInv["connLinkInvitation"] as? [String: Any])?["connFullLink"] as? String)
        let joinInfo = try await dave.c.encodeJoinInfo(.info(Profile(displayName: "dave", image: image)), link: try ConnectionRequestURI(parsing: daveLink))
        #expect(joinInfo.first == UInt8(ascii: "X") && joinInfo.count <= ChatProtocolLimits.maxCompressedInfoLength)
        try await dave.cmd("/connect " + daveLink)
        let daveAtAlice = try await alice.event("contactConnected") { displayName($0) == "dave" }
        #expect(((daveAtAlice["contact"] as? [String: Any])?["profile"] as? [String: Any])?["image"] as? String == image)
        try await dave.event("contactConnected")
        await dave.c.close()

        // Several items in one command go in one agent message at version 9, and every item
        // follows that message's delivery reports.
        try await alice.cmd(#"/_send @\#(bobId) json [{"msgContent":{"type":"text","text":"b1"}},{"msgContent":{"type":"text","text":"b2"}},{"msgContent":{"type":"text","text":"b3"}}]"#)
        texts = []
        while texts.count < 3 { texts += allTexts(try await bob.event("newChatItems")) }
        #expect(texts == ["b1", "b2", "b3"])
        #expect(try await alice.c.testCount("SELECT count(DISTINCT agent_msg_id) FROM chat_items WHERE item_text IN ('b1','b2','b3')") == 1)
        let rcvdDeadline = Date().addingTimeInterval(15)
        let delivered = "SELECT count(*) FROM chat_items WHERE item_text IN ('b1','b2','b3') AND item_status_type = 'sndRcvd'"
        while try await alice.c.testCount(delivered) < 3, Date() < rcvdDeadline { try await Task.sleep(nanoseconds: 100_000_000) }
        #expect(try await alice.c.testCount(delivered) == 3)

        await relay.shutdown()
        await alice.c.close()
        await bob.c.close()
    }

    /// Version 4: Bob's message reaches Carol through Alice (the host) while Bob and Carol are not
    /// connected: Bob keeps no pending copy (Alice will forward), Alice wraps it in
    /// x.grp.msg.forward, Carol shows it as Bob's.
    @Test func hostForwardsBetweenMembersNotYetConnected() async throws {
        let dir = NSTemporaryDirectory() + "chat-forward-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (relay, server) = try await startRelay(dir)
        let (alice, bob, bobId, _) = try await connectedPair(dir, server)
        let carol = try await Client("carol", dir: dir, server: server)
        let inv = try await alice.cmd("/_connect 1")
        try await carol.cmd("/connect " + (try #require((inv["connLinkInvitation"] as? [String: Any])?["connFullLink"] as? String)))
        let carolId = try #require(contactId(try await alice.event("contactConnected") { displayName($0) == "carol" }))
        try await carol.event("contactConnected")

        let g = try #require(groupId(try await alice.cmd(#"/_group 1 {"displayName":"fwd","fullName":""}"#)))
        try await alice.cmd("/_add #\(g) \(bobId) member")
        let bg = try #require(groupId(try await bob.event("receivedGroupInvitation")))
        try await bob.cmd("/_join #\(bg)")
        try await bob.event("userJoinedGroup")
        try await alice.cmd("/_add #\(g) \(carolId) member")
        let cg = try #require(groupId(try await carol.event("receivedGroupInvitation")))
        try await carol.cmd("/_join #\(cg)")
        try await bob.event("connectedToGroupMember", timeout: 20) { memberName($0) == "carol" }
        try await carol.event("connectedToGroupMember", timeout: 20) { memberName($0) == "bob" }

        // Both have told Alice they are connected (x.grp.mem.con).
        let deadline = Date().addingTimeInterval(15)
        while try await alice.c.testCount("SELECT count(*) FROM group_member_intros WHERE intro_status = 'con'") < 1, Date() < deadline {
            try await Task.sleep(nanoseconds: 100_000_000)
        }
        #expect(try await alice.c.testCount("SELECT count(*) FROM group_member_intros WHERE intro_status = 'con'") == 1)
        try await Task.sleep(nanoseconds: 300_000_000)
        // Put the group back to "introduced, not yet connected": at Bob, his connection to Carol
        // is not ready; at Alice, the introduction is not confirmed.
        try await bob.c.testSQL("""
            UPDATE connections SET conn_status = 'joined'
            WHERE group_member_id IN (SELECT group_member_id FROM group_members WHERE local_display_name = 'carol')
            """)
        try await alice.c.testSQL("UPDATE group_member_intros SET intro_status = 'fwd'")

        try await bob.cmd(#"/_send #\#(bg) json [{"msgContent":{"type":"text","text":"through the host"}}]"#)
        let atCarol = try await carol.event("newChatItems", timeout: 20) { itemText($0) == "through the host" }
        let dir1 = try #require(firstItem(atCarol)?["chatDir"] as? [String: Any])
        #expect(((dir1["groupMember"] as? [String: Any])?["memberProfile"] as? [String: Any])?["displayName"] as? String == "bob")
        try await alice.event("newChatItems") { itemText($0) == "through the host" }
        // Bob relied on the host: nothing pending for Carol.
        #expect(try await bob.c.testCount("SELECT count(*) FROM pending_group_messages") == 0)

        // Once the introduction is confirmed, Alice stops forwarding: the next message from Bob
        // (now over his own connection again) reaches Carol once.
        try await alice.c.testSQL("UPDATE group_member_intros SET intro_status = 'con'")
        try await bob.c.testSQL("UPDATE connections SET conn_status = 'ready' WHERE conn_status = 'joined'")
        try await bob.cmd(#"/_send #\#(bg) json [{"msgContent":{"type":"text","text":"directly"}}]"#)
        try await carol.event("newChatItems", timeout: 20) { itemText($0) == "directly" }
        try await Task.sleep(nanoseconds: 500_000_000)
        let chat = try await carol.cmd("/_get chat #\(cg) count=50")
        let texts = ((chat["chat"] as? [String: Any])?["chatItems"] as? [[String: Any]])?.compactMap { ($0["meta"] as? [String: Any])?["itemText"] as? String } ?? []
        #expect(texts.filter { $0 == "through the host" }.count == 1 && texts.filter { $0 == "directly" }.count == 1, "\(texts)")

        // Pending messages (Bob does not know Carol's version yet, so he cannot count on the host)
        // go to Carol in one batch when Bob's connection to her is ready.
        let carolAtBob = "(SELECT group_member_id FROM group_members WHERE local_display_name = 'carol')"
        try await bob.c.testSQL("UPDATE connections SET conn_status = 'joined', peer_chat_min_version = NULL, peer_chat_max_version = NULL WHERE group_member_id IN \(carolAtBob)")
        try await bob.cmd(#"/_send #\#(bg) json [{"msgContent":{"type":"text","text":"p1"}}]"#)
        try await bob.cmd(#"/_send #\#(bg) json [{"msgContent":{"type":"text","text":"p2"}}]"#)
        #expect(try await bob.c.testCount("SELECT count(*) FROM pending_group_messages") == 2)
        try await bob.c.testSQL("UPDATE connections SET conn_status = 'ready', peer_chat_min_version = 1, peer_chat_max_version = 9 WHERE group_member_id IN \(carolAtBob)")
        let carolGmText = try await bob.c.testString("SELECT CAST(group_member_id AS TEXT) FROM group_members WHERE local_display_name = 'carol'")
        let carolGm = try #require(carolGmText.flatMap { Int64($0) })
        let carolConn = try #require(try await bob.c.testString("SELECT agent_conn_id FROM connections WHERE group_member_id = \(carolGm)"))
        try await bob.c.sendPendingGroupMessages(carolGm, agentConnId: carolConn)
        var pendingTexts: [String] = []
        while pendingTexts.count < 2 { pendingTexts += allTexts(try await carol.event("newChatItems") { allTexts($0).contains { $0.hasPrefix("p") } }) }
        #expect(pendingTexts == ["p1", "p2"])
        #expect(try await bob.c.testCount("SELECT count(*) FROM pending_group_messages") == 0)
        #expect(try await bob.c.testCount("""
            SELECT count(DISTINCT d.agent_msg_id) FROM group_item_deliveries d JOIN chat_items i ON i.chat_item_id = d.chat_item_id
            WHERE d.group_member_id = \(carolGm) AND i.item_text IN ('p1','p2')
            """) == 1)

        // Two items from Alice in one command: one agent message per member, both items delivered.
        try await alice.cmd(#"/_send #\#(g) json [{"msgContent":{"type":"text","text":"g1"}},{"msgContent":{"type":"text","text":"g2"}}]"#)
        for member in [bob, carol] {
            var got: [String] = []
            while got.count < 2 { got += allTexts(try await member.event("newChatItems") { allTexts($0).contains { $0.hasPrefix("g") } }) }
            #expect(got == ["g1", "g2"])
        }
        #expect(try await alice.c.testCount("""
            SELECT count(DISTINCT d.agent_msg_id) FROM group_item_deliveries d JOIN chat_items i ON i.chat_item_id = d.chat_item_id
            WHERE i.item_text IN ('g1','g2')
            """) == 2)
        let groupDelivered = "SELECT count(*) FROM chat_items WHERE item_text IN ('g1','g2') AND item_status_type = 'sndRcvd'"
        let deadline2 = Date().addingTimeInterval(15)
        while try await alice.c.testCount(groupDelivered) < 2, Date() < deadline2 { try await Task.sleep(nanoseconds: 100_000_000) }
        #expect(try await alice.c.testCount(groupDelivered) == 2)

        await relay.shutdown()
        await alice.c.close()
        await bob.c.close()
        await carol.c.close()
    }
}
