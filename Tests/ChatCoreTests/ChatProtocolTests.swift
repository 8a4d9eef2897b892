import Foundation
import SMPAgent
import Testing

@testable import ChatCore

/// The chat protocol between clients (simplex-chat.md, Protocol.hs): envelopes, events, batches,
/// shared message IDs, limits and typed errors.
@Suite struct ChatProtocolTests {
    // MARK: helpers

    /// JSON text as a value, so two texts compare as JSON whatever their member order.
    static func json(_ data: Data) throws -> JSONValue { try ChatJSON.decode(JSONValue.self, from: data) }
    static func json(_ text: String) throws -> JSONValue { try json(Data(text.utf8)) }

    static func time(_ s: String) throws -> UTCTime { try #require(UTCTime(s)) }

    static let id1234 = SharedMsgId(bytes: [1, 2, 3, 4])
    static let id5678 = SharedMsgId(bytes: [5, 6, 7, 8])
    static let member1234 = MemberId(bytes: [1, 2, 3, 4])
    static let image = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAgAAAAIAQMAAAD+wSzIAAAABlBMVEX///+/v7+jQ3Y5AAAADklEQVQI12P4AIX8EAgALgAD/aNpbtEAAAAASUVORK5CYII="
    static let profile = Profile(
        displayName: "alice", fullName: "Alice", image: image,
        preferences: Preferences(reactions: SimplePreference(allow: .yes), voice: SimplePreference(allow: .yes)))
    static let profileJSON = #"{"fullName":"Alice","displayName":"alice","image":"\#(image)","preferences":{"reactions":{"allow":"yes"},"voice":{"allow":"yes"}}}"#

    /// Decodes exactly one message and fails the test otherwise.
    static func decodeOne(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> ChatMessage {
        try ChatMessage.decode(text)
    }

    /// The typed error decoding `text` gives, or nil if it decoded.
    static func decodeError(_ text: String) -> ChatProtocolError? {
        do {
            _ = try ChatMessage.decode(text)
            return nil
        } catch {
            return error
        }
    }

    // MARK: the spec's and simplex-chat's own examples

    @Test func specExampleDecodes() throws {
        // simplex-chat.md "JSON format for chat and application messages" (whitespace as in the doc).
        let text = """
            {
              "event": "x.msg.new",
              "msgId": "abcd",
              "params": {
                "content": {
                  "type": "text",
                  "text": "hello!"
                }
              }
            }
            """
        let m = try Self.decodeOne(text)
        #expect(m.chatVRange == nil)
        #expect(m.effectiveVRange == VersionRange(1))
        #expect(m.msgId == SharedMsgId(bytes: [0x69, 0xB7, 0x1D]))
        #expect(m.event == .msgNew(MsgContainer(content: .text("hello!"))))
        // Re-encoded compactly, without whitespace, to the same JSON object.
        let out = try m.encodedString()
        #expect(!out.contains(" ") && !out.contains("\n"))
        #expect(try Self.json(out) == Self.json(text))
    }

    /// A literal message from simplex-chat's tests/ProtocolTests.hs and the value it must decode to.
    struct Vector: Sendable, CustomTestStringConvertible {
        let name: String
        let json: String
        let message: ChatMessage
        /// Whether our encoding of `message` must also equal `json` (false where the literal carries
        /// members the decoder ignores).
        let reencodes: Bool
        var testDescription: String { name }

        init(_ name: String, _ json: String, _ message: ChatMessage, reencodes: Bool = true) {
            self.name = name
            self.json = json
            self.message = message
            self.reencodes = reencodes
        }

        init(_ name: String, _ json: String, _ event: ChatMsgEvent, reencodes: Bool = true) {
            self.init(name, json, ChatMessage(chatVRange: VersionRange(1), event: event), reencodes: reencodes)
        }
    }

    static let hello = MsgContainer(content: .text("hello"))
    static let photo = FileInvitation(fileName: "photo.jpg", fileSize: 12345)
    static let quoteJSON = #"{"content":{"text":"hello there!","type":"text"},"msgRef":{"msgId":"BQYHCA==","sent":true,"sentAt":"1970-01-01T00:00:01.000000001Z"}}"#

    static func quoted() throws -> QuotedMsg {
        QuotedMsg(msgRef: MsgRef(msgId: id5678, sentAt: try time("1970-01-01T00:00:01.000000001Z"), sent: true), content: .text("hello there!"))
    }

    static func vectors() throws -> [Vector] {
        let q = try quoted()
        let reply = MsgContainer(content: .text("hello to you too"), quote: q)
        var replyTTL = reply
        replyTTL.ttl = 3600
        var replyLive = reply
        replyLive.live = true
        var replyFile = reply
        replyFile.file = photo
        let v1 = VersionRange(1)
        return [
            Vector(
                "x.msg.new simple text", #"{"v":"1","event":"x.msg.new","params":{"content":{"text":"hello","type":"text"}}}"#,
                .msgNew(hello)),
            Vector(
                "x.msg.new ttl", #"{"v":"1","event":"x.msg.new","params":{"content":{"text":"hello","type":"text"},"ttl":3600}}"#,
                .msgNew(MsgContainer(content: .text("hello"), ttl: 3600))),
            Vector(
                "x.msg.new live", #"{"v":"1","event":"x.msg.new","params":{"content":{"text":"hello","type":"text"},"live":true}}"#,
                .msgNew(MsgContainer(content: .text("hello"), live: true))),
            Vector(
                "x.msg.new link",
                #"{"v":"1","event":"x.msg.new","params":{"content":{"text":"https://simplex.chat","type":"link","preview":{"description":"SimpleX Chat","image":"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAgA","title":"SimpleX Chat","uri":"https://simplex.chat"}}}}"#,
                .msgNew(
                    MsgContainer(
                        content: .link(
                            text: "https://simplex.chat",
                            preview: LinkPreview(
                                uri: "https://simplex.chat", title: "SimpleX Chat", description: "SimpleX Chat",
                                image: "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAgA"))))),
            Vector(
                "x.msg.new image", #"{"v":"1","event":"x.msg.new","params":{"content":{"text":"here's an image","type":"image","image":"\#(image)"}}}"#,
                .msgNew(MsgContainer(content: .image(text: "here's an image", image: image)))),
            Vector(
                "x.msg.new with msgId", #"{"v":"1","msgId":"AQIDBA==","event":"x.msg.new","params":{"content":{"text":"hello","type":"text"}}}"#,
                ChatMessage(chatVRange: v1, msgId: id1234, event: .msgNew(hello))),
            Vector(
                "x.msg.new with version range", #"{"v":"1-5","msgId":"AQIDBA==","event":"x.msg.new","params":{"content":{"text":"hello","type":"text"}}}"#,
                ChatMessage(chatVRange: VersionRange(1...5), msgId: id1234, event: .msgNew(hello))),
            Vector(
                "x.msg.new quote",
                #"{"v":"1","msgId":"AQIDBA==","event":"x.msg.new","params":{"content":{"text":"hello to you too","type":"text"},"quote":\#(quoteJSON)}}"#,
                ChatMessage(chatVRange: v1, msgId: id1234, event: .msgNew(reply))),
            Vector(
                "x.msg.new quote ttl",
                #"{"v":"1","msgId":"AQIDBA==","event":"x.msg.new","params":{"content":{"text":"hello to you too","type":"text"},"quote":\#(quoteJSON),"ttl":3600}}"#,
                ChatMessage(chatVRange: v1, msgId: id1234, event: .msgNew(replyTTL))),
            Vector(
                "x.msg.new quote live",
                #"{"v":"1","msgId":"AQIDBA==","event":"x.msg.new","params":{"content":{"text":"hello to you too","type":"text"},"quote":\#(quoteJSON),"live":true}}"#,
                ChatMessage(chatVRange: v1, msgId: id1234, event: .msgNew(replyLive))),
            Vector(
                "x.msg.new forward",
                #"{"v":"1","msgId":"AQIDBA==","event":"x.msg.new","params":{"content":{"text":"hello","type":"text"},"forward":true}}"#,
                ChatMessage(chatVRange: v1, msgId: id1234, event: .msgNew(MsgContainer(content: .text("hello"), forward: true)))),
            Vector(
                "x.msg.new forward ttl",
                #"{"v":"1","msgId":"AQIDBA==","event":"x.msg.new","params":{"content":{"text":"hello","type":"text"},"forward":true,"ttl":3600}}"#,
                ChatMessage(chatVRange: v1, msgId: id1234, event: .msgNew(MsgContainer(content: .text("hello"), ttl: 3600, forward: true)))),
            Vector(
                "x.msg.new text with file",
                #"{"v":"1","event":"x.msg.new","params":{"content":{"text":"hello","type":"text"},"file":{"fileSize":12345,"fileName":"photo.jpg"}}}"#,
                .msgNew(MsgContainer(content: .text("hello"), file: photo))),
            Vector(
                "x.msg.new file with file",
                #"{"v":"1","event":"x.msg.new","params":{"content":{"text":"","type":"file"},"file":{"fileSize":12345,"fileName":"file.txt"}}}"#,
                .msgNew(MsgContainer(content: .file(text: ""), file: FileInvitation(fileName: "file.txt", fileSize: 12345)))),
            Vector(
                "x.msg.new quote with file",
                #"{"v":"1","msgId":"AQIDBA==","event":"x.msg.new","params":{"content":{"text":"hello to you too","type":"text"},"quote":\#(quoteJSON),"file":{"fileSize":12345,"fileName":"photo.jpg"}}}"#,
                ChatMessage(chatVRange: v1, msgId: id1234, event: .msgNew(replyFile))),
            Vector(
                "x.msg.update", #"{"v":"1","event":"x.msg.update","params":{"msgId":"AQIDBA==", "content":{"text":"hello","type":"text"}}}"#,
                .msgUpdate(.init(msgId: id1234, content: .text("hello")))),
            Vector("x.msg.del", #"{"v":"1","event":"x.msg.del","params":{"msgId":"AQIDBA=="}}"#, .msgDel(msgId: id1234)),
            Vector("x.msg.deleted", #"{"v":"1","event":"x.msg.deleted","params":{}}"#, .msgDeleted),
            Vector("x.file.cancel", #"{"v":"1","event":"x.file.cancel","params":{"msgId":"AQIDBA=="}}"#, .fileCancel(msgId: id1234)),
            Vector("x.info", #"{"v":"1","event":"x.info","params":{"profile":\#(profileJSON)}}"#, .info(profile)),
            Vector(
                "x.info with empty full name",
                #"{"v":"1","event":"x.info","params":{"profile":{"fullName":"","displayName":"alice","preferences":{"reactions":{"allow":"yes"},"voice":{"allow":"yes"}}}}}"#,
                .info(Profile(displayName: "alice", preferences: profile.preferences))),
            Vector("x.info.probe", #"{"v":"1","event":"x.info.probe","params":{"probe":"AQIDBA=="}}"#, .infoProbe(Probe(bytes: [1, 2, 3, 4]))),
            Vector(
                "x.info.probe.check", #"{"v":"1","event":"x.info.probe.check","params":{"probeHash":"AQIDBA=="}}"#,
                .infoProbeCheck(ProbeHash(bytes: [1, 2, 3, 4]))),
            Vector("x.info.probe.ok", #"{"v":"1","event":"x.info.probe.ok","params":{"probe":"AQIDBA=="}}"#, .infoProbeOk(Probe(bytes: [1, 2, 3, 4]))),
            Vector(
                "x.contact with xContactId", #"{"v":"1","event":"x.contact","params":{"contactReqId":"AQIDBA==","profile":\#(profileJSON)}}"#,
                .contact(profile: profile, contactReqId: XContactId(bytes: [1, 2, 3, 4]))),
            Vector("x.contact without xContactId", #"{"v":"1","event":"x.contact","params":{"profile":\#(profileJSON)}}"#, .contact(profile: profile)),
            Vector(
                "x.contact with content null", #"{"v":"1","event":"x.contact","params":{"content":null,"profile":\#(profileJSON)}}"#,
                .contact(profile: profile), reencodes: false),
            Vector(
                "x.contact with content but no msgId (ignored)",
                #"{"v":"1","event":"x.contact","params":{"content":{"text":"hello","type":"text"},"profile":\#(profileJSON)}}"#,
                .contact(profile: profile), reencodes: false),
            Vector("x.grp.acpt", #"{"v":"1","event":"x.grp.acpt","params":{"memberId":"AQIDBA=="}}"#, .grpAcpt(memberId: MemberId(bytes: [1, 2, 3, 4]))),
            Vector("x.grp.leave", #"{"v":"1","event":"x.grp.leave","params":{}}"#, .grpLeave),
            Vector(
                "x.grp.mem.del without messages", #"{"v":"1","event":"x.grp.mem.del","params":{"memberId":"AQIDBA=="}}"#,
                .grpMemDel(memberId: MemberId(bytes: [1, 2, 3, 4]), messages: nil)),
            Vector("x.grp.direct.inv", #"{"v":"1","event":"x.grp.direct.inv","params":{"connReq":"x"}}"#, .grpDirectInv(connReq: "x", content: nil)),
            Vector(
                "x.grp.direct.inv with content", #"{"v":"1","event":"x.grp.direct.inv","params":{"connReq":"x","content":{"text":"hi","type":"text"}}}"#,
                .grpDirectInv(connReq: "x", content: .text("hi"))),
            Vector("x.ok", #"{"v":"1","event":"x.ok","params":{}}"#, .ok),
        ]
    }

    @Test func simplexChatVectors() throws {
        for v in try Self.vectors() {
            let m = try Self.decodeOne(v.json)
            #expect(m == v.message, "\(v.name)")
            if v.reencodes {
                #expect(try Self.json(v.message.encoded()) == Self.json(v.json), "\(v.name)")
            }
            // Whatever we write, we read back.
            #expect(try ChatMessage.decode(m.encoded()) == m, "\(v.name)")
        }
    }

    @Test func exactEnvelopeLayout() throws {
        let m = ChatMessage(chatVRange: VersionRange(1...16), msgId: Self.id1234, event: .msgNew(Self.hello))
        // Envelope in simplex-chat's member order, params sorted, no whitespace.
        #expect(
            try m.encodedString()
                == #"{"v":"1-16","msgId":"AQIDBA==","event":"x.msg.new","params":{"content":{"text":"hello","type":"text"}}}"#)
        #expect(try ChatMessage(event: .ok).encodedString() == #"{"event":"x.ok","params":{}}"#)
        // URLs keep their slashes unescaped, as aeson writes them.
        let link = ChatMessage(event: .msgNew(MsgContainer(content: .text("see https://simplex.chat/"))))
        #expect(try link.encodedString().contains("https://simplex.chat/"))
    }

    // MARK: round trips of every event

    static func events() throws -> [ChatMsgEvent] {
        let q = try quoted()
        let sentAt = try time("2024-05-01T10:00:00.123456Z")
        let other = MemberId(bytes: Array("b3RoZXI=".utf8))
        return [
            .msgNew(Self.hello),
            .msgNew(
                MsgContainer(
                    content: .text("@bob hi"), mentions: ["bob": MsgMention(memberId: other)],
                    file: FileInvitation(
                        fileName: "a.bin", fileSize: 1 << 33, fileDigest: FileDigest(bytes: [9, 9]), fileInline: .offer,
                        fileDescr: FileDescr(fileDescrText: "descr", fileDescrPartNo: 0, fileDescrComplete: true)),
                    ttl: 86400, live: false, scope: .member(memberId: other), asGroup: true, quote: q,
                    parent: MsgRef(msgId: nil, sentAt: sentAt, sent: false, memberId: Self.member1234), forward: true)),
            .msgNew(MsgContainer(content: .voice(text: "", duration: 12))),
            .msgNew(MsgContainer(content: .unknown(tag: "poll", text: "vote", json: ["type": .string("poll"), "text": .string("vote"), "options": .array([.int(1)])]))),
            .msgFileDescr(msgId: Self.id1234, fileDescr: FileDescr(fileDescrText: "part 2", fileDescrPartNo: 1, fileDescrComplete: false)),
            .msgUpdate(.init(msgId: Self.id1234, content: .text("edited"))),
            .msgUpdate(
                .init(
                    msgId: Self.id1234, content: .text("edited @bob"), mentions: ["bob": MsgMention(memberId: other)], ttl: 60,
                    live: true, scope: .member(memberId: other), asGroup: false, prefs: MsgPrefs(commentsDisabled: true))),
            .msgDel(msgId: Self.id1234),
            .msgDel(msgId: Self.id1234, memberId: Self.member1234, scope: .member(memberId: other)),
            .msgDeleted,
            .msgReact(msgId: Self.id1234, reaction: .emoji("👍"), add: true),
            .msgReact(msgId: Self.id1234, memberId: Self.member1234, reaction: .emoji("🚀"), add: false),
            .fileCancel(msgId: Self.id5678),
            .info(Self.profile),
            .contact(profile: Profile(displayName: "bob")),
            .contact(
                profile: Self.profile, contactReqId: XContactId(bytes: [7]), welcomeMsgId: Self.id5678,
                requestMsg: .init(msgId: Self.id1234, content: .text("hi, it's alice"))),
            .directDel,
            .ok,
            .grpInv(GroupInvitation(
                fromMember: MemberIdRole(memberId: Self.member1234, memberRole: .owner), fromMemberProfile: Self.profile,
                invitedMember: MemberIdRole(memberId: MemberId(bytes: [9]), memberRole: .member), connRequest: "simplex:/invitation#/?v=7",
                groupProfile: GroupProfile(displayName: "team", description: "hi"), groupLinkId: "AQ==", groupSize: 3)),
            .grpAcpt(memberId: Self.member1234),
            .grpLinkInv(GroupLinkInvitation(
                fromMember: MemberIdRole(memberId: Self.member1234, memberRole: .admin), fromMemberName: "alice",
                invitedMember: MemberIdRole(memberId: MemberId(bytes: [9]), memberRole: .observer), groupProfile: GroupProfile(displayName: "club"),
                accepted: "accepted", groupSize: 2)),
            .grpLinkMem(profile: Self.profile),
            .grpMemNew(MemberInfo(memberId: Self.member1234, memberRole: .member, v: "1-3", profile: Self.profile)),
            .grpMemIntro(MemberInfo(memberId: Self.member1234, memberRole: .admin, profile: Self.profile), restrictions: MemberRestrictions(restriction: .blocked)),
            .grpMemInv(memberId: Self.member1234, intro: IntroInvitation(groupConnReq: "simplex:/invitation#/?v=7")),
            .grpMemFwd(MemberInfo(memberId: Self.member1234, memberRole: .member, profile: Self.profile),
                       intro: IntroInvitation(groupConnReq: "a", directConnReq: "b")),
            .grpMemInfo(memberId: Self.member1234, profile: Self.profile),
            .grpMemCon(memberId: Self.member1234),
            .grpMemRole(memberId: Self.member1234, role: .admin),
            .grpMemRestrict(memberId: Self.member1234, restrictions: MemberRestrictions(restriction: .unrestricted)),
            .grpMemDel(memberId: Self.member1234, messages: true),
            .grpLeave,
            .grpDel,
            .grpInfo(GroupProfile(displayName: "team", fullName: "The team")),
            .grpMsgForward(memberId: Self.member1234, memberName: "bob", msg: ChatMessage(chatVRange: VersionRange(1...9), msgId: Self.id5678,
                           event: .msgNew(MsgContainer(content: .text("hi")))), msgTs: try #require(UTCTime("2024-05-01T10:00:00Z"))),
            .unknown(event: "x.call.end", params: ["callId": .string("AQ=="), "nested": .object(["a": .array([.null, .bool(true), .double(1.5)])])]),
        ]
    }

    @Test func everyEventRoundTrips() throws {
        for (i, e) in try Self.events().enumerated() {
            for m in [ChatMessage(event: e), ChatMessage(chatVRange: VersionRange(1...16), msgId: .random(), event: e)] {
                let data = try m.encoded()
                let back = try ChatMessage.decode(data)
                #expect(back == m, "event \(i) \(e.tag)")
                // And the second encoding is byte-identical to the first.
                #expect(try back.encoded() == data, "event \(i) \(e.tag)")
            }
        }
    }

    @Test func eventTags() throws {
        let tags = try Self.events().map(\.tag)
        #expect(
            tags == [
                "x.msg.new", "x.msg.new", "x.msg.new", "x.msg.new", "x.msg.file.descr", "x.msg.update", "x.msg.update",
                "x.msg.del", "x.msg.del", "x.msg.deleted", "x.msg.react", "x.msg.react", "x.file.cancel", "x.info",
                "x.contact", "x.contact", "x.direct.del", "x.ok", "x.grp.inv", "x.grp.acpt", "x.grp.link.inv", "x.grp.link.mem",
                "x.grp.mem.new", "x.grp.mem.intro", "x.grp.mem.inv", "x.grp.mem.fwd", "x.grp.mem.info", "x.grp.mem.con", "x.grp.mem.role",
                "x.grp.mem.restrict", "x.grp.mem.del", "x.grp.leave", "x.grp.del", "x.grp.info", "x.grp.msg.forward", "x.call.end",
            ])
    }

    @Test func codableConformanceMatchesWireForm() throws {
        // Embedded in other JSON (as stored or forwarded), a message is the same object.
        let m = ChatMessage(chatVRange: VersionRange(2...9), msgId: Self.id1234, event: .msgReact(msgId: Self.id5678, reaction: .emoji("👍"), add: true))
        let viaCodable = try ChatJSON.encode(m)
        #expect(try Self.json(viaCodable) == Self.json(m.encoded()))
        #expect(try ChatJSON.decode(ChatMessage.self, from: viaCodable) == m)
    }

    // MARK: field details

    @Test func msgNewOptionalFields() throws {
        let text = #"{"event":"x.msg.new","params":{"content":{"type":"text","text":"hi @bob"},"mentions":{"bob":{"memberId":"AQIDBA=="}},"scope":{"type":"member","memberId":"BQYHCA=="},"asGroup":true,"parent":{"sentAt":"2024-05-01T10:00:00Z","sent":false,"memberId":"AQIDBA=="}}}"#
        let m = try Self.decodeOne(text)
        guard case .msgNew(let c) = m.event else {
            Issue.record("not x.msg.new")
            return
        }
        #expect(c.mentions == ["bob": MsgMention(memberId: Self.member1234)])
        #expect(c.scope == .member(memberId: MemberId(bytes: [5, 6, 7, 8])))
        #expect(c.asGroup == true)
        #expect(c.parent == MsgRef(msgId: nil, sentAt: try Self.time("2024-05-01T10:00:00Z"), sent: false, memberId: Self.member1234))
        #expect(try Self.json(m.encoded()) == Self.json(text))
        // Empty mentions are left out, as simplex-chat does.
        let plain = try ChatMessage(event: .msgNew(MsgContainer(content: .text("x"), mentions: [:]))).encodedString()
        #expect(!plain.contains("mentions"))
    }

    @Test func forwardFlagForms() throws {
        func forward(_ value: String) throws -> Bool {
            let m = try ChatMessage.decode(#"{"event":"x.msg.new","params":{"content":{"type":"text","text":"a"},"forward":\#(value)}}"#)
            guard case .msgNew(let c) = m.event else { return false }
            return c.forward
        }
        #expect(try forward("true"))
        #expect(try !forward("false"))
        #expect(try !forward("null"))
        // Legacy clients send forward info as an object.
        #expect(try forward(#"{"memberId":"AQIDBA=="}"#))
        #expect(throws: ChatProtocolError.wrongType(path: "params.forward", expected: "boolean")) { try forward(#""yes""#) }
        // Only `true` is written.
        let notForwarded = try ChatMessage(event: .msgNew(MsgContainer(content: .text("a"), forward: false))).encodedString()
        #expect(!notForwarded.contains("forward"))
    }

    @Test func contactRequestMessage() throws {
        let both = #"{"event":"x.contact","params":{"profile":{"displayName":"bob","fullName":""},"msgId":"AQIDBA==","content":{"type":"text","text":"hi"},"welcomeMsgId":"BQYHCA=="}}"#
        let m = try Self.decodeOne(both)
        #expect(
            m.event == .contact(
                profile: Profile(displayName: "bob"), welcomeMsgId: Self.id5678,
                requestMsg: .init(msgId: Self.id1234, content: .text("hi"))))
        #expect(try Self.json(m.encoded()) == Self.json(both))
        // msgId without content: no request message.
        let idOnly = try Self.decodeOne(#"{"event":"x.contact","params":{"profile":{"displayName":"bob"},"msgId":"AQIDBA=="}}"#)
        #expect(idOnly.event == .contact(profile: Profile(displayName: "bob")))
    }

    @Test func reactions() throws {
        let text = #"{"v":"1-16","msgId":"AQIDBA==","event":"x.msg.react","params":{"msgId":"BQYHCA==","memberId":"AQIDBA==","reaction":{"type":"emoji","emoji":"❤"},"add":true}}"#
        let m = try Self.decodeOne(text)
        #expect(m.event == .msgReact(msgId: Self.id5678, memberId: Self.member1234, reaction: .emoji("❤"), add: true))
        #expect(try Self.json(m.encoded()) == Self.json(text))
        // A reaction of a newer version is kept as received.
        let newer = try Self.decodeOne(#"{"event":"x.msg.react","params":{"msgId":"AQ","reaction":{"type":"sticker","id":7},"add":false}}"#)
        guard case .msgReact(_, _, _, let reaction, _) = newer.event else {
            Issue.record("not a reaction")
            return
        }
        #expect(!reaction.isKnown)
        #expect(try newer.encodedString().contains(#""reaction":{"id":7,"type":"sticker"}"#))
    }

    @Test func unknownFieldsAreIgnored() throws {
        let text = #"{"v":"1-16","extra":[1,2],"msgId":"AQIDBA==","event":"x.msg.update","params":{"msgId":"BQYHCA==","content":{"type":"text","text":"new","future":{"a":1}},"futureField":true}}"#
        let m = try Self.decodeOne(text)
        #expect(m == ChatMessage(chatVRange: VersionRange(1...16), msgId: Self.id1234, event: .msgUpdate(.init(msgId: Self.id5678, content: .text("new")))))
    }

    @Test func unknownEventsKeepTheirParams() throws {
        let text = #"{"v":"1-16","msgId":"AQIDBA==","event":"x.call.extra","params":{"callId":"AQID","extraInfo":{"rtcExtraInfo":"x"},"future":[1,{"a":null}]}}"#
        let m = try Self.decodeOne(text)
        guard case .unknown(let event, let params) = m.event else {
            Issue.record("not unknown")
            return
        }
        #expect(event == "x.call.extra")
        #expect(params["callId"] == .string("AQID"))
        #expect(try Self.json(m.encoded()) == Self.json(text))
        // A tag we have never heard of, as long as it is in the `x` namespace.
        let future = try Self.decodeOne(#"{"event":"x.poll.vote","params":{"option":2}}"#)
        #expect(future.event == .unknown(event: "x.poll.vote", params: ["option": .int(2)]))
    }

    @Test func versionRanges() throws {
        #expect(try Self.decodeOne(#"{"v":"16","event":"x.ok","params":{}}"#).chatVRange == VersionRange(16))
        #expect(try Self.decodeOne(#"{"v":"1-16","event":"x.ok","params":{}}"#).chatVRange == VersionRange(1...16))
        #expect(try ChatMessage(chatVRange: VersionRange(7), event: .ok).encodedString() == #"{"v":"7","event":"x.ok","params":{}}"#)
        for bad in ["16-1", "", "a", "1-", "-1", "1-2-3", "99999999"] {
            #expect(Self.decodeError(#"{"v":"\#(bad)","event":"x.ok","params":{}}"#) == .invalidVersionRange(bad), "\(bad)")
        }
        #expect(Self.decodeError(#"{"v":16,"event":"x.ok","params":{}}"#) == .wrongType(path: "v", expected: "string"))
    }

    // MARK: shared message IDs

    @Test func sharedMsgIdsAreMadeAsSimplexChatMakesThem() throws {
        let a = SharedMsgId.random()
        let b = SharedMsgId.random()
        #expect(a != b)
        // The bytes are the base64url text of 12 random bytes ...
        #expect(a.bytes.count == 16)
        let inner = String(decoding: a.bytes, as: UTF8.self)
        #expect(ProtocolBase64.decode(inner)?.count == SharedMsgId.randomByteCount)
        // ... and the wire form is base64url of those bytes, padded: 24 characters ending "==".
        #expect(a.base64url.count == 24 && a.base64url.hasSuffix("=="))
        let m = try ChatMessage.decode(ChatMessage(msgId: a, event: .ok).encoded())
        #expect(m.msgId == a)
        #expect(MemberId.random().bytes.count == 16)
    }

    @Test func base64urlIDs() throws {
        #expect(SharedMsgId(base64url: "AQIDBA==") == Self.id1234)
        // Padding is optional on input, always written on output.
        #expect(SharedMsgId(base64url: "AQIDBA") == Self.id1234)
        #expect(Self.id1234.base64url == "AQIDBA==")
        #expect(SharedMsgId(base64url: "-_-_")?.bytes == [0xFB, 0xFF, 0xBF])
        for bad in ["", "====", "AQID+A==", "AQI/", "A", "AQIDBA===", "AQ ID"] {
            #expect(SharedMsgId(base64url: bad) == nil, "\(bad)")
        }
        #expect(Self.decodeError(#"{"msgId":"","event":"x.ok","params":{}}"#) == .invalidValue(path: "msgId", reason: "not a base64url string"))
        #expect(
            Self.decodeError(#"{"event":"x.msg.del","params":{"msgId":"a+b/"}}"#)
                == .invalidValue(path: "params.msgId", reason: "not a base64url string"))
    }

    // MARK: malformed input gives typed errors

    struct Malformed: Sendable, CustomTestStringConvertible {
        let name: String
        let body: String
        let error: ChatProtocolError
        var testDescription: String { name }
    }

    static let malformed: [Malformed] = [
        Malformed(name: "empty", body: "", error: .emptyBody),
        Malformed(name: "truncated", body: #"{"event":"x.msg.new","params":{"content":{"type":"te"#, error: .invalidJSON("")),
        Malformed(name: "not JSON", body: "hello", error: .invalidJSON("")),
        Malformed(name: "leading whitespace", body: #" {"event":"x.ok","params":{}}"#, error: .invalidJSON("")),
        Malformed(name: "trailing garbage", body: #"{"event":"x.ok","params":{}}}"#, error: .invalidJSON("")),
        Malformed(name: "no event", body: #"{"params":{}}"#, error: .missingField(path: "event")),
        Malformed(name: "event not a string", body: #"{"event":5,"params":{}}"#, error: .wrongType(path: "event", expected: "string")),
        Malformed(name: "event null", body: #"{"event":null,"params":{}}"#, error: .wrongType(path: "event", expected: "non-null string")),
        Malformed(name: "event outside x namespace", body: #"{"event":"hello","params":{}}"#, error: .invalidEvent("hello")),
        Malformed(name: "event with space", body: #"{"event":"x.msg new","params":{}}"#, error: .invalidEvent("x.msg new")),
        Malformed(name: "binary event tag in JSON", body: #"{"event":"F","params":{}}"#, error: .invalidEvent("F")),
        Malformed(name: "no params", body: #"{"event":"x.ok"}"#, error: .missingField(path: "params")),
        Malformed(name: "no params for unknown event", body: #"{"event":"x.grp.del"}"#, error: .missingField(path: "params")),
        Malformed(name: "params not an object", body: #"{"event":"x.ok","params":[]}"#, error: .wrongType(path: "params", expected: "object")),
        Malformed(name: "no content", body: #"{"event":"x.msg.new","params":{}}"#, error: .missingField(path: "params.content")),
        Malformed(
            name: "content text wrong type", body: #"{"event":"x.msg.new","params":{"content":{"type":"text","text":5}}}"#,
            error: .wrongType(path: "params.content.text", expected: "string")),
        Malformed(
            name: "content not an object", body: #"{"event":"x.msg.new","params":{"content":"hello"}}"#,
            error: .wrongType(path: "params.content", expected: "object")),
        Malformed(
            name: "ttl not a number", body: #"{"event":"x.msg.new","params":{"content":{"type":"text","text":"a"},"ttl":"1h"}}"#,
            error: .wrongType(path: "params.ttl", expected: "integer")),
        Malformed(
            name: "bad quote time", body: #"{"event":"x.msg.new","params":{"content":{"type":"text","text":"a"},"quote":{"msgRef":{"sentAt":"yesterday","sent":true},"content":{"type":"text","text":"b"}}}}"#,
            error: .invalidValue(path: "params.quote.msgRef.sentAt", reason: "")),
        Malformed(
            name: "unknown scope", body: #"{"event":"x.msg.del","params":{"msgId":"AQ==","scope":{"type":"everyone"}}}"#,
            error: .invalidValue(path: "params.scope.type", reason: "unknown message scope \"everyone\"")),
        Malformed(
            name: "react without add", body: #"{"event":"x.msg.react","params":{"msgId":"AQ==","reaction":{"type":"emoji","emoji":"👍"}}}"#,
            error: .missingField(path: "params.add")),
        Malformed(name: "profile missing", body: #"{"event":"x.info","params":{}}"#, error: .missingField(path: "params.profile")),
        Malformed(
            name: "mention without member", body: #"{"event":"x.msg.new","params":{"content":{"type":"text","text":"a"},"mentions":{"bob":{}}}}"#,
            error: .missingField(path: "params.mentions.bob.memberId")),
        Malformed(name: "group invitation missing", body: #"{"event":"x.grp.inv","params":{}}"#, error: .missingField(path: "params.groupInvitation")),
        Malformed(
            name: "group invitation without link",
            body: #"{"event":"x.grp.inv","params":{"groupInvitation":{"fromMember":{"memberId":"AQ==","memberRole":"owner"},"invitedMember":{"memberId":"Ag==","memberRole":"member"},"groupProfile":{"displayName":"g"}}}}"#,
            error: .missingField(path: "params.groupInvitation.connRequest")),
        Malformed(
            name: "unknown member role", body: #"{"event":"x.grp.mem.role","params":{"memberId":"AQ==","role":"king"}}"#,
            error: .invalidValue(path: "params.role", reason: "")),
        Malformed(name: "member ID not base64url", body: #"{"event":"x.grp.acpt","params":{"memberId":"a+b/"}}"#,
                  error: .invalidValue(path: "params.memberId", reason: "not a base64url string")),
        Malformed(
            name: "introduction without links", body: #"{"event":"x.grp.mem.inv","params":{"memberId":"AQ==","memberIntro":{}}}"#,
            error: .missingField(path: "params.memberIntro.groupConnReq")),
        Malformed(name: "restriction missing", body: #"{"event":"x.grp.mem.restrict","params":{"memberId":"AQ=="}}"#,
                  error: .missingField(path: "params.memberRestrictions")),
        Malformed(name: "top level array of one for single decode", body: #"[{"event":"x.ok","params":{}}]"#, error: .invalidJSON("")),
        Malformed(name: "binary batch", body: "=\u{1}\u{0}\u{2}{}", error: .unsupportedFormat(prefix: "=")),
        Malformed(name: "file chunk", body: "F\u{0}\u{0}\u{0}\u{1}abc", error: .unsupportedFormat(prefix: "F")),
        Malformed(name: "signed element", body: "/G\u{1}M", error: .unsupportedFormat(prefix: "/")),
    ]

    /// Compares errors by case and path; free-text reasons of the JSON parser are not compared.
    static func sameError(_ a: ChatProtocolError, _ b: ChatProtocolError) -> Bool {
        switch (a, b) {
        case (.invalidJSON, .invalidJSON): true
        case (.invalidValue(let p1, let r1), .invalidValue(let p2, let r2)): p1 == p2 && (r1.isEmpty || r2.isEmpty || r1 == r2)
        default: a == b
        }
    }

    @Test(arguments: malformed)
    func malformedInputGivesTypedError(_ c: Malformed) throws {
        // Both entry points agree (the body decoder reports the same error for a single message).
        let body = Data(c.body.utf8)
        var bodyError: ChatProtocolError?
        do {
            _ = try ChatMessageBody.decode(body)
        } catch {
            bodyError = error
        }
        var singleError: ChatProtocolError?
        do {
            _ = try ChatMessage.decode(body)
        } catch {
            singleError = error
        }
        let single = try #require(singleError, "decoded although malformed")
        #expect(Self.sameError(single, c.error), "got \(single)")
        if c.name != "top level array of one for single decode" {
            let b = try #require(bodyError, "body decoded although malformed")
            #expect(Self.sameError(b, c.error), "got \(b)")
        }
    }

    @Test func hugeAndDeepInputs() throws {
        // Over the body limit: rejected before parsing.
        let big = #"{"event":"x.msg.new","params":{"content":{"type":"text","text":""# + String(repeating: "a", count: 70_000) + #""}}}"#
        #expect(throws: ChatProtocolError.tooLarge(size: big.utf8.count, limit: ChatProtocolLimits.maxDecodedBodyLength)) {
            try ChatMessageBody.decode(big)
        }
        #expect(throws: ChatProtocolError.tooLarge(size: big.utf8.count, limit: ChatProtocolLimits.maxDecodedBodyLength)) {
            try ChatMessage.decode(big)
        }
        // Deeply nested params of an unknown event.
        let deep = #"{"event":"x.grp.foo","params":{"a":"# + String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000) + "}}"
        #expect(throws: ChatProtocolError.tooDeep(limit: ChatProtocolLimits.maxJSONDepth)) { try ChatMessage.decode(deep) }
        #expect(throws: ChatProtocolError.tooDeep(limit: ChatProtocolLimits.maxJSONDepth)) { try ChatMessageBody.decode("[" + deep + "]") }
        // Bytes that are not UTF-8.
        let notUTF8 = Data(#"{"event":"x.msg.new","params":{"content":{"type":"text","text":""#.utf8) + Data([0xFF, 0xFE]) + Data(#""}}}"#.utf8)
        #expect(throws: ChatProtocolError.self) { try ChatMessage.decode(notUTF8) }
        // Brackets inside strings do not count as nesting.
        let bracketText = String(repeating: "[{", count: 100)
        let m = try ChatMessage.decode(#"{"event":"x.msg.new","params":{"content":{"type":"text","text":"\#(bracketText)\"\\"}}}"#)
        #expect(m.event == .msgNew(MsgContainer(content: .text(bracketText + "\"\\"))))
    }

    // MARK: size limit when encoding

    @Test func encodedSizeLimit() throws {
        func message(_ n: Int) -> ChatMessage {
            ChatMessage(chatVRange: VersionRange(1...16), msgId: Self.id1234, event: .msgNew(MsgContainer(content: .text(String(repeating: "a", count: n)))))
        }
        let overhead = try message(0).encoded().count
        let limit = ChatProtocolLimits.maxEncodedMsgLength
        #expect(limit == 15_602)
        // Exactly at the limit is allowed; one byte more is not.
        #expect(try message(limit - overhead).encoded().count == limit)
        #expect(throws: ChatProtocolError.tooLarge(size: limit + 1, limit: limit)) { try message(limit - overhead + 1).encoded() }
        // Multi-byte text counts in UTF-8 bytes.
        let emoji = ChatMessage(event: .msgNew(MsgContainer(content: .text(String(repeating: "😀", count: 4000)))))
        #expect(throws: ChatProtocolError.tooLarge(size: try emoji.encoded(maxSize: nil).count, limit: limit)) { try emoji.encoded() }
        // A custom limit, and none.
        #expect(throws: ChatProtocolError.tooLarge(size: overhead + 10, limit: 20)) { try message(10).encoded(maxSize: 20) }
        #expect(try message(20_000).encoded(maxSize: nil).count == overhead + 20_000)
        // An event tag simplex-chat would reject is not sent.
        #expect(throws: ChatProtocolError.invalidEvent("grp.foo")) { try ChatMessage(event: .unknown(event: "grp.foo", params: [:])).encoded() }
    }

    // MARK: batches

    @Test func decodesArraysOfMessages() throws {
        let body = #"[{"v":"1-16","msgId":"AQIDBA==","event":"x.msg.new","params":{"content":{"type":"text","text":"one"}}},{"event":"x.msg.del","params":{"msgId":"AQIDBA=="}},{"event":"x.grp.leave","params":{}}]"#
        let results = try ChatMessageBody.decode(body)
        let messages = try results.map { try $0.get() }
        #expect(
            messages == [
                ChatMessage(chatVRange: VersionRange(1...16), msgId: Self.id1234, event: .msgNew(MsgContainer(content: .text("one")))),
                ChatMessage(event: .msgDel(msgId: Self.id1234)),
                ChatMessage(event: .grpLeave),
            ])
        // A single message body gives one result.
        #expect(try ChatMessageBody.decode(#"{"event":"x.ok","params":{}}"#).map { try $0.get() } == [ChatMessage(event: .ok)])
        // An empty batch is no messages.
        #expect(try ChatMessageBody.decode("[]").isEmpty)
    }

    @Test func badElementsFailAlone() throws {
        let body = #"[{"event":"x.ok","params":{}},{"event":"x.msg.new","params":{}},7,{"event":"nope","params":{}},{"event":"x.direct.del","params":{}}]"#
        let results = try ChatMessageBody.decode(body)
        #expect(results.count == 5)
        #expect(try results[0].get() == ChatMessage(event: .ok))
        #expect(results[1].failure == .missingField(path: "[1].params.content"))
        #expect(results[2].failure == .wrongType(path: "[2]", expected: "object"))
        #expect(results[3].failure == .invalidEvent("nope"))
        #expect(try results[4].get() == ChatMessage(event: .directDel))
        // A batch that is not valid JSON as a whole fails as a whole.
        #expect(throws: ChatProtocolError.self) { try ChatMessageBody.decode(#"[{"event":"x.ok","params":{}},"#) }
    }

    @Test func batchesMessagesWithinTheLimit() throws {
        let texts = (0..<50).map { "message \($0) " + String(repeating: "x", count: 900) }
        let messages = texts.map { ChatMessage(chatVRange: VersionRange(1...16), msgId: .random(), event: .msgNew(MsgContainer(content: .text($0)))) }
        let batches = ChatMessageBody.encode(messages)
        #expect(batches.count > 1)
        var seen: [Int] = []
        var decoded: [ChatMessage] = []
        for r in batches {
            let b = try r.get()
            #expect(b.body.count <= ChatProtocolLimits.maxEncodedMsgLength)
            seen += b.messageIndices
            decoded += try ChatMessageBody.decode(b.body).map { try $0.get() }
        }
        // Every message, once, in order.
        #expect(seen == Array(0..<50))
        #expect(decoded == messages)
        // Filled from the end, as simplex-chat's foldr: every batch but the first is full (the
        // message before it would not have fitted), and the first holds what is left.
        let encoded = try messages.map { try $0.encoded() }
        for r in batches.dropFirst() {
            let b = try r.get()
            let before = try #require(b.messageIndices.first) - 1
            let withPrevious = b.messageIndices.reduce(0) { $0 + encoded[$1].count } + encoded[before].count
            #expect(ChatMessageBody.batchLength(withPrevious, count: b.messageIndices.count + 1) > ChatProtocolLimits.maxEncodedMsgLength)
        }
    }

    @Test func batchShapes() throws {
        let a = try ChatMessage(event: .ok).encoded()
        let b = try ChatMessage(event: .directDel).encoded()
        // One message is sent as itself, several as an array.
        #expect(ChatMessageBody.batch([a]).map { try? $0.get() } == [ChatMessageBatch(body: a, messageIndices: [0])])
        let two = try #require(try ChatMessageBody.batch([a, b]).first?.get())
        #expect(String(decoding: two.body, as: UTF8.self) == #"[{"event":"x.ok","params":{}},{"event":"x.direct.del","params":{}}]"#)
        #expect(two.body.count == ChatMessageBody.batchLength(a.count + b.count, count: 2))
        #expect(ChatMessageBody.batch([]).isEmpty)
        // A message too large on its own fails in its place; the others are still sent.
        let big = Data(repeating: UInt8(ascii: "a"), count: 100)
        let results = ChatMessageBody.batch([a, big, b], maxSize: 60)
        #expect(results.count == 3)
        #expect(try results[0].get() == ChatMessageBatch(body: a, messageIndices: [0]))
        #expect(results[1].failure == .tooLarge(size: 100, limit: 60))
        #expect(try results[2].get() == ChatMessageBatch(body: b, messageIndices: [2]))
        // Exactly at the limit fits.
        let exact = ChatMessageBody.batchLength(a.count + b.count, count: 2)
        #expect(try ChatMessageBody.batch([a, b], maxSize: exact).map { try $0.get().messageIndices } == [[0, 1]])
        #expect(try ChatMessageBody.batch([a, b], maxSize: exact - 1).map { try $0.get().messageIndices } == [[0], [1]])
    }

    @Test func encodeReportsUnencodableMessagesInPlace() throws {
        let ok = ChatMessage(event: .ok)
        let bad = ChatMessage(event: .unknown(event: "bad tag", params: [:]))
        let results = ChatMessageBody.encode([ok, bad, ok])
        #expect(results.count == 3)
        #expect(try results[0].get().messageIndices == [0])
        #expect(results[1].failure == .invalidEvent("bad tag"))
        #expect(try results[2].get().messageIndices == [2])
    }
}

extension Result {
    /// The error, or nil on success (test convenience).
    fileprivate var failure: Failure? {
        if case .failure(let e) = self { return e }
        return nil
    }
}
