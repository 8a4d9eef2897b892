/// The content of a message (TYPES.md MsgContent). Every kind carries `text`; a kind this
/// version does not know is kept whole and re-encoded exactly as received, as simplex-chat does.
public enum MsgContent: Sendable, Hashable, Codable {
    case text(String)
    case link(text: String, preview: LinkPreview)
    /// `image` is a `data:image/...;base64,` preview.
    case image(text: String, image: String)
    case video(text: String, image: String, duration: Int)
    case voice(text: String, duration: Int)
    case file(text: String)
    case report(text: String, reason: ReportReason)
    case chat(text: String, chatLink: MsgChatLink)
    /// `json` is the whole received object; `text` is its text or simplex-chat's placeholder.
    case unknown(tag: String, text: String, json: [String: JSONValue])

    /// What simplex-chat shows for content it cannot read.
    public static let unknownMsgType = "unknown message type"

    public var text: String {
        switch self {
        case .text(let t): t
        case .link(let t, _), .image(let t, _), .video(let t, _, _), .voice(let t, _), .file(let t),
            .report(let t, _), .chat(let t, _), .unknown(_, let t, _):
            t
        }
    }

    /// The `type` tag (simplex-chat `MsgContentTag`).
    public var tag: String {
        switch self {
        case .text: "text"
        case .link: "link"
        case .image: "image"
        case .video: "video"
        case .voice: "voice"
        case .file: "file"
        case .report: "report"
        case .chat: "chat"
        case .unknown(let tag, _, _): tag
        }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        let tag = try c.tag()
        switch tag {
        case "text": self = try .text(c.v("text"))
        case "link": self = try .link(text: c.v("text"), preview: c.v("preview"))
        case "image": self = try .image(text: c.v("text"), image: c.v("image"))
        case "video": self = try .video(text: c.v("text"), image: c.v("image"), duration: c.v("duration"))
        case "voice": self = try .voice(text: c.v("text"), duration: c.v("duration"))
        case "file": self = try .file(text: c.v("text"))
        case "report": self = try .report(text: c.v("text"), reason: c.v("reason"))
        case "chat": self = try .chat(text: c.v("text"), chatLink: c.v("chatLink"))
        default:
            let json = try rawJSON(decoder).objectValue ?? [:]
            self = .unknown(tag: tag, text: json["text"]?.stringValue ?? Self.unknownMsgType, json: json)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        if case .unknown(_, _, let json) = self {
            try JSONValue.object(json).encode(to: encoder)
            return
        }
        var c = encoder.container(keyedBy: JSONKey.self)
        try c.tag(tag)
        try c.put(text, "text")
        switch self {
        case .link(_, let preview): try c.put(preview, "preview")
        case .image(_, let image): try c.put(image, "image")
        case .video(_, let image, let duration):
            try c.put(image, "image")
            try c.put(duration, "duration")
        case .voice(_, let duration): try c.put(duration, "duration")
        case .report(_, let reason): try c.put(reason, "reason")
        case .chat(_, let link): try c.put(link, "chatLink")
        case .text, .file, .unknown: break
        }
    }
}

/// A link preview (TYPES.md LinkPreview).
public struct LinkPreview: Codable, Sendable, Hashable {
    public var uri: String
    public var title: String
    public var description: String
    public var image: String
    public var content: LinkContent?

    public init(uri: String, title: String, description: String = "", image: String, content: LinkContent? = nil) {
        self.uri = uri
        self.title = title
        self.description = description
        self.image = image
        self.content = content
    }
}

/// What a previewed link points to (TYPES.md LinkContent); unknown kinds are kept raw.
public enum LinkContent: Sendable, Hashable, Codable {
    case page
    case image
    case video(duration: Int?)
    case unknown(tag: String, json: [String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        let tag = try c.tag()
        switch tag {
        case "page": self = .page
        case "image": self = .image
        case "video": self = try .video(duration: c.opt("duration"))
        default: self = .unknown(tag: tag, json: try rawJSON(decoder).objectValue ?? [:])
        }
    }

    public func encode(to encoder: any Encoder) throws {
        if case .unknown(_, let json) = self {
            try JSONValue.object(json).encode(to: encoder)
            return
        }
        var c = encoder.container(keyedBy: JSONKey.self)
        switch self {
        case .page: try c.tag("page")
        case .image: try c.tag("image")
        case .video(let d):
            try c.tag("video")
            try c.put(d, "duration")
        case .unknown: break
        }
    }
}

/// TYPES.md ReportReason.
public enum ReportReason: String, Codable, Sendable, Hashable {
    case spam, content, community, profile, other
}

/// A connection link shared as a message card; only short links (TYPES.md MsgChatLink).
public enum MsgChatLink: Sendable, Hashable, Codable {
    case contact(connLink: String, profile: Profile, business: Bool)
    case invitation(invLink: String, profile: Profile)
    case group(connLink: String, groupProfile: GroupProfile)

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        switch try c.tag() {
        case "contact": self = try .contact(connLink: c.v("connLink"), profile: c.v("profile"), business: c.v("business"))
        case "invitation": self = try .invitation(invLink: c.v("invLink"), profile: c.v("profile"))
        case "group": self = try .group(connLink: c.v("connLink"), groupProfile: c.v("groupProfile"))
        case let t: throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "unknown MsgChatLink \(t)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONKey.self)
        switch self {
        case .contact(let link, let profile, let business):
            try c.tag("contact")
            try c.put(link, "connLink")
            try c.put(profile, "profile")
            try c.put(business, "business")
        case .invitation(let link, let profile):
            try c.tag("invitation")
            try c.put(link, "invLink")
            try c.put(profile, "profile")
        case .group(let link, let profile):
            try c.tag("group")
            try c.put(link, "connLink")
            try c.put(profile, "groupProfile")
        }
    }
}

/// A message reaction (TYPES.md MsgReaction). Only the emoji simplex-chat accepts are `emoji`;
/// any other reaction (including other emoji) decodes as `unknown` and is re-encoded unchanged.
public enum MsgReaction: Sendable, Hashable, Codable {
    case emoji(String)
    case unknown(tag: String, json: [String: JSONValue])

    /// The single code points simplex-chat allows (its `mrEmojiChar`).
    public static let allowedEmoji: Set<Unicode.Scalar> = ["👍", "👎", "😀", "😂", "😢", "\u{2764}", "\u{FE0F}", "🚀", "✅"]

    /// An allowed emoji reaction, or nil.
    public static func emojiReaction(_ s: String) -> MsgReaction? {
        guard s.unicodeScalars.count == 1, let u = s.unicodeScalars.first, allowedEmoji.contains(u) else { return nil }
        return .emoji(s)
    }

    public var isKnown: Bool {
        if case .emoji = self { return true }
        return false
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        let tag = try c.tag()
        if tag == "emoji", let e = try? c.v("emoji", as: String.self), let r = MsgReaction.emojiReaction(e) {
            self = r
        } else {
            self = .unknown(tag: tag, json: try rawJSON(decoder).objectValue ?? [:])
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .emoji(let e):
            var c = encoder.container(keyedBy: JSONKey.self)
            try c.tag("emoji")
            try c.put(e, "emoji")
        case .unknown(_, let json):
            try JSONValue.object(json).encode(to: encoder)
        }
    }
}

/// A file reference, optionally encrypted at rest (TYPES.md CryptoFile).
public struct CryptoFile: Codable, Sendable, Hashable {
    public var filePath: String
    public var cryptoArgs: CryptoFileArgs?
    public init(filePath: String, cryptoArgs: CryptoFileArgs? = nil) {
        self.filePath = filePath
        self.cryptoArgs = cryptoArgs
    }
}

/// TYPES.md CryptoFileArgs.
public struct CryptoFileArgs: Codable, Sendable, Hashable {
    public var fileKey: String
    public var fileNonce: String
    public init(fileKey: String, fileNonce: String) {
        self.fileKey = fileKey
        self.fileNonce = fileNonce
    }
}

/// One message to send (TYPES.md ComposedMessage). `mentions` maps names used in the text to
/// group member IDs.
public struct ComposedMessage: Codable, Sendable, Hashable {
    public var fileSource: CryptoFile?
    public var quotedItemId: Int64?
    public var msgContent: MsgContent
    public var mentions: [String: Int64]

    public init(fileSource: CryptoFile? = nil, quotedItemId: Int64? = nil, msgContent: MsgContent, mentions: [String: Int64] = [:]) {
        self.fileSource = fileSource
        self.quotedItemId = quotedItemId
        self.msgContent = msgContent
        self.mentions = mentions
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        // simplex-chat still accepts the older plain `filePath`.
        if let f: CryptoFile = try c.opt("fileSource") {
            fileSource = f
        } else {
            fileSource = try c.opt("filePath", as: String.self).map { CryptoFile(filePath: $0) }
        }
        quotedItemId = try c.opt("quotedItemId")
        msgContent = try c.v("msgContent")
        mentions = try c.v("mentions", default: [:])
    }
}

/// The new content of an edited message (TYPES.md UpdatedMessage).
public struct UpdatedMessage: Codable, Sendable, Hashable {
    public var msgContent: MsgContent
    public var mentions: [String: Int64]

    public init(msgContent: MsgContent, mentions: [String: Int64] = [:]) {
        self.msgContent = msgContent
        self.mentions = mentions
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        msgContent = try c.v("msgContent")
        mentions = try c.v("mentions", default: [:])
    }
}
