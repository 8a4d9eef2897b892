import Foundation
import SMPAgent
import Testing

@testable import ChatCore

private func activeConn(_ e: [String: Any]) -> [String: Any]? {
    (e["contact"] as? [String: Any])?["activeConn"] as? [String: Any]
}

private func allTexts(_ e: [String: Any]) -> [String] {
    ((e["chatItems"] as? [[String: Any]]) ?? []).compactMap { (($0["chatItem"] as? [String: Any])?["meta"] as? [String: Any])?["itemText"] as? String }
}

/// Two chat cores over a real relay at chat versions 1-9: what they negotiate, and every body form
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

        // Both announce 1-9 and use 9.
        for side in [aliceSide, bobSide] {
            let conn = try #require(activeConn(side))
            let peer = try #require(conn["peerChatVRange"] as? [String: Any])
            #expect(peer["minVersion"] as? Int == 1 && peer["maxVersion"] as? Int == 9, "\(peer)")
            #expect(conn["connChatVersion"] as? Int == 9)
        }
        let toBob = try #require(activeConn(aliceSide)?["agentConnId"] as? String)

        // A JSON batch of two messages in one agent message: two items.
        let batch = try #require(try ChatMessageBody.encode([
            ChatMessage(chatVRange: ChatController.ourChatVRange, msgId: .random(), event: .msgNew(MsgContainer(content: .text("batched one")))),
            ChatMessage(chatVRange: ChatController.ourChatVRange, msgId: .random(), event: .msgNew(MsgContainer(content: .text("batched two")))),
        ]).first?.get())
        #expect(batch.body.first == UInt8(ascii: "[") && batch.messageIndices == [0, 1])
        _ = try await alice.c.sendToAgent(toBob, batch.body)
        var texts: [String] = []
        while texts.count < 2 { texts += allTexts(try await bob.event("newChatItems")) }
        #expect(texts == ["batched one", "batched two"])

        // A compressed body holding a batch, one message long enough to be a zstd frame.
        let long = String(repeating: "a long message that compresses well. ", count: 200)
        let inner = try #require(try ChatMessageBody.encode([
            ChatMessage(chatVRange: ChatController.ourChatVRange, msgId: .random(), event: .msgNew(MsgContainer(content: .text(long)))),
            ChatMessage(chatVRange: ChatController.ourChatVRange, msgId: .random(), event: .msgNew(MsgContainer(content: .text("after the long one")))),
        ]).first?.get())
        let compressed = try ChatCompression.compressedBody(inner.body)
        #expect(compressed.count < inner.body.count / 4)
        _ = try await alice.c.sendToAgent(toBob, compressed)
        texts = []
        while texts.count < 2 { texts += allTexts(try await bob.event("newChatItems")) }
        #expect(texts == [long, "after the long one"])

        // Bad bodies: a zstd bomb, a frame that is not zstd, a batch with bad JSON, a bad part list.
        // Each gives a warning; the connection stays usable and later messages arrive.
        let bomb = try ChatCompression.body([CompressedPart.compress(Data(repeating: UInt8(ascii: "["), count: 1_000_000).prefix(65_537))])
        let notZstd = try ChatCompression.body([.compressed(Data("not a zstd frame at all".utf8))])
        for bad in [bomb, notZstd, Data(#"[{"event":"x.msg.new""#.utf8), Data("X".utf8) + Data([3, UInt8(ascii: "0")])] {
            _ = try await alice.c.sendToAgent(toBob, bad)
            let warning = try await bob.event("messageError")
            #expect(warning["severity"] as? String == "warning")
        }
        try await alice.cmd(#"/_send @\#(bobId) json [{"msgContent":{"type":"text","text":"still connected"}}]"#)
        #expect(itemText(try await bob.event("newChatItems")) == "still connected")

        // A long message through the ordinary send path: compressed when the connection has
        // post-quantum support (version 9 >= 8), and it arrives whole.
        let longText = String(repeating: "0123456789 ", count: 1_300)
        let body = try await alice.c.chatMessage(.msgNew(MsgContainer(content: .text(longText))))
        #expect(body.count > ChatProtocolLimits.maxCompressedMsgLength)
        let (version, pq) = try await alice.c.negotiated(toBob)
        #expect(version == 9)
        let wire = try await alice.c.bodyToSend(toBob, body)
        #expect((wire.first == UInt8(ascii: "X")) == pq)
        try await alice.cmd(#"/_send @\#(bobId) json [{"msgContent":{"type":"text","text":"\#(longText)"}}]"#)
        #expect(itemText(try await bob.event("newChatItems")) == longText)

        await relay.shutdown()
        await alice.c.close()
        await bob.c.close()
    }
}
