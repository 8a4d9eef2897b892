import Foundation
import Testing

@testable import ChatCore

/// Literal JSON in TYPES.md / EVENTS.md / COMMANDS.md shapes: each must decode and re-encode to
/// the same object, which checks field names, optional members and union tags both ways.
@Suite struct TypesJSONTests {
    static let fixtures: [JSONFixture] = [
        JSONFixture("Profile", Profile.self, Fx.profile),
        JSONFixture("LocalProfile", LocalProfile.self, #"{"profileId":3,"displayName":"bob","fullName":"Bob","peerType":"bot","localAlias":"b"}"#),
        JSONFixture("Preferences", Preferences.self, #"{"timedMessages":{"allow":"no","ttl":3600},"fullDelete":{"allow":"always"},"calls":{"allow":"no"},"commands":[{"type":"command","keyword":"help","label":"Help"},{"type":"menu","label":"More","commands":[{"type":"command","keyword":"stats","label":"Stats","params":"<days>"}]}]}"#),
        JSONFixture("FullPreferences", FullPreferences.self, Fx.fullPreferences),
        JSONFixture("User", User.self, Fx.user),
        JSONFixture("UserInfo", UserInfo.self, #"{"user":\#(Fx.user),"unreadCount":3}"#),
        JSONFixture("NewUser", NewUser.self, #"{"profile":{"displayName":"bot","fullName":""},"pastTimestamp":false,"clientService":false}"#),
        JSONFixture("Connection", Connection.self, Fx.connection),
        JSONFixture("Contact", Contact.self, Fx.contact),
        JSONFixture("PendingContactConnection", PendingContactConnection.self, Fx.pcc),
        JSONFixture("UserContactRequest", UserContactRequest.self, Fx.contactRequest),
        JSONFixture("CreatedConnLink", CreatedConnLink.self, #"{"connFullLink":"simplex:/contact#/?v=2-7&smp=x"}"#),
        JSONFixture("UserContactLink", UserContactLink.self, #"{"userContactLinkId":1,"connLinkContact":{"connFullLink":"simplex:/contact#/?v=2-7&smp=x","connShortLink":"https://smp.example.com/a#key"},"shortLinkDataSet":true,"shortLinkLargeDataSet":false,"addressSettings":{"businessAddress":false,"autoAccept":{"acceptIncognito":false},"autoReply":{"type":"text","text":"Welcome!"}}}"#),
        JSONFixture("AddressSettings", AddressSettings.self, #"{"businessAddress":true}"#),
        JSONFixture("GroupMember", GroupMember.self, Fx.member),
        JSONFixture("GroupInfo", GroupInfo.self, Fx.groupInfo),
        JSONFixture("ChatInfo direct", ChatInfo.self, Fx.directInfo),
        JSONFixture("ChatInfo group", ChatInfo.self, #"{"type":"group","groupInfo":\#(Fx.groupInfo),"groupChatScope":{"type":"memberSupport","groupMember_":\#(Fx.member)}}"#),
        JSONFixture("ChatInfo local", ChatInfo.self, #"{"type":"local","noteFolder":{"noteFolderId":1,"userId":1,"createdAt":"\#(Fx.ts)","updatedAt":"\#(Fx.ts)","chatTs":"\#(Fx.ts)","favorite":false,"unread":false}}"#),
        JSONFixture("ChatInfo contactRequest", ChatInfo.self, #"{"type":"contactRequest","contactRequest":\#(Fx.contactRequest)}"#),
        JSONFixture("ChatInfo contactConnection", ChatInfo.self, #"{"type":"contactConnection","contactConnection":\#(Fx.pcc)}"#),
        JSONFixture("CIMeta", CIMeta.self, #"{"itemId":1,"itemTs":"\#(Fx.ts)","itemText":"x","itemStatus":{"type":"sndRcvd","msgRcptStatus":"ok","sndProgress":"partial"},"sentViaProxy":true,"itemForwarded":{"type":"contact","chatName":"bob","msgDir":"rcv","contactId":2,"chatItemId":5},"itemDeleted":{"type":"deleted","deletedTs":"\#(Fx.ts)","chatType":"direct"},"itemEdited":true,"itemTimed":{"ttl":30,"deleteAt":"\#(Fx.ts2)"},"itemLive":false,"userMention":true,"deletable":true,"editable":true,"forwardedByMember":3,"showGroupAsSender":false,"createdAt":"\#(Fx.ts)","updatedAt":"\#(Fx.ts)"}"#),
        JSONFixture("ChatItem received", ChatItem.self, Fx.chatItem),
        JSONFixture("ChatItem sent with quote", ChatItem.self, Fx.sentItem),
        JSONFixture("ChatItem group with file", ChatItem.self, #"{"chatDir":{"type":"groupRcv","groupMember":\#(Fx.member)},"meta":\#(Fx.meta(12, "photo")),"content":{"type":"rcvMsgContent","msgContent":{"type":"image","text":"photo","image":"data:image/jpg;base64,AA"}},"mentions":{"alice":{"memberId":"bWVt","memberRef":{"groupMemberId":7,"displayName":"alice","memberRole":"admin"}}},"reactions":[],"file":{"fileId":3,"fileName":"p.jpg","fileSize":1024,"fileSource":{"filePath":"/tmp/p.jpg","cryptoArgs":{"fileKey":"a2V5","fileNonce":"bm9uY2U"}},"fileStatus":{"type":"rcvTransfer","rcvProgress":512,"rcvTotal":1024},"fileProtocol":"xftp"}}"#),
        JSONFixture("AChatItem", AChatItem.self, Fx.aChatItem),
        JSONFixture("ChatItemDeletion", ChatItemDeletion.self, #"{"deletedChatItem":\#(Fx.aChatItem),"toChatItem":\#(Fx.aSentItem)}"#),
        JSONFixture("AChat", AChat.self, #"{"chatInfo":\#(Fx.directInfo),"chatItems":[\#(Fx.chatItem)],"chatStats":{"unreadCount":1,"unreadMentions":0,"reportsCount":0,"minUnreadItemId":10,"unreadChat":false}}"#),
        JSONFixture("ACIReaction", ACIReaction.self, #"{"chatInfo":\#(Fx.directInfo),"chatReaction":{"chatDir":{"type":"directRcv"},"chatItem":\#(Fx.sentItem),"sentAt":"\#(Fx.ts2)","reaction":{"type":"emoji","emoji":"❤"}}}"#),
        JSONFixture("ComposedMessage", ComposedMessage.self, #"{"fileSource":{"filePath":"./a.txt"},"quotedItemId":10,"msgContent":{"type":"file","text":""},"mentions":{"bob":7}}"#),
        JSONFixture("UpdatedMessage", UpdatedMessage.self, #"{"msgContent":{"type":"text","text":"edited"},"mentions":{}}"#),
        JSONFixture("ConnectionPlan invitation", ConnectionPlan.self, #"{"type":"invitationLink","invitationLinkPlan":{"type":"ok","contactSLinkData_":{"profile":{"displayName":"bob","fullName":""},"message":{"type":"text","text":"hi"},"business":false}}}"#),
        JSONFixture("ConnectionPlan address", ConnectionPlan.self, #"{"type":"contactAddress","contactAddressPlan":{"type":"known","contact":\#(Fx.contact)}}"#),
        JSONFixture("ConnectionPlan group", ConnectionPlan.self, #"{"type":"groupLink","groupLinkPlan":{"type":"connectingProhibit"}}"#),
        JSONFixture("ConnectionPlan error", ConnectionPlan.self, #"{"type":"error","chatError":{"type":"error","errorType":{"type":"invalidConnReq"}}}"#),
        JSONFixture("ChatError store", ChatError.self, #"{"type":"errorStore","storeError":{"type":"duplicateGroupMessage","groupId":1,"sharedMsgId":"eA","forwardedByGroupMemberId":4}}"#),
        JSONFixture("ChatError agent", ChatError.self, #"{"type":"errorAgent","agentError":{"type":"SMP","serverAddress":"smp://a@b","smpErr":{"type":"PROXY","proxyErr":{"type":"BROKER","brokerErr":{"type":"NETWORK","networkError":{"type":"tLSError","tlsError":"bad"}}}}},"agentConnId":"Y29ubg","connectionEntity_":{"type":"rcvDirectMsgConnection","entityConnection":\#(Fx.connection),"contact":\#(Fx.contact)}}"#),
        JSONFixture("ChatError database", ChatError.self, #"{"type":"errorDatabase","databaseError":{"type":"errorOpen","sqliteError":{"type":"errorNotADatabase"}}}"#),
        JSONFixture("ChatError contactNotReady", ChatError.self, #"{"type":"error","errorType":{"type":"contactNotReady","contact":\#(Fx.contact)}}"#),
        JSONFixture("AgentErrorType CONN", AgentErrorType.self, #"{"type":"CONN","connErr":{"type":"NOT_FOUND"},"errContext":"ctx"}"#),
        JSONFixture("AgentErrorType AGENT", AgentErrorType.self, #"{"type":"AGENT","agentErr":{"type":"A_CRYPTO","cryptoErr":{"type":"RATCHET_HEADER"}}}"#),
        JSONFixture("AgentErrorType BROKER", AgentErrorType.self, #"{"type":"BROKER","brokerAddress":"smp://a@b","brokerErr":{"type":"TRANSPORT","transportErr":{"type":"handshake","handshakeErr":"IDENTITY"}}}"#),
        JSONFixture("AgentErrorType XFTP", AgentErrorType.self, #"{"type":"XFTP","serverAddress":"xftp://a@b","xftpErr":{"type":"BLOCKED","blockInfo":{"reason":"spam","notice":{"ttl":60}}}}"#),
        JSONFixture("AgentErrorType RCP", AgentErrorType.self, #"{"type":"RCP","rcpErr":{"type":"ctrlError","ctrlErr":"x"}}"#),
        JSONFixture("DBMigrationResult ok", DBMigrationResult.self, #"{"type":"ok"}"#),
        JSONFixture("DBMigrationResult errorMigration", DBMigrationResult.self, #"{"type":"errorMigration","dbFile":"chat.db","migrationError":{"type":"upgrade","upMigrations":[{"upName":"m1","withDown":true}]}}"#),
        JSONFixture("DBMigrationResult errorNotADatabase", DBMigrationResult.self, #"{"type":"errorNotADatabase","dbFile":"chat.db"}"#),
        JSONFixture("CIStatus sndError", CIStatus.self, #"{"type":"sndError","agentError":{"type":"proxyRelay","proxyServer":"p","srvError":{"type":"other","srvError":"x"}}}"#),
        JSONFixture("CIDeleted moderated", CIDeleted.self, #"{"type":"moderated","byGroupMember":\#(Fx.member)}"#),
        JSONFixture("FormattedText list", [FormattedText].self, #"[{"text":"see "},{"format":{"type":"simplexLink","showText":"me","linkType":"contact","simplexUri":"simplex:/a#k?h=h.im","smpHosts":["h.im"]},"text":"[me](https://h.im/a#k)"},{"format":{"type":"colored","color":"red"},"text":"r"},{"format":{"type":"hyperLink","linkUri":"https://x.com"},"text":"x"},{"format":{"type":"mention","memberName":"bob"},"text":"@bob"},{"format":{"type":"command","commandStr":"help"},"text":"/help"}]"#),
    ]

    @Test(arguments: fixtures)
    func literalJSONRoundTrips(_ f: JSONFixture) throws {
        let out = try f.check(f.json)
        #expect(try canonicalJSON(out) == canonicalJSON(f.json))
    }

    /// Every CIContent member of TYPES.md keeps its tag and fields.
    @Test(arguments: [
        #"{"type":"sndMsgContent","msgContent":{"type":"text","text":"a"}}"#,
        #"{"type":"rcvMsgContent","msgContent":{"type":"voice","text":"","duration":5}}"#,
        #"{"type":"sndDeleted","deleteMode":"broadcast"}"#,
        #"{"type":"rcvDeleted","deleteMode":"internalMark"}"#,
        #"{"type":"sndCall","status":"ended","duration":60}"#,
        #"{"type":"rcvCall","status":"missed","duration":0}"#,
        #"{"type":"rcvIntegrityError","msgError":{"type":"msgSkipped","fromMsgId":3,"toMsgId":5}}"#,
        #"{"type":"rcvDecryptionError","msgDecryptError":"ratchetHeader","msgCount":2}"#,
        #"{"type":"rcvGroupInvitation","groupInvitation":{"groupId":1,"groupMemberId":2,"localDisplayName":"g","groupProfile":{"displayName":"g","fullName":""},"status":"pending"},"memberRole":"member"}"#,
        #"{"type":"rcvDirectEvent","rcvDirectEvent":{"type":"profileUpdated","fromProfile":{"displayName":"a","fullName":""},"toProfile":{"displayName":"b","fullName":""}}}"#,
        #"{"type":"rcvGroupEvent","rcvGroupEvent":{"type":"memberRole","groupMemberId":2,"profile":{"displayName":"a","fullName":""},"role":"admin"}}"#,
        #"{"type":"rcvGroupEvent","rcvGroupEvent":{"type":"memberConnected"}}"#,
        #"{"type":"sndGroupEvent","sndGroupEvent":{"type":"memberBlocked","groupMemberId":2,"profile":{"displayName":"a","fullName":""},"blocked":true}}"#,
        #"{"type":"rcvConnEvent","rcvConnEvent":{"type":"switchQueue","phase":"completed"}}"#,
        #"{"type":"sndConnEvent","sndConnEvent":{"type":"ratchetSync","syncStatus":"agreed","member":{"groupMemberId":2,"profile":{"displayName":"a","fullName":""}}}}"#,
        #"{"type":"rcvChatFeature","feature":"voice","enabled":{"forUser":true,"forContact":false},"param":10}"#,
        #"{"type":"sndChatPreference","feature":"calls","allowed":"always"}"#,
        #"{"type":"rcvGroupFeature","groupFeature":"history","preference":{"enable":"on"},"memberRole_":"owner"}"#,
        #"{"type":"rcvChatFeatureRejected","feature":"files"}"#,
        #"{"type":"rcvGroupFeatureRejected","groupFeature":"reports"}"#,
        #"{"type":"sndModerated"}"#,
        #"{"type":"rcvBlocked"}"#,
        #"{"type":"sndDirectE2EEInfo","e2eeInfo":{"pqEnabled":true}}"#,
        #"{"type":"rcvGroupE2EEInfo","e2eeInfo":{}}"#,
        #"{"type":"chatBanner"}"#,
    ])
    func ciContentMembers(_ json: String) throws {
        let c = try expectRoundTrip(CIContent.self, json)
        if case .unknown = c { Issue.record("decoded as unknown: \(json)") }
    }

    @Test func unknownCIContentIsKeptRaw() throws {
        let json = #"{"type":"rcvFutureThing","level":3,"note":{"a":[1,2.5,null,true]}}"#
        let c = try expectRoundTrip(CIContent.self, json)
        guard case .unknown(let type, _) = c else {
            Issue.record("expected unknown")
            return
        }
        #expect(type == "rcvFutureThing")
    }

    @Test func msgContentKinds() throws {
        let texts = [
            #"{"type":"text","text":"hi"}"#,
            #"{"type":"link","text":"see","preview":{"uri":"https://x.com","title":"X","description":"","image":"data:image/png;base64,AA","content":{"type":"video","duration":12}}}"#,
            #"{"type":"image","text":"","image":"data:image/jpg;base64,AA"}"#,
            #"{"type":"video","text":"v","image":"data:image/jpg;base64,AA","duration":3}"#,
            #"{"type":"voice","text":"","duration":7}"#,
            #"{"type":"file","text":"doc"}"#,
            #"{"type":"report","text":"spam!","reason":"spam"}"#,
            #"{"type":"chat","text":"join","chatLink":{"type":"group","connLink":"https://h.im/g#k","groupProfile":{"displayName":"g","fullName":""}}}"#,
            #"{"type":"chat","text":"me","chatLink":{"type":"contact","connLink":"https://h.im/a#k","profile":{"displayName":"b","fullName":""},"business":true}}"#,
        ]
        for t in texts { try expectRoundTrip(MsgContent.self, t) }
        // An unknown kind keeps its whole object; `text` falls back to simplex-chat's placeholder.
        let unknown = try expectRoundTrip(MsgContent.self, #"{"type":"poll","options":["a","b"]}"#)
        #expect(unknown.text == MsgContent.unknownMsgType)
        #expect(unknown.tag == "poll")
        let withText = try expectRoundTrip(MsgContent.self, #"{"type":"poll","text":"vote","options":[]}"#)
        #expect(withText.text == "vote")
    }

    @Test func msgReactionOnlyAllowsSimplexEmoji() throws {
        #expect(try expectRoundTrip(MsgReaction.self, #"{"type":"emoji","emoji":"👍"}"#) == .emoji("👍"))
        // Another emoji, or a two-scalar one, is an unknown reaction kept as received.
        let other = try expectRoundTrip(MsgReaction.self, #"{"type":"emoji","emoji":"🤡"}"#)
        #expect(!other.isKnown)
        #expect(try !expectRoundTrip(MsgReaction.self, #"{"type":"emoji","emoji":"❤️"}"#).isKnown)
        #expect(try !expectRoundTrip(MsgReaction.self, #"{"type":"sticker","id":5}"#).isKnown)
    }

    @Test func composedMessageDefaultsAndLegacyFilePath() throws {
        let m = try ChatJSON.decode(ComposedMessage.self, from: #"{"filePath":"/a.jpg","msgContent":{"type":"image","text":"","image":"x"}}"#)
        #expect(m.fileSource == CryptoFile(filePath: "/a.jpg"))
        #expect(m.mentions.isEmpty)
        try expectEncodes(m, #"{"fileSource":{"filePath":"/a.jpg"},"msgContent":{"type":"image","text":"","image":"x"},"mentions":{}}"#)
    }

    @Test func preferencesIgnoreUnknownMembers() throws {
        let p = try ChatJSON.decode(Preferences.self, from: #"{"voice":{"allow":"no"},"futureFeature":{"allow":"yes"},"files":{"allow":"yes","extra":1}}"#)
        #expect(p == Preferences(voice: SimplePreference(allow: .no), files: SimplePreference(allow: .yes)))
        let profile = try ChatJSON.decode(Profile.self, from: #"{"displayName":"x","badge":"gold"}"#)
        #expect(profile == Profile(displayName: "x"))
    }

    @Test func formatsDecodeAndUnknownFormatIsKept() throws {
        let all = #"[{"type":"bold"},{"type":"italic"},{"type":"strikeThrough"},{"type":"snippet"},{"type":"secret"},{"type":"uri"},{"type":"email"},{"type":"phone"},{"type":"colored","color":"cyan"}]"#
        let formats = try expectRoundTrip([Format].self, all)
        #expect(formats.last == .colored(color: .cyan))
        let u = try expectRoundTrip(Format.self, #"{"type":"spoiler","level":2}"#)
        #expect(u == .unknown(.object(["type": .string("spoiler"), "level": .int(2)])))
    }

    @Test func commandErrorShape() throws {
        let e = ChatError.commandError("unknown command /foo")
        try expectEncodes(e, #"{"type":"error","errorType":{"type":"commandError","message":"unknown command /foo"}}"#)
        try expectEncodes(APIResult<ChatResponse>.error(e), #"{"error":{"type":"error","errorType":{"type":"commandError","message":"unknown command /foo"}}}"#)
    }

    @Test func utcTimeKeepsTextAndPrintsLikeAeson() throws {
        let t = try #require(UTCTime("2024-05-01T10:00:00.5Z"))
        #expect(t.date.timeIntervalSince1970 == 1_714_557_600.5)
        #expect(UTCTime(t.date).text == "2024-05-01T10:00:00.5Z")
        #expect(UTCTime(Date(timeIntervalSince1970: 0)).text == "1970-01-01T00:00:00Z")
        #expect(UTCTime("2024-05-01T12:00:00+02:00") == UTCTime("2024-05-01T10:00:00Z"))
        #expect(UTCTime("2024-13-01T10:00:00Z") == nil)
        #expect(UTCTime("yesterday") == nil)
        #expect(throws: DecodingError.self) { try ChatJSON.decode(UTCTime.self, from: #""not a time""#) }
    }

    /// Times are printed into one buffer (issue 16): the same text as aeson's, fraction to
    /// microseconds without trailing zeros, before 1970 too; and each text reads back to its time.
    @Test func utcTimePrintsEveryFieldPadded() throws {
        let cases: [(Double, String)] = [
            (1_714_557_600.000001, "2024-05-01T10:00:00.000001Z"), (1_714_557_600.12, "2024-05-01T10:00:00.12Z"),
            (-1.5, "1969-12-31T23:59:58.5Z"), (951_825_599, "2000-02-29T11:59:59Z"), (253_402_300_799, "9999-12-31T23:59:59Z"),
            (-62_135_596_800, "0001-01-01T00:00:00Z"),
        ]
        for (seconds, text) in cases { #expect(UTCTime(Date(timeIntervalSince1970: seconds)).text == text) }
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let micros = Int64.random(in: -2_000_000_000_000_000...4_000_000_000_000_000, using: &rng)
            let t = UTCTime(Date(timeIntervalSince1970: Double(micros) / 1_000_000))
            let back = try #require(UTCTime(t.text), "\(t.text)")
            #expect(abs(back.date.timeIntervalSince1970 - t.date.timeIntervalSince1970) < 2e-6, "\(t.text)")
            #expect(t.text.utf8.count >= 20 && !(t.text.contains(".") && t.text.hasSuffix("0Z")) && !t.text.hasSuffix(".Z"), "\(t.text)")
        }
    }

    @Test func decodingBadJSONThrowsInsteadOfTrapping() {
        for bad in [#"{"type":"text"}"#, #"{"text":"x"}"#, "[]", "42", #"{"type":5}"#] {
            #expect(throws: (any Error).self) { try ChatJSON.decode(MsgContent.self, from: bad) }
        }
        #expect(throws: (any Error).self) { try ChatJSON.decode(User.self, from: #"{"userId":"one"}"#) }
        #expect(throws: (any Error).self) { try ChatJSON.decode(ChatItem.self, from: "{}") }
    }
}
