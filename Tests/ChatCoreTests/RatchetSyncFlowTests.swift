import Foundation
import GRDB
import Testing

@testable import ChatCore

/// Ratchet re-synchronization through the chat API (simplex-chat `/_sync`, `contactRatchetSync`)
/// between two chat clients over a real relay.
@Suite(.serialized) struct RatchetSyncFlowTests {
    func rcvConnEventStatus(_ e: [String: Any]) -> String? {
        let content = firstItem(e)?["content"] as? [String: Any]
        guard content?["type"] as? String == "rcvConnEvent" else { return nil }
        return ((content?["rcvConnEvent"] as? [String: Any])?["syncStatus"] as? String)
    }

    func syncStatus(_ e: [String: Any]) -> String? {
        (e["ratchetSyncProgress"] as? [String: Any])?["ratchetSyncStatus"] as? String
    }

    func send(_ from: Client, _ to: Int64, _ text: String) async throws {
        try await from.cmd(#"/_send @\#(to) json [{"msgContent":{"type":"text","text":"\#(text)"}}]"#)
    }

    /// The command forms of simplex-chat's parser (`/_sync @<id>[ force=on]`, `/_sync #<g> <m>[ force=on]`).
    @Test func syncCommandSyntax() throws {
        let cases: [(String, ChatCommand)] = [
            ("/_sync @5", .apiSyncContactRatchet(contactId: 5, force: false)),
            ("/_sync @5 force=on", .apiSyncContactRatchet(contactId: 5, force: true)),
            ("/_sync #3 7", .apiSyncGroupMemberRatchet(groupId: 3, groupMemberId: 7, force: false)),
            ("/_sync #3 7 force=on", .apiSyncGroupMemberRatchet(groupId: 3, groupMemberId: 7, force: true)),
        ]
        for (text, cmd) in cases {
            #expect(try ChatCommand(parsing: text) == cmd)
            #expect(cmd.commandString == text)
        }
        #expect(throws: ChatError.self) { try ChatCommand(parsing: "/_sync @x") }
        #expect(throws: ChatError.self) { try ChatCommand(parsing: "/_sync #3") }
    }

    /// `/_sync` needs a decryption error or `force=on`; forced, both sides go through agreed to
    /// ok, each chat gets its connection-event items, and messages flow again.
    @Test func forcedSyncBetweenContacts() async throws {
        let dir = NSTemporaryDirectory() + "chat-sync-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (relay, server) = try await startRelay(dir)
        let (alice, bob, bobId, aliceId) = try await connectedPair(dir, server)

        let refused = try await alice.cmdError("/_sync @\(bobId)")
        let agentErr = refused["agentError"] as? [String: Any]
        #expect(agentErr?["type"] as? String == "CMD")
        #expect((agentErr?["cmdErr"] as? [String: Any])?["type"] as? String == "PROHIBITED")
        #expect(agentErr?["errContext"] as? String == "synchronizeRatchet: not allowed")

        let started = try await alice.cmd("/_sync @\(bobId) force=on")
        #expect(started["type"] as? String == "contactRatchetSyncStarted")
        let stats = try #require(started["connectionStats"] as? [String: Any])
        #expect(stats["ratchetSyncState"] as? String == "started")
        #expect(stats["ratchetSyncSupported"] as? Bool == true)
        #expect((stats["rcvQueuesInfo"] as? [[String: Any]])?.first?["status"] as? String == "active")
        let sndItem = try await alice.event("newChatItems") { firstItem($0)?["content"].map { ($0 as? [String: Any])?["type"] as? String } == "sndConnEvent" }
        #expect(itemText(sndItem) == "connection synchronization started")

        for (client, status) in [(bob, "agreed"), (bob, "ok"), (alice, "agreed"), (alice, "ok")] {
            try await client.event("contactRatchetSync") { syncStatus($0) == status }
            try await client.event("newChatItems") { rcvConnEventStatus($0) == status }
        }
        try await send(alice, bobId, "after sync")
        try await bob.event("newChatItems") { itemText($0) == "after sync" }
        try await send(bob, aliceId, "reply after sync")
        try await alice.event("newChatItems") { itemText($0) == "reply after sync" }

        await alice.c.close()
        await bob.c.close()
        await relay.shutdown()
    }

    /// Bob's agent ratchet is rolled back (a restored backup): Alice's next message is a
    /// decryption error item at Bob (RATCHET_HEADER, `required`), Bob cannot send, `/_sync`
    /// without force works, and the conversation continues.
    @Test func decryptionErrorThenSync() async throws {
        let dir = NSTemporaryDirectory() + "chat-sync-err-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (relay, server) = try await startRelay(dir)
        var (alice, bob, bobId, aliceId) = try await connectedPair(dir, server)
        let agentDb = ChatController.agentDatabasePath(dir + "/bob")

        await bob.c.close()
        let backup = try DatabaseQueue(path: agentDb)
        let saved: [(String, Data?)] = try backup.inDatabase { db in
            try Row.fetchAll(db, sql: "SELECT conn_id, ratchet_state FROM ratchets").map { ($0["conn_id"], $0["ratchet_state"]) }
        }
        try backup.close()
        bob = try await Client("bob", dir: dir, server: server, create: false)
        for i in 0..<2 {
            try await send(alice, bobId, "a\(i)")
            try await bob.event("newChatItems") { itemText($0) == "a\(i)" }
            try await send(bob, aliceId, "b\(i)")
            try await alice.event("newChatItems") { itemText($0) == "b\(i)" }
        }
        await bob.c.close()
        let restore = try DatabaseQueue(path: agentDb)
        try restore.inDatabase { db in
            for (connId, state) in saved {
                try db.execute(sql: "UPDATE ratchets SET ratchet_state = ? WHERE conn_id = ?", arguments: [state, connId])
            }
        }
        try restore.close()
        bob = try await Client("bob", dir: dir, server: server, create: false)

        try await send(alice, bobId, "lost 1")
        let required = try await bob.event("contactRatchetSync") { syncStatus($0) == "required" }
        #expect(((required["ratchetSyncProgress"] as? [String: Any])?["connectionStats"] as? [String: Any])?["ratchetSyncState"] as? String == "required")
        let errItem = try await bob.event("newChatItems") { (firstItem($0)?["content"] as? [String: Any])?["type"] as? String == "rcvDecryptionError" }
        #expect(itemText(errItem) == "decryption error, possibly due to the device change (header)")
        // A second failure counts into the same item.
        try await send(alice, bobId, "lost 2")
        let updated = try await bob.event("chatItemUpdated")
        let content = ((updated["chatItem"] as? [String: Any])?["chatItem"] as? [String: Any])?["content"] as? [String: Any]
        #expect(content?["msgCount"] as? Int == 2)

        let blocked = try await bob.cmdError(#"/_send @\#(aliceId) json [{"msgContent":{"type":"text","text":"blocked"}}]"#)
        #expect(blocked["type"] as? String == "errorAgent")

        let started = try await bob.cmd("/_sync @\(aliceId)")
        #expect(started["type"] as? String == "contactRatchetSyncStarted")
        try await bob.event("contactRatchetSync") { syncStatus($0) == "ok" }
        try await alice.event("contactRatchetSync") { syncStatus($0) == "ok" }
        try await send(alice, bobId, "after sync")
        try await bob.event("newChatItems") { itemText($0) == "after sync" }
        try await send(bob, aliceId, "bob again")
        try await alice.event("newChatItems") { itemText($0) == "bob again" }

        await alice.c.close()
        await bob.c.close()
        await relay.shutdown()
    }
}
