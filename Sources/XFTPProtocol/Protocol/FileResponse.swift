import SimplexFoundation

/// XFTP server responses (`FileResponse`), encoded as the reference's `encodeProtocol v`.
public enum FileResponse: Sendable, Hashable {
    /// FNEW answer: the sender's chunk ID and one recipient ID per recipient key.
    case sids(senderId: [UInt8], recipientIds: [[UInt8]])
    /// FADD answer.
    case rids([[UInt8]])
    /// FGET answer: the server's ephemeral X25519 key and the nonce of the encrypted chunk body.
    case file(serverDhKey: X25519PublicKey, nonce: [UInt8])
    case ok
    case err(XFTPErrorType)
    case pong

    public var tag: String {
        switch self {
        case .sids: "SIDS"
        case .rids: "RIDS"
        case .file: "FILE"
        case .ok: "OK"
        case .err: "ERR"
        case .pong: "PONG"
        }
    }

    /// Before `blockedFiles` (v3) a blocked file is reported as `ERR AUTH`, which old clients know.
    public func encode(version: UInt16) throws -> [UInt8] {
        var e = SMPEncoder(capacity: 96)
        e.raw(Array(tag.utf8))
        switch self {
        case .sids(let sid, let rids):
            e.byte(0x20)
            try e.shortString(sid)
            try XFTPFields.encodeIds(rids, into: &e)
        case .rids(let rids):
            e.byte(0x20)
            try XFTPFields.encodeIds(rids, into: &e)
        case .file(let key, let nonce):
            guard nonce.count == 24 else { throw EncodingError.tooLarge("nonce of \(nonce.count) bytes") }
            e.byte(0x20)
            try e.shortString(key.x509Encoded)
            e.raw(nonce)
        case .err(let err):
            e.byte(0x20)
            if case .blocked = err, version < XFTPVersion.blockedFiles {
                e.raw(XFTPErrorType.auth.encoded)
            } else {
                e.raw(err.encoded)
            }
        case .ok, .pong:
            break
        }
        return e.bytes
    }

    /// Parses a response as the client does; unknown tag `CMD UNKNOWN`, bad fields `CMD SYNTAX`.
    public static func decode(_ bytes: [UInt8], version _: UInt16) -> Result<FileResponse, XFTPErrorType> {
        let space = bytes.firstIndex(of: 0x20) ?? bytes.endIndex
        let tag = String(decoding: bytes[..<space], as: UTF8.self)
        var d = SMPDecoder(bytes[space...])
        do {
            let r: FileResponse
            switch tag {
            case "SIDS":
                try d.expect(" ")
                let sid = try d.shortString()
                r = .sids(senderId: sid, recipientIds: try XFTPFields.decodeIds(&d))
            case "RIDS":
                try d.expect(" ")
                r = .rids(try XFTPFields.decodeIds(&d))
            case "FILE":
                try d.expect(" ")
                let key = try X25519PublicKey(x509Encoded: try d.shortString())
                r = .file(serverDhKey: key, nonce: try d.take(24))
            case "OK": r = .ok
            case "PONG": r = .pong
            case "ERR":
                try d.expect(" ")
                guard let e = XFTPErrorType(encoded: d.rest()) else { throw DecodingError.invalid("error") }
                r = .err(e)
            default: return .failure(.cmd(.unknown))
            }
            try d.expectEnd()
            return .success(r)
        } catch {
            return .failure(.cmd(.syntax))
        }
    }

    /// The response side of `checkCredentials`: SIDS and PONG carry no entity ID, the others (but
    /// ERR) must.
    public func checkEntity(_ entityId: [UInt8]) -> XFTPErrorType? {
        switch self {
        case .sids, .pong: entityId.isEmpty ? nil : .cmd(.hasAuth)
        case .err: nil
        default: entityId.isEmpty ? .cmd(.noEntity) : nil
        }
    }
}
