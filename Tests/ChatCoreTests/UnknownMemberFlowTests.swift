import Foundation
import SimplexFoundation
import Testing

@testable import ChatCore

/// A forwarded message whose author the receiver was never told about (simplex-chat
/// `getCreateUnknownGMByMemberId`): three chat cores over a real relay. Bob writes, then leaves;
/// Carol joins and gets Bob's message in the group history, so Bob becomes an unknown member of
/// Carol's group instead of the message failing.
@Suite(.serialized) struct UnknownMemberFlowTests {
    private static func item(_ text: String) -> (ChatEvent) -> AChatItem? {
        { e in
            guard case .newChatItems(_, let items) = e else { return nil }
            return items.first { $0.chatItem.meta.itemText == text }
        }
    }

    private static func text(_ t: String) -> [ComposedMessage] { [ComposedMessage(msgContent: .text(t))] }

    @Test func historyFromAMemberWhoLeftCreatesAnUnknownMember() async throws {
        try await withFlow("unknown-member") { flow in
            let t = try await GroupHistoryFlowTests().groupWithBob(flow, history: true)
            try await t.bob.run(.apiSendMessages(sendRef: .group(t.bg), liveMessage: false, ttl: nil, composedMessages: Self.text("b1 before leaving")))
            try await t.alice.next("b1", Self.item("b1 before leaving"))
            guard case .leftMemberUser = try await t.bob.run(.apiLeaveGroup(groupId: t.bg)) else {
                Issue.record("bob could not leave")
                return
            }
            try await t.alice.next("bob left") { e -> Bool? in
                if case .leftMember(_, _, let m) = e, m.memberProfile.displayName == "bob" { true } else { nil }
            }

            let cg = try await GroupHistoryFlowTests().carolJoins(t)
            // simplex-chat's CEvtUnknownMemberCreated, naming the host that forwarded the message.
            let created = try await t.carol.next("unknownMemberCreated", timeout: 20) { e -> (GroupMember, GroupMember)? in
                if case .unknownMemberCreated(_, _, let by, let m) = e { (by, m) } else { nil }
            }
            #expect(created.0.memberProfile.displayName == "alice" && created.1.memberProfile.displayName == "bob")
            #expect(created.1.memberStatus == .unknown)
            let b1 = try await t.carol.next("history b1", timeout: 20, Self.item("b1 before leaving"))
            guard case .groupRcv(let author?) = b1.chatItem.chatDir else {
                Issue.record("history item is not a received group item")
                return
            }
            #expect(author.memberProfile.displayName == "bob", "named as the host named the author")
            #expect(author.memberStatus == .unknown)
            #expect(author.memberCategory == .pre)
            try await t.carol.next("welcome", Self.item("welcome to the team"))

            // Carol's member list has Bob as unknown, and the group goes on.
            guard case .groupMembers(_, let group) = try await t.carol.run(.apiListMembers(groupId: cg)) else {
                Issue.record("no members")
                return
            }
            #expect(group.members.contains { $0.memberProfile.displayName == "bob" && $0.memberStatus == .unknown })
            try await t.alice.run(.apiSendMessages(sendRef: .group(t.g), liveMessage: false, ttl: nil, composedMessages: Self.text("after")))
            let after = try await t.carol.next("after", Self.item("after"))
            if case .groupRcv(let m?) = after.chatItem.chatDir { #expect(m.memberProfile.displayName == "alice") }
        }
    }

    @Test func nameFromMemberIdIsTheIdsFirstBase64Characters() {
        let id = MemberId(bytes: Array("0123456789ab".utf8))
        // base64("0123456789ab") = "MDEyMzQ1Njc4OWFi"
        #expect(ChatController.nameFromMemberId(id) == "MDEyMzQ")
    }
}
