/// A reference to an earlier message, used in quotes (replies) and channel comments. `memberId`
/// names the group member who sent it; simplex-chat omits it for direct chats and channel posts.
public struct MsgRef: Codable, Sendable, Hashable {
    /// Absent when the referenced message had no shared ID.
    public var msgId: SharedMsgId?
    public var sentAt: UTCTime
    /// Whether the referenced message was sent by the author of the referencing message.
    public var sent: Bool
    public var memberId: MemberId?

    public init(msgId: SharedMsgId?, sentAt: UTCTime, sent: Bool, memberId: MemberId? = nil) {
        self.msgId = msgId
        self.sentAt = sentAt
        self.sent = sent
        self.memberId = memberId
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: ChatProtocolKey.self)
        msgId = try c.opt("msgId")
        sentAt = try c.req("sentAt")
        sent = try c.req("sent")
        memberId = try c.opt("memberId")
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: ChatProtocolKey.self)
        try c.set(msgId, "msgId")
        try c.set(sentAt, "sentAt")
        try c.set(sent, "sent")
        try c.set(memberId, "memberId")
    }
}

/// The quoted message of a reply: its reference and a copy of its content, so the recipient can
/// show the quote even without the original.
public struct QuotedMsg: Codable, Sendable, Hashable {
    public var msgRef: MsgRef
    public var content: MsgContent

    public init(msgRef: MsgRef, content: MsgContent) {
        self.msgRef = msgRef
        self.content = content
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: ChatProtocolKey.self)
        msgRef = try c.req("msgRef")
        content = try c.req("content")
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: ChatProtocolKey.self)
        try c.set(msgRef, "msgRef")
        try c.set(content, "content")
    }
}

/// A mention in message text: the `mentions` map's key is the name used in the text (made unique
/// per message with `_1`, `_2` suffixes), the value names the member.
public struct MsgMention: Codable, Sendable, Hashable {
    public var memberId: MemberId

    public init(memberId: MemberId) { self.memberId = memberId }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: ChatProtocolKey.self)
        memberId = try c.req("memberId")
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: ChatProtocolKey.self)
        try c.set(memberId, "memberId")
    }
}

/// Where in a group a message belongs (chat version 15+): `member` is the private support chat
/// with that member. Any other `type` is an error, as in simplex-chat, so a scoped message is never
/// shown to the whole group by mistake.
public enum MsgScope: Codable, Sendable, Hashable {
    case member(memberId: MemberId)

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: ChatProtocolKey.self)
        let type = try c.req("type", as: String.self)
        guard type == "member" else {
            throw DecodingError.dataCorruptedError(
                forKey: ChatProtocolKey("type"), in: c, debugDescription: "unknown message scope \"\(type)\"")
        }
        self = .member(memberId: try c.req("memberId"))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: ChatProtocolKey.self)
        switch self {
        case .member(let memberId):
            try c.set("member", "type")
            try c.set(memberId, "memberId")
        }
    }
}

/// Per-message preferences sent with an edit (chat version 18): `commentsDisabled` locks
/// commenting on a channel post.
public struct MsgPrefs: Codable, Sendable, Hashable {
    public var commentsDisabled: Bool

    public init(commentsDisabled: Bool) { self.commentsDisabled = commentsDisabled }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: ChatProtocolKey.self)
        commentsDisabled = try c.req("commentsDisabled")
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: ChatProtocolKey.self)
        try c.set(commentsDisabled, "commentsDisabled")
    }
}
