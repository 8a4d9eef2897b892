import SimplexFoundation

/// One transmission of a block: `authorization corrId entityId command`. From v7 the session ID is
/// not sent but is still covered by the authorization (see `authorizedBytes`).
public struct RawTransmission: Sendable, Hashable {
    /// Signature (64 bytes Ed25519, 114 Ed448) or DH authenticator (80 bytes); empty when absent.
    public var authorization: [UInt8]
    /// 24 random bytes in commands and their responses, empty in server notifications.
    public var corrId: [UInt8]
    /// Queue ID (recipient, sender or notifier), empty for NEW, PING and IDS.
    public var entityId: [UInt8]
    /// The encoded command or response.
    public var body: [UInt8]

    public init(authorization: [UInt8] = [], corrId: [UInt8], entityId: [UInt8], body: [UInt8]) {
        self.authorization = authorization
        self.corrId = corrId
        self.entityId = entityId
        self.body = body
    }

    /// The bytes a command's authorization covers: `shortString(sessionId) corrId entityId command`.
    public static func authorizedBytes(sessionId: [UInt8], corrId: [UInt8], entityId: [UInt8], body: [UInt8]) throws -> [UInt8] {
        var e = SMPEncoder(capacity: body.count + sessionId.count + corrId.count + entityId.count + 3)
        try e.shortString(sessionId)
        try e.shortString(corrId)
        try e.shortString(entityId)
        e.raw(body)
        return e.bytes
    }

    public func authorizedBytes(sessionId: [UInt8]) throws -> [UInt8] {
        try Self.authorizedBytes(sessionId: sessionId, corrId: corrId, entityId: entityId, body: body)
    }

    /// Correlation IDs are 24 bytes (they double as crypto_box nonces) or empty.
    public static let corrIdLength = 24
}

extension RawTransmission: SMPEncodable, SMPDecodable {
    public func encode(into e: inout SMPEncoder) throws {
        try e.shortString(authorization)
        try e.shortString(corrId)
        try e.shortString(entityId)
        e.raw(body)
    }

    public init(from d: inout SMPDecoder) throws {
        authorization = try d.shortString()
        corrId = try d.shortString()
        guard corrId.isEmpty || corrId.count == Self.corrIdLength else {
            throw DecodingError.invalid("corrId of \(corrId.count) bytes")
        }
        entityId = try d.shortString()
        body = d.rest()
    }
}
