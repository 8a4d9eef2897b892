import Foundation
import SMPAgent
import SimplexFoundation

/// simplex-chat's message markdown (Markdown.hs): `*bold*`, `_italic_`, `~strike~`, `` `snippet` ``,
/// `#secret#`, `!1 colored!`, links, SimpleX links, `[text](url)`, `@mentions`, `/commands`,
/// emails and phone numbers. The core parses message text once so apps only render fragments.
public enum Markdown {
    /// The formatted fragments of `text`, or nil when nothing in it is formatted (simplex-chat
    /// `parseMaybeMarkdownList`). A one-line text starting with "/" is a bot command as a whole.
    /// Like simplex-chat, a final newline is not part of the result.
    public static func parse(_ text: String) -> [FormattedText]? {
        if isPlain(text) { return nil }
        let lines = splitLines(text)
        if lines.count == 1, let line = lines.first {
            let trimmed = line.drop(while: { $0 == " " })
            if let first = trimmed.first {
                let cmd = trimmed.dropFirst()
                if cmd.isEmpty { return nil }
                if first == "/" { return [FormattedText(line, .command(commandStr: String(cmd)))] }
            } else {
                return nil
            }
        }
        var out = FragmentList()
        for (n, line) in lines.enumerated() {
            if n > 0 { out.append("\n", nil) }
            var p = LineParser(Array(line.unicodeScalars), into: out)
            p.run()
            out = p.out
        }
        return out.items.contains(where: { $0.format != nil }) ? out.items : nil
    }

    /// Whether `text` certainly has nothing formatted, so `parse` is nil without running the
    /// parser (whose per-line tables cost more than a short message; issue 16): no character
    /// that starts a format, mention, command or link (`:` for URIs, `.` for domains, `@` for
    /// emails), and no run of digits and separators long enough (7) for a phone number.
    /// Conservative: text it refuses is parsed as before.
    static func isPlain(_ text: String) -> Bool {
        var run = 0
        for b in text.utf8 {
            switch b {
            case UInt8(ascii: "*"), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "`"), UInt8(ascii: "#"), UInt8(ascii: "!"),
                UInt8(ascii: "@"), UInt8(ascii: "/"), UInt8(ascii: "["), UInt8(ascii: "+"), UInt8(ascii: "."), UInt8(ascii: ":"):
                return false
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: " "), UInt8(ascii: "-"), UInt8(ascii: "("), UInt8(ascii: ")"):
                run += 1
                if run >= 7 { return false }
            default:
                run = 0
            }
        }
        return true
    }

    /// The fragments of one line (simplex-chat `parseMarkdownList`), formatted or not.
    public static func parseLine(_ line: String) -> [FormattedText] {
        var p = LineParser(Array(line.unicodeScalars), into: FragmentList())
        p.run()
        return p.out.items
    }

    /// Haskell's `T.lines`: split on "\n", a final newline ends the last line.
    static func splitLines(_ text: String) -> [String] {
        if text.isEmpty { return [] }
        var parts = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if text.hasSuffix("\n") { parts.removeLast() }
        return parts
    }
}

/// Fragments with simplex-chat's joining rules: empty text is dropped and neighbours with the
/// same format merge.
struct FragmentList {
    var items: [FormattedText] = []

    mutating func append(_ text: String, _ format: Format?) {
        guard !text.isEmpty else { return }
        if let last = items.last, last.format == format {
            items[items.count - 1].text += text
        } else {
            items.append(FormattedText(text, format))
        }
    }
}

/// Haskell `Data.Char` classes, by code point as Haskell's `Char` is.
enum CharClass {
    static func isDigit(_ c: Unicode.Scalar) -> Bool { c.value >= 0x30 && c.value <= 0x39 }

    static func isAlpha(_ c: Unicode.Scalar) -> Bool {
        switch c.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter: true
        default: false
        }
    }

    static func isPunctuation(_ c: Unicode.Scalar) -> Bool {
        switch c.properties.generalCategory {
        case .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation, .initialPunctuation,
            .finalPunctuation, .otherPunctuation:
            true
        default: false
        }
    }

    static func isSpace(_ c: Unicode.Scalar) -> Bool {
        let v = c.value
        if v <= 0x377 { return v == 32 || (v >= 9 && v <= 13) || v == 0xA0 }
        return c.properties.generalCategory == .spaceSeparator
    }

    static func isASCIIAlpha(_ c: Unicode.Scalar) -> Bool {
        (c.value >= 0x41 && c.value <= 0x5A) || (c.value >= 0x61 && c.value <= 0x7A)
    }
}

/// One line's parser: a port of Markdown.hs `markdownP`, fragment by fragment.
struct LineParser {
    let s: [Unicode.Scalar]
    var i = 0
    var out: FragmentList
    /// For each delimiter, the index of its next occurrence at or after each position, so that
    /// looking for a closing mark is O(1) and a line is parsed in linear time.
    private let next: [Unicode.Scalar: [Int]]

    private static let delimiters: [Unicode.Scalar] = ["*", "_", "~", "`", "#", "!", "'", "]", ")", " "]

    init(_ s: [Unicode.Scalar], into out: FragmentList) {
        self.s = s
        self.out = out
        var next: [Unicode.Scalar: [Int]] = [:]
        for d in LineParser.delimiters {
            var table = [Int](repeating: s.count, count: s.count + 1)
            var k = s.count - 1
            while k >= 0 {
                table[k] = s[k] == d ? k : table[k + 1]
                k -= 1
            }
            next[d] = table
        }
        self.next = next
    }

    mutating func run() {
        while i < s.count { fragment() }
    }

    private func text(_ a: Int, _ b: Int) -> String {
        var v = String.UnicodeScalarView()
        v.append(contentsOf: s[a..<b])
        return String(v)
    }

    private func indexOf(_ c: Unicode.Scalar, from j: Int) -> Int {
        guard j < s.count else { return s.count }
        if let table = next[c] { return table[j] }
        var k = j
        while k < s.count, s[k] != c { k += 1 }
        return k
    }

    private mutating func fragment() {
        let c = s[i]
        switch c {
        case " ":
            let j = s[i...].firstIndex(where: { $0 != " " }) ?? s.count
            out.append(text(i, j), nil)
            i = j
        case "+": if !phone() { word() }
        case "*": formatted("*", .bold)
        case "_": formatted("_", .italic)
        case "~": formatted("~", .strikeThrough)
        case "`": formatted("`", .snippet)
        case "#": secret()
        case "!": if !colored() { word() }
        case "@": if !prefixed("@", command: false) { word() }
        case "/": if !prefixed("/", command: true) { word() }
        case "[": if !sowLink() { word() }
        default:
            if CharClass.isDigit(c) {
                if !phone() { word() }
            } else {
                word()
            }
        }
    }

    /// `*text*` and the like: no space just inside the marks; an unclosed mark leaves the rest
    /// of the line unformatted.
    private mutating func formatted(_ c: Unicode.Scalar, _ f: Format) {
        let start = i + 1
        let close = indexOf(c, from: start)
        let inner = text(start, close)
        guard close < s.count else {
            out.append(String(Character(c)) + inner, nil)
            i = close
            return
        }
        i = close + 1
        if start == close || s[start] == " " || s[close - 1] == " " {
            out.append(String(Character(c)) + inner + String(Character(c)), nil)
        } else {
            out.append(inner, f)
        }
    }

    /// `#secret#`, where extra `#` on either side are part of the secret.
    private mutating func secret() {
        var j = i + 1
        let bStart = j
        while j < s.count, s[j] == "#" { j += 1 }
        let sStart = j
        j = indexOf("#", from: j)
        let sEnd = j
        while j < s.count, s[j] == "#" { j += 1 }
        let all = text(bStart, j)
        let hasAfter = j > sEnd
        if !hasAfter || sStart == sEnd || s[sStart] == " " || s[sEnd - 1] == " " {
            out.append("#" + all, nil)
        } else {
            out.append(text(bStart, j - 1), .secret)
        }
        i = j
    }

    /// `!<color> text!`, color as a digit 1-6 or a (prefix of a) name.
    private mutating func colored() -> Bool {
        var j = i + 1
        guard j < s.count else { return false }
        func word(_ w: String, _ j: inout Int) {
            let u = Array(w.unicodeScalars)
            if j + u.count <= s.count, Array(s[j..<(j + u.count)]) == u { j += u.count }
        }
        let color: FormatColor
        let c = s[j]
        j += 1
        switch c {
        case "r": word("ed", &j); color = .red
        case "g": word("reen", &j); color = .green
        case "b": word("lue", &j); color = .blue
        case "y": word("ellow", &j); color = .yellow
        case "c": word("yan", &j); color = .cyan
        case "m": word("agenta", &j); color = .magenta
        case "1": color = .red
        case "2": color = .green
        case "3": color = .blue
        case "4": color = .yellow
        case "5": color = .cyan
        case "6": color = .magenta
        default: return false
        }
        guard j < s.count, CharClass.isSpace(s[j]) else { return false }
        j += 1
        let start = j
        guard j < s.count, s[j] != " ", s[j] != "!" else { return false }
        let close = indexOf("!", from: j)
        guard close < s.count, close > start, s[close - 1] != " " else { return false }
        out.append(text(start, close), .colored(color: color))
        i = close + 1
        return true
    }

    /// `@name`, `@'name with spaces'`, `/command`, `/'command with params'`; trailing punctuation
    /// of an unquoted name is not part of it.
    private mutating func prefixed(_ pfx: Unicode.Scalar, command: Bool) -> Bool {
        let j = i + 1
        guard j < s.count, let (name, punct, end) = displayName(at: j) else { return false }
        if command {
            let keyword = name.split(whereSeparator: { $0.unicodeScalars.allSatisfy(CharClass.isSpace) }).first
            guard let kw = keyword,
                kw.unicodeScalars.allSatisfy({ CharClass.isAlpha($0) || CharClass.isDigit($0) || $0 == "_" })
            else { return false }
        }
        let quoted = s[j] == "'"
        let shown = String(Character(pfx)) + (quoted ? "'" + name + "'" : name)
        out.append(shown, command ? .command(commandStr: name) : .mention(memberName: name))
        out.append(punct, nil)
        i = end
        return true
    }

    /// Markdown.hs `displayNameTextP_`: a quoted name, or a word without its trailing punctuation.
    private func displayName(at j: Int) -> (String, String, Int)? {
        func refChar(_ c: Unicode.Scalar) -> Bool { c.value > 32 && c != "#" && c != "@" && c != "'" }
        if s[j] == "'", j + 1 < s.count, refChar(s[j + 1]) {
            let close = indexOf("'", from: j + 1)
            if close < s.count { return (text(j + 1, close), "", close + 1) }
        }
        guard refChar(s[j]) else { return nil }
        var end = j
        while end < s.count, !CharClass.isSpace(s[end]) { end += 1 }
        var nameEnd = end
        while nameEnd > j, CharClass.isPunctuation(s[nameEnd - 1]) { nameEnd -= 1 }
        return (text(j, nameEnd), text(nameEnd, end), end)
    }

    /// `[text](link)`: a hyperlink, or a short SimpleX link with its own text. Text with
    /// punctuation must be the link itself, so a link cannot pretend to be another.
    private mutating func sowLink() -> Bool {
        let tStart = i + 1
        let tEnd = indexOf("]", from: tStart)
        guard tEnd < s.count, tEnd > tStart, tEnd + 1 < s.count, s[tEnd + 1] == "(" else { return false }
        let lStart = tEnd + 2
        let lEnd = indexOf(")", from: lStart)
        guard lEnd < s.count, lEnd > lStart else { return false }
        let t = text(tStart, tEnd)
        let l = text(lStart, lEnd)
        let hasPunct = s[tStart..<tEnd].contains { CharClass.isPunctuation($0) && $0 != "-" && $0 != "_" }
        if hasPunct, t != l, "https://" + t != l { return false }
        let format: Format
        if let link = SimplexLinkText.parse(l) {
            guard link.isShort else { return false }
            format = .simplexLink(showText: t, linkType: link.type, simplexUri: link.simplexUri, smpHosts: link.hosts)
        } else if URIText.isWebURI(l) {
            format = .hyperLink(showText: t, linkUri: l)
        } else {
            return false
        }
        out.append("[" + t + "](" + l + ")", format)
        i = lEnd + 1
        return true
    }

    /// Phone numbers: `+44 (0) 7777 777 777`, `07777-777-777`, 7 to 22 characters.
    private mutating func phone() -> Bool {
        var j = i
        func digits(_ j: inout Int) -> Bool {
            let start = j
            while j < s.count, CharClass.isDigit(s[j]) { j += 1 }
            return j > start
        }
        func sep(_ j: inout Int) {
            if j < s.count, s[j] == " " || s[j] == "-" || s[j] == "." { j += 1 }
        }
        if j < s.count, s[j] == "+" {
            var k = j + 1
            if digits(&k) { j = k }
        }
        do {
            var k = j
            sep(&k)
            if k < s.count, s[k] == "(" {
                k += 1
                if digits(&k), k < s.count, s[k] == ")" { j = k + 1 }
            }
        }
        // Longer than 22 characters is never a phone number: stop early, parsing stays linear.
        while j - i <= 22 {
            var k = j
            sep(&k)
            guard digits(&k) else { break }
            j = k
        }
        let len = j - i
        guard len >= 7, len <= 22 else { return false }
        out.append(text(i, j), .phone)
        i = j
        return true
    }

    /// A word: a link, domain, email, or plain text.
    private mutating func word() {
        let end = indexOf(" ", from: i)
        let w = Array(s[i..<end])
        let wText = text(i, end)
        i = end
        guard !w.isEmpty else { return }
        func punct(_ c: Unicode.Scalar) -> Bool { c != "/" && c != ")" && CharClass.isPunctuation(c) }
        var cut = w.count
        while cut > 0, punct(w[cut - 1]) { cut -= 1 }
        var core = String.UnicodeScalarView()
        core.append(contentsOf: w[0..<cut])
        var tail = String.UnicodeScalarView()
        tail.append(contentsOf: w[cut...])
        let s1 = String(core)
        let trailing = String(tail)
        let format: Format
        if URIText.looksLikeURI(s1) {
            if let link = SimplexLinkText.parse(wText) {
                format = .simplexLink(showText: nil, linkType: link.type, simplexUri: link.simplexUri, smpHosts: link.hosts)
            } else if URIText.isWebURI(s1) {
                format = .uri
            } else {
                out.append(wText, nil)
                return
            }
        } else if URIText.isDomain(s1) {
            format = .uri
        } else if s1.unicodeScalars.contains("@"), EmailText.isValid(s1) {
            format = .email
        } else {
            out.append(wText, nil)
            return
        }
        out.append(s1, format)
        out.append(trailing, nil)
    }
}

/// Web links as Markdown.hs recognises them.
enum URIText {
    /// At least 10 characters starting with `http://`, `https://` or `simplex:/`.
    static func looksLikeURI(_ s: String) -> Bool {
        s.unicodeScalars.count >= 10 && (s.hasPrefix("http://") || s.hasPrefix("https://") || s.hasPrefix("simplex:/"))
    }

    /// `name.tld` or `sub.name.tld`: a likely domain, not every valid one.
    static func isDomain(_ s: String) -> Bool {
        let parts = s.split(separator: ".", omittingEmptySubsequences: false)
        func alpha(_ p: Substring, _ r: ClosedRange<Int>) -> Bool {
            r.contains(p.unicodeScalars.count) && p.unicodeScalars.allSatisfy(CharClass.isASCIIAlpha)
        }
        switch parts.count {
        case 2: return alpha(parts[0], 1...24) && alpha(parts[1], 2...8)
        case 3: return (3...8).contains(parts[0].unicodeScalars.count) && alpha(parts[1], 1...24) && alpha(parts[2], 2...8)
        default: return false
        }
    }

    /// An `http(s)://` URI with a dotted host (Markdown.hs `parseUri`, a lax RFC 3986 check).
    static func isWebURI(_ s: String) -> Bool {
        let rest: Substring
        if s.hasPrefix("https://") {
            rest = Substring(s).dropFirst(8)
        } else if s.hasPrefix("http://") {
            rest = Substring(s).dropFirst(7)
        } else {
            return false
        }
        guard rest.unicodeScalars.allSatisfy({ $0.value > 32 && $0.value < 127 }) else { return false }
        let authority = rest.prefix(while: { $0 != "/" && $0 != "?" && $0 != "#" })
        let hostPort = authority.split(separator: "@", omittingEmptySubsequences: false).last ?? authority
        var host = hostPort
        if let colon = hostPort.lastIndex(of: ":") {
            guard hostPort[hostPort.index(after: colon)...].allSatisfy(\.isNumber) else { return false }
            host = hostPort[..<colon]
        }
        let hostChars = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~%!$&'()*+,;=")
        guard !host.isEmpty, host.contains("."), host.allSatisfy({ hostChars.contains($0) }) else { return false }
        let other = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=:@/?#[]%")
        let tail = Array(rest[authority.endIndex...].unicodeScalars)
        var k = 0
        while k < tail.count {
            let c = tail[k]
            guard other.contains(Character(c)) else { return false }
            if c == "%" {
                guard k + 2 < tail.count, tail[k + 1].properties.isASCIIHexDigit, tail[k + 2].properties.isASCIIHexDigit else {
                    return false
                }
                k += 2
            }
            k += 1
        }
        return true
    }
}

/// Email addresses: dot-atoms of RFC 5322 `atext` on both sides of "@" (quoted local parts
/// are not recognised).
enum EmailText {
    static func isValid(_ s: String) -> Bool {
        let parts = s.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return false }
        let domain = parts[1]
        return dotAtom(parts[0]) && (dotAtom(domain) || (domain.hasPrefix("[") && domain.hasSuffix("]") && domain.count > 2))
    }

    private static let atext = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&'*+/=?^_`{|}~-")

    private static func dotAtom(_ s: Substring) -> Bool {
        let atoms = s.split(separator: ".", omittingEmptySubsequences: false)
        return !atoms.isEmpty && atoms.allSatisfy { !$0.isEmpty && $0.allSatisfy { atext.contains($0) } }
    }
}

/// A SimpleX link found in text: its kind, its `simplex:` form and its servers' hosts.
struct SimplexLinkText {
    let type: SimplexLinkType
    let simplexUri: String
    let hosts: [String]
    let isShort: Bool

    /// Full links (`/contact`, `/invitation`) are recognised by their structure; short links
    /// (`/a`, `/c`, `/g`, `/r`, `/i`) with the agent's parser.
    static func parse(_ s: String) -> SimplexLinkText? {
        var rest: Substring
        if s.hasPrefix("simplex:") {
            rest = Substring(s).dropFirst("simplex:".count)
        } else if s.hasPrefix("https://") {
            let after = Substring(s).dropFirst("https://".count)
            let host = after.prefix(while: { $0 != "/" && $0 != "#" && $0 != "?" })
            guard !host.isEmpty else { return nil }
            rest = after[host.endIndex...]
        } else {
            return nil
        }
        guard rest.first == "/", let hash = rest.firstIndex(of: "#") else { return nil }
        var path = rest[rest.index(after: rest.startIndex)..<hash]
        if path.hasSuffix("/") { path = path.dropLast() }
        let fragment = rest[rest.index(after: hash)...]
        switch path {
        case "contact", "invitation": return full(path: String(path), fragment: fragment)
        default: return path.count == 1 ? short(s) : nil
        }
    }

    private static func full(path: String, fragment: Substring) -> SimplexLinkText? {
        var q = fragment
        if q.hasPrefix("/") { q = q.dropFirst() }
        guard q.hasPrefix("?") else { return nil }
        let params = query(q.dropFirst())
        guard let v = params["v"], !v.isEmpty, v.allSatisfy({ $0.isNumber || $0 == "-" }) else { return nil }
        guard let smp = params["smp"], !smp.isEmpty else { return nil }
        var hosts: [String] = []
        for queue in smp.split(separator: ";", omittingEmptySubsequences: false) {
            guard let h = queueHosts(queue) else { return nil }
            hosts += h
        }
        let type: SimplexLinkType
        if path == "invitation" {
            guard params["e2e"] != nil else { return nil }
            type = .invitation
        } else if let data = params["data"], let json = try? ChatJSON.decode(JSONValue.self, from: data),
            json["type"]?.stringValue == "group"
        {
            type = .group
        } else {
            type = .contact
        }
        return SimplexLinkText(type: type, simplexUri: "simplex:/" + path + "#" + fragment, hosts: hosts, isShort: false)
    }

    /// The hosts of `smp://<key hash>@host1[,host2][:port]/<id>#/?...[&srv=<hosts>]`.
    private static func queueHosts(_ q: Substring) -> [String]? {
        guard q.hasPrefix("smp://") else { return nil }
        let rest = q.dropFirst("smp://".count)
        guard let at = rest.firstIndex(of: "@") else { return nil }
        let afterAt = rest[rest.index(after: at)...]
        var authority = afterAt.prefix(while: { $0 != "/" && $0 != "#" })
        guard authority.endIndex < afterAt.endIndex, afterAt[authority.endIndex] == "/" else { return nil }
        if let colon = authority.lastIndex(of: ":"), authority[authority.index(after: colon)...].allSatisfy(\.isNumber) {
            authority = authority[..<colon]
        }
        var hosts = authority.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard !hosts.contains(where: \.isEmpty) else { return nil }
        if let hash = afterAt.firstIndex(of: "#") {
            var f = afterAt[afterAt.index(after: hash)...]
            if f.hasPrefix("/") { f = f.dropFirst() }
            if f.hasPrefix("?"), let srv = query(f.dropFirst())["srv"] {
                hosts += srv.split(separator: ",").map(String.init)
            }
        }
        return hosts
    }

    private static func query(_ q: Substring) -> [String: String] {
        var params: [String: String] = [:]
        for pair in q.split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard kv.count == 2, params[String(kv[0])] == nil else { continue }
            params[String(kv[0])] = String(kv[1]).removingPercentEncoding ?? String(kv[1])
        }
        return params
    }

    private static func short(_ s: String) -> SimplexLinkText? {
        guard let link = try? ShortLink(parsing: s) else { return nil }
        let type: SimplexLinkType
        switch link.contactType {
        case nil: type = .invitation
        case .contact: type = .contact
        case .channel: type = .channel
        case .group: type = .group
        case .relay: type = .relay
        }
        var params = ["h=" + link.hosts.joined(separator: ",")]
        if let port = link.port { params.append("p=\(port)") }
        if let kh = link.serverKeyHash { params.append("c=" + Base64URL.encode(kh, padded: false)) }
        let id = link.linkId.map { Base64URL.encode($0, padded: false) + "/" } ?? ""
        let uri = "simplex:/" + (link.contactType?.rawValue ?? "i") + "#" + id + Base64URL.encode(link.linkKey, padded: false)
            + "?" + params.joined(separator: "&")
        return SimplexLinkText(type: type, simplexUri: uri, hosts: link.hosts, isShort: true)
    }
}
