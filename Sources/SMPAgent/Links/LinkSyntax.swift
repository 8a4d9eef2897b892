import SimplexFoundation

/// Lexical rules shared by the link parsers: input limits, strict base64url, and the query
/// strings of simplexmq (`QSP QEscape` renders, http-types `parseSimpleQuery` reads).
enum LinkSyntax {
    /// Checks the size and that every byte is printable ASCII: links made by simplexmq are
    /// fully percent-encoded, so anything else is garbage (or a homoglyph trick).
    static func checkInput(_ s: some StringProtocol) throws(LinkError) {
        let n = s.utf8.count
        guard n <= ConnectionLink.maxLength else { throw .tooLong(n) }
        guard n > 0 else { throw .malformed("empty link") }
        for c in s.utf8 where c < 0x21 || c > 0x7E {
            throw .malformed(c < 0x80 ? "control or space character in link" : "non-ASCII character in link")
        }
    }

    /// At most `limit` characters of untrusted text, for error messages.
    static func excerpt(_ s: some StringProtocol, limit: Int = 32) -> String {
        let t = String(s.prefix(limit))
        return s.count > limit ? t + "..." : t
    }

    /// Strict base64url (RFC 4648 §5) with optional "=" padding; nil for any other character,
    /// bad padding, or an impossible length. Standard-alphabet "+" and "/" are refused because
    /// "/" separates link components.
    static func base64url(_ s: some StringProtocol) -> [UInt8]? {
        let u = Array(s.utf8)
        var end = u.count
        while end > 0, u[end - 1] == UInt8(ascii: "=") { end -= 1 }
        let pad = u.count - end
        guard end > 0, pad <= 2 else { return nil }
        for c in u[0..<end] where !isBase64URLChar(c) { return nil }
        if pad > 0, u.count % 4 != 0 { return nil }
        if end % 4 == 1 { return nil }
        return Base64URL.decode(String(decoding: u[0..<end], as: UTF8.self))
    }

    static func isBase64URLChar(_ c: UInt8) -> Bool {
        (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z")) || (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z"))
            || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || c == UInt8(ascii: "-") || c == UInt8(ascii: "_")
    }

    /// A decoded parameter value as text, when it is printable ASCII (nested links and keys).
    static func asciiText(_ bytes: [UInt8]) -> String? {
        guard bytes.allSatisfy({ $0 >= 0x21 && $0 <= 0x7E }) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// A parsed query string: parameters in order, names and values percent-decoded. The first
/// occurrence of a name wins, as in simplexmq's `queryParamStr`.
struct LinkQuery {
    private(set) var params: [(name: String, value: [UInt8])] = []

    init() {}

    /// http-types `parseSimpleQuery`: pairs split on "&" or ";", name and value split at the
    /// first "=", "+" is a space. Unlike http-types, a broken "%" escape is an error.
    init(parsing s: some StringProtocol) throws(LinkError) {
        var query = Substring(s)
        if query.first == "?" { query = query.dropFirst() }
        for pair in query.split(whereSeparator: { $0 == "&" || $0 == ";" }) {
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = try LinkQuery.percentDecode(kv[0])
            let value = kv.count > 1 ? try LinkQuery.percentDecode(kv[1]) : []
            params.append((String(decoding: name, as: UTF8.self), value))
        }
    }

    func value(_ name: String) -> [UInt8]? { params.first(where: { $0.name == name })?.value }

    /// A value that must be printable ASCII (keys, versions, nested URIs).
    func text(_ name: String) throws(LinkError) -> String? {
        guard let v = value(name) else { return nil }
        guard let t = LinkSyntax.asciiText(v) else {
            throw .invalidParameter(name: name, reason: v.isEmpty ? "empty value" : "non-ASCII or space characters")
        }
        return t
    }

    func requiredText(_ name: String) throws(LinkError) -> String {
        guard let t = try text(name) else { throw .missingParameter(name) }
        return t
    }

    // MARK: rendering

    /// `QSP QEscape`: names and values percent-encoded except unreserved characters.
    static func render(_ params: [(String, [UInt8])]) -> String {
        params.map { escape(Array($0.0.utf8)) + "=" + escape($0.1) }.joined(separator: "&")
    }

    /// `QSP QNoEscaping`: values as they are (used by the e2e parameters, which are escaped
    /// once more when they are put into a link).
    static func renderUnescaped(_ params: [(String, String)]) -> String {
        params.map { $0.0 + "=" + $0.1 }.joined(separator: "&")
    }

    /// http-types `urlEncode False`: everything but `A-Z a-z 0-9 - . _ ~` becomes %XX (upper case).
    static func escape(_ bytes: [UInt8]) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 3 / 2)
        for b in bytes {
            if isUnreserved(b) {
                out.append(b)
            } else {
                out += [UInt8(ascii: "%"), hex[Int(b >> 4)], hex[Int(b & 15)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func isUnreserved(_ c: UInt8) -> Bool {
        LinkSyntax.isBase64URLChar(c) || c == UInt8(ascii: ".") || c == UInt8(ascii: "~")
    }

    static func percentDecode(_ s: some StringProtocol) throws(LinkError) -> [UInt8] {
        let u = Array(s.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(u.count)
        var i = 0
        while i < u.count {
            let c = u[i]
            if c == UInt8(ascii: "%") {
                guard i + 2 < u.count, let hi = hexValue(u[i + 1]), let lo = hexValue(u[i + 2]) else {
                    throw .malformed("bad percent escape")
                }
                out.append(hi << 4 | lo)
                i += 3
            } else {
                out.append(c == UInt8(ascii: "+") ? 0x20 : c)
                i += 1
            }
        }
        return out
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
