import Foundation
import SMPAgent
import SimplexFoundation
import Testing

@testable import ChatCore

private func groupId(_ e: [String: Any]) -> Int64? {
    ((e["groupInfo"] as? [String: Any])?["groupId"] as? NSNumber)?.int64Value
}

private func business(_ e: [String: Any]) -> [String: Any]? {
    (e["groupInfo"] as? [String: Any])?["businessChat"] as? [String: Any]
}

private func groupName(_ e: [String: Any]) -> String? {
    (((e["groupInfo"] ?? e["toGroup"]) as? [String: Any])?["groupProfile"] as? [String: Any])?["displayName"] as? String
}

private func memberName(_ e: [String: Any], _ key: String = "member") -> String? {
    (((e[key] as? [String: Any])?["memberProfile"] as? [String: Any])?["displayName"] as? String)
}

private func senderName(_ e: [String: Any]) -> String? {
    let dir = firstItem(e)?["chatDir"] as? [String: Any]
    return ((dir?["groupMember"] as? [String: Any])?["memberProfile"] as? [String: Any])?["displayName"] as? String
}

/// A chat core playing a peer of the given chat version range.
func versionedClient(_ name: String, dir: String, server: String, _ range: ClosedRange<UInt16>) async throws -> Client {
    try await Client(name, dir: dir, server: server) { $0.chatVRange = VersionRange(min: range.lowerBound, max: range.upperBound)! }
}

/// Business chats (chat version 10) between real cores over a real relay: a request to a
/// business address becomes a group of two, each side seeing the other as the group.
@Suite(.serialized) struct BusinessChatFlowTests {
    /// Host and customer both at 1-12: the business's side is a group named after the customer
    /// (`businessChat.chatType` customer), the customer's a group named after the business
    /// (chatType business), with the same two member IDs; messages go both ways.
    @Test func businessAddressBothRoles() async throws {
        let dir = NSTemporaryDirectory() + "business-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (relay, server) = try await startRelay(dir)
        let biz = try await versionedClient("shop", dir: dir, server: server, 1...12)
        let cust = try await versionedClient("carol", dir: dir, server: server, 1...12)

        let address = try await biz.cmd("/_address 1")
        let link = try #require((address["connLinkContact"] as? [String: Any])?["connFullLink"] as? String)
        try await biz.cmd(#"/_address_settings 1 {"businessAddress":true,"autoReply":{"type":"text","text":"Welcome to the shop!"}}"#)
        // The short link's data tells apps it is a business address, with the welcome message.
        let short = try #require((address["connLinkContact"] as? [String: Any])?["connShortLink"] as? String)
        let plan = try await cust.cmd("/_connect plan 1 \(short)")
        let data = ((plan["connectionPlan"] as? [String: Any])?["contactAddressPlan"] as? [String: Any])?["contactSLinkData_"] as? [String: Any]
        #expect(data?["business"] as? Bool == true, "\(plan)")
        #expect((data?["message"] as? [String: Any])?["text"] as? String == "Welcome to the shop!")
        try await cust.cmd("/_connect 1 \(link)")

        let accepting = try await biz.event("acceptingBusinessRequest")
        #expect(groupName(accepting) == "carol", "the business names the chat after its customer")
        let hostInfo = try #require(business(accepting))
        #expect(hostInfo["chatType"] as? String == "customer")
        let connecting = try await cust.event("groupLinkConnecting")
        let custInfo = try #require(business(connecting))
        #expect(custInfo["chatType"] as? String == "business")
        #expect(groupName(connecting) == "shop")
        #expect(custInfo["businessId"] as? String == hostInfo["businessId"] as? String)
        #expect(custInfo["customerId"] as? String == hostInfo["customerId"] as? String)
        // The business's group preferences (simplex-chat defaultBusinessGroupPrefs).
        let prefs = ((connecting["groupInfo"] as? [String: Any])?["groupProfile"] as? [String: Any])?["groupPreferences"] as? [String: Any]
        #expect((prefs?["directMessages"] as? [String: Any])?["enable"] as? String == "off")
        #expect((prefs?["history"] as? [String: Any])?["enable"] as? String == "on")

        let joined = try await biz.event("joinedGroupMember")
        #expect(memberName(joined) == "carol")
        let custJoined = try await cust.event("userJoinedGroup")
        #expect(memberName(custJoined, "hostMember") == "shop")
        #expect((business(custJoined)?["chatType"] as? String) == "business")
        let bg = try #require(groupId(joined)), cg = try #require(groupId(custJoined))
        // The address's welcome message reaches the customer in the business chat.
        let welcome = try await cust.event("newChatItems") { itemText($0) == "Welcome to the shop!" }
        #expect(senderName(welcome) == "shop", "from the business, in the group chat")
        let membership = (custJoined["groupInfo"] as? [String: Any])?["membership"] as? [String: Any]
        #expect(membership?["memberRole"] as? String == "member")
        #expect(membership?["memberId"] as? String == custInfo["customerId"] as? String)

        try await cust.cmd(#"/_send #\#(cg) json [{"msgContent":{"type":"text","text":"is it in stock?"}}]"#)
        let atBiz = try await biz.event("newChatItems") { itemText($0) == "is it in stock?" }
        #expect(senderName(atBiz) == "carol")
        try await biz.cmd(#"/_send #\#(bg) json [{"msgContent":{"type":"text","text":"yes, two left"}}]"#)
        let atCust = try await cust.event("newChatItems") { itemText($0) == "yes, two left" }
        #expect(senderName(atCust) == "shop")

        // Chat version 11: the business changes preferences; the customer gets x.grp.prefs, so
        // only the preferences change there and its chat keeps the business's name.
        try await biz.cmd(#"/_group_profile #\#(bg) {"displayName":"carol","fullName":"","groupPreferences":{"voice":{"enable":"on"},"history":{"enable":"on"}}}"#)
        let updated = try await cust.event("groupUpdated")
        #expect(groupName(updated) == "shop", "x.grp.info would have renamed the customer's chat")
        let newPrefs = ((updated["toGroup"] as? [String: Any])?["groupProfile"] as? [String: Any])?["groupPreferences"] as? [String: Any]
        #expect((newPrefs?["voice"] as? [String: Any])?["enable"] as? String == "on")
        #expect((((updated["toGroup"] as? [String: Any])?["fullGroupPreferences"] as? [String: Any])?["voice"] as? [String: Any])?["enable"] as? String == "on")
        // A member (the customer) may not change them: refused locally, as simplex-chat's owner check.
        try await cust.cmdError(#"/_group_profile #\#(cg) {"displayName":"shop","fullName":"","groupPreferences":{"voice":{"enable":"off"}}}"#)

        // Profile changes: the chat on each side is named after the other side, so it follows
        // that side's profile (sent as x.info before its next message, chat version 7).
        try await cust.cmd(#"/_profile 1 {"displayName":"carol_b","fullName":"Carol B"}"#)
        try await cust.cmd(#"/_send #\#(cg) json [{"msgContent":{"type":"text","text":"new name"}}]"#)
        let renamed = try await biz.event("groupUpdated") { groupName($0) == "carol_b" }
        #expect((((renamed["toGroup"] as? [String: Any])?["groupProfile"] as? [String: Any])?["groupPreferences"] as? [String: Any])?["voice"] != nil,
                "preferences stay")
        try await biz.event("newChatItems") { itemText($0) == "new name" }
        try await biz.cmd(#"/_profile 1 {"displayName":"shop2","fullName":"The Shop"}"#)
        try await biz.cmd(#"/_send #\#(bg) json [{"msgContent":{"type":"text","text":"renamed too"}}]"#)
        try await cust.event("groupUpdated") { groupName($0) == "shop2" }
        try await cust.event("newChatItems") { itemText($0) == "renamed too" }

        // The chat list shows each side's chat as a group with its business info.
        let chats = try #require(try await cust.cmd("/_get chats 1 pcc=on count=10")["chats"] as? [[String: Any]])
        let listed = chats.compactMap { ($0["chatInfo"] as? [String: Any])?["groupInfo"] as? [String: Any] }
        #expect(listed.contains { ($0["businessChat"] as? [String: Any])?["chatType"] as? String == "business" })
        let bizChats = try #require(try await biz.cmd("/_get chats 1 pcc=on count=10")["chats"] as? [[String: Any]])
        #expect(bizChats.contains {
            ((($0["chatInfo"] as? [String: Any])?["groupInfo"] as? [String: Any])?["businessChat"] as? [String: Any])?["chatType"] as? String == "customer"
        })
        #expect(bizChats.allSatisfy { ($0["chatInfo"] as? [String: Any])?["type"] as? String != "direct" }, "no contact is made")
        await biz.c.close()
        await cust.c.close()
        await relay.shutdown()
    }

    /// simplex-chat apps prepare a business chat from the address's link data (`business: true`):
    /// a prepared group named after the business, with the welcome message; joining it makes the
    /// business's x.grp.link.inv complete that same group.
    @Test func preparedBusinessChat() async throws {
        let dir = NSTemporaryDirectory() + "business-prepared-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (relay, server) = try await startRelay(dir)
        let biz = try await versionedClient("shop", dir: dir, server: server, 1...12)
        let cust = try await versionedClient("carol", dir: dir, server: server, 1...12)
        let address = try await biz.cmd("/_address 1")
        let link = try #require((address["connLinkContact"] as? [String: Any])?["connFullLink"] as? String)
        try await biz.cmd(#"/_address_settings 1 {"businessAddress":true,"autoReply":{"type":"text","text":"Hello, customer"}}"#)
        let data = #"{"profile":{"displayName":"shop","fullName":"The Shop"},"message":{"type":"text","text":"Hello, customer"},"business":true}"#
        let prepared = try await cust.cmd("/_prepare contact 1 \(link) \(data)")
        #expect(prepared["type"] as? String == "newPreparedChat")
        let chat = try #require(prepared["chat"] as? [String: Any])
        let info = try #require((chat["chatInfo"] as? [String: Any])?["groupInfo"] as? [String: Any])
        #expect((info["groupProfile"] as? [String: Any])?["displayName"] as? String == "shop")
        #expect(info["preparedGroup"] != nil)
        #expect(((chat["chatItems"] as? [[String: Any]])?.first?["meta"] as? [String: Any])?["itemText"] as? String == "Hello, customer")
        let pg = try #require((info["groupId"] as? NSNumber)?.int64Value)

        let started = try await cust.cmd("/_connect group #\(pg)")
        #expect(started["type"] as? String == "startedConnectionToGroup")
        try await biz.event("acceptingBusinessRequest")
        let joined = try await cust.event("userJoinedGroup")
        #expect(groupId(joined) == pg, "the prepared group itself becomes the business chat")
        #expect(business(joined)?["chatType"] as? String == "business")
        try await biz.event("joinedGroupMember") { memberName($0) == "carol" }
        try await cust.cmd(#"/_send #\#(pg) json [{"msgContent":{"type":"text","text":"prepared hello"}}]"#)
        try await biz.event("newChatItems") { itemText($0) == "prepared hello" }
        await biz.c.close()
        await cust.c.close()
        await relay.shutdown()
    }

    /// A customer core of versions 1-9 does not know business chats: simplex-chat's host still
    /// answers with x.grp.link.inv (its only exception is the SimpleX team address), and the old
    /// customer joins it as a plain group (`saveConnInfo`), ignoring `business`.
    @Test func versionNineCustomerJoinsAsAPlainGroup() async throws {
        let dir = NSTemporaryDirectory() + "business-v9-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (relay, server) = try await startRelay(dir)
        let biz = try await versionedClient("shop", dir: dir, server: server, 1...12)
        let old = try await versionedClient("olga", dir: dir, server: server, 1...9)

        // A 1-9 core cannot have a business address itself.
        try await old.cmd("/_address 1")
        let refused = try await old.cmdError(#"/_address_settings 1 {"businessAddress":true}"#)
        #expect(String(describing: refused).contains("business addresses need chat version 10"))

        let address = try await biz.cmd("/_address 1")
        let link = try #require((address["connLinkContact"] as? [String: Any])?["connFullLink"] as? String)
        try await biz.cmd(#"/_address_settings 1 {"businessAddress":true}"#)
        try await old.cmd("/_connect 1 \(link)")
        let accepting = try await biz.event("acceptingBusinessRequest")
        #expect(business(accepting)?["chatType"] as? String == "customer")
        let oldJoined = try await old.event("userJoinedGroup")
        #expect(business(oldJoined) == nil, "a core below version 10 keeps no business info")
        #expect(groupName(oldJoined) == "shop")
        try await biz.event("joinedGroupMember") { memberName($0) == "olga" }
        let og = try #require(groupId(oldJoined))
        try await old.cmd(#"/_send #\#(og) json [{"msgContent":{"type":"text","text":"hello from 9"}}]"#)
        try await biz.event("newChatItems") { itemText($0) == "hello from 9" }
        await biz.c.close()
        await old.c.close()
        await relay.shutdown()
    }

    /// A prepared business chat joined with a message (simplex-chat `connectViaContact`, `createRequestItem`,
    /// `sendGroupAutoReply` with `welcomeSharedMsgId`): x.contact carries the message and the welcome's
    /// shared ID; the business shows the message as the customer's first item after its e2e notice and
    /// feature items; its auto-reply updates the customer's greeting instead of adding a second one.
    @Test func preparedBusinessChatWithRequestMessageShowsOneGreeting() async throws {
        let dir = NSTemporaryDirectory() + "business-request-msg-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (relay, server) = try await startRelay(dir)
        let biz = try await versionedClient("shop", dir: dir, server: server, 1...16)
        let cust = try await versionedClient("carol", dir: dir, server: server, 1...16)
        let address = try await biz.cmd("/_address 1")
        let link = try #require((address["connLinkContact"] as? [String: Any])?["connFullLink"] as? String)
        try await biz.cmd(#"/_address_settings 1 {"businessAddress":true,"autoReply":{"type":"text","text":"Hello, customer"}}"#)
        let data = #"{"profile":{"displayName":"shop","fullName":"The Shop"},"message":{"type":"text","text":"Hello, customer"},"business":true}"#
        let prepared = try await cust.cmd("/_prepare contact 1 \(link) \(data)")
        let chat = try #require(prepared["chat"] as? [String: Any])
        let pg = try #require((((chat["chatInfo"] as? [String: Any])?["groupInfo"] as? [String: Any])?["groupId"] as? NSNumber)?.int64Value)
        let greeting = try #require((chat["chatItems"] as? [[String: Any]])?.first)
        let greetingId = try #require(((greeting["meta"] as? [String: Any])?["itemId"] as? NSNumber)?.int64Value)
        // The business words its greeting differently by the time the customer connects.
        try await biz.cmd(#"/_address_settings 1 {"businessAddress":true,"autoReply":{"type":"text","text":"Hello again, customer"}}"#)

        let started = try await cust.cmd("/_connect group #\(pg) text I want to order")
        #expect(started["type"] as? String == "startedConnectionToGroup")
        let sentRequest = try await cust.event("newChatItems") { itemText($0) == "I want to order" }
        #expect((firstItem(sentRequest)?["chatDir"] as? [String: Any])?["type"] as? String == "groupSnd")

        let request = try await biz.event("newChatItems") { itemText($0) == "I want to order" }
        #expect(senderName(request) == "carol", "the customer's message, in the business chat")
        let accepting = try await biz.event("acceptingBusinessRequest")
        let bg = try #require(groupId(accepting))
        try await biz.event("joinedGroupMember") { memberName($0) == "carol" }
        try await cust.event("userJoinedGroup")
        func updatedMeta(_ e: [String: Any]) -> [String: Any]? {
            ((e["chatItem"] as? [String: Any])?["chatItem"] as? [String: Any])?["meta"] as? [String: Any]
        }
        let updated = try await cust.event("chatItemUpdated") { updatedMeta($0)?["itemText"] as? String == "Hello again, customer" }
        #expect((updatedMeta(updated)?["itemId"] as? NSNumber)?.int64Value == greetingId, "the greeting the customer showed is updated in place")

        func contents(_ c: Client, _ g: Int64) async throws -> [(type: String, text: String)] {
            let r = try await c.cmd("/_get chat #\(g) count=100")
            let items = try #require((r["chat"] as? [String: Any])?["chatItems"] as? [[String: Any]])
            return items.map { (($0["content"] as? [String: Any])?["type"] as? String ?? "", ($0["meta"] as? [String: Any])?["itemText"] as? String ?? "") }
        }
        let custItems = try await contents(cust, pg)
        #expect(custItems.filter { $0.text.hasPrefix("Hello") }.count == 1, "one greeting: \(custItems)")
        #expect(custItems.contains { $0.type == "rcvGroupE2EEInfo" })
        #expect(custItems.filter { $0.type == "rcvGroupFeature" }.count == 9)
        #expect(custItems.contains { $0.type == "sndMsgContent" && $0.text == "I want to order" })
        let bizItems = try await contents(biz, bg)
        #expect(bizItems.prefix(2).map(\.type) == ["chatBanner", "sndGroupE2EEInfo"], "\(bizItems)")
        #expect(custItems.first?.type == "chatBanner", "\(custItems)")
        #expect(bizItems.filter { $0.type == "sndGroupFeature" }.count == 9)
        let requestIndex = bizItems.firstIndex { $0.type == "rcvMsgContent" && $0.text == "I want to order" }
        let featureIndex = bizItems.lastIndex { $0.type == "sndGroupFeature" }
        #expect(requestIndex != nil && featureIndex != nil && requestIndex! > featureIndex!)
        #expect(bizItems.filter { $0.text == "Hello again, customer" }.count == 1)
        // The auto-reply is made with the request, before the customer's message (simplex-chat `profileContactRequest`).
        let replyIndex = bizItems.firstIndex { $0.type == "sndMsgContent" && $0.text == "Hello again, customer" }
        #expect(replyIndex != nil && requestIndex != nil && replyIndex! == requestIndex! - 1, "\(bizItems)")

        // The chat goes on as usual, both ways.
        try await cust.cmd(#"/_send #\#(pg) json [{"msgContent":{"type":"text","text":"two please"}}]"#)
        try await biz.event("newChatItems") { itemText($0) == "two please" }
        try await biz.cmd(#"/_send #\#(bg) json [{"msgContent":{"type":"text","text":"on the way"}}]"#)
        try await cust.event("newChatItems") { itemText($0) == "on the way" }
        await biz.c.close()
        await cust.c.close()
        await relay.shutdown()
    }

    /// A contact card for a business address (a prepared contact, its link data without `business`):
    /// the business answers with x.grp.link.inv, and the contact becomes the business chat on the same
    /// connection (simplex-chat `businessLinkConnecting`, `deleteContactCardKeepConn`).
    @Test func contactCardOfBusinessBecomesBusinessChat() async throws {
        let dir = NSTemporaryDirectory() + "business-card-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (relay, server) = try await startRelay(dir)
        let biz = try await versionedClient("shop", dir: dir, server: server, 1...16)
        let cust = try await versionedClient("carol", dir: dir, server: server, 1...16)
        let address = try await biz.cmd("/_address 1")
        let link = try #require((address["connLinkContact"] as? [String: Any])?["connFullLink"] as? String)
        try await biz.cmd(#"/_address_settings 1 {"businessAddress":true}"#)
        let prepared = try await cust.cmd(#"/_prepare contact 1 \#(link) {"profile":{"displayName":"shop"},"business":false}"#)
        let contactId = try #require((((prepared["chat"] as? [String: Any])?["chatInfo"] as? [String: Any])?["contact"] as? [String: Any])?["contactId"] as? NSNumber)
        try await cust.cmd("/_connect contact @\(contactId)")
        try await biz.event("acceptingBusinessRequest")
        let connecting = try await cust.event("businessLinkConnecting")
        #expect(((connecting["fromContact"] as? [String: Any])?["contactId"] as? NSNumber) == contactId)
        #expect(business(connecting)?["chatType"] as? String == "business")
        #expect(groupName(connecting) == "shop")
        let joined = try await cust.event("userJoinedGroup")
        #expect(groupId(joined) == groupId(connecting))
        try await biz.event("joinedGroupMember") { memberName($0) == "carol" }
        let cg = try #require(groupId(joined))
        try await cust.cmd(#"/_send #\#(cg) json [{"msgContent":{"type":"text","text":"from the card"}}]"#)
        try await biz.event("newChatItems") { itemText($0) == "from the card" }
        // The contact card is gone: the chat list has the business chat only.
        let chats = try #require(try await cust.cmd("/_get chats 1 count=10")["chats"] as? [[String: Any]])
        #expect(chats.allSatisfy { ($0["chatInfo"] as? [String: Any])?["type"] as? String != "direct" }, "\(chats)")
        await biz.c.close()
        await cust.c.close()
        await relay.shutdown()
    }

    /// The business adds a colleague (simplex-chat APIAddMember: x.grp.inv carries the group's
    /// `business` info): the colleague's chat is a business chat too, named after the customer and
    /// following the customer's profile; the customer meets the colleague as a member. A customer
    /// (role member) may not add anyone (admin needed, as in any group).
    @Test func businessAddsAColleague() async throws {
        let dir = NSTemporaryDirectory() + "business-colleague-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (relay, server) = try await startRelay(dir)
        let biz = try await versionedClient("shop", dir: dir, server: server, 1...16)
        let cust = try await versionedClient("carol", dir: dir, server: server, 1...16)
        let dave = try await versionedClient("dave", dir: dir, server: server, 1...16)
        let inv = try await biz.cmd("/_connect 1")
        let invLink = try #require((inv["connLinkInvitation"] as? [String: Any])?["connFullLink"] as? String)
        try await dave.cmd("/connect \(invLink)")
        let daveAtBiz = try #require(contactId(try await biz.event("contactConnected")))
        try await dave.event("contactConnected")

        let address = try await biz.cmd("/_address 1")
        let link = try #require((address["connLinkContact"] as? [String: Any])?["connFullLink"] as? String)
        try await biz.cmd(#"/_address_settings 1 {"businessAddress":true}"#)
        try await cust.cmd("/_connect 1 \(link)")
        let bg = try #require(groupId(try await biz.event("joinedGroupMember") { memberName($0) == "carol" }))
        let cg = try #require(groupId(try await cust.event("userJoinedGroup")))
        try await cust.cmdError("/_add #\(cg) 1 member")

        try await biz.cmd("/_add #\(bg) \(daveAtBiz) admin")
        let invited = try await dave.event("receivedGroupInvitation")
        let dg = try #require(groupId(invited))
        #expect(business(invited)?["chatType"] as? String == "customer", "the business side's view: \(invited)")
        #expect(groupName(invited) == "carol", "named after the customer")
        try await dave.cmd("/_join #\(dg)")
        try await dave.event("userJoinedGroup")
        try await dave.event("connectedToGroupMember", timeout: 20) { memberName($0) == "carol" }
        try await cust.event("connectedToGroupMember", timeout: 20) { memberName($0) == "dave" }

        try await cust.cmd(#"/_send #\#(cg) json [{"msgContent":{"type":"text","text":"hi all"}}]"#)
        try await dave.event("newChatItems") { itemText($0) == "hi all" }
        // The colleague's chat follows the customer's profile, as the business's does.
        try await cust.cmd(#"/_profile 1 {"displayName":"carol_b","fullName":""}"#)
        try await cust.cmd(#"/_send #\#(cg) json [{"msgContent":{"type":"text","text":"renamed"}}]"#)
        try await dave.event("groupUpdated") { groupName($0) == "carol_b" }
        try await biz.event("groupUpdated") { groupName($0) == "carol_b" }

        // Through a group link of the business chat (x.grp.link.inv with `business`, as `acceptGroupJoinRequestAsync`).
        let erin = try await versionedClient("erin", dir: dir, server: server, 1...16)
        let created = try await biz.cmd("/_create link #\(bg) member")
        let groupLink = try #require(((created["groupLink"] as? [String: Any])?["connLinkContact"] as? [String: Any])?["connFullLink"] as? String)
        try await erin.cmd("/_connect 1 \(groupLink)")
        let erinJoined = try await erin.event("userJoinedGroup")
        #expect(business(erinJoined)?["chatType"] as? String == "customer")
        #expect(groupName(erinJoined) == "carol_b")
        await erin.c.close()
        await biz.c.close()
        await cust.c.close()
        await dave.c.close()
        await relay.shutdown()
    }

    /// A customer that sends its request again with the same `contactReqId` (as simplex-chat's
    /// `connectViaContact` does when retrying a join) gets no second business chat: the business
    /// reports `businessRequestAlreadyAccepted` with the chat it made (`createOrUpdateContactRequest`).
    @Test func repeatedBusinessRequestIsRecognised() async throws {
        let dir = NSTemporaryDirectory() + "business-repeat-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (relay, server) = try await startRelay(dir)
        let biz = try await versionedClient("shop", dir: dir, server: server, 1...16)
        let cust = try await versionedClient("carol", dir: dir, server: server, 1...16)
        let address = try await biz.cmd("/_address 1")
        let link = try #require((address["connLinkContact"] as? [String: Any])?["connFullLink"] as? String)
        try await biz.cmd(#"/_address_settings 1 {"businessAddress":true}"#)
        let request = ChatMsgEvent.contact(profile: Profile(displayName: "carol"), contactReqId: XContactId(bytes: SecureRandom.bytes(16)))
        try await cust.c.testJoinAddress(link, request)
        let first = try await biz.event("acceptingBusinessRequest")
        try await cust.c.testJoinAddress(link, request)
        let again = try await biz.event("businessRequestAlreadyAccepted")
        #expect(groupId(again) == groupId(first))
        #expect(try await biz.c.testCount("SELECT count(*) FROM groups WHERE business_chat IS NOT NULL") == 1)
        // Another request ID is another customer chat.
        try await cust.c.testJoinAddress(link, .contact(profile: Profile(displayName: "carol"), contactReqId: XContactId(bytes: SecureRandom.bytes(16))))
        let second = try await biz.event("acceptingBusinessRequest")
        #expect(groupId(second) != groupId(first))
        await biz.c.close()
        await cust.c.close()
        await relay.shutdown()
    }
}

extension ChatController {
    /// Joins an address with a hand-made x.contact (a peer retrying with the same request ID).
    func testJoinAddress(_ link: String, _ request: ChatMsgEvent) async throws {
        let parsed = try ConnectionRequestURI(parsing: link)
        let info = try await encodeJoinInfo(request, link: parsed)
        _ = try await runningAgent().joinConnection(link: parsed, connInfo: info, userId: 1)
    }
}
