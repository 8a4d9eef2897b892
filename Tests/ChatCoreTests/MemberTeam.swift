import Foundation
import Testing

@testable import ChatCore

/// Alice's group with Bob, then Carol, joined and connected to each other: the clients, the group
/// ids at Bob and Carol, and each one's member id of the other (shared by the flow tests of members).
struct MemberTeam {
    let alice: Client, bob: Client, carol: Client
    let bg: Int64, cg: Int64, carolAtBob: Int64, bobAtCarol: Int64

    /// Alice, Bob and Carol, Alice's contacts both, in a new group with `profile`.
    static func make(_ flow: Flow, profile: GroupProfile) async throws -> MemberTeam {
        let (alice, bob, bobId, _) = try await flow.pair()
        let carol = try await flow.client("carol")
        let (carolId, _) = try await flow.connect(alice, carol)
        return try await make(alice: alice, bob: bob, carol: carol, bobId: bobId, carolId: carolId, profile: profile)
    }

    static func make(alice: Client, bob: Client, carol: Client, bobId: Int64, carolId: Int64,
                     profile: GroupProfile = GroupProfile(displayName: "team")) async throws -> MemberTeam {
        guard case .groupCreated(_, let info) = try await alice.run(.apiNewGroup(userId: 1, incognito: false, groupProfile: profile)) else {
            Issue.record("no group")
            throw CancellationError()
        }
        try await alice.run(.apiAddMember(groupId: info.groupId, contactId: bobId, memberRole: .member))
        let bg = try await bob.next("invitation") { e -> Int64? in
            if case .receivedGroupInvitation(_, let gi, _, _, _) = e { gi.groupId } else { nil }
        }
        try await bob.run(.apiJoinGroup(groupId: bg))
        try await bob.next("joined") { e -> Bool? in if case .userJoinedGroup = e { true } else { nil } }
        try await alice.run(.apiAddMember(groupId: info.groupId, contactId: carolId, memberRole: .member))
        let cg = try await carol.next("invitation") { e -> Int64? in
            if case .receivedGroupInvitation(_, let gi, _, _, _) = e { gi.groupId } else { nil }
        }
        try await carol.run(.apiJoinGroup(groupId: cg))
        let carolAtBob = try await bob.next("connected to carol", timeout: 20) { e -> Int64? in
            if case .connectedToGroupMember(_, _, let m, _) = e, m.memberProfile.displayName == "carol" { m.groupMemberId } else { nil }
        }
        let bobAtCarol = try await carol.next("connected to bob", timeout: 20) { e -> Int64? in
            if case .connectedToGroupMember(_, _, let m, _) = e, m.memberProfile.displayName == "bob" { m.groupMemberId } else { nil }
        }
        return MemberTeam(alice: alice, bob: bob, carol: carol, bg: bg, cg: cg, carolAtBob: carolAtBob, bobAtCarol: bobAtCarol)
    }
}
