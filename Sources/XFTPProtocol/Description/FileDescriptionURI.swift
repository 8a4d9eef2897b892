/// A file description as a link (`FileDescriptionURI`): `simplex:/file#/?desc=<YAML>[&data=<JSON>]`
/// with both values URL-escaped; `https://host[:port]` may replace `simplex:`.
public struct FileDescriptionURI: Sendable, Equatable {
    public enum Scheme: Sendable, Equatable {
        case simplex
        /// An app server (`SSAppServer`): host and optional port.
        case appServer(host: String, port: String)
    }

    public var scheme: Scheme
    /// A validated recipient description.
    public var description: FileDescription
    /// JSON extensions passed in the link.
    public var clientData: String?

    public init(scheme: Scheme = .simplex, description: FileDescription, clientData: String? = nil) {
        self.scheme = scheme
        self.description = description
        self.clientData = clientData
    }

    public var uri: String {
        let schemeText: String
        switch scheme {
        case .simplex: schemeText = "simplex:"
        case .appServer(let host, let port): schemeText = "https://" + host + (port.isEmpty ? "" : ":\(port)")
        }
        var q: [(String, String)] = [("desc", description.yaml)]
        if let clientData { q.append(("data", clientData)) }
        return schemeText + "/file#/?" + QueryString.render(q)
    }

    public enum ParseError: Error, Equatable, Sendable {
        case syntax
        case noDescription
        case description(FileDescription.ParseError)
        case invalid(FileDescription.ValidationError)
    }

    public init(parsing s: String) throws(ParseError) {
        var rest = Substring(s)
        if rest.hasPrefix("simplex:") {
            scheme = .simplex
            rest = rest.dropFirst("simplex:".count)
        } else if rest.hasPrefix("https://") {
            rest = rest.dropFirst("https://".count)
            let loc = rest.prefix { !":#,;/ ".contains($0) }
            guard !loc.isEmpty else { throw .syntax }
            rest = rest.dropFirst(loc.count)
            var port = ""
            if rest.hasPrefix(":") {
                let digits = rest.dropFirst().prefix { $0.isASCII && $0.isNumber }
                guard let n = Int(digits) else { throw .syntax }
                port = String(n)
                rest = rest.dropFirst(1 + digits.count)
            }
            scheme = .appServer(host: String(loc), port: port)
        } else {
            throw .syntax
        }
        guard rest.hasPrefix("/file") else { throw .syntax }
        rest = rest.dropFirst("/file".count)
        if rest.hasPrefix("/") { rest = rest.dropFirst() }
        guard rest.hasPrefix("#/?") else { throw .syntax }
        rest = rest.dropFirst(3)
        let query = QueryString.parse(String(rest.prefix { $0 != " " && $0 != "\n" }))
        guard let desc = query.first(where: { $0.0 == "desc" })?.1 else { throw .noDescription }
        let fd: FileDescription
        do {
            fd = try FileDescription(yaml: desc)
        } catch {
            throw .description(error)
        }
        do {
            try fd.validate()
        } catch {
            throw .invalid(error)
        }
        guard fd.party == .recipient else { throw .invalid(.wrongParty) }
        description = fd
        clientData = query.first(where: { $0.0 == "data" })?.1
    }
}

/// `application/x-www-form-urlencoded`-style query strings as http-types renders them
/// (`renderSimpleQuery`): only letters, digits and `-_.~` stay unescaped, `%XX` in upper case.
public enum QueryString {
    public static func render(_ q: [(String, String)]) -> String {
        q.map { escape($0.0) + "=" + escape($0.1) }.joined(separator: "&")
    }

    public static func escape(_ s: String) -> String {
        var out = ""
        let hex = Array("0123456789ABCDEF")
        for b in s.utf8 {
            if (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39) || "-_.~".utf8.contains(b) {
                out.unicodeScalars.append(Unicode.Scalar(b))
            } else {
                out.append("%")
                out.append(hex[Int(b >> 4)])
                out.append(hex[Int(b & 15)])
            }
        }
        return out
    }

    /// `parseSimpleQuery`: pairs split on '&' or ';', '+' is a space, `%XX` decoded.
    public static func parse(_ s: String) -> [(String, String)] {
        var t = Substring(s)
        if t.hasPrefix("?") { t = t.dropFirst() }
        return t.split(whereSeparator: { $0 == "&" || $0 == ";" }).map { part in
            let kv = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (unescape(kv[0]), kv.count > 1 ? unescape(kv[1]) : "")
        }
    }

    public static func unescape(_ s: Substring) -> String {
        var bytes: [UInt8] = []
        let u = Array(s.utf8)
        var i = 0
        while i < u.count {
            let c = u[i]
            if c == UInt8(ascii: "+") {
                bytes.append(0x20)
            } else if c == UInt8(ascii: "%"), i + 2 < u.count, let h = hexValue(u[i + 1]), let l = hexValue(u[i + 2]) {
                bytes.append(h << 4 | l)
                i += 2
            } else {
                bytes.append(c)
            }
            i += 1
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: c - 0x30
        case 0x41...0x46: c - 0x37
        case 0x61...0x66: c - 0x57
        default: nil
        }
    }
}
