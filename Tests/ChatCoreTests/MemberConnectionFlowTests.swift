import Foundation
import Testing

@testable import ChatCore

/// Ratchet re-synchronization and queue rotation of a group member's connection
/// (`/_sync #<g> <m>`, `/_switch #<g> <m>`), over a real relay.
@Suite(.serialized) struct MemberConnectionFlowTests {
    func num(_ v: Any?) -> Int64? { (v as? NSNumber)?.int64Value }

    @Test func syncAndSwitchMemberConnection() async throws {
        let dir = NSTemporaryDirectory() + "member-conn-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (relay, server) = try await startRelay(dir)
        let (alice, bob, bobId, _) = try await connectedPair(dir, server)
        let created = try await alice.cmd(#"/_group 1 {"displayName":"team","fullName":""}"#)
        let g = try #require(num((created["groupInfo"] as? [String: Any])?["groupId"]))
        try await alice.cmd("/_add #\(g) \(bobId) member")
        let invited = try await bob.event("receivedGroupInvitation")
        let bg = try #require(num((invited["groupInfo"] as? [String: Any])?["groupId"]))
        try await bob.cmd("/_join #\(bg)")
        let joined = try await alice.event("joinedGroupMember")
        let bobGm = try #require(num((joined["member"] as? [String: Any])?["groupMemberId"]))
        try await bob.event("userJoinedGroup")

        let started = try await alice.cmd("/_sync #\(g) \(bobGm) force=on")
        #expect(started["type"] as? String == "groupMemberRatchetSyncStarted")
        #expect((started["connectionStats"] as? [String: Any])?["ratchetSyncState"] as? String == "started")
        for c in [alice, bob] {
            try await c.event("groupMemberRatchetSync") { (($0["ratchetSyncProgress"] as? [String: Any])?["ratchetSyncStatus"] as? String) == "ok" }
        }
        try await alice.event("newChatItems") { itemText($0) == "connection synchronization started for bob" }

        let switching = try await alice.cmd("/_switch #\(g) \(bobGm)")
        #expect(switching["type"] as? String == "groupMemberSwitchStarted")
        try await alice.event("groupMemberSwitch") { (($0["switchProgress"] as? [String: Any])?["switchPhase"] as? String) == "completed" }
        try await bob.event("groupMemberSwitch") { (($0["switchProgress"] as? [String: Any])?["switchPhase"] as? String) == "completed" }
        try await alice.event("newChatItems") { itemText($0) == "you changed address for bob" }

        try await bob.cmd(#"/_send #\#(bg) json [{"msgContent":{"type":"text","text":"after switch"}}]"#)
        try await alice.event("newChatItems") { itemText($0) == "after switch" }
        try await alice.cmd(#"/_send #\#(g) json [{"msgContent":{"type":"text","text":"welcome back"}}]"#)
        try await bob.event("newChatItems") { itemText($0) == "welcome back" }

        await alice.c.close()
        await bob.c.close()
        await relay.shutdown()
    }
}
