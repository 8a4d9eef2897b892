import SimplexFoundation

/// `smpServer` of the spec: `smp://<serverIdentity>@host1[,host2...][:port]`. The identity is the
/// SHA-256 fingerprint of the server's offline CA certificate, which the client pins during TLS.
public struct SMPServerAddress: Sendable, Hashable, CustomStringConvertible {
    /// The spec's default TCP port for SMP.
    public static let defaultPort = 5223
    /// Length of a server identity: a SHA-256 digest.
    public static let keyHashLength = 32

    /// SHA-256 of the offline CA certificate's DER (the "fingerprint").
    public let keyHash: [UInt8]
    /// One or more host names or IP addresses of the same server (e.g. a public and an onion name), in order of preference.
    public let hosts: [String]
    /// The explicit port, or nil when the address uses the default.
    public let port: Int?

    /// The port to connect to.
    public var effectivePort: Int { port ?? Self.defaultPort }

    /// Builds an address, checking the same rules as the parser.
    public init(keyHash: [UInt8], hosts: [String], port: Int? = nil) throws(SMPServerAddressError) {
        guard keyHash.count == Self.keyHashLength else { throw .badKeyHash }
        guard !hosts.isEmpty else { throw .missingHost }
        for h in hosts { try Self.checkHost(h) }
        if let port, !(1...65535).contains(port) { throw .badPort }
        self.keyHash = keyHash
        self.hosts = hosts
        self.port = port
    }

    /// Parses `smp://<base64url keyHash>@host1[,host2][:port]`; the key hash may have "=" padding
    /// or not. Any deviation is a typed error, never a trap.
    public init(parsing string: String) throws(SMPServerAddressError) {
        let scheme = "smp://"
        guard string.hasPrefix(scheme) else { throw .badScheme }
        let rest = string.dropFirst(scheme.count)
        guard let at = rest.firstIndex(of: "@") else { throw .missingHost }
        let identity = rest[rest.startIndex..<at]
        guard !identity.isEmpty, !identity.contains(":"), let keyHash = Base64URL.decode(identity) else {
            throw .badKeyHash
        }
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
        try self.init(keyHash: keyHash, hosts: hosts, port: port)
    }

    /// `smp://<keyHash base64url, padded>@hosts[:port]`, as simplexmq renders it.
    public var description: String {
        var s = "smp://" + Base64URL.encode(keyHash) + "@" + hosts.joined(separator: ",")
        if let port { s += ":\(port)" }
        return s
    }

    /// Host names, IPv4 literals and bracketed IPv6 literals; nothing that could smuggle in
    /// another URI component.
    private static func checkHost(_ host: String) throws(SMPServerAddressError) {
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
        // Something that looks like a dotted IPv4 literal must be a valid one.
        if u.allSatisfy({ ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: ".") }) {
            let parts = host.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 4,
                parts.allSatisfy({ !$0.isEmpty && $0.count <= 3 && (Int($0).map { $0 <= 255 } ?? false) })
            else { throw .badHost(host) }
        }
    }

    /// Whether `s` ends inside an unclosed "[".
    private static func insideBracket(_ s: Substring) -> Bool {
        guard let open = s.lastIndex(of: "[") else { return false }
        guard let close = s.lastIndex(of: "]") else { return true }
        return close < open
    }

    private static func isHexDigit(_ c: UInt8) -> Bool {
        (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "f"))
            || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "F"))
    }
}

/// Why a string is not an SMP server address.
public enum SMPServerAddressError: Error, Sendable, Hashable {
    /// Does not start with `smp://`.
    case badScheme
    /// The identity is missing, not base64url, or not 32 bytes.
    case badKeyHash
    /// No `@` or an empty host list / empty host entry.
    case missingHost
    /// A host with characters outside host names and IP literals.
    case badHost(String)
    /// The port is not a decimal number in 1...65535.
    case badPort
}
