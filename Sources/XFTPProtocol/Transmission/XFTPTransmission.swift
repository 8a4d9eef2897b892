import SimplexFoundation

/// What both ends of an XFTP session agreed: the TLS session ID (tls-unique), always sent in
/// transmissions (`implySessId = False`), and the negotiated version.
public struct XFTPSessionParams: Sendable {
    public var sessionId: [UInt8]
    public var version: UInt16

    public init(sessionId: [UInt8], version: UInt16) {
        self.sessionId = sessionId
        self.version = version
    }
}

/// A command as the server decoded it, with what is needed to check its authorization.
public struct SignedFileCommand: Sendable {
    public var auth: TransmissionAuth?
    /// The bytes the authorization covers: sessionId, corrId, entityId and the command.
    public var authorized: [UInt8]
    public var corrId: [UInt8]
    public var entityId: [UInt8]
    public var command: FileCommand
}

/// A transmission that could not be turned into a command, with the IDs to answer it under.
public struct RejectedTransmission: Error, Sendable, Equatable {
    public var corrId: [UInt8]
    public var entityId: [UInt8]
    public var error: XFTPErrorType
}

/// XFTP transmissions: one per 16384-byte block, in the batch syntax (count byte 1, then a
/// `Large` string): `auth ++ sessionId ++ corrId ++ entityId ++ command`, padded with `#`.
public enum XFTPTransmission {
    /// `xftpEncodeAuthTransmission`: signs (or authenticates) and pads one command.
    public static func encodeAuth(
        _ params: XFTPSessionParams, key: AnyPrivateKey, serverSessionKey: X25519PublicKey?,
        corrId: [UInt8], entityId: [UInt8], command: FileCommand
    ) throws -> [UInt8] {
        let t = try body(params, corrId: corrId, entityId: entityId, payload: command.encode(version: params.version))
        let auth = try TransmissionAuth.make(key: key, authorized: t, corrId: corrId, serverSessionKey: serverSessionKey)
        return try block(auth: auth.bytes, transmission: t)
    }

    /// `xftpEncodeTransmission` for an unsigned command (PING).
    public static func encode(_ params: XFTPSessionParams, corrId: [UInt8], entityId: [UInt8], command: FileCommand) throws -> [UInt8] {
        try block(auth: [], transmission: body(params, corrId: corrId, entityId: entityId, payload: command.encode(version: params.version)))
    }

    /// `xftpEncodeTransmission` of a server response.
    public static func encode(_ params: XFTPSessionParams, corrId: [UInt8], entityId: [UInt8], response: FileResponse) throws -> [UInt8] {
        try block(auth: [], transmission: body(params, corrId: corrId, entityId: entityId, payload: response.encode(version: params.version)))
    }

    /// `smpEncode sessionId <> smpEncode (corrId, entityId) <> payload`.
    static func body(_ params: XFTPSessionParams, corrId: [UInt8], entityId: [UInt8], payload: [UInt8]) throws -> [UInt8] {
        var e = SMPEncoder(capacity: 64 + payload.count)
        try e.shortString(params.sessionId)
        try e.shortString(corrId)
        try e.shortString(entityId)
        e.raw(payload)
        return e.bytes
    }

    /// The unpadded batch: count 1, `Large`(1-byte-len auth ++ transmission).
    public static func batch(auth: [UInt8], transmission: [UInt8]) throws -> [UInt8] {
        var inner = SMPEncoder(capacity: auth.count + transmission.count + 1)
        try inner.shortString(auth)
        inner.raw(transmission)
        var e = SMPEncoder(capacity: inner.bytes.count + 3)
        e.byte(1)
        try e.largeString(inner.bytes)
        return e.bytes
    }

    static func block(auth: [UInt8], transmission: [UInt8]) throws -> [UInt8] {
        let b = try batch(auth: auth, transmission: transmission)
        do {
            return try Padding.pad(b, to: XFTPVersion.blockSize)
        } catch {
            throw XFTPTransmissionError.largeMessage
        }
    }

    /// One transmission out of a block (`xftpDecodeTransmission` + `tParse`): a block that is not
    /// exactly one well-formed transmission is `BLOCK`.
    static func parse(_ block: [UInt8]) -> Result<(auth: [UInt8], rest: [UInt8]), XFTPErrorType> {
        guard block.count == XFTPVersion.blockSize, let unpadded = try? Padding.unpad(block) else { return .failure(.block) }
        var d = SMPDecoder(unpadded)
        guard let n = try? d.byte(), n == 1, let t = try? d.largeString(), d.isAtEnd else { return .failure(.block) }
        var td = SMPDecoder(t)
        guard let auth = try? td.shortString() else { return .failure(.block) }
        return .success((auth, td.rest()))
    }

    /// `xftpDecodeTServer` + `tDecodeServer`: the session ID must match, the authorization must
    /// have a valid length, and the command must parse and carry the credentials it needs.
    public static func decodeServer(_ block: [UInt8], params: XFTPSessionParams) -> Result<SignedFileCommand, RejectedTransmission> {
        let authBytes: [UInt8], authorized: [UInt8]
        switch parse(block) {
        case .failure(let e): return .failure(RejectedTransmission(corrId: [], entityId: [], error: e))
        case .success(let p): (authBytes, authorized) = p
        }
        var d = SMPDecoder(authorized)
        guard let sessId = try? d.shortString(), let corrId = try? d.shortString(), let entityId = try? d.shortString() else {
            return .failure(RejectedTransmission(corrId: [], entityId: [], error: .block))
        }
        let command = d.rest()
        guard sessId == params.sessionId else {
            return .failure(RejectedTransmission(corrId: corrId, entityId: [], error: .session))
        }
        let auth: TransmissionAuth?
        switch TransmissionAuth.decode(authBytes) {
        case .failure(let e): return .failure(RejectedTransmission(corrId: corrId, entityId: [], error: e))
        case .success(let a): auth = a
        }
        switch FileCommand.decode(command, version: params.version) {
        case .failure(let e):
            return .failure(RejectedTransmission(corrId: corrId, entityId: entityId, error: e))
        case .success(let cmd):
            if let e = cmd.checkCredentials(hasAuth: auth != nil, entityId: entityId) {
                return .failure(RejectedTransmission(corrId: corrId, entityId: entityId, error: e))
            }
            return .success(SignedFileCommand(auth: auth, authorized: authorized, corrId: corrId, entityId: entityId, command: cmd))
        }
    }

    /// `xftpDecodeTClient`: a response block; a bad block is an error for the whole block.
    public static func decodeClient(_ block: [UInt8], params: XFTPSessionParams)
        -> Result<(corrId: [UInt8], entityId: [UInt8], response: Result<FileResponse, XFTPErrorType>), XFTPErrorType>
    {
        let t: [UInt8]
        switch parse(block) {
        case .failure(let e): return .failure(e)
        case .success(let p): t = p.rest
        }
        var d = SMPDecoder(t)
        guard let sessId = try? d.shortString(), let corrId = try? d.shortString(), let entityId = try? d.shortString() else {
            return .success(([], [], .failure(.block)))
        }
        guard sessId == params.sessionId else { return .success((corrId, [], .failure(.session))) }
        let r = FileResponse.decode(d.rest(), version: params.version).flatMap { resp -> Result<FileResponse, XFTPErrorType> in
            if let e = resp.checkEntity(entityId) { return .failure(e) }
            return .success(resp)
        }
        return .success((corrId, entityId, r))
    }
}
