import Foundation
import NIOPosix
import SMPServer
import SMPTransport
import Testing

@testable import ChatCore

/// Issue 14: every mode of `/_delete <chatRef>` does what COMMANDS.md says, and deletions made
/// while the chat is stopped still remove the agent connections (at the next start).
@Suite(.serialized) struct ChatDeletionTests {
    private func dir(_ name: String) -> String { NSTemporaryDirectory() + "chat-\(name)-\(UInt32.random(in: 0...UInt32.max))" }

    /// `messages` clears the chat and keeps the contact and its connection; `entity` removes
    /// the connection and keeps the chat; `full` removes both.
    @Test func contactDeleteModes() async throws {
        let d = dir("delete-modes")
        defer { try? FileManager.default.removeItem(atPath: d) }
        let (relay, server) = try await startRelay(d)
        let (alice, bob, bobId, aliceId) = try await connectedPair(d, server)
        try await alice.cmd(#"/_send @\#(bobId) json [{"msgContent":{"type":"text","text":"one"}}]"#)
        try await bob.event("newChatItems") { itemText($0) == "one" }

        let cleared = try await bob.cmd("/_delete @\(aliceId) messages")
        #expect(cleared["type"] as? String == "contactDeleted")
        #expect((cleared["contact"] as? [String: Any])?["chatDeleted"] as? Bool == true)
        let chat = try await bob.cmd("/_get chat @\(aliceId) count=10")
        #expect(((chat["chat"] as? [String: Any])?["chatItems"] as? [Any])?.count == 0)
        #expect((try await bob.cmd("/_contacts 1")["contacts"] as? [Any])?.count == 1)
        // A cleared chat is not in the chat list until its next message.
        #expect((try await bob.cmd("/_get chats 1")["chats"] as? [Any])?.count == 0)
        // The connection is intact: messages still flow both ways, and Alice was told nothing.
        try await alice.cmd(#"/_send @\#(bobId) json [{"msgContent":{"type":"text","text":"two"}}]"#)
        try await bob.event("newChatItems") { itemText($0) == "two" }
        #expect((try await bob.cmd("/_get chats 1")["chats"] as? [Any])?.count == 1)
        try await bob.cmd(#"/_send @\#(aliceId) json [{"msgContent":{"type":"text","text":"three"}}]"#)
        try await alice.event("newChatItems") { itemText($0) == "three" }

        // entity: the connection goes, the chat stays, the contact is deletedByUser.
        let bobAgent = try #require(await bob.c.agent)
        let before = try await bobAgent.connectionIds()
        let entity = try await bob.cmd("/_delete @\(aliceId) entity notify=off")
        #expect((entity["contact"] as? [String: Any])?["contactStatus"] as? String == "deletedByUser")
        let kept = try await bob.cmd("/_get chat @\(aliceId) count=10")
        #expect(((kept["chat"] as? [String: Any])?["chatItems"] as? [Any])?.count == 2)
        #expect(try await bobAgent.connectionIds().count == before.count - 1)

        // full: the contact and its chat go, the peer is told.
        let full = try await alice.cmd("/_delete @\(bobId) full")
        #expect(full["type"] as? String == "contactDeleted")
        #expect((try await alice.cmd("/_contacts 1")["contacts"] as? [Any])?.count == 0)
        let gone = try await alice.cmdError("/_get chat @\(bobId) count=10")
        #expect((gone["storeError"] as? [String: Any])?["type"] as? String == "contactNotFound")

        await alice.c.close()
        await bob.c.close()
        await relay.shutdown()
    }

    /// `/_delete #g messages` clears the group's items and keeps the group; `/_delete :id`
    /// deletes a pending connection and its agent connection.
    @Test func groupClearAndPendingConnection() async throws {
        let d = dir("delete-group")
        defer { try? FileManager.default.removeItem(atPath: d) }
        let (relay, server) = try await startRelay(d)
        let alice = try await Client("alice", dir: d, server: server)
        let g = try await alice.cmd(#"/_group 1 {"displayName":"team","fullName":""}"#)
        let groupId = try #require(((g["groupInfo"] as? [String: Any])?["groupId"] as? NSNumber)?.int64Value)
        try await alice.cmd(#"/_send #\#(groupId) json [{"msgContent":{"type":"text","text":"note"}}]"#)
        let cleared = try await alice.cmd("/_delete #\(groupId) messages")
        #expect(cleared["type"] as? String == "chatCleared")
        let chat = try await alice.cmd("/_get chat #\(groupId) count=10")
        #expect(((chat["chat"] as? [String: Any])?["chatItems"] as? [Any])?.count == 0)
        #expect((try await alice.cmd("/_groups 1")["groups"] as? [Any])?.count == 1)

        let inv = try await alice.cmd("/_connect 1")
        let conn = try #require(inv["connection"] as? [String: Any])
        let connId = try #require((conn["pccConnId"] as? NSNumber)?.int64Value)
        let agentConnId = try #require(conn["pccAgentConnId"] as? String)
        let agent = try #require(await alice.c.agent)
        #expect(try await agent.connectionIds().contains(agentConnId))
        let deleted = try await alice.cmd("/_delete :\(connId)")
        #expect(deleted["type"] as? String == "contactConnectionDeleted")
        #expect(try await agent.connectionIds().contains(agentConnId) == false)
        let chats = try await alice.cmd("/_get chats 1 pcc=on")
        #expect((chats["chats"] as? [[String: Any]])?.contains { ($0["chatInfo"] as? [String: Any])?["type"] as? String == "contactConnection" } == false)
        let missing = try await alice.cmdError("/_delete :\(connId)")
        #expect((missing["storeError"] as? [String: Any])?["type"] as? String == "pendingConnectionNotFound")

        await alice.c.close()
        await relay.shutdown()
    }

    /// A contact deleted while the chat is stopped: its agent connection is deleted when the
    /// chat starts again.
    @Test func deletionWhileStoppedIsFinishedAtStart() async throws {
        let d = dir("delete-stopped")
        defer { try? FileManager.default.removeItem(atPath: d) }
        let (relay, server) = try await startRelay(d)
        let (alice, bob, bobId, _) = try await connectedPair(d, server)
        let contacts = try await alice.cmd("/_contacts 1")
        let agentConnId = try #require(((contacts["contacts"] as? [[String: Any]])?.first?["activeConn"] as? [String: Any])?["agentConnId"] as? String)
        #expect(try await alice.cmd("/_stop")["type"] as? String == "chatStopped")
        #expect(try await alice.cmd("/_delete @\(bobId) full notify=off")["type"] as? String == "contactDeleted")
        #expect(try await alice.cmd("/_start")["type"] as? String == "chatStarted")
        let agent = try #require(await alice.c.agent)
        #expect(try await agent.connectionIds().contains(agentConnId) == false)
        let store = await alice.c.store
        let pending = try store.read { db in try db.pendingAgentDeletions() }
        #expect(pending.isEmpty)

        await alice.c.close()
        await bob.c.close()
        await relay.shutdown()
    }
}
