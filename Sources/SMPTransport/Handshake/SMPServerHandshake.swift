import SMPProtocol
import SimplexFoundation

/// simplexmq `SMPServerHandshake`, the first block on a connection:
/// `minVersion maxVersion (Word16 each) sessionId(shortString) [authPubKey]`. The key
/// (`CertChainPubKey`: the server's chain and its X25519 session key signed by the online
/// certificate) is written only when the offered range reaches v7.
public struct SMPServerHandshake: Sendable, Hashable, SMPEncodable, SMPDecodable {
    public var versions: SMPVersionRange
    /// tls-unique of the connection.
    public var sessionId: [UInt8]
    public var authPubKey: CertChainPubKey?

    public init(versions: SMPVersionRange, sessionId: [UInt8], authPubKey: CertChainPubKey?) {
        self.versions = versions
        self.sessionId = sessionId
        self.authPubKey = authPubKey
    }

    public func encode(into e: inout SMPEncoder) throws {
        e.word16(versions.min)
        e.word16(versions.max)
        try e.shortString(sessionId)
        if versions.max >= SMPTransportVersion.authCommands, let authPubKey {
            try authPubKey.encode(into: &e)
        }
    }

    /// As the reference's parser: from v7 the key is optional (a key that does not parse counts as
    /// absent), and whatever follows is ignored (room for future fields).
    public init(from d: inout SMPDecoder) throws {
        let lo = try d.word16()
        let hi = try d.word16()
        guard let range = SMPVersionRange(min: lo, max: hi) else { throw DecodingError.invalid("version range \(lo)-\(hi)") }
        versions = range
        sessionId = try d.shortString()
        authPubKey = nil
        if range.max >= SMPTransportVersion.authCommands {
            var attempt = d
            if let key = try? CertChainPubKey(from: &attempt) {
                authPubKey = key
                d = attempt
            }
        }
        _ = d.rest()
    }
}
