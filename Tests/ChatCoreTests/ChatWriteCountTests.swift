import Foundation
import GRDB
import Testing

@testable import ChatCore

/// Issue 14: chat-database write transactions per message, over a real relay and real SQLite
/// files. A sent message costs at most two (its item; its delivery status, which carries the
/// deferred "sent" mark), a received one at most one.
@Suite(.serialized) struct ChatWriteCountTests {
    @Test func twoWritesPerSentMessageOneWritePerReceived() async throws {
        let dir = NSTemporaryDirectory() + "chat-writes-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (relay, server) = try await startRelay(dir)
        // A long delay: only another write may carry a "sent" mark, so the count cannot depend
        // on how fast the receipt comes back.
        let (alice, bob, bobId, _) = try await connectedPair(dir, server, deferredStatusDelay: 600)

        // The first message marks the contact used; let the handshake's own writes settle.
        try await roundTrip(alice, bob, bobId, "warm-up")
        try await Task.sleep(nanoseconds: 300_000_000)

        let count = 5
        let aliceBefore = await alice.c.chatDatabaseWrites, bobBefore = await bob.c.chatDatabaseWrites
        for i in 0..<count { try await roundTrip(alice, bob, bobId, "message \(i)") }
        let aliceWrites = await alice.c.chatDatabaseWrites - aliceBefore, bobWrites = await bob.c.chatDatabaseWrites - bobBefore
        #expect(aliceWrites >= count && bobWrites >= count, "every message was written")
        #expect(aliceWrites <= 2 * count, "sender: \(aliceWrites) writes for \(count) messages")
        #expect(bobWrites <= count, "receiver: \(bobWrites) writes for \(count) messages")
        // Every item ended delivered in the file itself.
        #expect(try await alice.c.testCount("SELECT count(*) FROM chat_items WHERE item_sent = 1 AND item_status_type = 'sndRcvd'") == count + 1)

        await alice.c.close()
        await bob.c.close()
        await relay.shutdown()
    }

    /// The same exchange with the deferral off (`deferredStatusDelay` 0, how statuses were written
    /// before issue 14): three writes per sent message, which the test above would refuse.
    @Test func withoutDeferralASentMessageCostsThreeWrites() async throws {
        let dir = NSTemporaryDirectory() + "chat-writes-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (relay, server) = try await startRelay(dir)
        let (alice, bob, bobId, _) = try await connectedPair(dir, server, deferredStatusDelay: 0)
        try await roundTrip(alice, bob, bobId, "warm-up")
        try await Task.sleep(nanoseconds: 300_000_000)
        let count = 3
        let before = await alice.c.chatDatabaseWrites
        for i in 0..<count { try await roundTrip(alice, bob, bobId, "message \(i)") }
        // Usually exactly 3 each; a SENT that beats the insert goes into it (2 for that one).
        let writes = await alice.c.chatDatabaseWrites - before
        #expect(writes > 2 * count && writes <= 3 * count, "\(writes) writes for \(count) messages")
        await alice.c.close()
        await bob.c.close()
        await relay.shutdown()
    }

    /// A "sent" mark with no receipt to carry it: shown at once (event and history), written by
    /// the delay or on close, never lost to a clean shutdown, and never over "delivered".
    @Test func deferredSentMarkIsShownAndWritten() async throws {
        let dir = NSTemporaryDirectory() + "chat-writes-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (relay, server) = try await startRelay(dir)
        let (alice, bob, bobId, _) = try await connectedPair(dir, server, deferredStatusDelay: 600)
        try await roundTrip(alice, bob, bobId, "warm-up")
        // Bob is gone: the relay takes the message (SENT), no receipt comes back.
        await bob.c.close()

        let sent = try await alice.cmd(#"/_send @\#(bobId) json [{"msgContent":{"type":"text","text":"to the relay"}}]"#)
        let id = try #require(itemId(sent))
        try await alice.event("chatItemsStatusesUpdated") { itemId($0) == id && itemStatus($0) == "sndSent" }
        let stored = "SELECT count(*) FROM chat_items WHERE chat_item_id = \(id) AND item_status_type = 'sndSent'"
        #expect(try await alice.c.testCount(stored) == 0, "the mark waits for a write")
        let history = try await alice.cmd("/_get chat @\(bobId) count=10")
        let items = try #require((history["chat"] as? [String: Any])?["chatItems"] as? [[String: Any]])
        let shown = items.first { (($0["meta"] as? [String: Any])?["itemId"] as? NSNumber)?.int64Value == id }
        #expect(((shown?["meta"] as? [String: Any])?["itemStatus"] as? [String: Any])?["type"] as? String == "sndSent")
        let list = try await alice.cmd("/_get chats 1")
        #expect(String(describing: list).contains("sndSent"), "the chat list's last item shows it too")

        // Closing writes it.
        await alice.c.close()
        let again = try await Client("alice", dir: dir, server: server, create: false)
        #expect(try await again.c.testCount(stored) == 1)
        await again.c.close()
        await relay.shutdown()
    }

    @Test func deferredSentMarkIsWrittenAfterTheDelay() async throws {
        let dir = NSTemporaryDirectory() + "chat-writes-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (relay, server) = try await startRelay(dir)
        let (alice, bob, bobId, _) = try await connectedPair(dir, server, deferredStatusDelay: 0.2)
        try await roundTrip(alice, bob, bobId, "warm-up")
        await bob.c.close()
        let sent = try await alice.cmd(#"/_send @\#(bobId) json [{"msgContent":{"type":"text","text":"to the relay"}}]"#)
        let id = try #require(itemId(sent))
        try await alice.event("chatItemsStatusesUpdated") { itemId($0) == id && itemStatus($0) == "sndSent" }
        let stored = "SELECT count(*) FROM chat_items WHERE chat_item_id = \(id) AND item_status_type = 'sndSent'"
        let deadline = Date().addingTimeInterval(10)
        while try await alice.c.testCount(stored) == 0, Date() < deadline { try await Task.sleep(nanoseconds: 50_000_000) }
        #expect(try await alice.c.testCount(stored) == 1)
        await alice.c.close()
        await relay.shutdown()
    }

    /// A group message costs one write for the item with every member's delivery, and one per
    /// delivery report (the copy's status and the item's together). Before the one messaging
    /// path it cost two, and two per report.
    @Test func groupMessageWritesItemAndDeliveriesTogether() async throws {
        let dir = NSTemporaryDirectory() + "chat-writes-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (relay, server) = try await startRelay(dir)
        let (alice, bob, bobId, _) = try await connectedPair(dir, server, deferredStatusDelay: 600)
        let created = try await alice.cmd(#"/_group 1 {"displayName":"team","fullName":""}"#)
        let g = try #require(((created["groupInfo"] as? [String: Any])?["groupId"] as? NSNumber)?.int64Value)
        try await alice.cmd("/_add #\(g) \(bobId) member")
        let invited = try await bob.event("receivedGroupInvitation")
        let bg = try #require(((invited["groupInfo"] as? [String: Any])?["groupId"] as? NSNumber)?.int64Value)
        try await bob.cmd("/_join #\(bg)")
        try await alice.event("joinedGroupMember")
        try await bob.event("userJoinedGroup")

        // Each round trip ends with Bob's receipt written: nothing of one message (a late receipt
        // of the warm-up, under load) can land in the next one's count, whatever the timing.
        func groupRoundTrip(_ text: String) async throws {
            let sent = try await alice.cmd(#"/_send #\#(g) json [{"msgContent":{"type":"text","text":"\#(text)"}}]"#)
            let id = try #require(itemId(sent))
            try await bob.event("newChatItems") { itemText($0) == text }
            try await alice.event("chatItemsStatusesUpdated") { itemId($0) == id && itemStatus($0) == "sndSent" }
            try await alice.event("chatItemsStatusesUpdated") { itemId($0) == id && itemStatus($0) == "sndRcvd" }
        }
        try await groupRoundTrip("warm-up")

        let count = 4
        let before = await alice.c.chatDatabaseWrites
        for i in 0..<count { try await groupRoundTrip("group message \(i)") }
        let writes = await alice.c.chatDatabaseWrites - before
        #expect(writes == 3 * count, "sender: \(writes) writes for \(count) group messages to one member (item, SENT, receipt)")
        #expect(try await alice.c.testCount("SELECT count(*) FROM group_item_deliveries") == count + 1)

        await alice.c.close()
        await bob.c.close()
        await relay.shutdown()
    }

    /// Alice sends `text`; Bob receives it and Alice sees it delivered.
    private func roundTrip(_ alice: Client, _ bob: Client, _ bobId: Int64, _ text: String) async throws {
        let sent = try await alice.cmd(#"/_send @\#(bobId) json [{"msgContent":{"type":"text","text":"\#(text)"}}]"#)
        let id = try #require(itemId(sent))
        try await bob.event("newChatItems") { itemText($0) == text }
        try await alice.event("chatItemsStatusesUpdated") { itemId($0) == id && itemStatus($0) == "sndRcvd" }
    }
}

/// A deferred "sent" mark never replaces "delivered" in the file, whatever the order.
@Suite struct DeferredStatusStoreTests {
    @Test func markDoesNotOverwriteDelivered() throws {
        let path = NSTemporaryDirectory() + "chat-deferred-\(UInt32.random(in: 0...UInt32.max))_chat.db"
        defer { try? FileManager.default.removeItem(atPath: path) }
        // Two sent items, one not delivered yet and one delivered, written as plain rows.
        guard case .success(let migrated) = ChatStore.open(path: path, key: "", confirm: .yesUp) else {
            Issue.record("open failed")
            return
        }
        migrated.close()
        let rcvd = try ChatController.jsonText(CIStatus.sndRcvd(msgRcptStatus: .ok, sndProgress: .complete))
        let sentMark = try ChatController.jsonText(CIStatus.sndSent(sndProgress: .complete))
        let new = try ChatController.jsonText(CIStatus.sndNew)
        var plain = Configuration()
        plain.foreignKeysEnabled = false
        let raw = try DatabaseQueue(path: path, configuration: plain)
        let (a, b) = try raw.write { db -> (Int64, Int64) in
            func item(_ status: String) throws -> Int64 {
                try db.execute(sql: """
                    INSERT INTO chat_items (user_id, contact_id, item_sent, item_ts, item_text, item_content, item_status, created_at, updated_at)
                    VALUES (1, 1, 1, 0, 'x', '{}', ?, 0, 0)
                    """, arguments: [status])
                return db.lastInsertedRowID
            }
            return (try item(new), try item(rcvd))
        }
        try raw.close()
        guard case .success(let store) = ChatStore.open(path: path, key: "", confirm: .yesUp) else {
            Issue.record("reopen failed")
            return
        }
        store.deferSentStatus([a, b], statusJSON: sentMark, at: 1)
        #expect(store.hasDeferredWrites)
        let writes = store.writeCount
        try store.flushDeferred()
        #expect(store.writeCount == writes + 1 && !store.hasDeferredWrites)
        try store.flushDeferred()
        #expect(store.writeCount == writes + 1, "nothing deferred: no transaction")
        let statuses = try store.read { db in
            try String.fetchAll(db, sql: "SELECT item_status_type FROM chat_items WHERE chat_item_id IN (?, ?) ORDER BY chat_item_id", arguments: [a, b])
        }
        #expect(statuses == ["sndSent", "sndRcvd"])
        store.close()
    }
}
