import SMPTransport
import SimplexFoundation

/// A short link (simplexmq `ConnShortLink`): `https://<smp host>/i#<linkId>/<linkKey>[?h=..&p=..&c=..]`
/// for invitations, `.../a#<linkKey>` (or c, g, r) for contact addresses, or the same after
/// `simplex:` with every host in `h`. The full link is stored encrypted on the SMP server
/// (see `ShortLinkData.swift`); `SMPAgent.getConnShortLink` resolves it.
public struct ShortLink: Sendable, Hashable {
    /// `https://<first host>` (the SMP server's own host) or `simplex:`.
    public enum Scheme: Sendable, Hashable {
        case simplex
        case server
    }

    /// The kind of contact address (simplexmq `ContactConnType`), the path letter.
    public enum ContactType: String, Sendable, Hashable, CaseIterable {
        case contact = "a"
        case channel = "c"
        case group = "g"
        case relay = "r"
    }

    public let scheme: Scheme
    public let mode: ConnectionMode
    /// Nil for invitations.
    public let contactType: ContactType?
    /// The SMP server's hosts; with the `server` scheme the first one is the link's host.
    public let hosts: [String]
    public let port: Int?
    /// The server identity, when the link includes it (`c`); preset servers omit it.
    public let serverKeyHash: [UInt8]?
    /// The link's queue ID on the server (invitations only).
    public let linkId: [UInt8]?
    /// SHA3-256 of the link's fixed data: locates and decrypts it.
    public let linkKey: [UInt8]

    public static let linkKeyLength = 32

    /// The SMP server, when the link names its identity.
    public var server: SMPServerAddress? {
        serverKeyHash.flatMap { try? SMPServerAddress(keyHash: $0, hosts: hosts, port: port) }
    }

    init(scheme: Scheme, mode: ConnectionMode, contactType: ContactType?, server: SMPServerAddress, linkId: [UInt8]?, linkKey: [UInt8]) {
        self.scheme = scheme
        self.mode = mode
        self.contactType = contactType
        hosts = server.hosts
        port = server.port
        serverKeyHash = server.keyHash.isEmpty ? nil : server.keyHash
        self.linkId = linkId
        self.linkKey = linkKey
    }

    public init(parsing s: String) throws(LinkError) {
        try LinkSyntax.checkInput(s)
        try self.init(prefix: LinkPrefix(Substring(s)))
    }

    init(prefix p: LinkPrefix) throws(LinkError) {
        switch p.path {
        case "i":
            mode = .invitation
            contactType = nil
        case let t:
            guard t.count == 1, let ct = ContactType(rawValue: t.lowercased()) else {
                throw .unknownLinkType(LinkSyntax.excerpt(t))
            }
            mode = .contact
            contactType = ct
        }
        var authorityHost: String?
        switch p.scheme {
        case .simplex: scheme = .simplex
        case .https(let host):
            guard !host.contains(":") else { throw .malformed("short link host with a port (use the p parameter)") }
            scheme = .server
            authorityHost = host
        }
        let body = p.fragment.prefix(while: { $0 != "?" })
        let queryText = p.fragment[body.endIndex...]
        if mode == .invitation {
            let parts = body.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2 else { throw .malformed("expected <link ID>/<link key> after \"#\"") }
            guard let id = LinkSyntax.base64url(parts[0]), id.count <= 255 else {
                throw .invalidParameter(name: "link ID", reason: "not base64url")
            }
            linkId = id
            linkKey = try Self.key(parts[1])
        } else {
            linkId = nil
            linkKey = try Self.key(body)
        }
        let query = try LinkQuery(parsing: queryText)
        var hosts = authorityHost.map { [$0] } ?? []
        if let h = try query.text("h") {
            hosts += h.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
        guard !hosts.isEmpty else { throw .missingParameter("h") }
        var port: Int?
        if let pt = try query.text("p") {
            guard pt.count <= 5, pt.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let n = Int(pt), (1...65535).contains(n) else {
                throw .invalidParameter(name: "p", reason: "not a port number")
            }
            port = n
        }
        var keyHash: [UInt8]?
        if let c = try query.text("c") {
            guard let kh = LinkSyntax.base64url(c) else {
                throw .invalidParameter(name: "c", reason: "not a base64url server identity")
            }
            keyHash = kh
        }
        // The server address rules check the hosts (the identity is checked above).
        do {
            _ = try SMPServerAddress(keyHash: keyHash ?? [], hosts: hosts, port: port)
        } catch {
            throw .invalidParameter(name: "h", reason: "\(error)")
        }
        self.hosts = hosts
        self.port = port
        serverKeyHash = keyHash
    }

    /// simplexmq's `strEncode`: unpadded base64url, `h`/`p`/`c` escaped with `QEscape`.
    public var uriString: String {
        let authority: String
        let paramHosts: ArraySlice<String>
        switch scheme {
        case .simplex:
            authority = "simplex:"
            paramHosts = hosts[...]
        case .server:
            authority = "https://" + hosts[0]
            paramHosts = hosts.dropFirst()
        }
        var params: [(String, [UInt8])] = []
        if !paramHosts.isEmpty { params.append(("h", Array(paramHosts.joined(separator: ",").utf8))) }
        if let port { params.append(("p", Array(String(port).utf8))) }
        if let serverKeyHash { params.append(("c", Array(Base64URL.encode(serverKeyHash, padded: false).utf8))) }
        let type = contactType?.rawValue ?? "i"
        let id = linkId.map { Base64URL.encode($0, padded: false) + "/" } ?? ""
        let query = params.isEmpty ? "" : "?" + LinkQuery.render(params)
        return authority + "/" + type + "#" + id + Base64URL.encode(linkKey, padded: false) + query
    }

    /// Any non-empty base64url, as simplexmq's `LinkKey` parser; a key that is not the 32-byte
    /// hash of the link data fails when the link is resolved (`A_LINK`).
    private static func key(_ text: Substring) throws(LinkError) -> [UInt8] {
        guard let k = LinkSyntax.base64url(text) else { throw .invalidParameter(name: "link key", reason: "not base64url") }
        return k
    }
}

extension ShortLink: CustomStringConvertible {
    public var description: String { uriString }
}
