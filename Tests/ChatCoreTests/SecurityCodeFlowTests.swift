import Foundation
import SimplexFoundation
import Testing

@testable import ChatCore

/// Connection security codes (simplex-chat `/_get code`, `/_verify code`, `verificationCode`):
/// both sides of a connection compute the same code, verifying with it succeeds and with another
/// fails, and a ratchet re-synchronization resets the verification.
@Suite(.serialized) struct SecurityCodeFlowTests {
    /// simplex-chat `verificationCode`: `os2ip` of the bytes in decimal, groups of five digits
    /// (expected values from Python's big integers).
    @Test func verificationCodeFormat() {
        #expect(ChatController.verificationCode([UInt8](repeating: 0xff, count: 32))
            == "11579 20892 37316 19542 35709 85008 68790 78532 69984 66564 05640 39457 58400 79131 29639 935")
        #expect(ChatController.verificationCode([0, 0, 1, 2, 3]) == "66051")
        #expect(ChatController.verificationCode([0, 0]) == "0")
        #expect(ChatController.verificationCode(CryptoHash.sha256(Array("abc".utf8)))
            == "84342 36848 70908 00366 52383 49281 42263 66010 48836 95016 51437 74629 85829 71681 70899 65")
        #expect(ChatController.sameVerificationCode("12345 678", "12345678"))
        #expect(!ChatController.sameVerificationCode("12345 678", "12345 679"))
    }

    /// The command forms of simplex-chat's parser.
    @Test func commandSyntax() throws {
        let cases: [(String, ChatCommand)] = [
            ("/_get code @5", .apiGetContactCode(contactId: 5)),
            ("/_get code #3 7", .apiGetGroupMemberCode(groupId: 3, groupMemberId: 7)),
            ("/_verify code @5", .apiVerifyContact(contactId: 5, connectionCode: nil)),
            ("/_verify code @5 12345 67890", .apiVerifyContact(contactId: 5, connectionCode: "12345 67890")),
            ("/_verify code #3 7", .apiVerifyGroupMember(groupId: 3, groupMemberId: 7, connectionCode: nil)),
            ("/_verify code #3 7 1234567890", .apiVerifyGroupMember(groupId: 3, groupMemberId: 7, connectionCode: "1234567890")),
        ]
        for (text, cmd) in cases {
            #expect(try ChatCommand(parsing: text) == cmd)
            #expect(cmd.commandString == text)
        }
        #expect(throws: ChatError.self) { try ChatCommand(parsing: "/_verify code @5 abc") }
        #expect(throws: ChatError.self) { try ChatCommand(parsing: "/_get code #3") }
    }

    private func code(_ r: ChatResponse) -> (String, SecurityCode?)? {
        switch r {
        case .contactCode(_, let c, let code): (code, c.activeConn?.connectionCode)
        case .groupMemberCode(_, _, let m, let code): (code, m.activeConn?.connectionCode)
        default: nil
        }
    }

    private func verified(_ r: ChatResponse) -> (Bool, String)? {
        if case .connectionVerified(_, let v, let code) = r { (v, code) } else { nil }
    }

    @Test func contactCodesAndResetAfterSync() async throws {
        try await withFlow("chat-codes") { flow in
            let (alice, bob, bobId, aliceId) = try await flow.pair()
            let (aCode, aStored) = try #require(code(try await alice.run(.apiGetContactCode(contactId: bobId))))
            let (bCode, _) = try #require(code(try await bob.run(.apiGetContactCode(contactId: aliceId))))
            #expect(aCode == bCode, "both sides compute the same code")
            #expect(aStored == nil)
            #expect(aCode.split(separator: " ").allSatisfy { $0.count <= 5 && $0.allSatisfy(\.isNumber) })

            // A wrong code is refused and nothing is stored; the right one (spacing aside) is stored.
            let wrong = String(aCode.reversed()) == aCode ? aCode + "1" : String(aCode.reversed())
            let (ok1, expected1) = try #require(verified(try await alice.run(.apiVerifyContact(contactId: bobId, connectionCode: wrong))))
            #expect(!ok1 && expected1 == aCode)
            #expect(try #require(code(try await alice.run(.apiGetContactCode(contactId: bobId)))).1 == nil)
            let (ok2, _) = try #require(verified(try await alice.run(.apiVerifyContact(contactId: bobId,
                                                                                          connectionCode: aCode.filter { $0 != " " }))))
            #expect(ok2)
            let stored = try #require(code(try await alice.run(.apiGetContactCode(contactId: bobId)))).1
            #expect(stored?.securityCode == aCode)
            // The API's contact carries it too.
            let json = await alice.c.send("/_get chat @\(bobId) count=1")
            #expect(json.contains(#""securityCode":"\#(aCode)""#))
            // A wrong code afterwards does not remove the verification.
            _ = try await alice.run(.apiVerifyContact(contactId: bobId, connectionCode: wrong))
            #expect(try #require(code(try await alice.run(.apiGetContactCode(contactId: bobId)))).1?.securityCode == aCode)

            // Bob re-synchronizes the ratchet: Alice's verification is reset, with an event and an item.
            try await bob.cmd("/_sync @\(aliceId) force=on")
            let reset = try await alice.next("verification reset") { e -> Contact? in
                if case .contactVerificationReset(_, let c) = e { c } else { nil }
            }
            #expect(reset.contactId == bobId && reset.activeConn?.connectionCode == nil)
            try await alice.event("newChatItems") { e in
                ((firstItem(e)?["content"] as? [String: Any])?["rcvConnEvent"] as? [String: Any])?["type"] as? String == "verificationCodeReset"
                    && itemText(e) == "security code changed"
            }
            try await alice.event("contactRatchetSync") { ($0["ratchetSyncProgress"] as? [String: Any])?["ratchetSyncStatus"] as? String == "ok" }
            try await bob.event("contactRatchetSync") { ($0["ratchetSyncProgress"] as? [String: Any])?["ratchetSyncStatus"] as? String == "ok" }
            let (newA, storedA) = try #require(code(try await alice.run(.apiGetContactCode(contactId: bobId))))
            let (newB, _) = try #require(code(try await bob.run(.apiGetContactCode(contactId: aliceId))))
            #expect(newA == newB && newA != aCode, "a new ratchet has a new code")
            #expect(storedA == nil)
            let (oldOk, _) = try #require(verified(try await alice.run(.apiVerifyContact(contactId: bobId, connectionCode: aCode))))
            #expect(!oldOk, "the old code no longer verifies")

            // Verified again, then cleared by a verify without a code.
            #expect(try #require(verified(try await bob.run(.apiVerifyContact(contactId: aliceId, connectionCode: newB)))).0)
            #expect(try #require(code(try await bob.run(.apiGetContactCode(contactId: aliceId)))).1?.securityCode == newB)
            #expect(try #require(verified(try await bob.run(.apiVerifyContact(contactId: aliceId, connectionCode: nil)))).0 == false)
            #expect(try #require(code(try await bob.run(.apiGetContactCode(contactId: aliceId)))).1 == nil)

            // Unknown contacts are the reference's store error.
            let err = try await alice.runError(.apiGetContactCode(contactId: 999))
            #expect(err == .errorStore(storeError: .contactNotFound(contactId: 999)))
        }
    }

    @Test func memberCodes() async throws {
        try await withFlow("chat-member-codes") { flow in
            let (alice, bob, bobId, _) = try await flow.pair()
            guard case .groupCreated(_, let info) = try await alice.run(.apiNewGroup(userId: 1, incognito: false, groupProfile: GroupProfile(displayName: "team"))) else {
                Issue.record("no group")
                throw CancellationError()
            }
            let g = info.groupId
            try await alice.run(.apiAddMember(groupId: g, contactId: bobId, memberRole: .member))
            let bg = try await bob.next("invitation") { e -> Int64? in
                if case .receivedGroupInvitation(_, let gi, _, _, _) = e { gi.groupId } else { nil }
            }
            try await bob.run(.apiJoinGroup(groupId: bg))
            let bobGm = try await alice.next("bob joined") { e -> Int64? in
                if case .joinedGroupMember(_, _, let m) = e { m.groupMemberId } else { nil }
            }
            let aliceGm = try await bob.next("joined") { e -> Int64? in
                if case .userJoinedGroup(_, _, let host) = e { host.groupMemberId } else { nil }
            }
            let (aCode, _) = try #require(code(try await alice.run(.apiGetGroupMemberCode(groupId: g, groupMemberId: bobGm))))
            let (bCode, _) = try #require(code(try await bob.run(.apiGetGroupMemberCode(groupId: bg, groupMemberId: aliceGm))))
            #expect(aCode == bCode)
            // The member connection is not the contact connection: its code differs.
            let (contactCode, _) = try #require(code(try await alice.run(.apiGetContactCode(contactId: bobId))))
            #expect(contactCode != aCode)
            #expect(try #require(verified(try await alice.run(.apiVerifyGroupMember(groupId: g, groupMemberId: bobGm, connectionCode: contactCode)))).0 == false)
            #expect(try #require(verified(try await alice.run(.apiVerifyGroupMember(groupId: g, groupMemberId: bobGm, connectionCode: aCode)))).0)
            #expect(try #require(code(try await alice.run(.apiGetGroupMemberCode(groupId: g, groupMemberId: bobGm)))).1?.securityCode == aCode)
            // A member of another group is not found there.
            let err = try await alice.runError(.apiGetGroupMemberCode(groupId: g + 100, groupMemberId: bobGm))
            if case .errorStore = err {} else if case .error(.groupMemberNotActive) = err {} else { Issue.record("unexpected \(err)") }
        }
    }
}
