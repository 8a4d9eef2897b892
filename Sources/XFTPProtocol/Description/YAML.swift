/// The YAML that file descriptions use, written exactly as simplexmq's `Data.Yaml.encode`
/// (libyaml emitter, keys sorted) and read by a small strict parser for block mappings,
/// block sequences and plain/quoted scalars (no anchors, tags, or multi-line scalars).
indirect enum YAMLNode: Equatable {
    case scalar(String, quoted: Bool)
    case mapping([(String, YAMLNode)])
    case sequence([YAMLNode])
    /// A number written by the encoder (unquoted digits).
    case number(Int64)

    static func == (a: YAMLNode, b: YAMLNode) -> Bool {
        switch (a, b) {
        case let (.scalar(x, qx), .scalar(y, qy)): x == y && qx == qy
        case let (.number(x), .number(y)): x == y
        case let (.sequence(x), .sequence(y)): x == y
        case let (.mapping(x), .mapping(y)): x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: false
        }
    }

    func value(_ key: String) -> YAMLNode? {
        guard case .mapping(let kv) = self else { return nil }
        return kv.first { $0.0 == key }?.1
    }

    /// The text of a scalar (a plain number is read as its digits).
    var text: String? {
        switch self {
        case .scalar(let s, _): s
        case .number(let n): String(n)
        default: nil
        }
    }
}

enum YAMLWriter {
    /// Block-style YAML as libyaml emits it: `key: value`, nested mappings indented by 2,
    /// sequences under a mapping key not indented ("- ").
    static func write(_ node: YAMLNode) -> String {
        var out = ""
        emit(node, indent: 0, into: &out)
        return out
    }

    private static func emit(_ node: YAMLNode, indent: Int, into out: inout String) {
        let pad = String(repeating: " ", count: indent)
        switch node {
        case .mapping(let kv):
            if kv.isEmpty {
                out += "{}\n"
                return
            }
            for (i, (k, v)) in kv.enumerated() {
                // The first key of a mapping inside a sequence item follows "- " directly.
                if i > 0 || !out.hasSuffix("- ") { out += pad }
                out += k + ":"
                switch v {
                case .mapping(let m) where !m.isEmpty:
                    out += "\n"
                    emit(v, indent: indent + 2, into: &out)
                case .sequence(let s) where !s.isEmpty:
                    out += "\n"
                    emit(v, indent: indent, into: &out)
                default:
                    out += " "
                    emit(v, indent: indent + 2, into: &out)
                }
            }
        case .sequence(let items):
            if items.isEmpty {
                out += "[]\n"
                return
            }
            for item in items {
                if !out.hasSuffix("- ") { out += pad }
                out += "- "
                switch item {
                case .sequence(let s) where !s.isEmpty:
                    emit(item, indent: indent + 2, into: &out)
                default:
                    emit(item, indent: indent + 2, into: &out)
                }
            }
        case .scalar(let s, _):
            out += scalar(s) + "\n"
        case .number(let n):
            out += String(n) + "\n"
        }
    }

    /// Data.Yaml's string style: numbers-looking and YAML keyword strings are single-quoted,
    /// and libyaml quotes whatever a plain scalar cannot hold.
    static func scalar(_ s: String) -> String {
        if isSpecial(s) || !plainAllowed(s) {
            if s.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) { return doubleQuoted(s) }
            return "'" + s.replacingOccurrences(of: "'", with: "''") + "'"
        }
        return s
    }

    static let specialStrings: Set<String> = Set(
        "y Y yes Yes YES n N no No NO true True TRUE false False FALSE on On ON off Off OFF null Null NULL ~ *"
            .split(separator: " ").map(String.init))

    static func isSpecial(_ s: String) -> Bool { specialStrings.contains(s) || isNumeric(s) }

    /// `textToScientific` succeeds: 0x/0o integers, or [+-]digits[.digits][(e|E)[+-]digits].
    static func isNumeric(_ s: String) -> Bool {
        let u = Array(s.utf8)
        func digits(_ from: Int, _ ok: (UInt8) -> Bool) -> Int {
            var i = from
            while i < u.count, ok(u[i]) { i += 1 }
            return i
        }
        let isDigit: (UInt8) -> Bool = { $0 >= 0x30 && $0 <= 0x39 }
        if u.count > 2, u[0] == UInt8(ascii: "0"), u[1] == UInt8(ascii: "x") {
            return digits(2) { isDigit($0) || ($0 >= 0x61 && $0 <= 0x66) || ($0 >= 0x41 && $0 <= 0x46) } == u.count
        }
        if u.count > 2, u[0] == UInt8(ascii: "0"), u[1] == UInt8(ascii: "o") {
            return digits(2) { $0 >= 0x30 && $0 <= 0x37 } == u.count
        }
        var i = 0
        if i < u.count, u[i] == UInt8(ascii: "+") || u[i] == UInt8(ascii: "-") { i += 1 }
        let intEnd = digits(i, isDigit)
        guard intEnd > i else { return false }
        i = intEnd
        if i < u.count, u[i] == UInt8(ascii: ".") {
            let f = digits(i + 1, isDigit)
            guard f > i + 1 else { return false }
            i = f
        }
        if i < u.count, u[i] == UInt8(ascii: "e") || u[i] == UInt8(ascii: "E") {
            var j = i + 1
            if j < u.count, u[j] == UInt8(ascii: "+") || u[j] == UInt8(ascii: "-") { j += 1 }
            let e = digits(j, isDigit)
            guard e > j else { return false }
            i = e
        }
        return i == u.count
    }

    /// libyaml `yaml_emitter_analyze_scalar` for a block-context plain scalar.
    static func plainAllowed(_ s: String) -> Bool {
        let u = Array(s.utf8)
        if u.isEmpty { return false }
        if u.count >= 3, (u[0] == UInt8(ascii: "-") && u[1] == u[0] && u[2] == u[0]) || (u[0] == UInt8(ascii: ".") && u[1] == u[0] && u[2] == u[0]) {
            return false
        }
        if u.first == 0x20 || u.last == 0x20 { return false }
        for (i, c) in u.enumerated() {
            if c < 0x20 || c == 0x7F { return false }
            let followedByBlank = i + 1 >= u.count || u[i + 1] == 0x20 || u[i + 1] == 0x09
            let precededByBlank = i > 0 && (u[i - 1] == 0x20 || u[i - 1] == 0x09)
            if i == 0 {
                if "#,[]{}&*!|>'\"%@`".utf8.contains(c) { return false }
                if (c == UInt8(ascii: "?") || c == UInt8(ascii: ":")) && followedByBlank { return false }
                if c == UInt8(ascii: "-") && followedByBlank { return false }
            } else {
                if c == UInt8(ascii: ":") && followedByBlank { return false }
                if c == UInt8(ascii: "#") && precededByBlank { return false }
            }
        }
        return true
    }

    static func doubleQuoted(_ s: String) -> String {
        var out = "\""
        for ch in s.unicodeScalars {
            switch ch {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            default:
                if ch.value < 0x20 || ch.value == 0x7F {
                    out += "\\x" + String(ch.value, radix: 16, uppercase: true).leftPadded(2)
                } else {
                    out.unicodeScalars.append(ch)
                }
            }
        }
        return out + "\""
    }
}

extension String {
    fileprivate func leftPadded(_ n: Int) -> String { String(repeating: "0", count: max(0, n - count)) + self }
}

struct YAMLError: Error, Equatable, CustomStringConvertible {
    let line: Int
    let why: String
    var description: String { "YAML line \(line): \(why)" }
}

/// A strict reader for the block YAML subset above. Anything outside it is an error, never a crash.
struct YAMLReader {
    private struct Line {
        var number: Int
        var indent: Int
        var text: Substring
    }

    private var lines: [Line] = []
    private var pos = 0
    private var depth = 0

    static func parse(_ text: String) throws(YAMLError) -> YAMLNode {
        var r = YAMLReader()
        for (n, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var l = raw
            if l.hasSuffix("\r") { l = l.dropLast() }
            guard !l.contains("\t") || l.drop(while: { $0 == " " }).first != "\t" else { throw YAMLError(line: n + 1, why: "tab indentation") }
            let indent = l.prefix(while: { $0 == " " }).count
            let content = l.dropFirst(indent)
            if content.isEmpty || content.hasPrefix("#") { continue }
            if n == r.lines.count && (content == "---" || content == "...") && indent == 0 { continue }
            r.lines.append(Line(number: n + 1, indent: indent, text: content))
        }
        guard !r.lines.isEmpty else { throw YAMLError(line: 1, why: "empty document") }
        let node = try r.node(indent: r.lines[0].indent)
        if r.pos < r.lines.count { throw YAMLError(line: r.lines[r.pos].number, why: "unexpected content") }
        return node
    }

    private mutating func node(indent: Int) throws(YAMLError) -> YAMLNode {
        depth += 1
        defer { depth -= 1 }
        guard depth < 32 else { throw YAMLError(line: lines[pos].number, why: "nesting too deep") }
        let l = lines[pos]
        if l.text == "-" || l.text.hasPrefix("- ") { return try sequence(indent: l.indent) }
        if splitKey(l.text) != nil { return try mapping(indent: l.indent) }
        pos += 1
        return try Self.scalar(l.text, line: l.number)
    }

    private mutating func sequence(indent: Int) throws(YAMLError) -> YAMLNode {
        var items: [YAMLNode] = []
        while pos < lines.count, lines[pos].indent == indent, lines[pos].text == "-" || lines[pos].text.hasPrefix("- ") {
            let l = lines[pos]
            let rest = l.text.dropFirst(1).drop(while: { $0 == " " })
            if rest.isEmpty {
                pos += 1
                guard pos < lines.count, lines[pos].indent > indent else { throw YAMLError(line: l.number, why: "empty sequence item") }
                items.append(try node(indent: lines[pos].indent))
            } else {
                // The item's content becomes a line of its own, indented past the dash.
                lines[pos] = Line(number: l.number, indent: indent + (l.text.count - rest.count), text: rest)
                items.append(try node(indent: lines[pos].indent))
            }
        }
        if pos < lines.count, lines[pos].indent > indent { throw YAMLError(line: lines[pos].number, why: "bad indentation") }
        return .sequence(items)
    }

    private mutating func mapping(indent: Int) throws(YAMLError) -> YAMLNode {
        var kv: [(String, YAMLNode)] = []
        while pos < lines.count, lines[pos].indent == indent {
            let l = lines[pos]
            guard let (key, value) = splitKey(l.text) else { throw YAMLError(line: l.number, why: "expected key: value") }
            let k = try Self.scalar(key, line: l.number)
            guard let keyText = k.text else { throw YAMLError(line: l.number, why: "bad key") }
            if kv.contains(where: { $0.0 == keyText }) { throw YAMLError(line: l.number, why: "duplicate key \(keyText)") }
            pos += 1
            if value.isEmpty {
                if pos < lines.count, lines[pos].indent > indent {
                    kv.append((keyText, try node(indent: lines[pos].indent)))
                } else if pos < lines.count, lines[pos].indent == indent, lines[pos].text == "-" || lines[pos].text.hasPrefix("- ") {
                    kv.append((keyText, try sequence(indent: indent)))
                } else {
                    kv.append((keyText, .scalar("", quoted: false)))
                }
            } else {
                kv.append((keyText, try Self.scalar(value, line: l.number)))
            }
        }
        if pos < lines.count, lines[pos].indent > indent { throw YAMLError(line: lines[pos].number, why: "bad indentation") }
        return .mapping(kv)
    }

    /// `key: value` or `key:` at the start of a line (the key itself plain or quoted).
    private func splitKey(_ t: Substring) -> (Substring, Substring)? {
        if t.hasPrefix("'") || t.hasPrefix("\"") {
            guard let end = Self.quotedEnd(t) else { return nil }
            let after = t[end...]
            guard after.hasPrefix(":"), after.count == 1 || after.dropFirst().first == " " else { return nil }
            return (t[..<end], after.dropFirst().drop(while: { $0 == " " }))
        }
        var i = t.startIndex
        while i < t.endIndex {
            if t[i] == ":" {
                let next = t.index(after: i)
                if next == t.endIndex || t[next] == " " {
                    return (t[..<i], t[next...].drop(while: { $0 == " " }))
                }
            }
            if t[i] == " ", t.index(after: i) < t.endIndex, t[t.index(after: i)] == "#" { return nil }
            i = t.index(after: i)
        }
        return nil
    }

    /// Index just past the closing quote of a quoted scalar at the start of `t`.
    private static func quotedEnd(_ t: Substring) -> Substring.Index? {
        let q = t.first!
        var i = t.index(after: t.startIndex)
        while i < t.endIndex {
            if q == "'" && t[i] == "'" {
                let n = t.index(after: i)
                if n < t.endIndex && t[n] == "'" {
                    i = t.index(after: n)
                    continue
                }
                return n
            }
            if q == "\"" && t[i] == "\\" {
                i = t.index(after: i)
                if i < t.endIndex { i = t.index(after: i) }
                continue
            }
            if q == "\"" && t[i] == "\"" { return t.index(after: i) }
            i = t.index(after: i)
        }
        return nil
    }

    static func scalar(_ raw: Substring, line: Int) throws(YAMLError) -> YAMLNode {
        var t = raw
        if t.first == "'" || t.first == "\"" {
            guard let end = quotedEnd(t) else { throw YAMLError(line: line, why: "unterminated quoted scalar") }
            let rest = t[end...].drop(while: { $0 == " " })
            guard rest.isEmpty || rest.hasPrefix("#") else { throw YAMLError(line: line, why: "text after quoted scalar") }
            let inner = t[t.index(after: t.startIndex)..<t.index(before: end)]
            if t.first == "'" { return .scalar(inner.replacingOccurrences(of: "''", with: "'"), quoted: true) }
            return .scalar(try unescape(inner, line: line), quoted: true)
        }
        // A comment ends a plain scalar.
        if let r = t.range(of: " #") { t = t[..<r.lowerBound] }
        while t.last == " " { t = t.dropLast() }
        if t == "[]" { return .sequence([]) }
        if t == "{}" { return .mapping([]) }
        if let c = t.first, "[{&*!|>%@`".contains(c) { throw YAMLError(line: line, why: "unsupported YAML syntax") }
        if t == "~" || t == "null" || t == "Null" || t == "NULL" { return .scalar("", quoted: false) }
        if !t.isEmpty, t.allSatisfy({ $0.isASCII && $0.isNumber }), let n = Int64(t) { return .number(n) }
        return .scalar(String(t), quoted: false)
    }

    private static func unescape(_ s: Substring, line: Int) throws(YAMLError) -> String {
        var out = ""
        var it = s.unicodeScalars.makeIterator()
        while let c = it.next() {
            guard c == "\\" else {
                out.unicodeScalars.append(c)
                continue
            }
            guard let e = it.next() else { throw YAMLError(line: line, why: "bad escape") }
            switch e {
            case "n": out += "\n"
            case "t": out += "\t"
            case "r": out += "\r"
            case "0": out += "\0"
            case "\\": out += "\\"
            case "\"": out += "\""
            case "/": out += "/"
            case " ": out += " "
            case "x", "u", "U":
                let n = e == "x" ? 2 : e == "u" ? 4 : 8
                var v: UInt32 = 0
                for _ in 0..<n {
                    guard let h = it.next(), let d = Int(String(h), radix: 16) else { throw YAMLError(line: line, why: "bad escape") }
                    v = v << 4 | UInt32(d)
                }
                guard let u = Unicode.Scalar(v) else { throw YAMLError(line: line, why: "bad escape") }
                out.unicodeScalars.append(u)
            default: throw YAMLError(line: line, why: "bad escape")
            }
        }
        return out
    }
}
