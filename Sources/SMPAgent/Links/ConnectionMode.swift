/// What a link connects to: a one-time invitation, or a contact address many people can use.
public enum ConnectionMode: String, Sendable, Hashable, CaseIterable {
    case invitation
    case contact
}

/// How a link starts: the app-neutral `simplex:` scheme, or an `https://` page (with an
/// optional port) that shows install instructions and passes the link on to the app.
public enum LinkScheme: Sendable, Hashable {
    case simplex
    case https(host: String)

    /// `simplex:` or `https://<host>`.
    public var prefix: String {
        switch self {
        case .simplex: "simplex:"
        case .https(let host): "https://" + host
        }
    }
}

/// The parts every link shares: `<scheme>/<path>[/]#<fragment>`.
struct LinkPrefix {
    let scheme: LinkScheme
    /// Between the first "/" and "#", without a trailing "/".
    let path: Substring
    /// After "#".
    let fragment: Substring

    /// `s` must have passed `LinkSyntax.checkInput`.
    init(_ s: Substring) throws(LinkError) {
        var rest: Substring
        if s.hasPrefix("simplex:") {
            scheme = .simplex
            rest = s.dropFirst("simplex:".count)
        } else if s.hasPrefix("https://") {
            let afterScheme = s.dropFirst("https://".count)
            let authority = afterScheme.prefix(while: { $0 != "/" && $0 != "#" && $0 != "?" })
            try LinkPrefix.checkAuthority(authority)
            scheme = .https(host: String(authority))
            rest = afterScheme[authority.endIndex...]
        } else {
            let name = s.prefix(while: { $0 != ":" && $0 != "/" })
            throw .unsupportedScheme(LinkSyntax.excerpt(name.count < s.count ? name : s))
        }
        guard rest.first == "/" else { throw .malformed("expected \"/\" after \(scheme.prefix)") }
        rest = rest.dropFirst()
        guard let hash = rest.firstIndex(of: "#") else { throw .malformed("no \"#\" before the link parameters") }
        var path = rest[..<hash]
        if path.hasSuffix("/") { path = path.dropLast() }
        self.path = path
        fragment = rest[rest.index(after: hash)...]
    }

    /// simplexmq `SrvLoc`: a host name or IPv4 address and an optional decimal port.
    private static func checkAuthority(_ a: Substring) throws(LinkError) {
        let parts = a.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let host = parts[0]
        guard !host.isEmpty else { throw .malformed("empty host in https link") }
        let ok = host.utf8.allSatisfy { LinkSyntax.isBase64URLChar($0) || $0 == UInt8(ascii: ".") }
        guard ok, host.first != ".", host.first != "-" else { throw .malformed("bad host in https link") }
        if parts.count == 2 {
            let p = parts[1]
            guard !p.isEmpty, p.count <= 5, p.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let n = Int(p), (1...65535).contains(n) else {
                throw .malformed("bad port in https link")
            }
        }
    }
}
