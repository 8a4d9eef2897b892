#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One host of a server address (`TransportHost`). The cases are in the reference's order, which
/// decides how replicas are grouped in file descriptions (servers are sorted, then grouped).
public enum TransportHost: Sendable, Hashable, Comparable, CustomStringConvertible {
    case ipv4(UInt8, UInt8, UInt8, UInt8)
    /// IPv6 as four big-endian 32-bit words (for ordering) and the text it was given as.
    case ipv6(words: [UInt32], text: String)
    case onion(String)
    case domain(String)

    public var description: String {
        switch self {
        case .ipv4(let a, let b, let c, let d): "\(a).\(b).\(c).\(d)"
        case .ipv6(_, let text): text
        case .onion(let h): h
        case .domain(let h): h
        }
    }

    private var rank: Int {
        switch self {
        case .ipv4: 0
        case .ipv6: 1
        case .onion: 2
        case .domain: 3
        }
    }

    public static func < (a: TransportHost, b: TransportHost) -> Bool {
        switch (a, b) {
        case let (.ipv4(a1, a2, a3, a4), .ipv4(b1, b2, b3, b4)): return [a1, a2, a3, a4].lexicographicallyPrecedes([b1, b2, b3, b4])
        case let (.ipv6(wa, _), .ipv6(wb, _)): return wa.lexicographicallyPrecedes(wb)
        case let (.onion(x), .onion(y)): return Array(x.utf8).lexicographicallyPrecedes(Array(y.utf8))
        case let (.domain(x), .domain(y)): return x.unicodeScalars.map(\.value).lexicographicallyPrecedes(y.unicodeScalars.map(\.value))
        default: return a.rank < b.rank
        }
    }

    /// `TransportHost` strP over one whole host token.
    public init?(parsing s: Substring) {
        if let v4 = Self.ipv4(s) {
            self = v4
            return
        }
        let hexColon = !s.isEmpty && s.allSatisfy { $0.isHexDigit || $0 == ":" }
        if hexColon || (s.hasPrefix("[") && s.hasSuffix("]")) {
            let inner = s.hasPrefix("[") ? String(s.dropFirst().dropLast()) : String(s)
            var addr = in6_addr()
            if inet_pton(AF_INET6, inner, &addr) == 1 {
                let b = withUnsafeBytes(of: &addr) { Array($0) }
                let words = (0..<4).map { i in b[(i * 4)..<(i * 4 + 4)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } }
                self = .ipv6(words: words, text: inner)
                return
            }
            if hexColon && s.contains(":") { return nil }
        }
        if s.hasSuffix(".onion") {
            let name = s.dropLast(".onion".count)
            guard name.allSatisfy({ ($0.isASCII && $0.isLowercase) || ($0.isASCII && $0.isNumber) }) else { return nil }
            self = .onion(String(s))
            return
        }
        guard !s.isEmpty, !s.contains(where: { ":#,;/ \n\r\t".contains($0) }) else { return nil }
        self = .domain(String(s))
    }

    private static func ipv4(_ s: Substring) -> TransportHost? {
        let parts = s.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var v: [UInt8] = []
        for p in parts {
            guard !p.isEmpty, p.count <= 3, p.allSatisfy({ $0.isASCII && $0.isNumber }), let n = Int(p), n <= 255 else { return nil }
            v.append(UInt8(n))
        }
        return .ipv4(v[0], v[1], v[2], v[3])
    }
}

/// An XFTP server address `xftp://<keyHash>[:<password>]@<host>[,<host>...][:<port>]`
/// (xftp.md "XFTP server URI"); the key hash is the server's CA certificate fingerprint.
public struct XFTPServerAddress: Sendable, Hashable, Comparable, CustomStringConvertible {
    public static let scheme = "xftp"
    public var keyHash: [UInt8]
    public var hosts: [TransportHost]
    /// Empty when the default port (443) is used.
    public var port: String
    /// Only in configured server lists, never in file descriptions.
    public var basicAuth: BasicAuth?

    public init(keyHash: [UInt8], hosts: [TransportHost], port: String = "", basicAuth: BasicAuth? = nil) {
        self.keyHash = keyHash
        self.hosts = hosts
        self.port = port
        self.basicAuth = basicAuth
    }

    /// `strEncodeServer`.
    public var description: String {
        var s = "\(Self.scheme)://\(Base64Text.encode(keyHash))"
        if let basicAuth { s += ":\(basicAuth)" }
        s += "@" + hosts.map(\.description).joined(separator: ",")
        if !port.isEmpty { s += ":\(port)" }
        return s
    }

    /// Parses a whole server string; `allowAuth` false rejects a password as the reference's
    /// `ProtocolServer` parser does.
    public init?(parsing s: some StringProtocol, allowAuth: Bool = true) {
        var rest = Substring(s)
        guard rest.hasPrefix("xftp://") else { return nil }
        rest = rest.dropFirst("xftp://".count)
        guard let at = rest.firstIndex(of: "@") else { return nil }
        let cred = rest[..<at]
        rest = rest[rest.index(after: at)...]
        let hashText: Substring
        var auth: BasicAuth?
        if let colon = cred.firstIndex(of: ":") {
            hashText = cred[..<colon]
            guard allowAuth, let a = BasicAuth(String(cred[cred.index(after: colon)...])), !a.bytes.isEmpty else { return nil }
            auth = a
        } else {
            hashText = cred
        }
        guard let hash = Base64Text.decode(hashText) else { return nil }
        var portText = ""
        // The port follows the last ':' unless that ':' is inside an IPv6 host.
        if let colon = rest.lastIndex(of: ":"), rest[rest.index(after: colon)...].allSatisfy({ $0.isASCII && $0.isNumber }),
           colon != rest.startIndex, !rest[rest.index(after: colon)...].isEmpty,
           !(rest.contains("[") ? rest[..<colon].last != "]" : rest[..<colon].contains(":"))
        {
            let p = rest[rest.index(after: colon)...]
            guard let n = Int(p) else { return nil }
            portText = String(n)
            rest = rest[..<colon]
        }
        var hosts: [TransportHost] = []
        for h in rest.split(separator: ",", omittingEmptySubsequences: false) {
            guard let host = TransportHost(parsing: h) else { return nil }
            hosts.append(host)
        }
        guard !hosts.isEmpty else { return nil }
        self.init(keyHash: hash, hosts: hosts, port: portText, basicAuth: auth)
    }

    /// The derived `Ord` of `ProtocolServer`: hosts, then port, then key hash.
    public static func < (a: XFTPServerAddress, b: XFTPServerAddress) -> Bool {
        if a.hosts != b.hosts { return a.hosts.lexicographicallyPrecedes(b.hosts) }
        if a.port != b.port { return Array(a.port.utf8).lexicographicallyPrecedes(Array(b.port.utf8)) }
        return a.keyHash.lexicographicallyPrecedes(b.keyHash)
    }

    /// The same server without its password (as it is written in descriptions).
    public var withoutAuth: XFTPServerAddress {
        var s = self
        s.basicAuth = nil
        return s
    }
}
