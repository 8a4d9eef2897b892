/// The `params` of `x.msg.new`: the content plus how it relates to other messages. `quote`,
/// `parent` and `forward` are independent (a comment may quote another comment), as in
/// simplex-chat's merged container.
public struct MsgContainer: Codable, Sendable, Hashable {
    public var content: MsgContent
    /// Names used in the text (`@name`) to the members they mention; omitted on the wire when empty.
    public var mentions: [String: MsgMention]
    public var file: FileInvitation?
    /// Disappearing message: seconds after reading.
    public var ttl: Int?
    /// A live message, updated while being typed.
    public var live: Bool?
    public var scope: MsgScope?
    /// Sent by a channel owner on behalf of the channel.
    public var asGroup: Bool?
    /// The message this one replies to.
    public var quote: QuotedMsg?
    /// The channel post this message comments on (chat version 18).
    public var parent: MsgRef?
    /// Forwarded from another chat. Peers also send `"forward": {...}` (public group links) or
    /// `false`; both read as true and false respectively, and only `true` is written.
    public var forward: Bool

    public init(
        content: MsgContent, mentions: [String: MsgMention] = [:], file: FileInvitation? = nil,
        ttl: Int? = nil, live: Bool? = nil, scope: MsgScope? = nil, asGroup: Bool? = nil,
        quote: QuotedMsg? = nil, parent: MsgRef? = nil, forward: Bool = false
    ) {
        self.content = content
        self.mentions = mentions
        self.file = file
        self.ttl = ttl
        self.live = live
        self.scope = scope
        self.asGroup = asGroup
        self.quote = quote
        self.parent = parent
        self.forward = forward
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: ChatProtocolKey.self)
        content = try c.req("content")
        mentions = try c.opt("mentions") ?? [:]
        file = try c.opt("file")
        ttl = try c.opt("ttl")
        live = try c.opt("live")
        scope = try c.opt("scope")
        asGroup = try c.opt("asGroup")
        quote = try c.opt("quote")
        parent = try c.opt("parent")
        forward = try Self.decodeForward(c)
    }

    /// Absent or null: not forwarded; a boolean as is; an object (legacy forward info): forwarded.
    private static func decodeForward(_ c: ProtocolDecodingContainer) throws -> Bool {
        let key = ChatProtocolKey("forward")
        guard c.contains(key), try !c.decodeNil(forKey: key) else { return false }
        if let b = try? c.decode(Bool.self, forKey: key) { return b }
        if (try? c.nestedContainer(keyedBy: ChatProtocolKey.self, forKey: key)) != nil { return true }
        throw DecodingError.typeMismatch(
            Bool.self,
            DecodingError.Context(codingPath: c.codingPath + [key], debugDescription: "forward must be a boolean or an object"))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: ChatProtocolKey.self)
        try c.set(content, "content")
        if !mentions.isEmpty { try c.set(mentions, "mentions") }
        try c.set(file, "file")
        try c.set(ttl, "ttl")
        try c.set(live, "live")
        try c.set(scope, "scope")
        try c.set(asGroup, "asGroup")
        try c.set(quote, "quote")
        try c.set(parent, "parent")
        if forward { try c.set(true, "forward") }
    }
}
