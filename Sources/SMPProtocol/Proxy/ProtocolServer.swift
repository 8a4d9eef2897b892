import SimplexFoundation

/// simplexmq `ProtocolServer` as PRXY carries it (`smpEncode (host, port, keyHash)`): a non-empty
/// list of hosts (each the text form of a `TransportHost` as a shortString), the port as a
/// shortString ("" means the default port) and the identity key hash.
public struct ProtocolServer: Sendable, Hashable {
    public var hosts: [String]
    /// Decimal port, or "" for the protocol's default (5223 for SMP).
    public var port: String
    /// SHA-256 of the server's identity certificate.
    public var keyHash: [UInt8]

    public init(hosts: [String], port: String, keyHash: [UInt8]) {
        self.hosts = hosts
        self.port = port
        self.keyHash = keyHash
    }

    /// `TransportHost` as `strP` accepts it: an IPv4 or IPv6 address, an onion name, or a
    /// domain name without any of `:#,;/` and whitespace. The reference parses each host this way,
    /// so a host that is none of these makes PRXY a syntax error.
    public static func isValidHost(_ host: String) -> Bool {
        let b = Array(host.utf8)
        guard !b.isEmpty else { return false }
        if isIPv6(b) { return true }
        let forbidden: Set<UInt8> = Set(":#,;/ \n\r\t".utf8)
        return !b.contains(where: forbidden.contains)
    }

    private static func isIPv6(_ b: [UInt8]) -> Bool {
        var s = b[...]
        if s.first == UInt8(ascii: "["), s.last == UInt8(ascii: "]") { s = s.dropFirst().dropLast() }
        guard s.contains(UInt8(ascii: ":")) else { return false }
        return s.allSatisfy { c in
            (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "f"))
                || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "F")) || c == UInt8(ascii: ":") || c == UInt8(ascii: ".")
        }
    }
}

extension ProtocolServer: SMPEncodable, SMPDecodable {
    public func encode(into e: inout SMPEncoder) throws {
        guard (1...255).contains(hosts.count) else { throw EncodingError.tooLarge("\(hosts.count) hosts") }
        e.byte(UInt8(hosts.count))
        for h in hosts { try e.shortString(Array(h.utf8)) }
        try e.shortString(Array(port.utf8))
        try e.shortString(keyHash)
    }

    public init(from d: inout SMPDecoder) throws {
        let n = Int(try d.byte())
        guard n > 0 else { throw DecodingError.invalid("empty host list") }
        var hosts: [String] = []
        for _ in 0..<n {
            let raw = try d.shortString()
            guard let h = String(validating: raw, as: UTF8.self), Self.isValidHost(h) else { throw DecodingError.invalid("bad host") }
            hosts.append(h)
        }
        self.hosts = hosts
        port = String(decoding: try d.shortString(), as: UTF8.self)
        keyHash = try d.shortString()
    }
}
