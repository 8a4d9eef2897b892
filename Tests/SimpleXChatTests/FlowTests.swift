import Foundation
import Testing

@testable import SimpleXChat

/// Seeds 001 and 003 walked only through SimpleXChat (ChatAPI + ChatReceiver) against real cores
/// and a loopback relay, asserting on each side's ChatModel.
@Suite(.serialized) @MainActor struct FlowTests {
    /// Seed 001 §1, §2, §5, then seed 003 §1 and §3-8 between the two new contacts.
    @Test func invitationThenMessaging() async throws {
        let dir = tempDir("invitation")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (relay, server) = try await startRelay(dir)
        let alice = try await TestApp("alice", dir: dir, server: server)
        let bob = try await TestApp("bob", dir: dir, server: server)

        // 001 §1: an invitation; the pending connection is in the chat list.
        let (created, alert) = await alice.api.apiAddContact(incognito: false)
        #expect(alert == nil)
        let (link, pcc) = try #require(created)
        #expect(link.connFullLink.hasPrefix("simplex:/invitation#"))
        #expect(alice.model.getChat(":\(pcc.pccConnId)") != nil)
        #expect(alice.pendingConnections.map(\.pccConnId) == [pcc.pccConnId])

        // 001 §2: plan, then connect.
        let (ownPlan, _) = await alice.api.apiConnectPlan(connLink: link.connFullLink)
        #expect(ownPlan?.1 == .invitationLink(invitationLinkPlan: .ownLink))
        let (planned, planAlert) = await bob.api.apiConnectPlan(connLink: link.connFullLink)
        #expect(planAlert == nil)
        let (planLink, plan) = try #require(planned)
        guard case .invitationLink(.ok) = plan else { Issue.record("plan \(plan)"); return }
        let (reqType, bobPcc) = try #require(await bob.api.apiConnect(incognito: false, connLink: planLink))
        #expect(reqType == .invitation)
        #expect(bob.pendingConnections.map(\.pccConnId) == [bobPcc.pccConnId])

        // 001 §5: contactConnected replaces each pending connection with the contact.
        try await eventually("alice sees bob connected") { alice.contact(named: "bob") != nil && alice.pendingConnections.isEmpty }
        try await eventually("bob sees alice connected") { bob.contact(named: "alice") != nil && bob.pendingConnections.isEmpty }
        let bobId = try #require(alice.contact(named: "bob")).contactId
        let aliceId = try #require(bob.contact(named: "alice")).contactId
        #expect(alice.model.chats.count == 1 && bob.model.chats.count == 1)

        // 003 §1: the sent item is sndNew, then delivery statuses move it to sndRcvd.
        let sent = try #require(await alice.api.apiSendMessages(type: .direct, id: bobId, composedMessages: [ComposedMessage(msgContent: .text("hello"))]))
        #expect(sent.count == 1 && sent[0].status.isSndNew)
        let aItem = sent[0].id
        #expect(alice.model.chatItem("@\(bobId)", aItem)?.text == "hello")
        try await eventually("alice's item delivered") { alice.model.chatItem("@\(bobId)", aItem)?.status.isSndRcvd == true }

        // 003 §3: bob's receiver adds the item, unread.
        try await eventually("bob receives hello") { bob.items(aliceId).contains { $0.text == "hello" } }
        let bItem = try #require(bob.items(aliceId).first { $0.text == "hello" })
        #expect(!bItem.chatDir.sent)
        #expect(bob.model.getContactChat(aliceId)?.chatStats.unreadCount == 1)

        // 003 §4: edit on both sides.
        let edited = try await alice.api.apiUpdateChatItem(type: .direct, id: bobId, itemId: aItem, updatedMessage: UpdatedMessage(msgContent: .text("hello!")))
        #expect(edited.meta.itemEdited && edited.text == "hello!")
        #expect(alice.model.chatItem("@\(bobId)", aItem)?.text == "hello!")
        try await eventually("bob sees the edit") { bob.model.chatItem("@\(aliceId)", bItem.id).map { $0.text == "hello!" && $0.meta.itemEdited } == true }

        // 003 §6: reaction on both sides.
        let thumbs = try #require(MsgReaction.emojiReaction("👍"))
        let reacted = try await bob.api.apiChatItemReaction(type: .direct, id: aliceId, itemId: bItem.id, add: true, reaction: thumbs)
        #expect(reacted.reactions.first?.userReacted == true)
        #expect(bob.model.chatItem("@\(aliceId)", bItem.id)?.reactions.first?.totalReacted == 1)
        try await eventually("alice sees the reaction") {
            alice.model.chatItem("@\(bobId)", aItem)?.reactions.first.map { $0.reaction == thumbs && $0.totalReacted == 1 } == true
        }

        // 003 §7: a quoted reply.
        let reply = try #require(await bob.api.apiSendMessages(type: .direct, id: aliceId, composedMessages: [ComposedMessage(quotedItemId: bItem.id, msgContent: .text("reply"))]))
        #expect(reply.first?.quotedItem?.itemId == bItem.id)
        try await eventually("alice receives the reply") { alice.items(bobId).contains { $0.text == "reply" } }
        let quoted = try #require(alice.items(bobId).first { $0.text == "reply" }?.quotedItem)
        #expect(quoted.itemId == aItem)
        #expect(quoted.content == .text("hello!"))

        // 003 §8: plan, then forward into the same chat.
        let (forwardable, confirmation) = try await alice.api.apiPlanForwardChatItems(type: .direct, id: bobId, itemIds: [aItem])
        #expect(forwardable == [aItem] && confirmation == nil)
        let forwarded = try await alice.api.apiForwardChatItems(toChatType: .direct, toChatId: bobId, fromChatType: .direct, fromChatId: bobId, itemIds: [aItem])
        let fItem = try #require(forwarded.first)
        #expect(fItem.meta.itemForwarded != nil)
        #expect(alice.model.chatItem("@\(bobId)", fItem.id) != nil)
        try await eventually("bob receives the forwarded item") { bob.items(aliceId).filter { $0.text == "hello!" }.count == 2 }

        // 003 §5: delete for everyone; bob's copy is marked deleted.
        let deletions = try await alice.api.apiDeleteChatItems(type: .direct, id: bobId, itemIds: [aItem], mode: .broadcast)
        #expect(deletions.count == 1)
        #expect(alice.model.chatItem("@\(bobId)", aItem).map { $0.meta.itemDeleted != nil } ?? true)
        try await eventually("bob sees the deletion") { bob.model.chatItem("@\(aliceId)", bItem.id)?.meta.itemDeleted != nil }

        // The chat list from the core agrees with the model built from events.
        let chats = try await alice.api.apiGetChats()
        #expect(chats.map(\.chatInfo.id) == ["@\(bobId)"])
        #expect(alice.model.chats.map(\.id) == ["@\(bobId)"])

        await alice.close()
        await bob.close()
        await relay.shutdown()
    }

    /// Seed 001 §6 (address), §4 (request appears, accepted or rejected), §5, §7 (incognito both
    /// ways: joining an address, and a pending invitation switched to incognito), contactAlreadyExists.
    @Test func addressRequestsAndIncognito() async throws {
        let dir = tempDir("address")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (relay, server) = try await startRelay(dir)
        let alice = try await TestApp("alice", dir: dir, server: server)
        let carol = try await TestApp("carol", dir: dir, server: server)
        let dave = try await TestApp("dave", dir: dir, server: server)

        // §6: the address is in the model.
        let address = try #require(try await alice.api.apiCreateUserAddress())
        #expect(alice.model.userAddress?.connLinkContact.connFullLink == address.connFullLink)
        #expect(try await alice.api.apiGetUserAddress()?.connLinkContact.connFullLink == address.connFullLink)

        // §7 via an address: carol joins incognito; alice's request shows the random name.
        let (reqType, carolPcc) = try #require(await carol.api.apiConnect(incognito: true, connLink: address))
        #expect(reqType == .contact)
        #expect(carolPcc.customUserProfileId != nil)
        #expect(carol.pendingConnections.count == 1)
        try await eventually("alice gets carol's request") { alice.contactRequests.count == 1 }
        let request = try #require(alice.contactRequests.first)
        let incognitoName = request.profile.displayName
        #expect(incognitoName != "carol")

        // §4: accepting replaces the request with the contact.
        let contact = try #require(await alice.api.apiAcceptContactRequest(incognito: false, contactReqId: request.contactRequestId))
        #expect(alice.model.getChat("<@\(request.contactRequestId)") == nil)
        #expect(alice.model.getContactChat(contact.contactId) != nil)
        #expect(alice.contactRequests.isEmpty)

        // §5: both sides connect; carol's pending connection becomes the contact.
        try await eventually("carol connected to alice") { carol.contact(named: "alice") != nil && carol.pendingConnections.isEmpty }
        try await eventually("alice connected to carol") {
            alice.model.getContactChat(contact.contactId).map { if case .direct(let c) = $0.chatInfo { c.activeConn?.connStatus == .ready } else { false } } == true
        }
        #expect(alice.contact(named: incognitoName) != nil)
        #expect(alice.contact(named: "carol") == nil, "carol's real profile must not reach alice")

        // Joining the same address again: contactAlreadyExists, as a value and as an alert.
        let again = await carol.api.apiConnectResult(incognito: false, connLink: address)
        guard case .contactAlreadyExists(let existing) = again else { Issue.record("expected contactAlreadyExists, got \(again)"); return }
        #expect(existing.profile.displayName == "alice")
        #expect(await carol.api.apiConnect(incognito: false, connLink: address) == nil)
        #expect(carol.model.alerts.last?.title == "Contact already exists")

        // §4.8: dave's request is rejected and leaves the model.
        _ = try #require(await dave.api.apiConnect(incognito: false, connLink: address))
        try await eventually("alice gets dave's request") { alice.contactRequests.count == 1 }
        let daveRequest = try #require(alice.contactRequests.first)
        #expect(daveRequest.profile.displayName == "dave")
        try await alice.api.apiRejectContactRequest(contactReqId: daveRequest.contactRequestId)
        #expect(alice.contactRequests.isEmpty)

        // §7.6: a pending invitation switched to incognito; dave sees a random name for alice.
        let (created, _) = await alice.api.apiAddContact(incognito: false)
        let (link, pcc) = try #require(created)
        #expect(pcc.customUserProfileId == nil)
        let updated = try #require(try await alice.api.apiSetConnectionIncognito(connId: pcc.pccConnId, incognito: true))
        #expect(updated.customUserProfileId != nil)
        guard case .contactConnection(let inModel)? = alice.model.getChat(":\(pcc.pccConnId)")?.chatInfo else {
            Issue.record("pending connection missing"); return
        }
        #expect(inModel.customUserProfileId != nil)
        // (dave's connection to the address stays pending: his request was rejected.)
        let (_, davePcc) = try #require(await dave.api.apiConnect(incognito: false, connLink: link))
        try await eventually("dave connected to alice's incognito profile") {
            dave.model.getChat(":\(davePcc.pccConnId)") == nil && dave.model.chats.contains { if case .direct = $0.chatInfo { true } else { false } }
        }
        #expect(dave.contact(named: "alice") == nil, "alice's real profile must not reach dave")
        try await eventually("alice connected to dave") { alice.contact(named: "dave") != nil && alice.pendingConnections.isEmpty }

        // Seed 001 §3: prepared contacts are not supported by the core — a clear error, no fake chat.
        await #expect(throws: ChatAPIError.self) { try await alice.api.apiConnectPreparedContact(contactId: 1, incognito: false, msg: nil) }

        // §6.7: deleting the address clears it.
        try await alice.api.apiDeleteUserAddress()
        #expect(alice.model.userAddress == nil)
        #expect(try await alice.api.apiGetUserAddress() == nil)

        await alice.close()
        await carol.close()
        await dave.close()
        await relay.shutdown()
    }

    /// Seed 001 §3: apiPrepareContact puts the prepared chat (with the link's greeting) in the
    /// model before any network step; apiConnectPreparedContact connects that same contact.
    @Test func preparedContactFlow() async throws {
        let dir = tempDir("prepared")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (relay, server) = try await startRelay(dir)
        let alice = try await TestApp("alice", dir: dir, server: server)
        let bob = try await TestApp("bob", dir: dir, server: server)
        let address = try #require(try await alice.api.apiCreateUserAddress())
        let data = ContactShortLinkData(profile: Profile(displayName: "alice"), message: .text("Welcome to Alice"))
        let chat = try await bob.api.apiPrepareContact(connLink: address, contactShortLinkData: data)
        guard case .direct(let prepared) = chat.chatInfo else { Issue.record("not a direct chat: \(chat.chatInfo)"); return }
        #expect(prepared.preparedContact?.uiConnLinkType == .con)
        #expect(bob.contact(named: "alice")?.contactId == prepared.contactId)
        #expect(bob.items(prepared.contactId).map(\.meta.itemText) == ["Welcome to Alice"])

        let started = try await bob.api.apiConnectPreparedContact(contactId: prepared.contactId, incognito: false, msg: .text("Hi Alice"))
        #expect(started.contactId == prepared.contactId)
        try await eventually("alice gets bob's request") { alice.contactRequests.count == 1 }
        let request = try #require(alice.contactRequests.first)
        _ = try #require(await alice.api.apiAcceptContactRequest(incognito: false, contactReqId: request.contactRequestId))
        try await eventually("bob's prepared contact connects") {
            bob.contact(named: "alice").map { $0.contactId == prepared.contactId && $0.activeConn?.connStatus == .ready && $0.preparedContact == nil } == true
        }
        do {
            _ = try await bob.api.apiConnectPreparedContact(contactId: prepared.contactId, incognito: false, msg: nil)
            Issue.record("a connected contact is not prepared")
        } catch { }
        await alice.close()
        await bob.close()
        await relay.shutdown()
    }

    /// Seed 001 §3 for groups: a prepared group from a group link's data, joined; the model's
    /// chat is the same group from preparation to membership.
    @Test func preparedGroupFlow() async throws {
        let dir = tempDir("prepared-group")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (relay, server) = try await startRelay(dir)
        let alice = try await TestApp("alice", dir: dir, server: server)
        let bob = try await TestApp("bob", dir: dir, server: server)
        guard case .result(.groupCreated(_, let g)) = await alice.api.chatApiSendCmd(#"/_group 1 {"displayName":"club","fullName":""}"#),
            case .result(.groupLinkCreated(_, _, let groupLink)) = await alice.api.chatApiSendCmd("/_create link #\(g.groupId)")
        else { Issue.record("group and link"); return }
        let data = GroupShortLinkData(groupProfile: GroupProfile(displayName: "club"))
        do {
            _ = try await bob.api.apiPrepareGroup(connLink: groupLink.connLinkContact, directLink: false, groupShortLinkData: data)
            Issue.record("channel links are refused")
        } catch { }
        let chat = try await bob.api.apiPrepareGroup(connLink: groupLink.connLinkContact, directLink: true, groupShortLinkData: data)
        guard case .group(let prepared, _) = chat.chatInfo else { Issue.record("not a group chat: \(chat.chatInfo)"); return }
        #expect(prepared.preparedGroup != nil)
        #expect(bob.model.getChat(chat.chatInfo.id) != nil)
        let (started, relays) = try await bob.api.apiConnectPreparedGroup(groupId: prepared.groupId, incognito: false, msg: nil)
        #expect(started.groupId == prepared.groupId && relays.isEmpty)
        try await eventually("bob joins the prepared group") {
            guard case .group(let info, _)? = bob.model.getChat(chat.chatInfo.id)?.chatInfo else { return false }
            return info.membership.memberStatus == .connected && info.preparedGroup == nil
        }
        await alice.close()
        await bob.close()
        await relay.shutdown()
    }
}
