import Foundation
import SMPAgent
import SimplexFoundation
import Testing

@testable import ChatCore

private func gId(_ e: [String: Any]) -> Int64? {
    ((e["groupInfo"] as? [String: Any])?["groupId"] as? NSNumber)?.int64Value
}

private func gName(_ e: [String: Any]) -> String? {
    (((e["groupInfo"] ?? e["toGroup"]) as? [String: Any])?["groupProfile"] as? [String: Any])?["displayName"] as? String
}

private func businessInfo(_ e: [String: Any]) -> [String: Any]? {
    (e["groupInfo"] as? [String: Any])?["businessChat"] as? [String: Any]
}

private func mName(_ e: [String: Any], _ key: String = "member") -> String? {
    ((e[key] as? [String: Any])?["memberProfile"] as? [String: Any])?["displayName"] as? String
}

private func mGmId(_ e: [String: Any], _ key: String = "member") -> Int64? {
    ((e[key] as? [String: Any])?["groupMemberId"] as? NSNumber)?.int64Value
}

private func itemTypes(_ e: [String: Any]) -> [String] {
    ((e["chatItems"] as? [[String: Any]]) ?? []).compactMap { (($0["chatItem"] as? [String: Any])?["content"] as? [String: Any])?["type"] as? String }
}

/// A chat's items as (content type, content, text), oldest first.
private func chatItems(_ c: Client, _ ref: String) async throws -> [(type: String, content: [String: Any], text: String)] {
    let r = try await c.cmd("/_get chat \(ref) count=100")
    let items = try #require((r["chat"] as? [String: Any])?["chatItems"] as? [[String: Any]])
    return items.map { i in
        let content = i["content"] as? [String: Any] ?? [:]
        return (content["type"] as? String ?? "", content, (i["meta"] as? [String: Any])?["itemText"] as? String ?? "")
    }
}

/// The items simplex-chat makes at the start of every new chat (issue 13): `chatBanner`, the e2e notice
/// and the feature items, for contacts and groups, between real cores over a real relay.
@Suite(.serialized) struct NewChatItemsFlowTests {
    /// Two contacts connected through an invitation (simplex-chat CON of a contact that is neither
    /// prepared nor from a request): banner, `rcvDirectE2EEInfo` with the negotiated post-quantum
    /// state, `rcvChatFeature` for the five features of the release. A new group (`APINewGroup`):
    /// banner, `sndGroupE2EEInfo`, nine `sndGroupFeature`; the invited member: the banner with the
    /// invitation, then at its host's CON `rcvGroupE2EEInfo` and nine `rcvGroupFeature`, before "connected".
    @Test func newContactAndGroupItems() async throws {
        let dir = NSTemporaryDirectory() + "new-chat-items-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (relay, server) = try await startRelay(dir)
        let alice = try await Client("alice", dir: dir, server: server)
        let bob = try await Client("bob", dir: dir, server: server)
        let inv = try await alice.cmd("/_connect 1")
        let link = try #require((inv["connLinkInvitation"] as? [String: Any])?["connFullLink"] as? String)
        try await bob.cmd("/connect \(link)")
        let connected = try await alice.event("contactConnected")
        let bobAtAlice = try #require(contactId(connected))
        let aliceAtBob = try #require(contactId(try await bob.event("contactConnected")))
        // Each of simplex-chat's createInternalChatItem calls is its own newChatItems.
        try await alice.event("newChatItems") { itemTypes($0) == ["chatBanner"] }
        try await alice.event("newChatItems") { itemTypes($0) == ["rcvDirectE2EEInfo"] }
        try await alice.event("newChatItems") { itemTypes($0) == Array(repeating: "rcvChatFeature", count: 5) }

        for (c, ref) in [(alice, "@\(bobAtAlice)"), (bob, "@\(aliceAtBob)")] {
            let items = try await chatItems(c, ref)
            #expect(items.map(\.type) == ["chatBanner", "rcvDirectE2EEInfo"] + Array(repeating: "rcvChatFeature", count: 5), "\(items.map(\.type))")
            let features = items.filter { $0.type == "rcvChatFeature" }.compactMap { $0.content["feature"] as? String }
            #expect(features == ["timedMessages", "fullDelete", "reactions", "voice", "calls"])
            let e2e = try #require(items.first { $0.type == "rcvDirectE2EEInfo" })
            let pq = (e2e.content["e2eeInfo"] as? [String: Any])?["pqEnabled"] as? Bool
            #expect(pq != nil)
            #expect(e2e.text.hasPrefix(pq == true ? "This conversation is protected by quantum resistant" : "This conversation is protected by end-to-end encryption"))
            #expect(items.first { $0.type == "rcvChatFeature" && $0.content["feature"] as? String == "fullDelete" }?.text.hasPrefix("Full deletion: ") == true)
        }
        // The contact's e2e notice says what the connection negotiated.
        let ct = try #require(connected["contact"] as? [String: Any])
        let pqConn = (ct["activeConn"] as? [String: Any])?["pqEncryption"] as? Bool
        let aliceE2E = try #require(try await chatItems(alice, "@\(bobAtAlice)").first { $0.type == "rcvDirectE2EEInfo" })
        #expect((aliceE2E.content["e2eeInfo"] as? [String: Any])?["pqEnabled"] as? Bool == pqConn)

        // Mentions exist in groups only (simplex-chat `assertNoMentions`): refused, nothing sent.
        let refused = try await alice.cmdError(#"/_send @\#(bobAtAlice) json [{"msgContent":{"type":"text","text":"hi @bob"},"mentions":{"bob":1}}]"#)
        #expect(String(data: try JSONSerialization.data(withJSONObject: refused), encoding: .utf8)?.contains("mentions are not supported in this chat") == true,
                "\(refused)")

        // A new group.
        let created = try await alice.cmd(#"/_group 1 {"displayName":"team","fullName":""}"#)
        let g = try #require(gId(created))
        try await alice.event("newChatItems") { itemTypes($0) == ["chatBanner"] }
        try await alice.event("newChatItems") { itemTypes($0) == ["sndGroupE2EEInfo"] }
        try await alice.event("newChatItems") { itemTypes($0) == Array(repeating: "sndGroupFeature", count: 9) }
        let groupItems = try await chatItems(alice, "#\(g)")
        #expect(groupItems.map(\.type) == ["chatBanner", "sndGroupE2EEInfo"] + Array(repeating: "sndGroupFeature", count: 9), "\(groupItems.map(\.type))")
        #expect(groupItems[1].text == ChatController.e2eInfoNoPQText)
        #expect((groupItems[1].content["e2eeInfo"] as? [String: Any])?["pqEnabled"] as? Bool == false)
        #expect(groupItems.filter { $0.type == "sndGroupFeature" }.compactMap { $0.content["groupFeature"] as? String }
            == ["timedMessages", "directMessages", "fullDelete", "reactions", "voice", "files", "simplexLinks", "reports", "history"])

        try await alice.cmd("/_add #\(g) \(bobAtAlice) member")
        let bg = try #require(gId(try await bob.event("receivedGroupInvitation")))
        try await bob.cmd("/_join #\(bg)")
        try await bob.event("userJoinedGroup")
        try await bob.event("newChatItems") { itemTypes($0) == ["rcvGroupE2EEInfo"] }
        try await bob.event("newChatItems") { itemTypes($0) == Array(repeating: "rcvGroupFeature", count: 9) }
        let bobItems = try await chatItems(bob, "#\(bg)")
        let connectedAt = try #require(bobItems.firstIndex { $0.type == "rcvGroupEvent" })
        // The banner from the invitation (`processGroupInvitation`), then the host's CON items.
        #expect(Array(bobItems.prefix(connectedAt)).map(\.type) == ["chatBanner", "rcvGroupE2EEInfo"] + Array(repeating: "rcvGroupFeature", count: 9),
                "\(bobItems.map(\.type))")
        await alice.c.close()
        await bob.c.close()
        await relay.shutdown()
    }

    /// A prepared contact and a prepared group (`APIPrepareContact`, `APIPrepareGroup`): the chat starts
    /// with the banner, (for a contact) the e2e notice the link promises, and the feature items, then
    /// the link's welcome; the answer carries the welcome only. Connecting adds no second set of
    /// features (the group's host CON adds the e2e notice only).
    @Test func preparedChatsStartWithBannerAndFeatures() async throws {
        let dir = NSTemporaryDirectory() + "prepared-items-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (relay, server) = try await startRelay(dir)
        let alice = try await Client("alice", dir: dir, server: server)
        let bob = try await Client("bob", dir: dir, server: server)
        let address = try await alice.cmd("/_address 1")
        let link = try #require((address["connLinkContact"] as? [String: Any])?["connFullLink"] as? String)
        let data = #"{"profile":{"displayName":"alice","fullName":""},"message":{"type":"text","text":"hello from alice"},"business":false}"#
        let prepared = try await bob.cmd("/_prepare contact 1 \(link) \(data)")
        let chat = try #require(prepared["chat"] as? [String: Any])
        let answered = try #require(chat["chatItems"] as? [[String: Any]])
        #expect(answered.count == 1 && (answered.first?["meta"] as? [String: Any])?["itemText"] as? String == "hello from alice")
        let ctId = try #require((((chat["chatInfo"] as? [String: Any])?["contact"] as? [String: Any])?["contactId"] as? NSNumber)?.int64Value)
        let items = try await chatItems(bob, "@\(ctId)")
        #expect(items.map(\.type) == ["chatBanner", "rcvDirectE2EEInfo"] + Array(repeating: "rcvChatFeature", count: 5) + ["rcvMsgContent"],
                "\(items.map(\.type))")
        // An address promises nothing about post-quantum encryption (`connRequestPQEncryption`).
        #expect((items[1].content["e2eeInfo"] as? [String: Any]).map { $0["pqEnabled"] == nil || $0["pqEnabled"] is NSNull } == true)

        // A group link, prepared.
        let created = try await alice.cmd(#"/_group 1 {"displayName":"club","fullName":"","description":"welcome to the club"}"#)
        let g = try #require(gId(created))
        let gl = try await alice.cmd("/_create link #\(g) member")
        let groupLink = try #require(((gl["groupLink"] as? [String: Any])?["connLinkContact"] as? [String: Any])?["connFullLink"] as? String)
        let gdata = #"{"groupProfile":{"displayName":"club","fullName":"","description":"welcome to the club"}}"#
        let preparedGroup = try await bob.cmd("/_prepare group 1 \(groupLink) \(gdata)")
        let gchat = try #require(preparedGroup["chat"] as? [String: Any])
        #expect((gchat["chatItems"] as? [[String: Any]])?.count == 1)
        let pg = try #require((((gchat["chatInfo"] as? [String: Any])?["groupInfo"] as? [String: Any])?["groupId"] as? NSNumber)?.int64Value)
        let gitems = try await chatItems(bob, "#\(pg)")
        #expect(gitems.map(\.type) == ["chatBanner"] + Array(repeating: "rcvGroupFeature", count: 9) + ["rcvMsgContent"], "\(gitems.map(\.type))")
        try await bob.cmd("/_connect group #\(pg)")
        try await bob.event("userJoinedGroup", timeout: 20)
        let after = try await chatItems(bob, "#\(pg)")
        #expect(after.filter { $0.type == "rcvGroupFeature" }.count == 9, "no second set: \(after.map(\.type))")
        #expect(after.filter { $0.type == "rcvGroupE2EEInfo" }.count == 1)
        await alice.c.close()
        await bob.c.close()
        await relay.shutdown()
    }

    /// A request to an address, with a message, accepted (simplex-chat `profileContactRequest`: the
    /// contact made for the request gets banner, e2e notice and features, then the request's message);
    /// at CON no second set. The requester's prepared contact: banner, e2e notice saying nothing (an
    /// address), features, its sent message, then at CON the negotiated e2e notice.
    @Test func acceptedRequestItems() async throws {
        let dir = NSTemporaryDirectory() + "request-items-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (relay, server) = try await startRelay(dir)
        let alice = try await Client("alice", dir: dir, server: server)
        let bob = try await Client("bob", dir: dir, server: server)
        let address = try await alice.cmd("/_address 1")
        let link = try #require((address["connLinkContact"] as? [String: Any])?["connFullLink"] as? String)
        try await alice.cmd(#"/_address_settings 1 {"businessAddress":false,"autoAccept":{"acceptIncognito":false}}"#)
        let prepared = try await bob.cmd(#"/_prepare contact 1 \#(link) {"profile":{"displayName":"alice","fullName":""},"business":false}"#)
        let ct = try #require(((((prepared["chat"] as? [String: Any])?["chatInfo"] as? [String: Any])?["contact"] as? [String: Any])?["contactId"] as? NSNumber)?.int64Value)
        try await bob.cmd("/_connect contact @\(ct) text hello alice")
        let accepting = try await alice.event("acceptingContactRequest")
        let bobAtAlice = try #require(contactId(accepting))
        try await alice.event("contactConnected")
        try await bob.event("contactConnected")
        try await Task.sleep(nanoseconds: 300_000_000)

        let aliceItems = try await chatItems(alice, "@\(bobAtAlice)")
        #expect(Array(aliceItems.prefix(8)).map(\.type) == ["chatBanner", "rcvDirectE2EEInfo"] + Array(repeating: "rcvChatFeature", count: 5) + ["rcvMsgContent"],
                "\(aliceItems.map(\.type))")
        #expect(aliceItems[7].text == "hello alice")
        #expect(aliceItems.filter { $0.type == "chatBanner" }.count == 1 && aliceItems.filter { $0.type == "rcvChatFeature" }.count == 5)

        let bobItems = try await chatItems(bob, "@\(ct)")
        #expect(Array(bobItems.prefix(8)).map(\.type) == ["chatBanner", "rcvDirectE2EEInfo"] + Array(repeating: "rcvChatFeature", count: 5) + ["sndMsgContent"],
                "\(bobItems.map(\.type))")
        // The address promised nothing; the connection's state comes as a second notice.
        #expect(bobItems.filter { $0.type == "rcvDirectE2EEInfo" }.count == 2)
        #expect(bobItems.filter { $0.type == "rcvChatFeature" }.count == 5)
        await alice.c.close()
        await bob.c.close()
        await relay.shutdown()
    }

    /// The customer of a business chat, made admin by the business, adds its own contact (simplex-chat
    /// `APIAddMember` -> `mkGroupInvitation` with `business = businessChat`: the inviter's own view).
    /// The invitee's chat is a `business` chat named after the business, its main member the
    /// business (`businessId`), so the chat follows the business's profile; the business sees the
    /// new member in its `customer` chat.
    @Test func customerAddsAMember() async throws {
        let dir = NSTemporaryDirectory() + "business-customer-adds-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (relay, server) = try await startRelay(dir)
        let biz = try await versionedClient("shop", dir: dir, server: server, 1...16)
        let cust = try await versionedClient("carol", dir: dir, server: server, 1...16)
        let dave = try await versionedClient("dave", dir: dir, server: server, 1...16)
        let inv = try await cust.cmd("/_connect 1")
        let invLink = try #require((inv["connLinkInvitation"] as? [String: Any])?["connFullLink"] as? String)
        try await dave.cmd("/connect \(invLink)")
        let daveAtCarol = try #require(contactId(try await cust.event("contactConnected")))
        try await dave.event("contactConnected")

        let address = try await biz.cmd("/_address 1")
        let link = try #require((address["connLinkContact"] as? [String: Any])?["connFullLink"] as? String)
        try await biz.cmd(#"/_address_settings 1 {"businessAddress":true}"#)
        try await cust.cmd("/_connect 1 \(link)")
        let joinedAtBiz = try await biz.event("joinedGroupMember") { mName($0) == "carol" }
        let bg = try #require(gId(joinedAtBiz))
        let carolGm = try #require(mGmId(joinedAtBiz))
        let carolJoined = try await cust.event("userJoinedGroup")
        let cg = try #require(gId(carolJoined))
        let bizMemberId = try #require(businessInfo(carolJoined)?["businessId"] as? String)

        // As a member the customer may not add anyone; made admin, it may.
        try await cust.cmdError("/_add #\(cg) \(daveAtCarol) member")
        try await biz.cmd("/_member role #\(bg) \(carolGm) admin")
        try await cust.event("memberRole")
        try await cust.cmd("/_add #\(cg) \(daveAtCarol) member")
        let invited = try await dave.event("receivedGroupInvitation")
        let dg = try #require(gId(invited))
        #expect(businessInfo(invited)?["chatType"] as? String == "business", "the customer's own view: \(invited)")
        #expect(businessInfo(invited)?["businessId"] as? String == bizMemberId)
        #expect(gName(invited) == "shop", "named after the business, as the customer names it")
        try await dave.cmd("/_join #\(dg)")
        try await dave.event("userJoinedGroup")
        try await dave.event("connectedToGroupMember", timeout: 20) { mName($0) == "shop" }
        let daveAtBiz = try await biz.event("connectedToGroupMember", timeout: 20) { mName($0) == "dave" }
        #expect(businessInfo(daveAtBiz)?["chatType"] as? String == "customer", "the business keeps its customer chat")

        try await biz.cmd(#"/_send #\#(bg) json [{"msgContent":{"type":"text","text":"welcome, dave"}}]"#)
        try await dave.event("newChatItems") { itemText($0) == "welcome, dave" }
        // Dave's chat follows the business's profile, as the customer's does.
        try await biz.cmd(#"/_profile 1 {"displayName":"shop_b","fullName":""}"#)
        try await biz.cmd(#"/_send #\#(bg) json [{"msgContent":{"type":"text","text":"renamed"}}]"#)
        try await dave.event("groupUpdated") { gName($0) == "shop_b" }
        try await cust.event("groupUpdated") { gName($0) == "shop_b" }
        // A profile change of the customer renames neither the customer's nor dave's chat.
        try await cust.cmd(#"/_profile 1 {"displayName":"carol_b","fullName":""}"#)
        try await cust.cmd(#"/_send #\#(cg) json [{"msgContent":{"type":"text","text":"carol renamed"}}]"#)
        try await dave.event("newChatItems") { itemText($0) == "carol renamed" }
        let daveGroup = try await dave.cmd("/_get chat #\(dg) count=1")
        #expect((((daveGroup["chat"] as? [String: Any])?["chatInfo"] as? [String: Any])?["groupInfo"] as? [String: Any])
            .flatMap { ($0["groupProfile"] as? [String: Any])?["displayName"] as? String } == "shop_b")
        await biz.c.close()
        await cust.c.close()
        await dave.c.close()
        await relay.shutdown()
    }
}
