import SMPTransport
import SimplexFoundation

/// simplexmq's binary `ProtocolServer` encoding, used inside agent messages:
/// `hosts (1-byte count, shortStrings) port (shortString, empty for the default) keyHash (shortString)`.
extension SMPServerAddress: SMPEncodable, SMPDecodable {
    public func encode(into e: inout SMPEncoder) throws(EncodingError) {
        try AgentWire.encodeNonEmpty(hosts, into: &e) { (e, h) throws(EncodingError) in
            try AgentWire.shortString(Array(Self.binaryHost(h).utf8), into: &e)
        }
        try AgentWire.shortString(Array((port.map { String($0) } ?? "").utf8), into: &e)
        try AgentWire.shortString(keyHash, into: &e)
    }

    public init(from d: inout SMPDecoder) throws(DecodingError) {
        let hosts = try AgentWire.decodeNonEmpty(&d) { (d) throws(DecodingError) in
            try Self.decodeHost(&d)
        }
        let port = try Self.decodePort(&d)
        let keyHash = try AgentWire.decoding { try d.shortString() }
        do {
            self = try SMPServerAddress(keyHash: keyHash, hosts: hosts, port: port)
        } catch {
            throw .invalid("SMP server: \(error)")
        }
    }

    /// simplexmq `legacyEncodeServer` (SMP client version 1): the first host only.
    func encodeLegacy(into e: inout SMPEncoder) throws(EncodingError) {
        try AgentWire.shortString(Array(Self.binaryHost(hosts[0]).utf8), into: &e)
        try AgentWire.shortString(Array((port.map { String($0) } ?? "").utf8), into: &e)
        try AgentWire.shortString(keyHash, into: &e)
    }

    static func decodeLegacy(_ d: inout SMPDecoder) throws(DecodingError) -> SMPServerAddress {
        let host = try decodeHost(&d)
        let port = try decodePort(&d)
        let keyHash = try AgentWire.decoding { try d.shortString() }
        do {
            return try SMPServerAddress(keyHash: keyHash, hosts: [host], port: port)
        } catch {
            throw .invalid("SMP server: \(error)")
        }
    }

    /// simplexmq writes IPv6 literals without brackets in the binary form.
    private static func binaryHost(_ h: String) -> String {
        h.hasPrefix("[") && h.hasSuffix("]") ? String(h.dropFirst().dropLast()) : h
    }

    private static func decodeHost(_ d: inout SMPDecoder) throws(DecodingError) -> String {
        let b = try AgentWire.decoding { try d.shortString() }
        guard let h = LinkSyntax.asciiText(b) else { throw .invalid("SMP server host is not printable ASCII") }
        return h.contains(":") && !h.hasPrefix("[") ? "[" + h + "]" : h
    }

    private static func decodePort(_ d: inout SMPDecoder) throws(DecodingError) -> Int? {
        let b = try AgentWire.decoding { try d.shortString() }
        if b.isEmpty { return nil }
        guard b.count <= 5, b.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let p = Int(String(decoding: b, as: UTF8.self)),
            (1...65535).contains(p)
        else { throw .invalid("SMP server port") }
        return p
    }
}
