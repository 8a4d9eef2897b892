/// The TLS parameters of one side of a connection, in OpenSSL's terms. `smp` is simplexmq's
/// `defaultSupportedParams`: TLS 1.3 and 1.2, CHACHA20-POLY1305 only, Ed448 and Ed25519
/// signatures, X448 and X25519 groups; resumption is always off (no tickets, no session cache).
/// Tests change fields to play misbehaving peers.
public struct TLSConfiguration: Sendable, Hashable {
    public enum Version: Int32, Sendable {
        case tls12 = 0x0303
        case tls13 = 0x0304
    }

    public var minimumVersion: Version
    public var maximumVersion: Version
    /// TLS 1.2 cipher list (OpenSSL syntax).
    public var cipherList: String
    /// TLS 1.3 cipher suites (OpenSSL syntax).
    public var cipherSuites: String
    /// Key exchange groups, in preference order.
    public var groups: String
    /// Signature algorithms, in preference order.
    public var signatureAlgorithms: String
    /// ALPN names: a client offers them, a server accepts the first of its own names the client offered.
    public var alpn: [String]
    /// After a TLS 1.3 handshake, records are protected by CSimplexTLS itself and OpenSSL's
    /// connection is freed (about 12 KB per connection); off keeps OpenSSL throughout.
    public var ownRecordLayer = true

    /// The ALPN name of the current SMP handshake (`alpnSupportedSMPHandshakes`).
    public static let smpALPN = "smp/1"

    public static let smp = TLSConfiguration(
        minimumVersion: .tls12,
        maximumVersion: .tls13,
        cipherList: "ECDHE-ECDSA-CHACHA20-POLY1305",
        cipherSuites: "TLS_CHACHA20_POLY1305_SHA256",
        groups: "X448:X25519",
        signatureAlgorithms: "ed448:ed25519",
        alpn: [smpALPN]
    )

    public init(minimumVersion: Version, maximumVersion: Version, cipherList: String, cipherSuites: String,
                groups: String, signatureAlgorithms: String, alpn: [String]) {
        self.minimumVersion = minimumVersion
        self.maximumVersion = maximumVersion
        self.cipherList = cipherList
        self.cipherSuites = cipherSuites
        self.groups = groups
        self.signatureAlgorithms = signatureAlgorithms
        self.alpn = alpn
    }

    /// ALPN list in wire format (each name prefixed by its length); names over 255 bytes are dropped.
    var alpnWire: [UInt8] {
        alpn.flatMap { name -> [UInt8] in
            let b = Array(name.utf8)
            return b.isEmpty || b.count > 255 ? [] : [UInt8(b.count)] + b
        }
    }
}
