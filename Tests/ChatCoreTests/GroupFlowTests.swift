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

@Suite(.serialized) struct GroupFlowTests {
    /// Alice's group with Bob and Carol: invitation, joining, introductions (Bob and Carol
    /// connect to each other), messages with quotes, edits, reactions, deletions, roles,
    /// blocking, moderation, removal, leaving and deletion, with the errors of each step.
    @Test func invitationsIntroductionsAndGroupMessages() async throws {
        let dir = NSTemporaryDirectory() + "group-flow-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (relay, server) = try await startRelay(dir)
        let (alice, bob, bobId, _) = try await connectedPair(dir, server)
        let carol = try await Client("carol", dir: dir, server: server)
        let inv = try await alice.cmd("/_connect 1")
        try await carol.cmd("/connect " + (try #require((inv["connLinkInvitation"] as? [String: Any])?["connFullLink"] as? String)))
        let carolId = try #require(contactId(try await alice.event("contactConnected") { displayName($0) == "carol" }))
        try await carol.event("contactConnected")

        let created = try await alice.cmd(#"/_group 1 {"displayName":"team","fullName":"","description":"welcome to the team"}"#)
        #expect(created["type"] as? String == "groupCreated")
        let g = try #require(groupId(created))
        let membership = try #require((created["groupInfo"] as? [String: Any])?["membership"] as? [String: Any])
        #expect(membership["memberRole"] as? String == "owner" && membership["memberStatus"] as? String == "creator")

        // Invite Bob; he joins.
        let sent = try await alice.cmd("/_add #\(g) \(bobId) member")
        #expect(sent["type"] as? String == "sentGroupInvitation")
        let invited = try await bob.event("receivedGroupInvitation")
        #expect(invited["memberRole"] as? String == "member" && invited["fromMemberRole"] as? String == "owner")
        let bg = try #require(groupId(invited))
        try await bob.event("newChatItems") { (firstItem($0)?["content"] as? [String: Any])?["type"] as? String == "rcvGroupInvitation" }
        let accepted = try await bob.cmd("/_join #\(bg)")
        #expect(accepted["type"] as? String == "userAcceptedGroupSent")
        #expect(errorType(await bob.c.send("/_join #\(bg)")) == "groupAlreadyJoined")
        let joined = try await alice.event("joinedGroupMember")
        #expect(memberName(joined) == "bob")
        let bobGm = try #require(gmId(joined))
        let bobJoined = try await bob.event("userJoinedGroup")
        #expect(memberName(bobJoined, "hostMember") == "alice")
        try await bob.event("newChatItems") { allTexts($0).contains("welcome to the team") }

        // Bob is a member: he cannot invite.
        #expect(errorType(await bob.c.send("/_add #\(bg) 1 member")) == "groupUserRole")

        // Carol joins; Alice introduces Bob and Carol, who connect directly.
        try await alice.cmd("/_add #\(g) \(carolId) member")
        let carolInv = try await carol.event("receivedGroupInvitation")
        let cg = try #require(groupId(carolInv))
        try await carol.cmd("/_join #\(cg)")
        let carolJoined = try await alice.event("joinedGroupMember") { memberName($0) == "carol" }
        let carolGm = try #require(gmId(carolJoined))
        let announced = try await bob.event("joinedGroupMemberConnecting")
        #expect(memberName(announced) == "carol" && memberName(announced, "hostMember") == "alice")
        // Sent before Bob and Carol are connected: kept for Carol and delivered on connection.
        try await bob.cmd(#"/_send #\#(bg) json [{"msgContent":{"type":"text","text":"sent while you were connecting"}}]"#)
        let bobSeesCarol = try await bob.event("connectedToGroupMember", timeout: 20) { memberName($0) == "carol" }
        let carolSeesBob = try await carol.event("connectedToGroupMember", timeout: 20) { memberName($0) == "bob" }
        let carolAtBob = try #require(gmId(bobSeesCarol)), bobAtCarol = try #require(gmId(carolSeesBob))
        let early = try await carol.event("newChatItems") { itemText($0) == "sent while you were connecting" }
        #expect(senderName(early) == "bob")

        let members = try await alice.cmd("/_members #\(g)")
        let list = try #require((members["group"] as? [String: Any])?["members"] as? [[String: Any]])
        #expect(Set(list.compactMap { $0["memberStatus"] as? String }) == ["connected"] && list.count == 2)

        // Messages reach every member; Carol's reaches Bob over their own connection.
        let hello = try await alice.cmd(#"/_send #\#(g) json [{"msgContent":{"type":"text","text":"hello team"}}]"#)
        #expect(((firstItem(hello)?["chatDir"] as? [String: Any])?["type"] as? String) == "groupSnd")
        let helloId = try #require(itemId(hello))
        let atBob = try await bob.event("newChatItems") { itemText($0) == "hello team" }
        #expect(senderName(atBob) == "alice")
        try await carol.event("newChatItems") { itemText($0) == "hello team" }
        try await alice.event("chatItemsStatusesUpdated", timeout: 20) {
            ((firstItem($0)?["meta"] as? [String: Any])?["itemStatus"] as? [String: Any])?["sndProgress"] as? String == "complete"
                && itemStatus($0) == "sndRcvd"
        }
        let fromCarol = try await carol.cmd(#"/_send #\#(cg) json [{"msgContent":{"type":"text","text":"hi all"}}]"#)
        let hiAtBob = try await bob.event("newChatItems") { itemText($0) == "hi all" }
        #expect(senderName(hiAtBob) == "carol")
        let hiAtAlice = try await alice.event("newChatItems") { itemText($0) == "hi all" }
        let hiAtBobId = try #require(itemId(hiAtBob)), hiAtAliceId = try #require(itemId(hiAtAlice))

        // Bob replies to Carol; Carol sees the quote of her own message.
        try await bob.cmd(#"/_send #\#(bg) json [{"quotedItemId":\#(hiAtBobId),"msgContent":{"type":"text","text":"welcome carol"}}]"#)
        let reply = try await carol.event("newChatItems") { itemText($0) == "welcome carol" }
        let quoted = try #require(firstItem(reply)?["quotedItem"] as? [String: Any])
        #expect((quoted["chatDir"] as? [String: Any])?["type"] as? String == "groupSnd")
        #expect(((quoted["itemId"] as? NSNumber)?.int64Value) == itemId(fromCarol))

        // Edit, react, delete for everyone.
        let history = try await carol.cmd("/_get chat #\(cg) count=20")
        let texts = ((history["chat"] as? [String: Any])?["chatItems"] as? [[String: Any]])?.compactMap { ($0["meta"] as? [String: Any])?["itemText"] as? String } ?? []
        #expect(texts.contains("hello team") && texts.contains("hi all") && texts.contains("welcome carol"))
        try await alice.cmd(#"/_update item #\#(g) \#(helloId) json {"msgContent":{"type":"text","text":"hello team!"}}"#)
        try await bob.event("chatItemUpdated")
        let same = try await alice.cmd(#"/_update item #\#(g) \#(helloId) json {"msgContent":{"type":"text","text":"hello team!"}}"#)
        #expect(same["type"] as? String == "chatItemNotChanged")
        let bobHello = try #require(itemId(atBob))
        try await bob.cmd(#"/_reaction #\#(bg) \#(bobHello) on {"type":"emoji","emoji":"👍"}"#)
        let reacted = try await alice.event("chatItemReaction")
        #expect(reacted["added"] as? Bool == true)
        try await carol.event("chatItemReaction")
        try await alice.cmd("/_delete item #\(g) \(helloId) broadcast")
        try await bob.event("chatItemsDeleted")

        // Forwarding from the group to a direct chat and back into the group.
        let plan = try await bob.cmd("/_forward plan #\(bg) \(hiAtBobId)")
        #expect((plan["chatItemIds"] as? [NSNumber])?.map(\.int64Value) == [hiAtBobId])
        try await bob.cmd("/_forward #\(bg) #\(bg) \(hiAtBobId)")
        let fwd = try await alice.event("newChatItems") { itemText($0) == "hi all" && senderName($0) == "bob" }
        #expect((firstItem(fwd)?["meta"] as? [String: Any])?["itemForwarded"] != nil)

        // Roles: Carol becomes admin; Bob learns it.
        let role = try await alice.cmd("/_member role #\(g) \(carolGm) admin")
        #expect(role["type"] as? String == "membersRoleUser" && role["toRole"] as? String == "admin")
        let roleAtBob = try await bob.event("memberRole")
        #expect(roleAtBob["toRole"] as? String == "admin" && memberName(roleAtBob) == "carol")
        try await carol.event("memberRole") { memberName($0) == "carol" }

        // Moderation: Alice deletes Carol's message for everyone.
        try await alice.cmd("/_delete member item #\(g) \(hiAtAliceId)")
        let moderated = try await bob.event("chatItemsDeleted")
        let toItem = try #require(((moderated["chatItemDeletions"] as? [[String: Any]])?.first?["toChatItem"] as? [String: Any])?["chatItem"] as? [String: Any])
        #expect(((toItem["meta"] as? [String: Any])?["itemDeleted"] as? [String: Any])?["type"] as? String == "moderated")

        // Blocking: locally by Carol, then for all by Alice.
        let local = try await carol.cmd(#"/_member settings #\#(cg) \#(bobAtCarol) {"showMessages":false}"#)
        #expect(local["type"] as? String == "cmdOk")
        try await bob.cmd(#"/_send #\#(bg) json [{"msgContent":{"type":"text","text":"can you see me"}}]"#)
        let hidden = try await carol.event("newChatItems") { itemText($0) == "can you see me" }
        #expect(((firstItem(hidden)?["meta"] as? [String: Any])?["itemDeleted"] as? [String: Any])?["type"] as? String == "blocked")
        try await alice.event("newChatItems") { itemText($0) == "can you see me" }
        let blocked = try await alice.cmd("/_block #\(g) \(bobGm) blocked=on")
        #expect(blocked["type"] as? String == "membersBlockedForAllUser" && blocked["blocked"] as? Bool == true)
        let blockedAtCarol = try await carol.event("memberBlockedForAll")
        #expect(memberName(blockedAtCarol) == "bob")

        // Removal: Bob is removed, Carol hears of it; Bob cannot send any more.
        let removed = try await alice.cmd("/_remove #\(g) \(bobGm)")
        #expect(removed["type"] as? String == "userDeletedMembers")
        let removedAtBob = try await bob.event("deletedMemberUser")
        #expect(memberName(removedAtBob) == "alice")
        let removedAtCarol = try await carol.event("deletedMember")
        #expect(memberName(removedAtCarol, "deletedMember") == "bob")
        #expect(errorType(await bob.c.send(#"/_send #\#(bg) json [{"msgContent":{"type":"text","text":"still here?"}}]"#)) == "groupMemberUserRemoved")
        _ = carolAtBob

        // Carol leaves; Alice deletes the group.
        let left = try await carol.cmd("/_leave #\(cg)")
        #expect(left["type"] as? String == "leftMemberUser")
        let leftAtAlice = try await alice.event("leftMember")
        #expect(memberName(leftAtAlice) == "carol")
        let deleted = try await alice.cmd("/_delete #\(g)")
        #expect(deleted["type"] as? String == "groupDeletedUser")
        #expect(errorType(await alice.c.send("/_members #\(g)")) == "groupNotFound")

        await relay.shutdown()
        await alice.c.close()
        await bob.c.close()
        await carol.c.close()
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
