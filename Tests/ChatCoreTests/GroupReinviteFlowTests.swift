import Foundation
import Testing

@testable import ChatCore

/// Adding a contact whose member is still `invited` sends the same invitation again, with the new
/// role (simplex-chat `APIAddMember`), and the invitee gets it for the group it has, with another
/// chat banner (simplex-chat `processGroupInvitation`).
@Suite(.serialized) struct GroupReinviteFlowTests {
    @Test func aStillInvitedContactGetsTheInvitationAgain() async throws {
        try await withFlow("group-reinvite") { flow in
            let (alice, bob, bobId, _) = try await flow.pair()
            guard case .groupCreated(_, let info) = try await alice.run(.apiNewGroup(userId: 1, incognito: false, groupProfile: GroupProfile(displayName: "team"))) else {
                Issue.record("no group")
                return
            }
            let g = info.groupId
            guard case .sentGroupInvitation(_, _, _, let first) = try await alice.run(.apiAddMember(groupId: g, contactId: bobId, memberRole: .member)) else {
                Issue.record("no invitation sent")
                return
            }
            let bg = try await bob.next("invitation") { e -> Int64? in
                if case .receivedGroupInvitation(_, let gi, _, _, let role) = e, role == .member { gi.groupId } else { nil }
            }
            // Again, as admin: the same member, its role changed, and one more invitation item.
            guard case .sentGroupInvitation(_, _, _, let again) = try await alice.run(.apiAddMember(groupId: g, contactId: bobId, memberRole: .admin)) else {
                Issue.record("invitation not sent again")
                return
            }
            #expect(again.groupMemberId == first.groupMemberId && again.memberId == first.memberId)
            #expect(again.memberRole == .admin && again.memberStatus == .invited)
            let sentItems = try await alice.next("second invitation item") { e -> Int? in
                guard case .newChatItems(_, let items) = e,
                      case .sndGroupInvitation(_, let role)? = items.first?.chatItem.content, role == .admin else { return nil }
                return items.count
            }
            #expect(sentItems == 1)
            // Bob gets it for the group he has, now as admin.
            let (bg2, role) = try await bob.next("invitation again") { e -> (Int64, GroupMemberRole)? in
                if case .receivedGroupInvitation(_, let gi, _, _, let role) = e { (gi.groupId, role) } else { nil }
            }
            #expect(bg2 == bg && role == .admin)
            try await bob.next("invitation item") { e -> Bool? in
                if case .newChatItems(_, let items) = e, case .rcvGroupInvitation(_, .admin)? = items.first?.chatItem.content { true } else { nil }
            }
            guard case .groupsList(_, let groups) = try await bob.run(.apiListGroups(userId: 1, contactId: nil, search: nil)) else {
                Issue.record("no groups")
                return
            }
            #expect(groups.count == 1)
            #expect(groups.first?.membership.memberRole == .admin)
            // As simplex-chat's `processGroupInvitation`: a chat banner for each invitation received.
            let chat = try await bob.cmd("/_get chat #\(bg) count=100")
            let contents = ((chat["chat"] as? [String: Any])?["chatItems"] as? [[String: Any]] ?? []).compactMap {
                ($0["content"] as? [String: Any])?["type"] as? String
            }
            #expect(contents.filter { $0 == "chatBanner" }.count == 2, "\(contents)")
            // He joins with it; then adding him again is a duplicate.
            try await bob.run(.apiJoinGroup(groupId: bg))
            let joined = try await alice.next("bob joined") { e -> GroupMember? in
                if case .joinedGroupMember(_, _, let m) = e { m } else { nil }
            }
            #expect(joined.memberRole == .admin && joined.groupMemberId == first.groupMemberId)
            let e = try await alice.runError(.apiAddMember(groupId: g, contactId: bobId, memberRole: .member))
            guard case .error(.groupDuplicateMember(let name)) = e else {
                Issue.record("expected groupDuplicateMember, got \(e)")
                return
            }
            #expect(name == "bob")
        }
    }
}
