import SimplexFoundation

/// Who sends a command: the sender owns a chunk (FNEW, FADD, FPUT, FDEL), recipients fetch it
/// (FGET, FACK). PING belongs to the recipient party in the reference.
public enum FileParty: String, Sendable, Hashable {
    case recipient
    case sender
}

/// `FileInfo` of FNEW: the sender's auth key, the chunk size and its SHA-256 digest.
public struct FileInfo: Sendable, Hashable {
    public var senderKey: AnyPublicKey
    public var size: UInt32
    public var digest: [UInt8]

    public init(senderKey: AnyPublicKey, size: UInt32, digest: [UInt8]) {
        self.senderKey = senderKey
        self.size = size
        self.digest = digest
    }
}

/// The optional password that lets a client create files on a server (`BasicAuth`): printable
/// ASCII without whitespace, '@', ':' or '/' (it sits inside server URIs).
public struct BasicAuth: Sendable, Hashable, CustomStringConvertible {
    public let bytes: [UInt8]

    public init?(_ bytes: [UInt8]) {
        guard bytes.allSatisfy(Self.valid) else { return nil }
        self.bytes = bytes
    }

    public init?(_ s: String) { self.init(Array(s.utf8)) }

    static func valid(_ c: UInt8) -> Bool {
        c > 0x20 && c < 0x7F && c != UInt8(ascii: "@") && c != UInt8(ascii: ":") && c != UInt8(ascii: "/")
    }

    public var description: String { String(decoding: bytes, as: UTF8.self) }
}

/// XFTP commands (xftp.md "XFTP commands"), encoded as the reference's `encodeProtocol v`.
public enum FileCommand: Sendable, Hashable {
    /// Register a new chunk: its info, recipient auth keys (at least one) and the create password.
    case fnew(FileInfo, recipients: [AnyPublicKey], auth: BasicAuth?)
    /// Add recipient auth keys to an existing chunk.
    case fadd(recipients: [AnyPublicKey])
    /// Upload the chunk body (which follows the command block in the request).
    case fput
    /// Delete the chunk.
    case fdel
    /// Download: the recipient's ephemeral X25519 key for the per-download encryption.
    case fget(X25519PublicKey)
    /// Acknowledge the download (deletes this recipient).
    case fack
    case ping

    public var party: FileParty {
        switch self {
        case .fnew, .fadd, .fput, .fdel: .sender
        case .fget, .fack, .ping: .recipient
        }
    }

    public var tag: String {
        switch self {
        case .fnew: "FNEW"
        case .fadd: "FADD"
        case .fput: "FPUT"
        case .fdel: "FDEL"
        case .fget: "FGET"
        case .fack: "FACK"
        case .ping: "PING"
        }
    }

    /// `encodeProtocol v`: the tag, then for commands with fields a space and their binary forms.
    /// The encoding is the same at every XFTP version.
    public func encode(version _: UInt16) throws -> [UInt8] {
        var e = SMPEncoder(capacity: 160)
        e.raw(Array(tag.utf8))
        switch self {
        case .fnew(let info, let rcps, let auth):
            e.byte(0x20)
            try XFTPFields.encodeFileInfo(info, into: &e)
            try XFTPFields.encodeKeys(rcps, into: &e)
            try e.optional(auth) { try $0.shortString($1.bytes) }
        case .fadd(let rcps):
            e.byte(0x20)
            try XFTPFields.encodeKeys(rcps, into: &e)
        case .fget(let key):
            e.byte(0x20)
            try e.shortString(key.x509Encoded)
        case .fput, .fdel, .fack, .ping:
            break
        }
        return e.bytes
    }

    /// Parses a command as the server does (`parseProtocol`): an unknown tag is `CMD UNKNOWN`,
    /// anything malformed or with trailing bytes `CMD SYNTAX`.
    public static func decode(_ bytes: [UInt8], version _: UInt16) -> Result<FileCommand, XFTPErrorType> {
        let space = bytes.firstIndex(of: 0x20) ?? bytes.endIndex
        let tag = String(decoding: bytes[..<space], as: UTF8.self)
        let params = Array(bytes[space...])
        let parse: (inout SMPDecoder) throws -> FileCommand
        switch tag {
        case "FNEW":
            parse = { d in
                try d.expect(" ")
                let info = try XFTPFields.decodeFileInfo(&d)
                let rcps = try XFTPFields.decodeKeys(&d)
                let auth = try d.optional { d -> BasicAuth in
                    guard let a = BasicAuth(try d.shortString()) else { throw DecodingError.invalid("basic auth") }
                    return a
                }
                return .fnew(info, recipients: rcps, auth: auth)
            }
        case "FADD":
            parse = { d in
                try d.expect(" ")
                return .fadd(recipients: try XFTPFields.decodeKeys(&d))
            }
        case "FPUT": parse = { _ in .fput }
        case "FDEL": parse = { _ in .fdel }
        case "FGET":
            parse = { d in
                try d.expect(" ")
                return .fget(try X25519PublicKey(x509Encoded: try d.shortString()))
            }
        case "FACK": parse = { _ in .fack }
        case "PING": parse = { _ in .ping }
        default: return .failure(.cmd(.unknown))
        }
        var d = SMPDecoder(params)
        do {
            let c = try parse(&d)
            try d.expectEnd()
            return .success(c)
        } catch {
            return .failure(.cmd(.syntax))
        }
    }

    /// `checkCredentials`: which commands must, or must not, carry an authorization and an entity ID.
    public func checkCredentials(hasAuth: Bool, entityId: [UInt8]) -> XFTPErrorType? {
        switch self {
        case .fnew:
            if !hasAuth { return .cmd(.noAuth) }
            if !entityId.isEmpty { return .cmd(.hasAuth) }
            return nil
        case .ping:
            return !hasAuth && entityId.isEmpty ? nil : .cmd(.hasAuth)
        default:
            return !hasAuth || entityId.isEmpty ? .cmd(.noAuth) : nil
        }
    }
}

/// Binary field forms shared by commands and responses.
enum XFTPFields {
    /// Auth keys a file may carry (`APublicAuthKey`: Ed25519, Ed448 or X25519).
    static let authAlgorithms: Set<KeyAlgorithm> = [.ed25519, .ed448, .x25519]

    static func encodeFileInfo(_ info: FileInfo, into e: inout SMPEncoder) throws {
        try e.shortString(info.senderKey.x509Encoded)
        e.word32(info.size)
        try e.shortString(info.digest)
    }

    static func decodeFileInfo(_ d: inout SMPDecoder) throws -> FileInfo {
        let key = try AnyPublicKey(x509Encoded: try d.shortString(), allowing: authAlgorithms)
        let size = try d.word32()
        let digest = try d.shortString()
        return FileInfo(senderKey: key, size: size, digest: digest)
    }

    /// `NonEmpty` list: a count byte (1-255), then the keys.
    static func encodeKeys(_ keys: [AnyPublicKey], into e: inout SMPEncoder) throws {
        guard !keys.isEmpty, keys.count <= 255 else { throw EncodingError.tooLarge("\(keys.count) recipient keys") }
        e.byte(UInt8(keys.count))
        for k in keys { try e.shortString(k.x509Encoded) }
    }

    static func decodeKeys(_ d: inout SMPDecoder) throws -> [AnyPublicKey] {
        let n = Int(try d.byte())
        guard n > 0 else { throw DecodingError.invalid("empty list") }
        return try (0..<n).map { _ in try AnyPublicKey(x509Encoded: try d.shortString(), allowing: authAlgorithms) }
    }

    static func encodeIds(_ ids: [[UInt8]], into e: inout SMPEncoder) throws {
        guard !ids.isEmpty, ids.count <= 255 else { throw EncodingError.tooLarge("\(ids.count) ids") }
        e.byte(UInt8(ids.count))
        for i in ids { try e.shortString(i) }
    }

    static func decodeIds(_ d: inout SMPDecoder) throws -> [[UInt8]] {
        let n = Int(try d.byte())
        guard n > 0 else { throw DecodingError.invalid("empty list") }
        return try (0..<n).map { _ in try d.shortString() }
    }
}
