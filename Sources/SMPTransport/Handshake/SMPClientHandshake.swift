import Crypto
import SMPProtocol
import SimplexFoundation

/// `clientHello`, the client's answer to the server hello, as simplexmq sends it:
/// `smpVersion(word16) keyHash(shortString) [authPubKey(shortString x509)] ignoredPart`.
/// The key hash lets the server refuse clients that expect another identity; the auth key is
/// sent from v7 (an X25519 key for a session secret, used by proxying servers).
public struct SMPClientHandshake: Sendable, Equatable, SMPEncodable, SMPDecodable {
    /// The version the client chose from the server's range.
    public var version: UInt16
    /// The server identity (CA certificate fingerprint) the client expects.
    public var keyHash: [UInt8]
    /// The client's per-connection X25519 key; only encoded from v7.
    public var authPubKey: Curve25519.KeyAgreement.PublicKey?

    public init(version: UInt16, keyHash: [UInt8], authPubKey: Curve25519.KeyAgreement.PublicKey?) {
        self.version = version
        self.keyHash = keyHash
        self.authPubKey = authPubKey
    }

    public func encode(into e: inout SMPEncoder) throws {
        e.word16(version)
        try e.shortString(keyHash)
        if version >= SMPVersion.authCommands, let authPubKey {
            try e.shortString(TransportKeyEncoding.encodeX25519(authPubKey))
        }
    }

    /// Parses a hello and ignores whatever follows the known fields (the spec's `ignoredPart`).
    /// A present but invalid key is a `DecodingError`.
    public init(from d: inout SMPDecoder) throws {
        version = try d.word16()
        keyHash = try d.shortString()
        if version >= SMPVersion.authCommands, !d.isAtEnd {
            authPubKey = try TransportKeyEncoding.decodeX25519(d.shortString())
        } else {
            authPubKey = nil
        }
        _ = d.rest()
    }

    /// The 16384-byte `paddedClientHello` block.
    public func encodeBlock() throws -> [UInt8] {
        try Padding.pad(smpEncoded(), to: TransportBlock.size)
    }

    /// Parses a `paddedClientHello` block; any malformation is a `DecodingError`.
    public static func decode<C: Collection>(block: C) throws -> SMPClientHandshake where C.Element == UInt8, C.Index == Int {
        guard block.count == TransportBlock.size else { throw DecodingError.invalid("block of \(block.count) bytes") }
        return try smpDecode(Padding.unpad(block))
    }

    public static func == (a: SMPClientHandshake, b: SMPClientHandshake) -> Bool {
        a.version == b.version && a.keyHash == b.keyHash
            && a.authPubKey?.rawRepresentation == b.authPubKey?.rawRepresentation
    }
}
