import Foundation
import SMPAgent
import Testing

@testable import ChatCore

/// Every chat message our encoder produces, validated against simplex-chat's own JTD schema
/// (docs/protocol/simplex-chat.schema.json, vendored in Schema/) with a documented overlay for what
/// simplex-chat 7.0.x sends beyond it. A field name or value form the schema does not allow fails here.
@Suite struct ChatSchemaTests {
    static let schemaDir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Schema")

    static func loadJSON(_ name: String) throws -> JSONValue {
        try ChatJSON.decode(JSONValue.self, from: Data(contentsOf: schemaDir.appendingPathComponent(name)))
    }

    static func overlaidSchema() throws -> JTDRoot {
        let raw = try loadJSON("simplex-chat.schema.json")
        return try JTDRoot(JTDOverlay.apply(try loadJSON("simplex-chat.schema.overlay.json"), to: raw))
    }

    static func json(_ text: String) throws -> JSONValue { try ChatJSON.decode(JSONValue.self, from: Data(text.utf8)) }

    // MARK: samples

    static let msgId = SharedMsgId.random()
    static let msgId2 = SharedMsgId.random()
    static let memberId = MemberId.random()
    static let memberId2 = MemberId.random()
    static let image = "data:image/jpg;base64,/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAP"
    static let link = "https://simplex.chat/contact#/?v=2-7&smp=smp%3A%2F%2Fabc%40example.com%2Fq%23%2F"
    static let bareProfile = Profile(displayName: "bob")
    static let fullProfile = Profile(
        displayName: "alice", fullName: "Alice A", shortDescr: "hi", image: image, contactLink: link,
        preferences: Preferences(reactions: SimplePreference(allow: .yes), voice: SimplePreference(allow: .no)))
    static let groupProfile = GroupProfile(displayName: "team", fullName: "Team", description: "our team", image: image)
    static let time = UTCTime("2026-11-24T10:00:00.123456Z")!
    static let time2 = UTCTime("2026-11-24T10:00:01Z")!
    static let scope = MsgScope.member(memberId: memberId2)
    static let business = BusinessChatInfo(chatType: .business, businessId: "YnVzaW5lc3M=", customerId: "Y3VzdG9tZXI=")
    static let role = MemberIdRole(memberId: memberId, memberRole: .admin)

    static let contents: [MsgContent] = [
        .text("hello"),
        .text(""),
        .link(text: "see https://simplex.chat", preview: LinkPreview(uri: "https://simplex.chat", title: "SimpleX", description: "d", image: image)),
        .link(text: "v", preview: LinkPreview(uri: "https://x.y", title: "t", image: image, content: .video(duration: 12))),
        .link(text: "p", preview: LinkPreview(uri: "https://x.y", title: "t", image: image, content: .page)),
        .image(text: "", image: image),
        .video(text: "clip", image: image, duration: 30),
        .voice(text: "", duration: 5),
        .file(text: "report.pdf"),
        .report(text: "spam!", reason: .spam),
        .chat(text: "join", chatLink: .group(connLink: link, groupProfile: groupProfile)),
        .chat(text: "me", chatLink: .contact(connLink: link, profile: fullProfile, business: false)),
        .chat(text: "inv", chatLink: .invitation(invLink: link, profile: bareProfile)),
    ]

    static let fileInvitations: [FileInvitation] = [
        FileInvitation(fileName: "a.txt", fileSize: 10),
        FileInvitation(
            fileName: "photo.jpg", fileSize: 1_000_000, fileDigest: FileDigest(bytes: Array(repeating: 7, count: 32)),
            fileDescr: FileDescr(fileDescrText: "# xftp file description\n", fileDescrPartNo: 0, fileDescrComplete: true)),
        FileInvitation(fileName: "small.txt", fileSize: 100, fileConnReq: link, fileInline: .offer),
    ]

    /// One or more samples of every event we send, with optional fields absent and present.
    /// The switch in `covers` is exhaustive, so a new event case does not compile until it is sampled here.
    static func samples() -> [ChatMsgEvent] {
        var out: [ChatMsgEvent] = []
        for c in contents { out.append(.msgNew(MsgContainer(content: c))) }
        for f in fileInvitations { out.append(.msgNew(MsgContainer(content: .file(text: ""), file: f))) }
        out.append(
            .msgNew(
                MsgContainer(
                    content: .text("@bob hi"), mentions: ["bob": MsgMention(memberId: memberId)], ttl: 3600, live: true,
                    scope: scope, asGroup: false,
                    quote: QuotedMsg(msgRef: MsgRef(msgId: msgId2, sentAt: time, sent: true, memberId: memberId), content: .text("q")),
                    parent: MsgRef(msgId: msgId, sentAt: time2, sent: false), forward: true)))
        out.append(.msgNew(MsgContainer(content: .text("q"), quote: QuotedMsg(msgRef: MsgRef(msgId: nil, sentAt: time, sent: false), content: .voice(text: "", duration: 1)))))
        out.append(.msgNew(MsgContainer(content: .text("channel post"), asGroup: true)))
        out.append(.msgFileDescr(msgId: msgId, fileDescr: FileDescr(fileDescrText: "part", fileDescrPartNo: 1, fileDescrComplete: false)))
        out.append(.msgUpdate(.init(msgId: msgId, content: .text("edited"))))
        out.append(
            .msgUpdate(
                .init(
                    msgId: msgId, content: .text("@bob edited"), mentions: ["bob": MsgMention(memberId: memberId)], ttl: 60, live: false,
                    scope: scope, asGroup: true, prefs: MsgPrefs(commentsDisabled: true))))
        out.append(.msgDel(msgId: msgId))
        out.append(.msgDel(msgId: msgId, memberId: memberId, scope: scope))
        out.append(.msgDeleted)
        out.append(.msgReact(msgId: msgId, reaction: .emoji("👍"), add: true))
        out.append(.msgReact(msgId: msgId, memberId: memberId, scope: scope, reaction: MsgReaction.emojiReaction("🚀")!, add: false))
        out.append(.fileCancel(msgId: msgId))
        out.append(.info(bareProfile))
        out.append(.info(fullProfile))
        out.append(.contact(profile: bareProfile))
        out.append(
            .contact(
                profile: fullProfile, contactReqId: XContactId(bytes: [1, 2, 3, 4, 5]), welcomeMsgId: msgId2,
                requestMsg: ChatMsgEvent.RequestMsg(msgId: msgId, content: .text("hello"))))
        out.append(.directDel)
        out.append(.ok)
        out.append(
            .grpInv(GroupInvitation(fromMember: role, invitedMember: MemberIdRole(memberId: memberId2, memberRole: .member), connRequest: link, groupProfile: groupProfile)))
        out.append(
            .grpInv(
                GroupInvitation(
                    fromMember: role, fromMemberProfile: fullProfile, invitedMember: MemberIdRole(memberId: memberId2, memberRole: .observer),
                    connRequest: link, groupProfile: groupProfile, business: business, groupLinkId: "bGlua2lk", groupSize: 3)))
        out.append(.grpAcpt(memberId: memberId))
        out.append(
            .grpLinkInv(
                GroupLinkInvitation(fromMember: role, fromMemberName: "alice", invitedMember: MemberIdRole(memberId: memberId2, memberRole: .member), groupProfile: groupProfile)))
        out.append(
            .grpLinkInv(
                GroupLinkInvitation(
                    fromMember: role, fromMemberName: "alice", invitedMember: MemberIdRole(memberId: memberId2, memberRole: .author),
                    groupProfile: groupProfile, accepted: "accepted", business: business, groupSize: 2)))
        out.append(.grpLinkMem(profile: fullProfile))
        for reason in [GroupRejectionReason.longName, .blockedName] {
            out.append(.grpLinkReject(GroupLinkRejection(fromMember: role, invitedMember: MemberIdRole(memberId: memberId2, memberRole: .observer),
                                                         groupProfile: groupProfile, rejectionReason: reason)))
        }
        for a in [GroupAcceptance.accepted, .pendingReview] { out.append(.grpLinkAcpt(acceptance: a, role: .member, memberId: memberId2)) }
        out.append(.msgNew(MsgContainer(content: .text("in support chat"), scope: .member(memberId: memberId2))))
        // A report at chat version 15+: in the reporter's support chat, quoting the reported message.
        out.append(.msgNew(MsgContainer(content: .report(text: "", reason: .community), scope: .member(memberId: memberId2),
                                        quote: QuotedMsg(msgRef: MsgRef(msgId: msgId, sentAt: time, sent: false, memberId: memberId), content: .text("rude")))))
        let info = MemberInfo(memberId: memberId, memberRole: .member, profile: bareProfile)
        let infoV = MemberInfo(memberId: memberId, memberRole: .owner, v: "1-16", profile: fullProfile)
        out.append(.grpMemNew(info))
        out.append(.grpMemNew(infoV))
        out.append(.grpMemNew(info, scope: .member(memberId: memberId)))
        out.append(.grpMemIntro(info, restrictions: nil))
        out.append(.grpMemIntro(infoV, restrictions: MemberRestrictions(restriction: .blocked)))
        out.append(.grpMemInv(memberId: memberId, intro: IntroInvitation(groupConnReq: link)))
        out.append(.grpMemInv(memberId: memberId, intro: IntroInvitation(groupConnReq: link, directConnReq: link)))
        out.append(.grpMemFwd(info, intro: IntroInvitation(groupConnReq: link)))
        out.append(.grpMemFwd(infoV, intro: IntroInvitation(groupConnReq: link, directConnReq: link)))
        out.append(.grpMemInfo(memberId: memberId, profile: fullProfile))
        out.append(.grpMemCon(memberId: memberId))
        for r in GroupMemberRole.allCases { out.append(.grpMemRole(memberId: memberId, role: r)) }
        out.append(.grpMemRestrict(memberId: memberId, restrictions: MemberRestrictions(restriction: .unrestricted)))
        out.append(.grpMemDel(memberId: memberId, messages: nil))
        out.append(.grpMemDel(memberId: memberId, messages: true))
        out.append(.grpLeave)
        out.append(.grpDel)
        out.append(.grpInfo(groupProfile))
        out.append(.grpInfo(GroupProfile(displayName: "g")))
        out.append(.grpPrefs(ChatController.defaultBusinessGroupPreferences))
        out.append(.grpPrefs(GroupPreferences()))
        let inner = ChatMessage(chatVRange: VersionRange(1...16), msgId: msgId2, event: .msgNew(MsgContainer(content: .text("fwd"))))
        out.append(.grpMsgForward(memberId: memberId, memberName: "carol", msg: inner, msgTs: time))
        out.append(.grpMsgForward(memberId: nil, msg: ChatMessage(msgId: msgId2, event: .grpInfo(groupProfile)), msgTs: time2))
        out.append(.grpDirectInv(connReq: link, content: nil))
        out.append(.grpDirectInv(connReq: link, content: .text("hi"), scope: .member(memberId: memberId)))
        let probe = Probe.random()
        out.append(.infoProbe(probe))
        out.append(.infoProbeCheck(probe.hash))
        out.append(.infoProbeOk(probe))
        return out
    }

    /// Exhaustive: adding an event case breaks this until the case is sampled above (and `unknown`
    /// is never sent by us: it only re-encodes what a peer sent).
    static func covers(_ e: ChatMsgEvent) -> Bool {
        switch e {
        case .msgNew, .msgFileDescr, .msgUpdate, .msgDel, .msgDeleted, .msgReact, .fileCancel, .info, .contact, .directDel, .ok,
            .grpInv, .grpAcpt, .grpLinkInv, .grpLinkMem, .grpLinkReject, .grpLinkAcpt, .grpMemNew, .grpMemIntro, .grpMemInv, .grpMemFwd, .grpMemInfo, .grpMemCon,
            .grpMemRole, .grpMemRestrict, .grpMemDel, .grpLeave, .grpDel, .grpInfo, .grpPrefs, .grpMsgForward, .grpDirectInv, .infoProbe,
            .infoProbeCheck, .infoProbeOk:
            true
        case .unknown:
            false
        }
    }

    /// Validation errors of one encoded message, including a forwarded message inside it.
    static func errors(_ schema: JTDRoot, _ encoded: Data) throws -> [JTDError] {
        let value = try ChatJSON.decode(JSONValue.self, from: encoded)
        var errs = schema.validate(value)
        if case .string("x.grp.msg.forward")? = value.objectValue?["event"], let inner = value.objectValue?["params"]?.objectValue?["msg"] {
            errs += schema.validate(inner).map { JTDError(instancePath: "/params/msg" + $0.instancePath, reason: $0.reason) }
        }
        return errs
    }

    // MARK: tests

    @Test func vendoredSchemaIsMalformedWithoutTheOverlay() throws {
        // The raw file refs an undefined `groupMemberRole` and has mappings without `properties`:
        // the strict parser refuses it, which is why the overlay exists.
        #expect(throws: JTDRoot.SchemaError.self) { try JTDRoot(try Self.loadJSON("simplex-chat.schema.json")) }
        _ = try Self.overlaidSchema()
    }

    @Test func everyEventWeSendMatchesTheSchema() throws {
        let schema = try Self.overlaidSchema()
        let samples = Self.samples()
        let tags = Set(samples.filter(Self.covers).map(\.tag))
        #expect(tags.count == 35, "every event case is sampled: \(tags.sorted())")
        for event in samples {
            for (vRange, id) in [(ChatProtocolVersion.supportedRange, Self.msgId), (nil, nil)] as [(VersionRange?, SharedMsgId?)] {
                let msg = ChatMessage(chatVRange: vRange, msgId: id, event: event)
                let encoded = try msg.encoded(maxSize: nil)
                let errs = try Self.errors(schema, encoded)
                #expect(errs.isEmpty, "\(event.tag): \(errs) in \(String(decoding: encoded, as: UTF8.self))")
            }
        }
    }

    @Test func batchElementsMatchTheSchema() throws {
        let schema = try Self.overlaidSchema()
        let msgs = Self.samples().prefix(6).map { ChatMessage(chatVRange: ChatProtocolVersion.supportedRange, msgId: .random(), event: $0) }
        let bodies = ChatMessageBody.batch(try msgs.map { try $0.encoded() })
        for body in bodies {
            guard case .success(let batch) = body else { Issue.record("batch element too large"); continue }
            let value = try ChatJSON.decode(JSONValue.self, from: batch.body)
            let elements: [JSONValue] = if case .array(let a) = value { a } else { [value] }
            for e in elements { #expect(schema.validate(e).isEmpty) }
        }
    }

    @Test func wrongNamesAndValueFormsAreRejected() throws {
        let schema = try Self.overlaidSchema()
        let good = try Self.json(#"{"v":"1-16","msgId":"AQID","event":"x.msg.new","params":{"content":{"type":"text","text":"hi"}}}"#)
        #expect(schema.validate(good).isEmpty)
        let bad = [
            // unknown member in params
            #"{"msgId":"AQID","event":"x.msg.new","params":{"content":{"type":"text","text":"hi"},"colour":"red"}}"#,
            // misspelt envelope member
            #"{"msgID":"AQID","event":"x.msg.new","params":{"content":{"type":"text","text":"hi"}}}"#,
            // number where a string goes
            #"{"msgId":"AQID","event":"x.msg.new","params":{"content":{"type":"text","text":5}}}"#,
            // role outside the enum
            #"{"event":"x.grp.mem.role","params":{"memberId":"AQID","role":"boss"}}"#,
            // ttl not an integer
            #"{"event":"x.msg.new","params":{"content":{"type":"text","text":"hi"},"ttl":1.5}}"#,
            // event not in the schema
            #"{"event":"x.msg.frobnicate","params":{}}"#,
            // missing required params member
            #"{"event":"x.msg.react","params":{"msgId":"AQID","add":true}}"#,
            // timestamp that is not RFC 3339
            #"{"event":"x.grp.msg.forward","params":{"msg":{},"msgTs":"yesterday"}}"#,
            // image mapping fixed by the overlay still requires its image
            #"{"event":"x.msg.new","params":{"content":{"type":"image","text":""}}}"#,
        ]
        for text in bad { #expect(!schema.validate(try Self.json(text)).isEmpty, "\(text)") }
    }

    /// RFC 8927's own examples for the forms the chat schema uses.
    @Test func jtdValidatorFollowsRFC8927() throws {
        let s = try JTDRoot(
            Self.json(
                #"{"definitions":{"n":{"type":"uint8"}},"properties":{"a":{"ref":"n"},"b":{"elements":{"type":"boolean"},"nullable":true},"t":{"type":"timestamp"}},"optionalProperties":{"c":{"values":{"enum":["x","y"]}}}}"#))
        #expect(s.validate(try Self.json(#"{"a":255,"b":null,"t":"1990-12-31T23:59:60Z"}"#)).isEmpty)
        #expect(s.validate(try Self.json(#"{"a":3.0,"b":[true],"t":"1985-04-12T23:20:50.52+01:00","c":{"k":"x"}}"#)).isEmpty)
        #expect(s.validate(try Self.json(#"{"a":256,"b":null,"t":"1990-12-31T23:59:60Z"}"#)).count == 1)
        #expect(s.validate(try Self.json(#"{"a":1,"b":[1],"t":"1990-12-31T23:59:60Z"}"#)).count == 1)
        #expect(s.validate(try Self.json(#"{"a":1,"b":null,"t":"1990-02-30T00:00:00Z"}"#)).count == 1)
        #expect(s.validate(try Self.json(#"{"a":1,"b":null,"t":"1990-01-01T00:00:00Z","c":{"k":"z"},"d":1}"#)).count == 2)
        #expect(s.validate(try Self.json(#"{"b":null,"t":"1990-01-01T00:00:00Z"}"#)).count == 1)
        // Malformed schemas are refused.
        #expect(throws: JTDRoot.SchemaError.self) { try JTDRoot(try Self.json(#"{"ref":"missing"}"#)) }
        #expect(throws: JTDRoot.SchemaError.self) { try JTDRoot(try Self.json(#"{"type":"string","enum":["a"]}"#)) }
        #expect(throws: JTDRoot.SchemaError.self) { try JTDRoot(try Self.json(#"{"discriminator":"t","mapping":{"a":{"type":"string"}}}"#)) }
        #expect(throws: JTDRoot.SchemaError.self) { try JTDRoot(try Self.json(#"{"properties":{"a":{}},"optionalProperties":{"a":{}}}"#)) }
    }
}
