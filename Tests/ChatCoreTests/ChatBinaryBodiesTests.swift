import Foundation
import SMPAgent
import Testing

@testable import ChatCore

/// simplex-chat sends binary bodies (`=` batches, `/` signed and `F` forwarded elements) only in
/// relay groups and, in p2p chats, to peers whose chat version reaches `relayWebCapVersion` (18).
/// These tests pin that we advertise a range below it, everywhere a peer learns our range.
@Suite struct ChatBinaryBodiesTests {
    @Test func advertisedRangeIsBelowTheBinaryFloor() {
        #expect(ChatProtocolVersion.supportedRange.max < ChatProtocolVersion.binaryBodies)
        // A peer at any version negotiates at most our maximum with us.
        #expect(ChatController.negotiatedVersion(peerMin: 1, peerMax: 20) < ChatProtocolVersion.binaryBodies)
    }

    @Test func everyMessageCarriesThatRange() throws {
        let expected = "\(ChatProtocolVersion.supportedRange.min)-\(ChatProtocolVersion.supportedRange.max)"
        for event in ChatSchemaTests.samples() {
            let data = try ChatMessage(chatVRange: ChatProtocolVersion.supportedRange, msgId: .random(), event: event).encoded(maxSize: nil)
            let value = try ChatJSON.decode(JSONValue.self, from: data)
            #expect(value.objectValue?["v"] == .string(expected), "\(event.tag)")
        }
    }

    @Test func binaryBodiesStillFailCleanly() {
        // Should a peer send one anyway, it is a typed error, not a crash (the connection stays usable).
        for (body, prefix) in [("=\u{1}\u{0}\u{2}{}", "="), ("/G\u{1}M", "/"), ("F\u{0}\u{0}", "F"), (">x", ">")] {
            #expect(throws: ChatProtocolError.unsupportedFormat(prefix: prefix)) { try ChatMessageBody.decode(Data(body.utf8)) }
        }
    }
}
