import Foundation
import Testing

@testable import ChatCore

/// Issue 16: the message paths build their answers and events with fewer reads (the receiver's
/// contact is not read again after the item is stored; an item's reactions, mentions and file
/// are queried only when it has them). What they show must still be what is stored: each is
/// compared with the chat as `/_get chat` reads it afterwards.
@Suite(.serialized) struct MessageViewsFlowTests {
    /// A chat's contact and items as `/_get chat` reads them.
    private func stored(_ c: Client, _ contactId: Int64) async throws -> (contact: NSDictionary, items: [NSDictionary]) {
        let r = try await c.cmd("/_get chat @\(contactId) count=100")
        let chat = try #require(r["chat"] as? [String: Any])
        let contact = try #require((chat["chatInfo"] as? [String: Any])?["contact"] as? [String: Any])
        let items = try #require(chat["chatItems"] as? [[String: Any]])
        return (contact as NSDictionary, items.map { $0 as NSDictionary })
    }

    private func eventContact(_ e: [String: Any]) -> NSDictionary? {
        ((e["chatItems"] as? [[String: Any]])?.first?["chatInfo"] as? [String: Any])?["contact"] as? NSDictionary
    }

    @Test func eventsShowTheStoredContactAndItem() async throws {
        try await withFlow("message-views") { flow in
            let (alice, bob, bobId, aliceId) = try await flow.pair()
            for text in ["first", "second"] {
                try await alice.cmd(#"/_send @\#(bobId) json [{"msgContent":{"type":"text","text":"\#(text)"}}]"#)
                let received = try await bob.event("newChatItems") { itemText($0) == text }
                let id = try #require(itemId(received))
                let now = try await stored(bob, aliceId)
                // The contact after the item's write (its chat time moved), not the one read before it.
                #expect(eventContact(received) == now.contact, "\(text): the event's contact is the stored one")
                let item = try #require(now.items.first { (($0["meta"] as? [String: Any])?["itemId"] as? NSNumber)?.int64Value == id })
                #expect(firstItem(received).map { $0 as NSDictionary } == item, "\(text): the event's item is the stored one")
            }

            // A reaction: the item read for the event has it (found by the same statement as the row).
            let sent = try await alice.cmd(#"/_send @\#(bobId) json [{"msgContent":{"type":"text","text":"react to this"}}]"#)
            let sentId = try #require(itemId(sent))
            let received = try await bob.event("newChatItems") { itemText($0) == "react to this" }
            let rcvId = try #require(itemId(received))
            // Receipts come batched: the event may list earlier messages' items first.
            try await alice.event("chatItemsStatusesUpdated") { e in
                ((e["chatItems"] as? [[String: Any]]) ?? []).contains { i in
                    let meta = (i["chatItem"] as? [String: Any])?["meta"] as? [String: Any]
                    return (meta?["itemId"] as? NSNumber)?.int64Value == sentId && (meta?["itemStatus"] as? [String: Any])?["type"] as? String == "sndRcvd"
                }
            }
            try await bob.cmd(#"/_reaction @\#(aliceId) \#(rcvId) on {"type":"emoji","emoji":"👍"}"#)
            let reacted = try await alice.event("chatItemReaction")
            let eventItem = try #require(((reacted["reaction"] as? [String: Any])?["chatReaction"] as? [String: Any])?["chatItem"] as? [String: Any])
            let reactions = try #require(eventItem["reactions"] as? [[String: Any]])
            #expect(reactions.count == 1)
            let aliceNow = try await stored(alice, bobId)
            let item = try #require(aliceNow.items.first { (($0["meta"] as? [String: Any])?["itemId"] as? NSNumber)?.int64Value == sentId })
            #expect(eventItem as NSDictionary == item, "the reaction event's item is the stored one")
        }
    }
}
