/// Any link a user can paste: a full link or a short one (simplexmq `AConnectionLink`).
public enum ConnectionLink: Sendable, Hashable {
    case full(ConnectionRequestURI)
    case short(ShortLink)

    /// Longest link we parse (64 KiB), so hostile input costs bounded work.
    public static let maxLength = 65536

    /// Trims surrounding whitespace, then parses either kind by the link's path.
    public init(parsing s: String) throws(LinkError) {
        guard s.utf8.count <= Self.maxLength * 2 else { throw .tooLong(s.utf8.count) }
        let trimmed = Self.trimmed(s)
        try LinkSyntax.checkInput(trimmed)
        let prefix = try LinkPrefix(trimmed)
        if let mode = ConnectionMode(rawValue: String(prefix.path)) {
            self = .full(try ConnectionRequestURI(prefix: prefix, mode: mode))
        } else {
            self = .short(try ShortLink(prefix: prefix))
        }
    }

    public var uriString: String {
        switch self {
        case .full(let l): l.uriString
        case .short(let l): l.uriString
        }
    }

    public var mode: ConnectionMode {
        switch self {
        case .full(let l): l.mode
        case .short(let l): l.mode
        }
    }

    private static func trimmed(_ s: String) -> Substring {
        let isSpace: (Character) -> Bool = { $0.isWhitespace || $0.isNewline }
        var t = Substring(s)
        while let f = t.first, isSpace(f) { t = t.dropFirst() }
        while let l = t.last, isSpace(l) { t = t.dropLast() }
        return t
    }
}

extension ConnectionLink: CustomStringConvertible {
    public var description: String { uriString }
}
