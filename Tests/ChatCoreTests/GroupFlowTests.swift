import Foundation
import Testing

@testable import ChatCore

private func groupId(_ e: [String: Any]) -> Int64? {
    ((e["groupInfo"] as? [String: Any])?["groupId"] as? NSNumber)?.int64Value
}

private func memberName(_ e: [String: Any], _ key: String = "member") -> String? {
    (((e[key] as? [String: Any])?["memberProfile"] as? [String: Any])?["displayName"] as? String)
}

private func gmId(_ e: [String: Any], _ key: String = "member") -> Int64? {
    ((e[key] as? [String: Any])?["groupMemberId"] as? NSNumber)?.int64Value
}

/// The sender's display name of the first item (groupRcv direction).
private func senderName(_ e: [String: Any]) -> String? {
    guard let dir = firstItem(e)?["chatDir"] as? [String: Any] else { return nil }
    return ((dir["groupMember"] as? [String: Any])?["memberProfile"] as? [String: Any])?["displayName"] as? String
}

private func allTexts(_ e: [String: Any]) -> [String] {
    ((e["chatItems"] as? [[String: Any]]) ?? []).compactMap { (($0["chatItem"] as? [String: Any])?["meta"] as? [String: Any])?["itemText"] as? String }
}

private func errorType(_ json: String) -> String? {
    guard let obj = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any], let e = obj["error"] as? [String: Any] else { return nil }
    if let inner = e["errorType"] as? [String: Any] { return inner["type"] as? String }
    if let inner = e["storeError"] as? [String: Any] { return inner["type"] as? String }
    return e["type"] as? String
}

/// A text message to send.
private func text(_ t: String, quoting: Int64? = nil) -> [ComposedMessage] {
    [ComposedMessage(quotedItemId: quoting, msgContent: .text(t))]
}

/// The item of a `newChatItems` event with this text, with its chat.
private func received(_ text: String) -> (ChatEvent) -> AChatItem? {
    { e in
        guard case .newChatItems(_, let items) = e else { return nil }
        return items.first { $0.chatItem.meta.itemText == text }
    }
}

/// The sender's name of a received group item.
private func sender(_ item: AChatItem) -> String? {
    if case .groupRcv(let m) = item.chatItem.chatDir { return m?.memberProfile.displayName }
    return nil
}

private func firstItemId(_ r: ChatResponse) -> Int64? {
    if case .newChatItems(_, let items) = r { return items.first?.chatItem.meta.itemId }
    return nil
}

/// Alice's group "team" with Bob and Carol, joined and connected to each other, as the first
/// test checks it step by step; the others start from it.
private struct Team {
    let alice: Client, bob: Client, carol: Client
    /// The group's id at Alice, Bob and Carol.
    let g: Int64, bg: Int64, cg: Int64
    /// Bob and Carol as members at Alice; each as a member at the other.
    let bobGm: Int64, carolGm: Int64, carolAtBob: Int64, bobAtCarol: Int64

    static func make(_ flow: Flow) async throws -> Team {
        let (alice, bob, bobId, _) = try await flow.pair()
        let carol = try await flow.client("carol")
        let (carolId, _) = try await flow.connect(alice, carol)

        guard case .groupCreated(_, let info) = try await alice.run(.apiNewGroup(userId: 1, incognito: false, groupProfile: GroupProfile(displayName: "team", description: "welcome to the team"))) else {
            Issue.record("no group")
            throw CancellationError()
        }
        #expect(info.membership.memberRole == .owner && info.membership.memberStatus == .creator)
        let g = info.groupId

        // Bob is invited and joins; the description arrives as the welcome.
        guard case .sentGroupInvitation = try await alice.run(.apiAddMember(groupId: g, contactId: bobId, memberRole: .member)) else {
            Issue.record("no invitation sent")
            throw CancellationError()
        }
        let bg = try await bob.next("invitation") { e -> Int64? in
            guard case .receivedGroupInvitation(_, let gi, _, let from, let role) = e else { return nil }
            #expect(role == .member && from == .owner)
            return gi.groupId
        }
        guard case .userAcceptedGroupSent = try await bob.run(.apiJoinGroup(groupId: bg)) else {
            Issue.record("join not accepted")
            throw CancellationError()
        }
        let bobGm = try await alice.next("bob joined") { e -> Int64? in
            if case .joinedGroupMember(_, _, let m) = e, m.memberProfile.displayName == "bob" { m.groupMemberId } else { nil }
        }
        try await bob.next("joined, host alice") { e -> Bool? in
            if case .userJoinedGroup(_, _, let host) = e, host.memberProfile.displayName == "alice" { true } else { nil }
        }
        try await bob.next("welcome", received("welcome to the team"))

        // Carol joins; Alice introduces Bob and Carol, who connect directly. A message Bob sends
        // before they are connected is kept for Carol and delivered on connection.
        try await alice.run(.apiAddMember(groupId: g, contactId: carolId, memberRole: .member))
        let cg = try await carol.next("invitation") { e -> Int64? in
            if case .receivedGroupInvitation(_, let gi, _, _, _) = e { gi.groupId } else { nil }
        }
        try await carol.run(.apiJoinGroup(groupId: cg))
        let carolGm = try await alice.next("carol joined") { e -> Int64? in
            if case .joinedGroupMember(_, _, let m) = e, m.memberProfile.displayName == "carol" { m.groupMemberId } else { nil }
        }
        try await bob.next("carol announced") { e -> Bool? in
            if case .joinedGroupMemberConnecting(_, _, let host, let m) = e, m.memberProfile.displayName == "carol",
                host.memberProfile.displayName == "alice" { true } else { nil }
        }
        try await bob.run(.apiSendMessages(sendRef: .group(bg), liveMessage: false, ttl: nil, composedMessages: text("sent while you were connecting")))
        let carolAtBob = try await bob.next("connected to carol", timeout: 20) { e -> Int64? in
            if case .connectedToGroupMember(_, _, let m, _) = e, m.memberProfile.displayName == "carol" { m.groupMemberId } else { nil }
        }
        let bobAtCarol = try await carol.next("connected to bob", timeout: 20) { e -> Int64? in
            if case .connectedToGroupMember(_, _, let m, _) = e, m.memberProfile.displayName == "bob" { m.groupMemberId } else { nil }
        }
        let early = try await carol.next("pending message", received("sent while you were connecting"))
        #expect(sender(early) == "bob")
        return Team(alice: alice, bob: bob, carol: carol, g: g, bg: bg, cg: cg, bobGm: bobGm, carolGm: carolGm,
                    carolAtBob: carolAtBob, bobAtCarol: bobAtCarol)
    }
}

@Suite(.serialized) struct GroupFlowTests {
    /// Invitation, joining, introductions between members and pending messages (in `Team.make`),
    /// and the refusals on the way.
    @Test func invitationJoiningAndIntroductions() async throws {
        try await withFlow("group-join") { flow in
            let t = try await Team.make(flow)
            #expect(errorType(await t.bob.c.send("/_join #\(t.bg)")) == "groupAlreadyJoined")
            // Bob is a member: he cannot invite.
            #expect(errorType(await t.bob.c.send("/_add #\(t.bg) 1 member")) == "groupUserRole")
            guard case .groupMembers(_, let group) = try await t.alice.run(.apiListMembers(groupId: t.g)) else {
                Issue.record("no members")
                return
            }
            #expect(group.members.count == 2 && group.members.allSatisfy { $0.memberStatus == .connected })
        }
    }

    /// Messages reach every member (Carol's reaches Bob over their own connection), with quotes,
    /// edits, reactions, deletion for everyone, delivery statuses and forwarding.
    @Test func messagesQuotesEditsReactionsAndForwards() async throws {
        try await withFlow("group-messages") { flow in
            let t = try await Team.make(flow)
            let hello = try await t.alice.run(.apiSendMessages(sendRef: .group(t.g), liveMessage: false, ttl: nil, composedMessages: text("hello team")))
            guard case .newChatItems(_, let sent) = hello, let helloItem = sent.first else {
                Issue.record("not sent")
                return
            }
            if case .groupSnd = helloItem.chatItem.chatDir {} else { Issue.record("not groupSnd: \(helloItem.chatItem.chatDir)") }
            let helloId = helloItem.chatItem.meta.itemId
            let atBob = try await t.bob.next("hello at bob", received("hello team"))
            #expect(sender(atBob) == "alice")
            try await t.carol.next("hello at carol", received("hello team"))
            try await t.alice.next("delivered to all", timeout: 20) { e -> Bool? in
                guard case .chatItemsStatusesUpdated(_, let items) = e,
                    items.contains(where: { $0.chatItem.meta.itemId == helloId && $0.chatItem.meta.itemStatus == .sndRcvd(msgRcptStatus: .ok, sndProgress: .complete) })
                else { return nil }
                return true
            }

            let fromCarol = try await t.carol.run(.apiSendMessages(sendRef: .group(t.cg), liveMessage: false, ttl: nil, composedMessages: text("hi all")))
            let hiAtBob = try await t.bob.next("hi at bob", received("hi all"))
            #expect(sender(hiAtBob) == "carol")
            try await t.alice.next("hi at alice", received("hi all"))

            // Bob replies to Carol; Carol sees the quote of her own message.
            try await t.bob.run(.apiSendMessages(sendRef: .group(t.bg), liveMessage: false, ttl: nil, composedMessages: text("welcome carol", quoting: hiAtBob.chatItem.meta.itemId)))
            let reply = try await t.carol.next("reply", received("welcome carol"))
            let quote = try #require(reply.chatItem.quotedItem)
            #expect(quote.chatDir == .groupSnd && quote.itemId == firstItemId(fromCarol))

            guard case .apiChat(_, let history, _) = try await t.carol.run(.apiGetChat(chatRef: .group(t.cg), contentTag: nil, pagination: .last(count: 20), search: nil)) else {
                Issue.record("no history")
                return
            }
            let texts = history.chatItems.map(\.meta.itemText)
            #expect(texts.contains("hello team") && texts.contains("hi all") && texts.contains("welcome carol"))

            // Edit (the same text again changes nothing), react, delete for everyone.
            let edit = ChatCommand.apiUpdateChatItem(chatRef: .group(t.g), chatItemId: helloId, liveMessage: false, updatedMessage: UpdatedMessage(msgContent: .text("hello team!")))
            try await t.alice.run(edit)
            try await t.bob.next("edit") { e -> Bool? in if case .chatItemUpdated(_, let ci) = e, ci.chatItem.meta.itemText == "hello team!" { true } else { nil } }
            if case .chatItemNotChanged = try await t.alice.run(edit) {} else { Issue.record("the same edit changed the item") }
            try await t.bob.run(.apiChatItemReaction(chatRef: .group(t.bg), chatItemId: atBob.chatItem.meta.itemId, add: true, reaction: .emoji("👍")))
            try await t.alice.next("reaction at alice") { e -> Bool? in if case .chatItemReaction(_, let added, _) = e { added } else { nil } }
            try await t.carol.next("reaction at carol") { e -> Bool? in if case .chatItemReaction = e { true } else { nil } }
            try await t.alice.run(.apiDeleteChatItem(chatRef: .group(t.g), chatItemIds: [helloId], deleteMode: .broadcast))
            try await t.bob.next("deleted") { e -> Bool? in if case .chatItemsDeleted = e { true } else { nil } }

            // Forwarding within the group.
            guard case .forwardPlan(_, _, let ids, _) = try await t.bob.run(.apiPlanForwardChatItems(fromChatRef: .group(t.bg), chatItemIds: [hiAtBob.chatItem.meta.itemId])) else {
                Issue.record("no plan")
                return
            }
            #expect(ids == [hiAtBob.chatItem.meta.itemId])
            try await t.bob.run(.apiForwardChatItems(toChatRef: .group(t.bg), fromChatRef: .group(t.bg), chatItemIds: ids, ttl: nil))
            let fwd = try await t.alice.next("forwarded") { e -> AChatItem? in
                guard let item = received("hi all")(e), sender(item) == "bob" else { return nil }
                return item
            }
            #expect(fwd.chatItem.meta.itemForwarded != nil)
        }
    }

    /// Roles, moderation by an owner, blocking locally and for all.
    @Test func rolesModerationAndBlocking() async throws {
        try await withFlow("group-roles") { flow in
            let t = try await Team.make(flow)
            try await t.carol.run(.apiSendMessages(sendRef: .group(t.cg), liveMessage: false, ttl: nil, composedMessages: text("hi all")))
            let hiAtAlice = try await t.alice.next("hi at alice", received("hi all"))
            try await t.bob.next("hi at bob", received("hi all"))

            // Carol becomes admin; Bob and Carol learn it.
            guard case .membersRoleUser(_, _, _, let toRole, _) = try await t.alice.run(.apiMembersRole(groupId: t.g, groupMemberIds: [t.carolGm], memberRole: .admin)) else {
                Issue.record("no role answer")
                return
            }
            #expect(toRole == .admin)
            try await t.bob.next("role at bob") { e -> Bool? in
                if case .memberRole(_, _, _, let m, _, let to) = e, m.memberProfile.displayName == "carol", to == .admin { true } else { nil }
            }
            try await t.carol.next("role at carol") { e -> Bool? in if case .memberRole = e { true } else { nil } }

            // Moderation: Alice deletes Carol's message for everyone.
            try await t.alice.run(.apiDeleteMemberChatItem(groupId: t.g, chatItemIds: [hiAtAlice.chatItem.meta.itemId]))
            try await t.bob.next("moderated") { e -> Bool? in
                guard case .chatItemsDeleted(_, let deletions, _, _) = e, case .moderated? = deletions.first?.toChatItem?.chatItem.meta.itemDeleted else { return nil }
                return true
            }

            // Blocking: locally by Carol (she still gets Bob's message, marked blocked), then for all by Alice.
            try await t.carol.run(.apiSetMemberSettings(groupId: t.cg, groupMemberId: t.bobAtCarol, memberSettings: GroupMemberSettings(showMessages: false)))
            try await t.bob.run(.apiSendMessages(sendRef: .group(t.bg), liveMessage: false, ttl: nil, composedMessages: text("can you see me")))
            let hidden = try await t.carol.next("blocked message", received("can you see me"))
            if case .blocked? = hidden.chatItem.meta.itemDeleted {} else { Issue.record("not blocked: \(String(describing: hidden.chatItem.meta.itemDeleted))") }
            try await t.alice.next("message at alice", received("can you see me"))
            guard case .membersBlockedForAllUser(_, _, _, let blocked, _) = try await t.alice.run(.apiBlockMembersForAll(groupId: t.g, groupMemberIds: [t.bobGm], blocked: true)) else {
                Issue.record("no block answer")
                return
            }
            #expect(blocked)
            try await t.carol.next("blocked for all") { e -> Bool? in
                if case .memberBlockedForAll(_, _, _, let m, true) = e, m.memberProfile.displayName == "bob" { true } else { nil }
            }
        }
    }

    /// Chat version 7: a changed profile reaches members we have no contact with, sent with our
    /// next group message (simplex-chat `sendGroupMessages`), once.
    @Test func profileChangeReachesMembersWithTheNextMessage() async throws {
        try await withFlow("group-profile") { flow in
            let t = try await Team.make(flow)
            // Carol knows Bob only as a member: his profile can reach her only through the group.
            try await t.bob.run(.apiUpdateProfile(userId: 1, profile: Profile(displayName: "bob", fullName: "Bob B")))
            try await t.bob.run(.apiSendMessages(sendRef: .group(t.bg), liveMessage: false, ttl: nil, composedMessages: text("new profile")))
            try await t.carol.next("bob's profile") { e -> Bool? in
                if case .groupMemberUpdated(_, _, let from, let to) = e, from.memberProfile.displayName == "bob",
                    to.memberProfile.profile.fullName == "Bob B" { true } else { nil }
            }
            try await t.carol.next("the message after it", received("new profile"))
            let sentMark = "SELECT count(*) FROM groups WHERE user_member_profile_sent_at IS NOT NULL"
            #expect(try await t.bob.c.testCount(sentMark) == 1)
            // Sent once: the mark is now after the change, so the next message goes alone.
            #expect(try await t.bob.c.testCount("SELECT count(*) FROM groups g JOIN users u ON u.user_id = g.user_id WHERE g.user_member_profile_sent_at >= u.user_member_profile_updated_at") == 1)
            try await t.bob.run(.apiSendMessages(sendRef: .group(t.bg), liveMessage: false, ttl: nil, composedMessages: text("again")))
            try await t.carol.next("second message", received("again"))
        }
    }

    /// Removal (the removed member cannot send), leaving, and deleting the group.
    @Test func removalLeavingAndDeletion() async throws {
        try await withFlow("group-removal") { flow in
            let t = try await Team.make(flow)
            guard case .userDeletedMembers = try await t.alice.run(.apiRemoveMembers(groupId: t.g, groupMemberIds: [t.bobGm], withMessages: false)) else {
                Issue.record("no removal answer")
                return
            }
            try await t.bob.next("removed") { e -> Bool? in
                if case .deletedMemberUser(_, _, let by, _) = e, by.memberProfile.displayName == "alice" { true } else { nil }
            }
            try await t.carol.next("bob removed") { e -> Bool? in
                if case .deletedMember(_, _, _, let m, _) = e, m.memberProfile.displayName == "bob" { true } else { nil }
            }
            #expect(errorType(await t.bob.c.send(#"/_send #\#(t.bg) json [{"msgContent":{"type":"text","text":"still here?"}}]"#)) == "groupMemberUserRemoved")

            guard case .leftMemberUser = try await t.carol.run(.apiLeaveGroup(groupId: t.cg)) else {
                Issue.record("no leave answer")
                return
            }
            try await t.alice.next("carol left") { e -> Bool? in
                if case .leftMember(_, _, let m) = e, m.memberProfile.displayName == "carol" { true } else { nil }
            }
            guard case .groupDeletedUser = try await t.alice.run(.apiDeleteChat(chatRef: .group(t.g), chatDeleteMode: .full(notify: true))) else {
                Issue.record("no deletion answer")
                return
            }
            #expect(errorType(await t.alice.c.send("/_members #\(t.g)")) == "groupNotFound")
        }
    }

    /// Group links: plans (own, ok, known), joining with x.grp.link.inv, an incognito joiner
    /// whose real profile never reaches the group, link role and deletion.
    @Test func groupLinksAndPlans() async throws {
        let dir = NSTemporaryDirectory() + "group-link-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (relay, server) = try await startRelay(dir)
        let alice = try await Client("alice", dir: dir, server: server)
        let dave = try await Client("dave", dir: dir, server: server)
        let erin = try await Client("erin", dir: dir, server: server)
        let g = try #require(groupId(try await alice.cmd(#"/_group 1 {"displayName":"club","fullName":""}"#)))
        #expect(errorType(await alice.c.send("/_create link #\(g) admin")) == "groupMemberInitialRole")
        let created = try await alice.cmd("/_create link #\(g) member")
        #expect(created["type"] as? String == "groupLinkCreated")
        let link = try #require(((created["groupLink"] as? [String: Any])?["connLinkContact"] as? [String: Any])?["connFullLink"] as? String)
        #expect(link.contains("data="), "a group link carries its groupLinkId")
        #expect(errorType(await alice.c.send("/_create link #\(g)")) == "duplicateGroupLink")

        func plan(_ c: Client) async throws -> String? {
            let p = try await c.cmd("/_connect plan 1 \(link)")
            let cp = p["connectionPlan"] as? [String: Any]
            #expect(cp?["type"] as? String == "groupLink")
            return (cp?["groupLinkPlan"] as? [String: Any])?["type"] as? String
        }
        #expect(try await plan(alice) == "ownLink")
        #expect(try await plan(dave) == "ok")

        let sent = try await dave.cmd("/_connect 1 \(link)")
        #expect(sent["type"] as? String == "sentInvitation")
        #expect(try await plan(dave) == "connectingConfirmReconnect")
        let accepting = try await alice.event("acceptingGroupJoinRequestMember")
        #expect(memberName(accepting) == "dave")
        try await dave.event("groupLinkConnecting")
        try await alice.event("joinedGroupMember") { memberName($0) == "dave" }
        let daveJoined = try await dave.event("userJoinedGroup")
        let dg = try #require(groupId(daveJoined))
        #expect(try await plan(dave) == "known")

        try await dave.cmd(#"/_send #\#(dg) json [{"msgContent":{"type":"text","text":"hi club"}}]"#)
        let atAlice = try await alice.event("newChatItems") { itemText($0) == "hi club" }
        #expect(senderName(atAlice) == "dave")

        // Erin joins incognito: the group sees a random name, never "erin".
        let erinSent = try await erin.cmd("/_connect 1 incognito=on \(link)")
        let incognitoName = try #require((erinSent["customUserProfile"] as? [String: Any])?["displayName"] as? String)
        let erinAtAlice = try await alice.event("joinedGroupMember") { memberName($0) != "dave" }
        #expect(memberName(erinAtAlice) == incognitoName)
        let erinJoined = try await erin.event("userJoinedGroup")
        let membership = (erinJoined["groupInfo"] as? [String: Any])?["membership"] as? [String: Any]
        #expect((membership?["memberProfile"] as? [String: Any])?["displayName"] as? String == incognitoName)
        try await dave.event("connectedToGroupMember", timeout: 20) { memberName($0) == incognitoName }
        let members = try await alice.cmd("/_members #\(g)")
        #expect(!String(describing: members).contains("erin"), "the real profile must never reach the group")

        // Seed 001 §3: a prepared group from the link's data, joined with /_connect group.
        let frank = try await Client("frank", dir: dir, server: server)
        let prepared = try await frank.cmd(#"/_prepare group 1 \#(link) {"groupProfile":{"displayName":"club","fullName":"","description":"hello from club"}}"#)
        #expect(prepared["type"] as? String == "newPreparedChat")
        let preparedInfo = try #require(((prepared["chat"] as? [String: Any])?["chatInfo"] as? [String: Any])?["groupInfo"] as? [String: Any])
        #expect(preparedInfo["preparedGroup"] != nil)
        let fg = try #require((preparedInfo["groupId"] as? NSNumber)?.int64Value)
        #expect(await frank.c.send("/_connect group #\(fg) text hi").contains("connReqMessageProhibited"))
        let started = try await frank.cmd("/_connect group #\(fg)")
        #expect(started["type"] as? String == "startedConnectionToGroup")
        let frankJoined = try await frank.event("userJoinedGroup")
        #expect(groupId(frankJoined) == fg, "the prepared group itself is joined")
        #expect((frankJoined["groupInfo"] as? [String: Any])?["preparedGroup"] == nil)
        try await alice.event("joinedGroupMember") { memberName($0) == "frank" }
        try await frank.cmd(#"/_send #\#(fg) json [{"msgContent":{"type":"text","text":"frank here"}}]"#)
        try await alice.event("newChatItems") { itemText($0) == "frank here" }
        await frank.c.close()

        let role = try await alice.cmd("/_set link role #\(g) observer")
        #expect((role["groupLink"] as? [String: Any])?["acceptMemberRole"] as? String == "observer")
        #expect(try await alice.cmd("/_get link #\(g)")["type"] as? String == "groupLink")
        #expect(try await alice.cmd("/_delete link #\(g)")["type"] as? String == "groupLinkDeleted")
        #expect(errorType(await alice.c.send("/_get link #\(g)")) == "groupLinkNotFound")

        // A user with groups, members and their profiles can be deleted.
        #expect(try await erin.cmd("/_delete user 1 del_smp=on")["type"] as? String == "cmdOk")

        await relay.shutdown()
        await alice.c.close()
        await dave.c.close()
        await erin.c.close()
    }
}
