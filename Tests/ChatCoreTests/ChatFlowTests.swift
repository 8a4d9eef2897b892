import Foundation
import NIOPosix
import SMPServer
import SMPTransport
import Testing

@testable import ChatCore

@Suite(.serialized) struct ChatFlowTests {
    /// Address settings: requests accepted automatically and greeted with the welcome message;
    /// contact preferences sent to the peer.
    @Test func addressAutoAcceptWelcomeAndPreferences() async throws {
        let dir = NSTemporaryDirectory() + "chat-address-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (relay, server) = try await startRelay(dir)
        let alice = try await Client("alice", dir: dir, server: server)
        let dave = try await Client("dave", dir: dir, server: server)
        let address = try await alice.cmd("/_address 1")
        let link = try #require((address["connLinkContact"] as? [String: Any])?["connFullLink"] as? String)
        let settings = try await alice.cmd(#"/_address_settings 1 {"businessAddress":false,"autoAccept":{"acceptIncognito":false},"autoReply":{"type":"text","text":"Welcome!"}}"#)
        #expect(settings["type"] as? String == "userContactLinkUpdated")
        let shown = try await alice.cmd("/_show_address 1")
        #expect((((shown["contactLink"] as? [String: Any])?["addressSettings"] as? [String: Any])?["autoReply"] as? [String: Any])?["text"] as? String == "Welcome!")

        try await dave.cmd("/connect \(link)")
        try await alice.event("acceptingContactRequest")
        let daveAtAlice = try await alice.event("contactConnected")
        try await dave.event("contactConnected")
        try await dave.event("newChatItems") { itemText($0) == "Welcome!" }

        let daveId = try #require(contactId(daveAtAlice))
        // Seed 001 §2.5/2.7: the address of a contact we already have.
        let again = try await dave.cmd("/connect \(link)")
        #expect(again["type"] as? String == "contactAlreadyExists")
        let known = try await dave.cmd("/_connect plan 1 \(link)")
        #expect(((known["connectionPlan"] as? [String: Any])?["contactAddressPlan"] as? [String: Any])?["type"] as? String == "known")
        let servers = try await alice.cmd("/smp")
        #expect(((servers["userServers"] as? [[String: Any]])?.first?["smpServers"] as? [[String: Any]])?.first?["server"] as? String == server)
        let withAddress = try await alice.cmd("/_profile_address 1 on")
        #expect(((withAddress["toProfile"] as? [String: Any])?["contactLink"] as? String) == link)
        let daveSees = try await dave.event("contactUpdated")
        #expect(((daveSees["toContact"] as? [String: Any])?["profile"] as? [String: Any])?["contactLink"] as? String == link)
        let alias = try await alice.cmd("/_set alias @\(daveId) Dave from work")
        #expect(((alias["toContact"] as? [String: Any])?["profile"] as? [String: Any])?["localAlias"] as? String == "Dave from work")
        let prefs = try await alice.cmd(#"/_set prefs @\#(daveId) {"reactions":{"allow":"no"}}"#)
        #expect(prefs["type"] as? String == "contactPrefsUpdated")
        #expect((((prefs["toContact"] as? [String: Any])?["userPreferences"] as? [String: Any])?["reactions"] as? [String: Any])?["allow"] as? String == "no")

        let users = try await dave.cmd(#"/_create user {"profile":{"displayName":"dave2","fullName":""},"pastTimestamp":false}"#)
        let secondId = try #require(((users["user"] as? [String: Any])?["userId"] as? NSNumber)?.int64Value)
        let deleted = try await dave.cmd("/_delete user \(secondId) del_smp=on")
        #expect(deleted["type"] as? String == "cmdOk")
        #expect((try await dave.cmd("/users")["users"] as? [Any])?.count == 1)

        await alice.c.close()
        await dave.c.close()
        await relay.shutdown()
    }

    /// Seed 003 §4-8 and timed messages, profile updates, contact deletion: each action on one
    /// side and its event on the other.
    /// Encrypted databases in a live chat: messages flow, nothing readable lands in either of
    /// Alice's files, and closing the store (the C ABI's chat_close_store) then reopening it
    /// delivers what arrived meanwhile.
    @Test func encryptedDatabasesAndStoreReopen() async throws {
        let dir = NSTemporaryDirectory() + "chat-encrypted-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (relay, server) = try await startRelay(dir)
        let alice = try await Client("alice", dir: dir, server: server, key: "alice's passphrase")
        let bob = try await Client("bob", dir: dir, server: server)
        let inv = try await alice.cmd("/_connect 1")
        let link = try #require((inv["connLinkInvitation"] as? [String: Any])?["connFullLink"] as? String)
        try await bob.cmd("/connect \(link)")
        let a = try await alice.event("contactConnected"), b = try await bob.event("contactConnected")
        let bobId = try #require(contactId(a)), aliceId = try #require(contactId(b))
        try await alice.cmd(#"/_send @\#(bobId) json [{"msgContent":{"type":"text","text":"sealed-words-one"}}]"#)
        try await bob.event("newChatItems") { itemText($0) == "sealed-words-one" }

        await alice.c.closeStore()
        let closed = await alice.c.send("/user")
        #expect(closed.contains("errorDatabase"))
        try await bob.cmd(#"/_send @\#(aliceId) json [{"msgContent":{"type":"text","text":"sealed-words-two"}}]"#)
        #expect(await alice.c.reopenStore() == nil)
        try await alice.event("newChatItems") { itemText($0) == "sealed-words-two" }
        let chat = try await alice.cmd("/_get chat @\(bobId) count=10")
        #expect("\(chat)".contains("sealed-words-one") && "\(chat)".contains("sealed-words-two"))

        await alice.c.close()
        await bob.c.close()
        for path in [ChatController.chatDatabasePath(dir + "/alice"), ChatController.agentDatabasePath(dir + "/alice")] {
            let disk = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(disk.count > 4096)
            #expect(disk.range(of: Data("sealed-words".utf8)) == nil)
            #expect(disk.range(of: Data("CREATE TABLE".utf8)) == nil)
        }
        // Bob's plain database, for contrast, holds the words in clear.
        let bobDisk = try Data(contentsOf: URL(fileURLWithPath: ChatController.chatDatabasePath(dir + "/bob")))
        #expect(bobDisk.range(of: Data("sealed-words-two".utf8)) != nil)
        await relay.shutdown()
    }

    /// Seed 001 §3: a prepared contact from a link and its data, shown (with the greeting)
    /// before connecting; connecting keeps the same contact, for an address and an invitation.
    @Test func preparedContactsFromLinks() async throws {
        let dir = NSTemporaryDirectory() + "chat-prepared-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (relay, server) = try await startRelay(dir)
        let alice = try await Client("alice", dir: dir, server: server)
        let bob = try await Client("bob", dir: dir, server: server)
        let address = try await bob.cmd("/_address 1")
        let link = try #require((address["connLinkContact"] as? [String: Any])?["connFullLink"] as? String)
        let data = #"{"profile":{"displayName":"bob","fullName":"Bob B"},"message":{"type":"text","text":"Hi, I am Bob"},"business":false}"#
        let prepared = try await alice.cmd("/_prepare contact 1 \(link) \(data)")
        #expect(prepared["type"] as? String == "newPreparedChat")
        let chat = try #require(prepared["chat"] as? [String: Any])
        let contact = try #require((chat["chatInfo"] as? [String: Any])?["contact"] as? [String: Any])
        let bobId = try #require((contact["contactId"] as? NSNumber)?.int64Value)
        #expect((contact["preparedContact"] as? [String: Any])?["uiConnLinkType"] as? String == "con")
        #expect(contact["activeConn"] == nil)
        #expect(((chat["chatItems"] as? [[String: Any]])?.first?["meta"] as? [String: Any])?["itemText"] as? String == "Hi, I am Bob")
        let chats = try await alice.cmd("/_get chats 1 pcc=on")
        #expect("\(chats)".contains("Hi, I am Bob"))

        let started = try await alice.cmd("/_connect contact @\(bobId) text Hello from Alice")
        #expect(started["type"] as? String == "startedConnectionToContact")
        #expect(contactId(started) == bobId)
        let again = await alice.c.send("/_connect contact @\(bobId)")
        #expect(again.contains("not a prepared contact"))
        let req = try await bob.event("receivedContactRequest")
        let reqId = try #require(((req["contactRequest"] as? [String: Any])?["contactRequestId"] as? NSNumber)?.int64Value)
        try await bob.cmd("/_accept \(reqId)")
        let connected = try await alice.event("contactConnected")
        #expect(contactId(connected) == bobId)
        #expect((connected["contact"] as? [String: Any])?["preparedContact"] == nil)
        let aliceAtBob = try #require(contactId(try await bob.event("contactConnected")))
        // The message sent with the request opens Bob's chat.
        let bobChat = try await bob.cmd("/_get chat @\(aliceAtBob) count=10")
        #expect("\(bobChat)".contains("Hello from Alice"))
        try await alice.cmd(#"/_send @\#(bobId) json [{"msgContent":{"type":"text","text":"after prepared"}}]"#)
        try await bob.event("newChatItems") { itemText($0) == "after prepared" }

        // An invitation link, prepared without a greeting.
        let inv = try await bob.cmd("/_connect 1")
        let invLink = try #require((inv["connLinkInvitation"] as? [String: Any])?["connFullLink"] as? String)
        let carol = try await Client("carol", dir: dir, server: server)
        let p2 = try await carol.cmd(#"/_prepare contact 1 \#(invLink) {"profile":{"displayName":"bob","fullName":""},"business":false}"#)
        let bobAtCarol = try #require(((((p2["chat"] as? [String: Any])?["chatInfo"] as? [String: Any])?["contact"] as? [String: Any])?["contactId"] as? NSNumber)?.int64Value)
        #expect(await carol.c.send("/_connect contact @\(bobAtCarol) text hi").contains("commandError"))
        try await carol.cmd("/_connect contact @\(bobAtCarol)")
        let c2 = try await carol.event("contactConnected")
        #expect(contactId(c2) == bobAtCarol)
        try await bob.event("contactConnected") { displayName($0) == "carol" }
        // Malformed: business data with an invitation (it needs an address); a bad link; an unknown contact.
        #expect(await carol.c.send(#"/_prepare contact 1 \#(invLink) {"profile":{"displayName":"x","fullName":""},"business":true}"#).contains("commandError"))
        #expect(await carol.c.send(#"/_prepare contact 1 simplex:/nope {"profile":{"displayName":"x","fullName":""},"business":false}"#).contains("invalidConnReq"))
        #expect(await carol.c.send("/_connect contact @999").contains("contactNotFound"))
        await relay.shutdown()
    }

    @Test func messageActions() async throws {
        let dir = NSTemporaryDirectory() + "chat-actions-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (relay, server) = try await startRelay(dir)
        let (alice, bob, bobId, aliceId) = try await connectedPair(dir, server)

        let sent = try await alice.cmd(#"/_send @\#(bobId) json [{"msgContent":{"type":"text","text":"one"}}]"#)
        let aItem = try #require(itemId(sent))
        let got = try await bob.event("newChatItems") { itemText($0) == "one" }
        let bItem = try #require(itemId(got))

        // §4 edit, and an identical edit changes nothing.
        let upd = try await alice.cmd(#"/_update item @\#(bobId) \#(aItem) json {"msgContent":{"type":"text","text":"one!"}}"#)
        #expect(upd["type"] as? String == "chatItemUpdated")
        let edited = try await bob.event("chatItemUpdated")
        #expect((((edited["chatItem"] as? [String: Any])?["chatItem"] as? [String: Any])?["meta"] as? [String: Any])?["itemEdited"] as? Bool == true)
        let same = try await alice.cmd(#"/_update item @\#(bobId) \#(aItem) json {"msgContent":{"type":"text","text":"one!"}}"#)
        #expect(same["type"] as? String == "chatItemNotChanged")

        // §6 reaction.
        let r = try await bob.cmd(#"/_reaction @\#(aliceId) \#(bItem) on {"type":"emoji","emoji":"👍"}"#)
        #expect(r["type"] as? String == "chatItemReaction" && r["added"] as? Bool == true)
        let reacted = try await alice.event("chatItemReaction")
        #expect((((reacted["reaction"] as? [String: Any])?["chatReaction"] as? [String: Any])?["reaction"] as? [String: Any])?["emoji"] as? String == "👍")
        let aliceChat = try await alice.cmd("/_get chat @\(bobId) count=1")
        let counts = ((aliceChat["chat"] as? [String: Any])?["chatItems"] as? [[String: Any]])?.first?["reactions"] as? [[String: Any]]
        #expect(counts?.first?["totalReacted"] as? Int == 1)

        // §7 reply with a quote.
        try await bob.cmd(#"/_send @\#(aliceId) json [{"quotedItemId":\#(bItem),"msgContent":{"type":"text","text":"reply"}}]"#)
        let reply = try await alice.event("newChatItems") { itemText($0) == "reply" }
        let quoted = try #require(firstItem(reply)?["quotedItem"] as? [String: Any])
        #expect((quoted["content"] as? [String: Any])?["text"] as? String == "one!")
        #expect((quoted["itemId"] as? NSNumber)?.int64Value == aItem)

        // §8 forward.
        let plan = try await alice.cmd("/_forward plan @\(bobId) \(aItem)")
        #expect(plan["type"] as? String == "forwardPlan")
        let fwd = try await alice.cmd("/_forward @\(bobId) @\(bobId) \(aItem)")
        #expect((firstItem(fwd)?["meta"] as? [String: Any])?["itemForwarded"] != nil)
        try await bob.event("newChatItems") { itemText($0) == "one!" }

        // §5 delete for everyone.
        let del = try await alice.cmd("/_delete item @\(bobId) \(aItem) broadcast")
        #expect(del["type"] as? String == "chatItemsDeleted")
        let gone = try await bob.event("chatItemsDeleted")
        #expect(gone["byUser"] as? Bool == false)

        // Timed message: gone on both sides after its ttl.
        try await alice.cmd(#"/_send @\#(bobId) ttl=1 json [{"msgContent":{"type":"text","text":"vanishing"}}]"#)
        let timed = try await bob.event("newChatItems") { itemText($0) == "vanishing" }
        #expect(((firstItem(timed)?["meta"] as? [String: Any])?["itemTimed"] as? [String: Any])?["ttl"] as? Int == 1)
        try await alice.event("chatItemsDeleted", timeout: 10) { $0["timed"] as? Bool == true }
        try await bob.event("chatItemsDeleted", timeout: 10) { $0["timed"] as? Bool == true }

        // Profile update reaches the contact.
        let prof = try await bob.cmd(#"/_profile 1 {"displayName":"bobby","fullName":"Bob"}"#)
        #expect(prof["type"] as? String == "userProfileUpdated")
        let updated = try await alice.event("contactUpdated")
        #expect(((updated["toContact"] as? [String: Any])?["profile"] as? [String: Any])?["displayName"] as? String == "bobby")

        // Contact deletion is announced.
        let deleted = try await alice.cmd("/_delete @\(bobId)")
        #expect(deleted["type"] as? String == "contactDeleted")
        try await bob.event("contactDeletedByContact")

        await alice.c.close()
        await bob.c.close()
        await relay.shutdown()
    }

    /// Seed 001 §1, 2, 5 and seed 003 §1, 3: invitation, plan, connect, messages both ways with
    /// sndSent -> sndRcvd statuses, chat list and chat history.
    @Test func invitationAndMessages() async throws {
        let dir = NSTemporaryDirectory() + "chat-flow-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: dir + "/relay", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var rc = SMPServerConfig()
        rc.port = 0
        rc.host = "127.0.0.1"
        let creds = try ServerCredentials.generate(commonName: "127.0.0.1")
        let relay = try await SMPRelayServer.start(config: rc, credentials: creds, dataDirectory: dir + "/relay", group: flowGroup)
        let server = try SMPServerAddress(keyHash: creds.keyHash, hosts: ["127.0.0.1"], port: relay.port).description
        let alice = try await Client("alice", dir: dir, server: server)
        let bob = try await Client("bob", dir: dir, server: server)

        let inv = try await alice.cmd("/_connect 1")
        #expect(inv["type"] as? String == "invitation")
        let link = try #require((inv["connLinkInvitation"] as? [String: Any])?["connFullLink"] as? String)
        #expect(link.hasPrefix("simplex:/invitation#/?v=2-7&smp="))
        let chats = try await alice.cmd("/_get chats 1 pcc=on")
        let pending = (chats["chats"] as? [[String: Any]])?.compactMap { ($0["chatInfo"] as? [String: Any])?["type"] as? String }
        #expect(pending == ["contactConnection"])

        let own = try await alice.cmd("/_connect plan 1 \(link)")
        #expect(((own["connectionPlan"] as? [String: Any])?["invitationLinkPlan"] as? [String: Any])?["type"] as? String == "ownLink")
        let plan = try await bob.cmd("/_connect plan 1 \(link)")
        #expect(((plan["connectionPlan"] as? [String: Any])?["invitationLinkPlan"] as? [String: Any])?["type"] as? String == "ok")
        let joined = try await bob.cmd("/connect \(link)")
        #expect(joined["type"] as? String == "sentConfirmation")

        let aliceSide = try await alice.event("contactConnected")
        let bobSide = try await bob.event("contactConnected")
        #expect(displayName(aliceSide) == "bob")
        #expect(displayName(bobSide) == "alice")
        let bobId = try #require(contactId(aliceSide)), aliceId = try #require(contactId(bobSide))

        let sent = try await alice.cmd(#"/_send @\#(bobId) json [{"msgContent":{"type":"text","text":"hello *bob*"}}]"#)
        #expect(sent["type"] as? String == "newChatItems" && itemStatus(sent) == "sndNew")
        try await bob.event("newChatItems") { itemText($0) == "hello *bob*" }
        try await alice.event("chatItemsStatusesUpdated") { itemStatus($0) == "sndRcvd" }

        try await bob.cmd(#"/_send @\#(aliceId) json [{"msgContent":{"type":"text","text":"hi alice"}}]"#)
        try await alice.event("newChatItems") { itemText($0) == "hi alice" }

        let history = try await alice.cmd("/_get chat @\(bobId) count=10")
        let items = try #require((history["chat"] as? [String: Any])?["chatItems"] as? [[String: Any]])
        // After the new chat's own items (banner, e2e notice, five features), the two messages.
        #expect(items.count == 9)
        let messages = Array(items.suffix(2))
        #expect(messages.compactMap { ($0["meta"] as? [String: Any])?["itemText"] as? String } == ["hello *bob*", "hi alice"])
        #expect(messages.first?["formattedText"] != nil, "markdown is parsed into formattedText")
        let contacts = try await alice.cmd("/_contacts 1")
        #expect((contacts["contacts"] as? [Any])?.count == 1)

        // Seed 001 §6, §4 and §7: address, contact request accepted, incognito joiner.
        let address = try await alice.cmd("/_address 1")
        let addressLink = try #require((address["connLinkContact"] as? [String: Any])?["connFullLink"] as? String)
        let carol = try await Client("carol", dir: dir, server: server)
        let req = try await carol.cmd("/_connect 1 incognito=on \(addressLink)")
        #expect(req["type"] as? String == "sentInvitation")
        let incognitoName = try #require((req["customUserProfile"] as? [String: Any])?["displayName"] as? String)
        #expect(incognitoName != "carol")
        let request = try await alice.event("receivedContactRequest")
        let reqInfo = try #require(request["contactRequest"] as? [String: Any])
        #expect((reqInfo["profile"] as? [String: Any])?["displayName"] as? String == incognitoName)
        let reqId = try #require((reqInfo["contactRequestId"] as? NSNumber)?.int64Value)
        let accepting = try await alice.cmd("/_accept \(reqId)")
        #expect(accepting["type"] as? String == "acceptingContactRequest")
        let carolAtAlice = try await alice.event("contactConnected") { displayName($0) == incognitoName }
        try await carol.event("contactConnected") { displayName($0) == "alice" }
        #expect(!String(describing: carolAtAlice).contains("carol"), "the real profile must never reach the peer")

        // The relay going away is reported once per relay.
        await relay.shutdown()
        let down = try await alice.event("hostDisconnected")
        #expect(down["transportHost"] as? String == "127.0.0.1")
        await alice.c.close()
        await bob.c.close()
        await carol.c.close()
    }

    /// Seed 001 §1.7 and §2-3: every link we create has a short form whose data (the profile,
    /// or the group profile) the relay keeps; plans resolve it, and it can be joined directly.
    @Test func shortLinksResolveAndJoin() async throws {
        let dir = NSTemporaryDirectory() + "chat-short-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (relay, server) = try await startRelay(dir)
        let alice = try await Client("alice", dir: dir, server: server)
        let bob = try await Client("bob", dir: dir, server: server)
        let carol = try await Client("carol", dir: dir, server: server)
        func planOf(_ c: Client, _ link: String) async throws -> [String: Any] {
            try #require(try await c.cmd("/_connect plan 1 \(link)")["connectionPlan"] as? [String: Any])
        }

        let inv = try await alice.cmd("/_connect 1")
        let invLinks = try #require(inv["connLinkInvitation"] as? [String: Any])
        let short = try #require(invLinks["connShortLink"] as? String)
        #expect(short.contains("/i#"), "an invitation short link: \(short)")
        let own = try await planOf(alice, short)
        #expect((own["invitationLinkPlan"] as? [String: Any])?["type"] as? String == "ownLink")
        let plan = try await planOf(bob, short)
        let ok = try #require(plan["invitationLinkPlan"] as? [String: Any])
        #expect(ok["type"] as? String == "ok")
        #expect(((ok["contactSLinkData_"] as? [String: Any])?["profile"] as? [String: Any])?["displayName"] as? String == "alice")
        // Only the agent that resolved the invitation can use it.
        #expect(await carol.c.send("/_connect plan 1 \(short)").contains("NOT_AVAILABLE"))
        try await bob.cmd("/connect \(short)")
        try await alice.event("contactConnected")
        try await bob.event("contactConnected")

        let address = try await alice.cmd("/_address 1")
        let addressShort = try #require((address["connLinkContact"] as? [String: Any])?["connShortLink"] as? String)
        let shown = try await alice.cmd("/_show_address 1")
        #expect((shown["contactLink"] as? [String: Any])?["shortLinkDataSet"] as? Bool == true)
        #expect(((try await planOf(alice, addressShort))["contactAddressPlan"] as? [String: Any])?["type"] as? String == "ownLink")
        let addrPlan = try #require((try await planOf(carol, addressShort))["contactAddressPlan"] as? [String: Any])
        #expect(((addrPlan["contactSLinkData_"] as? [String: Any])?["profile"] as? [String: Any])?["displayName"] as? String == "alice")
        let req = try await carol.cmd("/_connect 1 \(addressShort)")
        #expect(req["type"] as? String == "sentInvitation")
        try await alice.event("receivedContactRequest")

        let g = try #require(((try await alice.cmd(#"/_group 1 {"displayName":"club","fullName":""}"#))["groupInfo"] as? [String: Any])?["groupId"] as? NSNumber)
        let gl = try await alice.cmd("/_create link #\(g)")
        let groupShort = try #require(((gl["groupLink"] as? [String: Any])?["connLinkContact"] as? [String: Any])?["connShortLink"] as? String)
        let gp = try #require((try await planOf(carol, groupShort))["groupLinkPlan"] as? [String: Any])
        #expect(gp["type"] as? String == "ok")
        #expect(((gp["groupSLinkData_"] as? [String: Any])?["groupProfile"] as? [String: Any])?["displayName"] as? String == "club")
        try await carol.cmd("/_connect 1 \(groupShort)")
        try await carol.event("userJoinedGroup")
        try await alice.event("joinedGroupMember")
        #expect(await carol.c.send("/_connect plan 1 https://127.0.0.1/a#AAAA").contains("error"))

        await relay.shutdown()
        await alice.c.close()
        await bob.c.close()
        await carol.c.close()
    }
}
