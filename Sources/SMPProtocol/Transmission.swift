import SimplexFoundation

/// What both ends of a connection agreed in the handshake that shapes every transmission
/// (`THandleParams`): below v7 the session ID is sent in each transmission, from v7 it is only
/// covered by the authorization; from v16 a service-signature field follows a non-empty
/// authorization.
public struct TransmissionParams: Sendable, Hashable {
    public let sessionId: [UInt8]
    public let version: UInt16

    public init(sessionId: [UInt8], version: UInt16) {
        self.sessionId = sessionId
        self.version = version
    }

    /// `implySessId`: the session ID is not sent (v7+).
    public var implySessionId: Bool { version >= SMPVersion.authCommands }
    /// `serviceAuth`: a `Maybe` service signature follows a non-empty authorization (v16+).
    public var serviceAuth: Bool { version >= SMPVersion.serviceCerts }
}

/// A transmission's authorization as the reference reads it by its size (`decodeTAuthBytes`):
/// 64 bytes Ed25519, 114 bytes Ed448, 80 bytes an X25519 DH authenticator; any other non-empty
/// size is ERR BLOCK.
public enum TransmissionAuthorization: Sendable, Hashable {
    case ed25519Signature([UInt8])
    case ed448Signature([UInt8])
    case authenticator([UInt8])

    public static let authenticatorSize = 80

    public init?(bytes: [UInt8]) {
        switch bytes.count {
        case Self.authenticatorSize: self = .authenticator(bytes)
        case 64: self = .ed25519Signature(bytes)
        case 114: self = .ed448Signature(bytes)
        default: return nil
        }
    }

    public var bytes: [UInt8] {
        switch self {
        case .ed25519Signature(let b), .ed448Signature(let b), .authenticator(let b): b
        }
    }
}

/// One transmission of a block: `authorization [serviceSig] [sessionId] corrId entityId command`.
public struct RawTransmission: Sendable, Hashable {
    /// Signature (64 bytes Ed25519, 114 Ed448) or DH authenticator (80 bytes); empty when absent.
    public var authorization: [UInt8]
    /// The v16 service signature (Ed25519, 64 bytes) of a client service session; nil when absent.
    public var serviceSignature: [UInt8]?
    /// Random bytes in commands and their responses (24 from the reference's clients), empty in
    /// server notifications.
    public var corrId: [UInt8]
    /// Queue ID (recipient, sender, notifier or link), empty for NEW, PING and IDS.
    public var entityId: [UInt8]
    /// The encoded command or response.
    public var body: [UInt8]

    public init(authorization: [UInt8] = [], serviceSignature: [UInt8]? = nil, corrId: [UInt8], entityId: [UInt8], body: [UInt8]) {
        self.authorization = authorization
        self.serviceSignature = serviceSignature
        self.corrId = corrId
        self.entityId = entityId
        self.body = body
    }

    /// Correlation IDs the clients make are 24 bytes (they double as crypto_box nonces).
    public static let corrIdLength = 24

    /// `tForAuth`: the bytes an authorization covers, `shortString(sessionId) corrId entityId command`,
    /// with the session ID included at every version.
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

    /// `tToSend`: the session ID only below v7, then corrId, entityId and the command.
    public func bytesToSend(_ p: TransmissionParams) throws -> [UInt8] {
        var e = SMPEncoder(capacity: body.count + corrId.count + entityId.count + 3)
        if !p.implySessionId { try e.shortString(p.sessionId) }
        try e.shortString(corrId)
        try e.shortString(entityId)
        e.raw(body)
        return e.bytes
    }

    /// `tEncode`: authorization, the v16 service-signature field after a non-empty
    /// authorization ('0' when absent), then `tToSend`.
    public func encoded(_ p: TransmissionParams) throws -> [UInt8] {
        var e = SMPEncoder(capacity: body.count + authorization.count + 100)
        try e.shortString(authorization)
        if p.serviceAuth && !authorization.isEmpty {
            try e.optional(serviceSignature) { try $0.shortString($1) }
        }
        e.raw(try bytesToSend(p))
        return e.bytes
    }

    /// A transmission as `transmissionP` reads it and `tDecodeServer` checks it, or the error
    /// (with the corrId it could read) that the relay answers.
    public struct Parsed: Sendable {
        public let transmission: RawTransmission
        /// The decoded authorization (nil: none was sent).
        public let authorization: TransmissionAuthorization?
        /// `tForAuth` of this connection: what the authorization must cover.
        public let authorized: [UInt8]
    }

    /// Why a transmission was refused before its command was looked at, and the corrId of the
    /// ERR answer (empty when the framing itself was bad).
    public struct ParseFailure: Error, Sendable, Equatable {
        public let corrId: [UInt8]
        public let error: ErrorType
        public init(corrId: [UInt8], error: ErrorType) {
            self.corrId = corrId
            self.error = error
        }
    }

    /// Server side: parses one transmission of a block. Framing errors are BLOCK without corrId;
    /// a session ID other than the connection's (below v7) is SESSION; an authorization of a size
    /// no key makes is BLOCK with the corrId.
    public static func parse(_ bytes: [UInt8], _ p: TransmissionParams) throws(ParseFailure) -> Parsed {
        var d = SMPDecoder(bytes)
        let auth: [UInt8]
        var serviceSig: [UInt8]?
        let sessId: [UInt8]
        let corrId: [UInt8]
        let entityId: [UInt8]
        do {
            auth = try d.shortString()
            if p.serviceAuth && !auth.isEmpty {
                serviceSig = try d.optional { d in
                    let s = try d.shortString()
                    guard s.count == 64 else { throw DecodingError.invalid("service signature of \(s.count) bytes") }
                    return s
                }
            }
            sessId = try p.implySessionId ? p.sessionId : d.shortString()
            corrId = try d.shortString()
            entityId = try d.shortString()
        } catch {
            throw ParseFailure(corrId: [], error: .block)
        }
        let body = d.rest()
        guard sessId == p.sessionId else { throw ParseFailure(corrId: corrId, error: .session) }
        var authorization: TransmissionAuthorization?
        if !auth.isEmpty {
            guard let a = TransmissionAuthorization(bytes: auth) else { throw ParseFailure(corrId: corrId, error: .block) }
            authorization = a
        }
        let t = RawTransmission(authorization: auth, serviceSignature: serviceSig, corrId: corrId, entityId: entityId, body: body)
        guard let authorized = try? Self.authorizedBytes(sessionId: p.sessionId, corrId: corrId, entityId: entityId, body: body) else {
            throw ParseFailure(corrId: corrId, error: .block)
        }
        return Parsed(transmission: t, authorization: authorization, authorized: authorized)
    }

    /// Client side (`tDecodeClient`): server transmissions carry no authorization (the reference
    /// writes an empty one and skips the service field), then the session ID below v7.
    public static func parseFromServer(_ bytes: [UInt8], _ p: TransmissionParams) throws -> RawTransmission {
        var d = SMPDecoder(bytes)
        let auth = try d.shortString()
        if p.serviceAuth && !auth.isEmpty { _ = try d.optional { try $0.shortString() } }
        if !p.implySessionId {
            guard try d.shortString() == p.sessionId else { throw TransportError.session }
        }
        let corrId = try d.shortString()
        let entityId = try d.shortString()
        return RawTransmission(authorization: auth, corrId: corrId, entityId: entityId, body: d.rest())
    }
}

/// Packing transmissions into transport blocks as `batchTransmissions` does: a count byte, then
/// each `tEncode` as `Large`; a block holds at most 255 transmissions and 16365 bytes of them
/// (16384 less 2 bytes of padding length, 1 count byte and the 16-byte tag an encrypted block needs).
public enum TransmissionBatch {
    /// Bytes of `Large` transmissions one block can carry (`blockSize - 19`).
    public static let capacity = TransportBlock.size - 19

    /// Bytes one encoded transmission takes in a block (its 2-byte length included).
    public static func cost(of transmission: [UInt8]) -> Int { transmission.count + 2 }

    /// The unpadded block contents for these transmissions, in order, as few as possible.
    public static func batches(_ transmissions: [[UInt8]]) throws -> [[UInt8]] {
        try pack(transmissions, paddedTo: nil)
    }

    /// Padded 16384-byte blocks for these transmissions, each built in place (no unpadded copy
    /// to pad afterwards: every SEND and MSG block is 16 KB).
    public static func blocks(_ transmissions: [[UInt8]]) throws -> [[UInt8]] {
        try pack(transmissions, paddedTo: TransportBlock.size)
    }

    /// `batches`, or with `paddedTo` each content behind its 2-byte length and followed by
    /// the pad bytes, as `Padding.pad` makes it.
    private static func pack(_ transmissions: [[UInt8]], paddedTo size: Int?) throws -> [[UInt8]] {
        var out: [[UInt8]] = []
        var current: [[UInt8]] = []
        var used = 0
        func flush() {
            guard !current.isEmpty else { return }
            let length = used + 1
            var b = [UInt8]()
            b.reserveCapacity(size ?? length)
            if size != nil {
                b.append(UInt8(truncatingIfNeeded: length >> 8))
                b.append(UInt8(truncatingIfNeeded: length))
            }
            b.append(UInt8(current.count))
            for t in current {
                b.append(UInt8(truncatingIfNeeded: t.count >> 8))
                b.append(UInt8(truncatingIfNeeded: t.count))
                b.append(contentsOf: t)
            }
            if let size { b.append(contentsOf: repeatElement(Padding.padByte, count: size - b.count)) }
            out.append(b)
            current = []
            used = 0
        }
        for t in transmissions {
            let c = cost(of: t)
            guard c <= capacity else { throw TransportError.largeMessage }
            if used + c > capacity || current.count == 255 { flush() }
            current.append(t)
            used += c
        }
        flush()
        return out
    }

    /// `tParse`: the transmissions of an unpadded block; any malformation (no transmissions, a
    /// length past the end, trailing bytes) is a bad block.
    public static func split(_ content: [UInt8]) throws -> [[UInt8]] {
        var d = SMPDecoder(content)
        return try split(&d, end: content.count)
    }

    /// Unpads a 16384-byte block and splits it, reading the block in place (no copy of its
    /// content: every SEND and MSG block is 16 KB).
    public static func split(block: [UInt8]) throws -> [[UInt8]] {
        guard block.count == TransportBlock.size else { throw DecodingError.invalid("block of \(block.count) bytes") }
        var d = SMPDecoder(block)
        let n = Int(try d.word16())
        guard n <= block.count - 2 else { throw DecodingError.invalid("padded length \(n) exceeds \(block.count - 2)") }
        return try split(&d, end: 2 + n)
    }

    /// The transmissions from `d`'s position to `end`: a transmission running past `end` (into
    /// the padding) or bytes left before it are malformations, as in the unpadded content.
    private static func split(_ d: inout SMPDecoder, end: Int) throws -> [[UInt8]] {
        guard d.position < end else { throw DecodingError.endOfInput }
        let count = Int(try d.byte())
        guard count >= 1 else { throw DecodingError.invalid("empty block") }
        var out: [[UInt8]] = []
        out.reserveCapacity(count)
        for _ in 0..<count {
            let t = try d.largeString()
            guard d.position <= end else { throw DecodingError.endOfInput }
            out.append(t)
        }
        if d.position < end { throw DecodingError.trailingBytes(end - d.position) }
        return out
    }
}

extension RawTransmission: SMPEncodable, SMPDecodable {
    /// The v7-v15 form (`authorization corrId entityId command`: session ID implied, no service
    /// field), for tools and tests that have no connection; connections use `encoded(_:)`/`parse`.
    public func encode(into e: inout SMPEncoder) throws {
        e.raw(try encoded(TransmissionParams(sessionId: [], version: SMPVersion.authCommands)))
    }

    public init(from d: inout SMPDecoder) throws {
        authorization = try d.shortString()
        serviceSignature = nil
        corrId = try d.shortString()
        entityId = try d.shortString()
        body = d.rest()
    }
}
