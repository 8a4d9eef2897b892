/// Markdown formats the core finds in message text (TYPES.md Format, FormattedText, Color,
/// SimplexLinkType); apps render the fragments instead of re-parsing the text.

/// A text color (TYPES.md Color).
public enum FormatColor: String, Codable, Sendable, Hashable {
    case black, red, green, yellow, blue, magenta, cyan, white
}

/// What a SimpleX link connects to (TYPES.md SimplexLinkType).
public enum SimplexLinkType: String, Codable, Sendable, Hashable {
    case contact, invitation, group, channel, relay
}

/// One fragment's format (TYPES.md Format); formats from newer versions are kept raw.
public enum Format: Sendable, Hashable, Codable {
    case bold
    case italic
    case strikeThrough
    case snippet
    case secret
    case colored(color: FormatColor)
    case uri
    /// `[text](https://...)`.
    case hyperLink(showText: String?, linkUri: String)
    /// `simplexUri` is the link in its `simplex:` form; `smpHosts` are the servers it uses.
    case simplexLink(showText: String?, linkType: SimplexLinkType, simplexUri: String, smpHosts: [String])
    /// A bot command, `/name params`.
    case command(commandStr: String)
    case mention(memberName: String)
    case email
    case phone
    case unknown(JSONValue)

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        let parsed: Format?
        switch try c.tag() {
        case "bold": parsed = .bold
        case "italic": parsed = .italic
        case "strikeThrough": parsed = .strikeThrough
        case "snippet": parsed = .snippet
        case "secret": parsed = .secret
        case "colored": parsed = (try? c.v("color", as: FormatColor.self)).map { .colored(color: $0) }
        case "uri": parsed = .uri
        case "hyperLink": parsed = try? .hyperLink(showText: c.opt("showText"), linkUri: c.v("linkUri"))
        case "simplexLink":
            parsed = try? .simplexLink(
                showText: c.opt("showText"), linkType: c.v("linkType"), simplexUri: c.v("simplexUri"),
                smpHosts: c.v("smpHosts"))
        case "command": parsed = (try? c.v("commandStr", as: String.self)).map { .command(commandStr: $0) }
        case "mention": parsed = (try? c.v("memberName", as: String.self)).map { .mention(memberName: $0) }
        case "email": parsed = .email
        case "phone": parsed = .phone
        default: parsed = nil
        }
        // Like simplex-chat, a format that does not parse is kept as `unknown`, not an error.
        self = try parsed ?? .unknown(rawJSON(decoder))
    }

    public func encode(to encoder: any Encoder) throws {
        if case .unknown(let json) = self {
            try json.encode(to: encoder)
            return
        }
        var c = encoder.container(keyedBy: JSONKey.self)
        switch self {
        case .bold: try c.tag("bold")
        case .italic: try c.tag("italic")
        case .strikeThrough: try c.tag("strikeThrough")
        case .snippet: try c.tag("snippet")
        case .secret: try c.tag("secret")
        case .colored(let color):
            try c.tag("colored")
            try c.put(color, "color")
        case .uri: try c.tag("uri")
        case .hyperLink(let showText, let linkUri):
            try c.tag("hyperLink")
            try c.put(showText, "showText")
            try c.put(linkUri, "linkUri")
        case .simplexLink(let showText, let linkType, let simplexUri, let smpHosts):
            try c.tag("simplexLink")
            try c.put(showText, "showText")
            try c.put(linkType, "linkType")
            try c.put(simplexUri, "simplexUri")
            try c.put(smpHosts, "smpHosts")
        case .command(let s):
            try c.tag("command")
            try c.put(s, "commandStr")
        case .mention(let name):
            try c.tag("mention")
            try c.put(name, "memberName")
        case .email: try c.tag("email")
        case .phone: try c.tag("phone")
        case .unknown: break
        }
    }
}

/// A fragment of message text with its format, if any (TYPES.md FormattedText).
public struct FormattedText: Codable, Sendable, Hashable {
    public var format: Format?
    public var text: String

    public init(_ text: String, _ format: Format? = nil) {
        self.text = text
        self.format = format
    }
}
