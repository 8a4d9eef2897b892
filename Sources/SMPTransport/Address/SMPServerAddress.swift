import SimplexFoundation

/// `smpServer` of the spec: `smp://<serverIdentity>@host1[,host2...][:port]`. The identity is the
/// SHA-256 fingerprint of the server's offline CA certificate, which the client pins during TLS.
public struct SMPServerAddress: Sendable, Hashable, CustomStringConvertible {
    /// The spec's default TCP port for SMP.
    public static let defaultPort = 5223
    /// Length of a server identity made by a server: a SHA-256 digest. simplexmq's `KeyHash`
    /// holds any bytes (its own tests use 4-byte ones, short links an empty one), and so do we:
    /// a hash of another length never matches a certificate, so such a server is unreachable.
    public static let keyHashLength = 32
    /// Longest identity the binary form (a shortString) can carry.
    public static let maxKeyHashLength = 255

    /// SHA-256 of the offline CA certificate's DER (the "fingerprint").
    public let keyHash: [UInt8]
    /// One or more host names or IP addresses of the same server (e.g. a public and an onion name), in order of preference.
    public let hosts: [String]
    /// The explicit port, or nil when the address uses the default.
    public let port: Int?

    /// The port to connect to.
    public var effectivePort: Int { port ?? Self.defaultPort }

    /// Builds an address, checking the same rules as the parser (an empty identity is allowed
    /// here: simplexmq's `SMPServerOnlyHost` of preset-server short links).
    public init(keyHash: [UInt8], hosts: [String], port: Int? = nil) throws(SMPServerAddressError) {
        guard keyHash.count <= Self.maxKeyHashLength else { throw .badKeyHash }
        guard !hosts.isEmpty else { throw .missingHost }
        for h in hosts { try Self.checkHost(h) }
        if let port, !(1...65535).contains(port) { throw .badPort }
        self.keyHash = keyHash
        self.hosts = hosts
        self.port = port
    }

    /// Parses `smp://<base64url keyHash>@host1[,host2][:port]`; the key hash may have "=" padding
    /// or not. Any deviation is a typed error, never a trap. Basic auth (`keyHash:password@`) is
    /// refused, as simplexmq's `ProtocolServer` parser does.
    public init(parsing string: String) throws(SMPServerAddressError) {
        let p = try ProtocolServerAddress(parsing: string)
        guard p.scheme == .smp else { throw .badScheme }
        guard p.basicAuth == nil else { throw .badKeyHash }
        self = p.address
    }

    /// `smp://<keyHash base64url, padded>@hosts[:port]`, as simplexmq renders it.
    public var description: String { ProtocolServerAddress(scheme: .smp, address: self).description }

    /// The same server with only its first host, as SMP client version 1 carries it
    /// (simplexmq `legacyEncodeServer`/`legacyStrEncodeServer`).
    public var firstHostOnly: SMPServerAddress {
        SMPServerAddress(unchecked: keyHash, [hosts[0]], port)
    }

    /// The same server with `extra` hosts appended (already checked by the caller's parser).
    public func addingHosts(_ extra: [String]) throws(SMPServerAddressError) -> SMPServerAddress {
        try SMPServerAddress(keyHash: keyHash, hosts: hosts + extra, port: port)
    }

    private init(unchecked keyHash: [UInt8], _ hosts: [String], _ port: Int?) {
        self.keyHash = keyHash
        self.hosts = hosts
        self.port = port
    }

    /// Host names, IPv4 literals and bracketed IPv6 literals; nothing that could smuggle in
    /// another URI component. An `.onion` host must be lower-case letters and digits, as
    /// simplexmq's `TransportHost` parser requires ("invalid onion host").
    static func checkHost(_ host: String) throws(SMPServerAddressError) {
        let u = Array(host.utf8)
        guard !u.isEmpty, u.count <= 253 else { throw .badHost(host) }
        if u.first == UInt8(ascii: "[") {
            guard u.count > 2, u.last == UInt8(ascii: "]"),
                u.dropFirst().dropLast().allSatisfy({ isHexDigit($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") }),
                u.contains(UInt8(ascii: ":"))
            else { throw .badHost(host) }
            return
        }
        let allowed = u.allSatisfy { c in
            (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")) || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z"))
                || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9"))
                || c == UInt8(ascii: "-") || c == UInt8(ascii: ".") || c == UInt8(ascii: "_")
        }
        guard allowed, u.first != UInt8(ascii: "."), u.first != UInt8(ascii: "-") else { throw .badHost(host) }
        if host.hasSuffix(".onion") {
            let name = u.dropLast(6)
            guard name.allSatisfy({ ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) })
            else { throw .badHost(host) }
        }
        // Something that looks like a dotted IPv4 literal must be a valid one.
        if u.allSatisfy({ ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: ".") }) {
            let parts = host.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 4,
                parts.allSatisfy({ !$0.isEmpty && $0.count <= 3 && (Int($0).map { $0 <= 255 } ?? false) })
            else { throw .badHost(host) }
        }
    }

    private static func isHexDigit(_ c: UInt8) -> Bool {
        (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "f"))
            || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "F"))
    }
}

/// The protocols whose servers share the address syntax (simplexmq `ProtocolType`).
public enum ServerProtocol: String, Sendable, Hashable, CaseIterable {
    case smp
    case ntf
    case xftp

    /// The port a client uses when the address has none: SMP's spec port; the notification and
    /// XFTP servers SimpleX runs listen on 443.
    public var defaultPort: Int {
        switch self {
        case .smp: SMPServerAddress.defaultPort
        case .ntf, .xftp: 443
        }
    }
}

/// Any protocol server address with optional basic auth (simplexmq `ProtoServerWithAuth`):
/// `<smp|ntf|xftp>://<keyHash>[:<password>]@host1[,host2][:port]`.
public struct ProtocolServerAddress: Sendable, Hashable, CustomStringConvertible {
    public let scheme: ServerProtocol
    /// Identity, hosts and port (the same rules for every protocol).
    public let address: SMPServerAddress
    /// The server password (`BasicAuth`), when the address carries one.
    public let basicAuth: String?

    public init(scheme: ServerProtocol, address: SMPServerAddress, basicAuth: String? = nil) {
        self.scheme = scheme
        self.address = address
        self.basicAuth = basicAuth
    }

    public var effectivePort: Int { address.port ?? scheme.defaultPort }

    /// simplexmq `serverStrP`: scheme, base64url identity (padded or not, not empty), optional
    /// `:password` (printable, no space, "@", ":" or "/"), "@", comma-separated hosts, optional port.
    public init(parsing string: String) throws(SMPServerAddressError) {
        guard let scheme = ServerProtocol.allCases.first(where: { string.hasPrefix($0.rawValue + "://") }) else { throw .badScheme }
        let rest = Substring(string).dropFirst(scheme.rawValue.count + 3)
        guard let at = rest.firstIndex(of: "@") else { throw .missingHost }
        var identity = rest[rest.startIndex..<at]
        var auth: String?
        if let colon = identity.firstIndex(of: ":") {
            let pwd = identity[identity.index(after: colon)...]
            guard !pwd.isEmpty, pwd.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ":") && $0 != UInt8(ascii: "/") })
            else { throw .badKeyHash }
            auth = String(pwd)
            identity = identity[..<colon]
        }
        guard let keyHash = Self.strictBase64URL(identity) else { throw .badKeyHash }
        var hostPart = rest[rest.index(after: at)...]
        var port: Int?
        // The port is the digits after the last ':' that is not inside an IPv6 bracket.
        if let colon = hostPart.lastIndex(of: ":"), !hostPart[colon...].contains("]"),
            !Self.insideBracket(hostPart[hostPart.startIndex..<colon])
        {
            let digits = hostPart[hostPart.index(after: colon)...]
            guard !digits.isEmpty, digits.count <= 5, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
                let p = Int(digits)
            else { throw .badPort }
            port = p
            hostPart = hostPart[hostPart.startIndex..<colon]
        }
        let hosts = hostPart.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard !hosts.isEmpty, hosts.allSatisfy({ !$0.isEmpty }) else { throw .missingHost }
        self.init(scheme: scheme, address: try SMPServerAddress(keyHash: keyHash, hosts: hosts, port: port), basicAuth: auth)
    }

    /// simplexmq `strEncodeServer`: padded base64url identity, hosts joined with ",".
    public var description: String {
        var s = scheme.rawValue + "://" + Base64URL.encode(address.keyHash)
        if let basicAuth { s += ":" + basicAuth }
        s += "@" + address.hosts.joined(separator: ",")
        if let port = address.port { s += ":\(port)" }
        return s
    }

    /// simplexmq `base64urlP`: at least one base64url character, then optional "=" padding, and
    /// the whole must decode.
    static func strictBase64URL(_ s: Substring) -> [UInt8]? {
        let u = Array(s.utf8)
        var end = u.count
        while end > 0, u[end - 1] == UInt8(ascii: "=") { end -= 1 }
        guard end > 0, u.count - end <= 2 else { return nil }
        let ok = u[0..<end].allSatisfy { c in
            (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z")) || (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z"))
                || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || c == UInt8(ascii: "-") || c == UInt8(ascii: "_")
        }
        guard ok, end % 4 != 1 else { return nil }
        if u.count > end, u.count % 4 != 0 { return nil }
        return Base64URL.decode(s)
    }

    /// Whether `s` ends inside an unclosed "[".
    private static func insideBracket(_ s: Substring) -> Bool {
        guard let open = s.lastIndex(of: "[") else { return false }
        guard let close = s.lastIndex(of: "]") else { return true }
        return close < open
    }
}

/// Why a string is not an SMP server address.
public enum SMPServerAddressError: Error, Sendable, Hashable {
    /// Does not start with `smp://` (or, for `ProtocolServerAddress`, `ntf://` or `xftp://`).
    case badScheme
    /// The identity is missing or not base64url, or the password is invalid.
    case badKeyHash
    /// No `@` or an empty host list / empty host entry.
    case missingHost
    /// A host with characters outside host names and IP literals.
    case badHost(String)
    /// The port is not a decimal number in 1...65535.
    case badPort
}
