import Foundation
import SMPAgent
import Testing

@testable import ChatCore

private func gId(_ e: [String: Any]) -> Int64? {
    ((e["groupInfo"] as? [String: Any])?["groupId"] as? NSNumber)?.int64Value
}

private func mName(_ e: [String: Any], _ key: String = "member") -> String? {
    ((e[key] as? [String: Any])?["memberProfile"] as? [String: Any])?["displayName"] as? String
}

private func mGmId(_ e: [String: Any], _ key: String = "member") -> Int64? {
    ((e[key] as? [String: Any])?["groupMemberId"] as? NSNumber)?.int64Value
}

/// A chat's items as (content type, content, text, member name), oldest first.
private func items(_ c: Client, _ ref: String) async throws -> [(type: String, content: [String: Any], text: String, member: String?)] {
    let r = try await c.cmd("/_get chat \(ref) count=100")
    let list = try #require((r["chat"] as? [String: Any])?["chatItems"] as? [[String: Any]])
    return list.map { i in
        let content = i["content"] as? [String: Any] ?? [:]
        let dir = (i["chatDir"] as? [String: Any])?["groupMember"] as? [String: Any]
        return (content["type"] as? String ?? "", content, (i["meta"] as? [String: Any])?["itemText"] as? String ?? "",
                (dir?["memberProfile"] as? [String: Any])?["displayName"] as? String)
    }
}

private func groupEventType(_ content: [String: Any]) -> String? {
    ((content["rcvGroupEvent"] ?? content["sndGroupEvent"]) as? [String: Any])?["type"] as? String
}

/// The loose ends of issue 13 around member admission and new chats, each as simplex-chat does it,
/// between real cores over a real relay.
@Suite(.serialized) struct AdmissionItemsFlowTests {
    static let v16 = VersionRange(min: 1, max: 16)!

    /// simplex-chat `xGrpLinkAcpt` `processUserAccepted` and the host CON (`mkGroupChatScope`): a member
    /// held for review gets the e2e notice and the group's feature items in its own support chat when
    /// connected, and when admitted a second set in the main chat, then `userAccepted` in the main
    /// chat and in its support chat, then `userJoinedGroup`.
    @Test func admittedMemberGetsTheMainChatItems() async throws {
        let dir = NSTemporaryDirectory() + "admission-items-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (relay, server) = try await startRelay(dir)
        let alice = try await Client("alice", dir: dir, server: server) { $0.chatVRange = Self.v16 }
        let bob = try await Client("bob", dir: dir, server: server) { $0.chatVRange = Self.v16 }
        let g = try #require(gId(try await alice.cmd(#"/_group 1 {"displayName":"club","fullName":"","memberAdmission":{"review":"all"}}"#)))
        let created = try await alice.cmd("/_create link #\(g) member")
        let link = try #require(((created["groupLink"] as? [String: Any])?["connLinkContact"] as? [String: Any])?["connFullLink"] as? String)
        try await bob.cmd("/_connect 1 \(link)")
        let accepting = try await alice.event("acceptingGroupJoinRequestMember")
        let bobGm = try #require(mGmId(accepting))
        let bg = try #require(gId(try await bob.event("userJoinedGroup")))
        try await Task.sleep(nanoseconds: 300_000_000)

        // Pending: the host's e2e notice and features are in bob's support chat, not the main chat.
        let support = try await items(bob, "#\(bg)(_support)")
        let featureCount = support.filter { $0.type == "rcvGroupFeature" }.count
        #expect(featureCount > 0)
        #expect(support.map(\.type) == ["rcvGroupE2EEInfo"] + Array(repeating: "rcvGroupFeature", count: featureCount) + ["rcvGroupEvent"],
                "\(support.map(\.type))")
        #expect(try await items(bob, "#\(bg)").map(\.type) == ["chatBanner"])

        // The users list counts support chat items too: simplex-chat `getUsersInfo` counts every `rcv_new`
        // item of the user's groups, with no scope condition (a pin: the chat list counts the main chat only).
        func rcvNew(_ ref: String) async throws -> Int {
            let r = try await alice.cmd("/_get chat \(ref) count=100")
            return ((r["chat"] as? [String: Any])?["chatItems"] as? [[String: Any]] ?? []).filter {
                (($0["meta"] as? [String: Any])?["itemStatus"] as? [String: Any])?["type"] as? String == "rcvNew"
            }.count
        }
        let supportUnread = try await rcvNew("#\(g)(_support:\(bobGm))")
        #expect(supportUnread > 0)
        let users = try #require(try await alice.cmd("/users")["users"] as? [[String: Any]])
        #expect((users.first?["unreadCount"] as? NSNumber)?.intValue == supportUnread + (try await rcvNew("#\(g)")), "\(users)")

        try await alice.cmd("/_accept member #\(g) \(bobGm) member")
        // The main chat's notice comes as its own `newChatItems` (the pending one, in the support chat, came at CON).
        try await bob.event("newChatItems") { e in
            guard let first = (e["chatItems"] as? [[String: Any]])?.first else { return false }
            let type = ((first["chatItem"] as? [String: Any])?["content"] as? [String: Any])?["type"] as? String
            return type == "rcvGroupE2EEInfo" && (first["chatInfo"] as? [String: Any])?["groupChatScope"] == nil
        }
        try await bob.event("userJoinedGroup")
        let main = try await items(bob, "#\(bg)")
        #expect(main.map(\.type) == ["chatBanner", "rcvGroupE2EEInfo"] + Array(repeating: "rcvGroupFeature", count: featureCount) + ["rcvGroupEvent"],
                "\(main.map(\.type))")
        #expect(main.last.map { groupEventType($0.content) } == "userAccepted")
        #expect(main.last?.member == "alice")
        #expect(main[1].text == ChatController.e2eInfoNoPQText)
        let supportAfter = try await items(bob, "#\(bg)(_support)")
        #expect(supportAfter.last.map { groupEventType($0.content) } == "userAccepted", "\(supportAfter.map(\.type))")
        #expect(supportAfter.filter { $0.type == "rcvGroupE2EEInfo" }.count == 1)

        await relay.shutdown()
        await alice.c.close()
        await bob.c.close()
    }

    /// simplex-chat `xGrpLinkAcpt` for another member: when a moderator (Carol) admits a member the host
    /// holds (Bob), the host records it (connected, its connection being ready), makes "connected" in
    /// the main chat and Carol's `memberAccepted` ("accepted bob") in Bob's support chat, emits
    /// `memberAcceptedByOther`, and introduces Bob to the remaining members.
    @Test func anotherModeratorAdmitsAMember() async throws {
        let dir = NSTemporaryDirectory() + "admission-by-other-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (relay, server) = try await startRelay(dir)
        let alice = try await Client("alice", dir: dir, server: server) { $0.chatVRange = Self.v16 }
        let carol = try await Client("carol", dir: dir, server: server) { $0.chatVRange = Self.v16 }
        let bob = try await Client("bob", dir: dir, server: server) { $0.chatVRange = Self.v16 }
        let g = try #require(gId(try await alice.cmd(#"/_group 1 {"displayName":"club","fullName":""}"#)))
        let created = try await alice.cmd("/_create link #\(g) member")
        let link = try #require(((created["groupLink"] as? [String: Any])?["connLinkContact"] as? [String: Any])?["connFullLink"] as? String)
        try await carol.cmd("/_connect 1 \(link)")
        let carolJoined = try await alice.event("joinedGroupMember") { mName($0) == "carol" }
        let carolGm = try #require(mGmId(carolJoined))
        let cg = try #require(gId(try await carol.event("userJoinedGroup")))
        try await alice.cmd("/_member role #\(g) \(carolGm) moderator")
        try await carol.event("memberRole", timeout: 20)
        try await alice.cmd(#"/_group_profile #\#(g) {"displayName":"club","fullName":"","memberAdmission":{"review":"all"}}"#)
        try await Task.sleep(nanoseconds: 1_000_000_000)

        try await bob.cmd("/_connect 1 \(link)")
        let bobJoining = try await alice.event("joinedGroupMember") { mName($0) == "bob" }
        let bobGm = try #require(mGmId(bobJoining))
        try await bob.event("userJoinedGroup")
        let announced = try await carol.event("joinedGroupMemberConnecting", timeout: 20) { mName($0) == "bob" }
        let bobAtCarol = try #require(mGmId(announced))
        try await carol.event("connectedToGroupMember", timeout: 20) { mName($0) == "bob" }
        try await Task.sleep(nanoseconds: 500_000_000)
        let mainBefore = try await items(alice, "#\(g)")

        try await carol.cmd("/_accept member #\(cg) \(bobAtCarol) member")
        let byOther = try await alice.event("memberAcceptedByOther", timeout: 20)
        #expect(mName(byOther, "acceptingMember") == "carol")
        #expect(mName(byOther) == "bob")
        #expect((byOther["member"] as? [String: Any])?["memberStatus"] as? String == "connected")
        try await bob.event("userJoinedGroup") { (($0["groupInfo"] as? [String: Any])?["membership"] as? [String: Any])?["memberStatus"] as? String == "connected" }
        try await Task.sleep(nanoseconds: 500_000_000)

        let mainAfter = try await items(alice, "#\(g)")
        let added = Array(mainAfter.dropFirst(mainBefore.count))
        #expect(added.contains { groupEventType($0.content) == "memberConnected" && $0.member == "bob" }, "\(added.map(\.text))")
        let bobSupport = try await items(alice, "#\(g)(_support:\(bobGm))")
        let last = try #require(bobSupport.last)
        #expect(groupEventType(last.content) == "memberAccepted" && last.member == "carol" && last.text == "accepted bob",
                "\(bobSupport.map(\.text))")
        #expect(try await alice.cmd("/_members #\(g)").description.contains("pending_review") == false)

        await relay.shutdown()
        for c in [alice, bob, carol] { await c.c.close() }
    }

    /// simplex-chat `profileContactRequest`: the contact made for a request shows in its first e2e
    /// notice the request's post-quantum support (REQ `PQSupport`: the requester's versions allow the
    /// PQ ratchet), not our address's setting (here off); at CON the negotiated state follows.
    @Test func acceptedRequestNoticeShowsTheRequestsPQ() async throws {
        let dir = NSTemporaryDirectory() + "request-pq-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (relay, server) = try await startRelay(dir)
        let alice = try await Client("alice", dir: dir, server: server)
        let bob = try await Client("bob", dir: dir, server: server)
        let address = try await alice.cmd("/_address 1 pq_ratchet=off")
        let link = try #require((address["connLinkContact"] as? [String: Any])?["connFullLink"] as? String)
        try await bob.cmd("/_connect 1 \(link)")
        let req = try await alice.event("receivedContactRequest")
        let reqId = try #require(((req["contactRequest"] as? [String: Any])?["contactRequestId"] as? NSNumber)?.int64Value)
        let accepted = try await alice.cmd("/_accept \(reqId)")
        let ct = try #require(contactId(accepted))
        let connected = try await alice.event("contactConnected")
        try await bob.event("contactConnected")
        try await Task.sleep(nanoseconds: 300_000_000)

        let notices = try await items(alice, "@\(ct)").filter { $0.type == "rcvDirectE2EEInfo" }
        let first = try #require(notices.first)
        #expect((first.content["e2eeInfo"] as? [String: Any])?["pqEnabled"] as? Bool == true, "the request's PQ support")
        #expect(first.text == ChatController.e2eInfoPQText)
        let negotiated = ((connected["contact"] as? [String: Any])?["activeConn"] as? [String: Any])?["pqEncryption"] as? Bool
        // A second notice only when the negotiated state differs from the one shown.
        #expect(notices.count == (negotiated == true ? 1 : 2), "\(notices.map(\.text))")
        if notices.count == 2 { #expect((notices[1].content["e2eeInfo"] as? [String: Any])?["pqEnabled"] as? Bool == negotiated) }

        await alice.c.close()
        await bob.c.close()
        await relay.shutdown()
    }
}
