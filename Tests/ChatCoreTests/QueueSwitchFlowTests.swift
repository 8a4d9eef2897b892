import Foundation
import Testing

@testable import ChatCore

/// Queue rotation through the chat API (simplex-chat `/_switch`, `/_abort switch`, `contactSwitch`)
/// between two chat clients over a real relay.
@Suite(.serialized) struct QueueSwitchFlowTests {
    func phase(_ e: [String: Any]) -> (String?, String?) {
        let p = e["switchProgress"] as? [String: Any]
        return (p?["queueDirection"] as? String, p?["switchPhase"] as? String)
    }

    func send(_ from: Client, _ to: Int64, _ text: String) async throws {
        try await from.cmd(#"/_send @\#(to) json [{"msgContent":{"type":"text","text":"\#(text)"}}]"#)
    }

    @Test func switchContactAddressAndKeepMessaging() async throws {
        let dir = NSTemporaryDirectory() + "chat-switch-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (relay, server) = try await startRelay(dir)
        let (alice, bob, bobId, aliceId) = try await connectedPair(dir, server)

        let none = try await alice.cmdError("/_abort switch @\(bobId)")
        #expect((none["agentError"] as? [String: Any])?["errContext"] as? String == "abortConnectionSwitch: not allowed")

        let started = try await alice.cmd("/_switch @\(bobId)")
        #expect(started["type"] as? String == "contactSwitchStarted")
        let rqs = try #require((started["connectionStats"] as? [String: Any])?["rcvQueuesInfo"] as? [[String: Any]])
        #expect(rqs.count == 2)
        #expect(rqs.first?["rcvSwitchStatus"] as? String == "sending_qadd")
        #expect(rqs.first?["canAbortSwitch"] as? Bool == true)

        for p in ["started", "confirmed", "secured", "completed"] {
            let e = try await alice.event("contactSwitch") { self.phase($0) == ("rcv", p) }
            #expect(contactId(e) == bobId)
            try await bob.event("contactSwitch") { self.phase($0) == ("snd", p) }
        }
        let aliceStarted = try await alice.event("newChatItems") { itemText($0) == "started changing address..." }
        #expect((firstItem(aliceStarted)?["content"] as? [String: Any])?["type"] as? String == "sndConnEvent")
        try await alice.event("newChatItems") { itemText($0) == "you changed address" }
        try await bob.event("newChatItems") { itemText($0) == "started changing address for you..." }
        try await bob.event("newChatItems") { itemText($0) == "changed address for you" }

        try await send(bob, aliceId, "to the new address")
        try await alice.event("newChatItems") { itemText($0) == "to the new address" }
        try await send(alice, bobId, "reply")
        try await bob.event("newChatItems") { itemText($0) == "reply" }

        await alice.c.close()
        await bob.c.close()
        await relay.shutdown()
    }

    @Test func switchCommandSyntax() throws {
        let cases: [(String, ChatCommand)] = [
            ("/_switch @4", .apiSwitchContact(contactId: 4)),
            ("/_switch #2 9", .apiSwitchGroupMember(groupId: 2, groupMemberId: 9)),
            ("/_abort switch @4", .apiAbortSwitchContact(contactId: 4)),
            ("/_abort switch #2 9", .apiAbortSwitchGroupMember(groupId: 2, groupMemberId: 9)),
        ]
        for (text, cmd) in cases {
            #expect(try ChatCommand(parsing: text) == cmd)
            #expect(cmd.commandString == text)
        }
    }
}
