import SMPProtocol
import SimplexFoundation

/// simplexmq `SMPClientHandshake`, the client's answer to the server hello:
/// `smpVersion(Word16) keyHash(shortString) [v>=7: authPubKey] [v>=14: proxyServer T/F]
/// [v>=16: clientService Maybe]`.
public struct SMPClientHandshake: Sendable, Hashable, SMPEncodable, SMPDecodable {
    /// The version the client chose from the server's range.
    public var version: UInt16
    /// The server identity (CA certificate fingerprint) the client expects.
    public var keyHash: [UInt8]
    /// The client's per-connection X25519 key (for the session secret and v11 blocks).
    public var authPubKey: X25519PublicKey?
    /// The client is an SMP proxy: no block encryption (it already encrypts forwarded traffic).
    public var proxyServer: Bool
    /// A service certificate and key (high-volume services); not used by this client.
    public var clientService: SMPClientHandshakeService?

    public init(version: UInt16, keyHash: [UInt8], authPubKey: X25519PublicKey?, proxyServer: Bool = false,
                clientService: SMPClientHandshakeService? = nil) {
        self.version = version
        self.keyHash = keyHash
        self.authPubKey = authPubKey
        self.proxyServer = proxyServer
        self.clientService = clientService
    }

    public func encode(into e: inout SMPEncoder) throws {
        e.word16(version)
        try e.shortString(keyHash)
        if version >= SMPTransportVersion.authCommands, let authPubKey {
            try e.shortString(authPubKey.x509Encoded)
        }
        if version >= SMPTransportVersion.proxyServerHandshake { e.bool(proxyServer) }
        if version >= SMPTransportVersion.serviceCerts {
            if let clientService {
                e.byte(UInt8(ascii: "1"))
                try clientService.encode(into: &e)
            } else {
                e.byte(UInt8(ascii: "0"))
            }
        }
    }

    /// As the reference's parser: the v7 key is optional (one that does not parse counts as
    /// absent, and parsing goes on from where it started); the later fields are required at their
    /// versions; whatever follows is ignored.
    public init(from d: inout SMPDecoder) throws {
        version = try d.word16()
        keyHash = try d.shortString()
        authPubKey = nil
        if version >= SMPTransportVersion.authCommands {
            var attempt = d
            if let der = try? attempt.shortString(), let key = try? X25519PublicKey(x509Encoded: der) {
                authPubKey = key
                d = attempt
            }
        }
        proxyServer = try version >= SMPTransportVersion.proxyServerHandshake ? d.bool() : false
        clientService = nil
        if version >= SMPTransportVersion.serviceCerts {
            switch try d.byte() {
            case UInt8(ascii: "0"): clientService = nil
            case UInt8(ascii: "1"): clientService = try SMPClientHandshakeService(from: &d)
            default: throw DecodingError.invalid("bad Maybe tag")
            }
        }
        _ = d.rest()
    }
}
