import SimplexFoundation

/// Errors of the SMP-family command layer that XFTP reuses (`CommandError`).
public enum XFTPCommandError: String, Sendable, Hashable, CaseIterable {
    case unknown = "UNKNOWN"
    case syntax = "SYNTAX"
    case prohibited = "PROHIBITED"
    case noAuth = "NO_AUTH"
    case hasAuth = "HAS_AUTH"
    case noEntity = "NO_ENTITY"
}

/// Every error an XFTP server can return in `ERR` (simplexmq `XFTPErrorType`), with the
/// reference's wire names. `duplicate` is internal to the server and never sent.
public enum XFTPErrorType: Error, Sendable, Hashable {
    case block
    case session
    case handshake
    case cmd(XFTPCommandError)
    case auth
    case blocked(BlockingInfo)
    case size
    case quota
    case digest
    case crypto
    case noFile
    case hasFile
    case fileIO
    case timeout
    case `internal`
    case duplicate

    /// `smpEncode` (the same text as `strEncode`): `AUTH`, `CMD SYNTAX`, `BLOCKED reason=spam`...
    public var encoded: [UInt8] {
        switch self {
        case .block: Array("BLOCK".utf8)
        case .session: Array("SESSION".utf8)
        case .handshake: Array("HANDSHAKE".utf8)
        case .cmd(let e): Array("CMD \(e.rawValue)".utf8)
        case .auth: Array("AUTH".utf8)
        case .blocked(let info): Array("BLOCKED ".utf8) + info.encoded
        case .size: Array("SIZE".utf8)
        case .quota: Array("QUOTA".utf8)
        case .digest: Array("DIGEST".utf8)
        case .crypto: Array("CRYPTO".utf8)
        case .noFile: Array("NO_FILE".utf8)
        case .hasFile: Array("HAS_FILE".utf8)
        case .fileIO: Array("FILE_IO".utf8)
        case .timeout: Array("TIMEOUT".utf8)
        case .internal: Array("INTERNAL".utf8)
        case .duplicate: Array("DUPLICATE_".utf8)
        }
    }

    /// Parses the whole of `bytes` as an error; nil for anything the reference would reject.
    public init?(encoded bytes: [UInt8]) {
        let space = bytes.firstIndex(of: 0x20)
        let word = String(decoding: bytes[..<(space ?? bytes.endIndex)], as: UTF8.self)
        let rest = space.map { Array(bytes[($0 + 1)...]) }
        func noArg(_ e: XFTPErrorType) -> XFTPErrorType? { rest == nil ? e : nil }
        let e: XFTPErrorType?
        switch word {
        case "BLOCK": e = noArg(.block)
        case "SESSION": e = noArg(.session)
        case "HANDSHAKE": e = noArg(.handshake)
        case "CMD":
            guard let rest, let c = XFTPCommandError(rawValue: String(decoding: rest, as: UTF8.self)) else { return nil }
            e = .cmd(c)
        case "AUTH": e = noArg(.auth)
        case "BLOCKED":
            guard let rest, let info = BlockingInfo(encoded: rest) else { return nil }
            e = .blocked(info)
        case "SIZE": e = noArg(.size)
        case "QUOTA": e = noArg(.quota)
        case "DIGEST": e = noArg(.digest)
        case "CRYPTO": e = noArg(.crypto)
        case "NO_FILE": e = noArg(.noFile)
        case "HAS_FILE": e = noArg(.hasFile)
        case "FILE_IO": e = noArg(.fileIO)
        case "TIMEOUT": e = noArg(.timeout)
        case "INTERNAL": e = noArg(.internal)
        case "DUPLICATE_": e = noArg(.duplicate)
        default: e = nil
        }
        guard let e else { return nil }
        self = e
    }
}

/// Why an operator blocked a file (`BlockingInfo`): shown to recipients from XFTP v3 on.
public struct BlockingInfo: Sendable, Hashable {
    public enum Reason: String, Sendable, Hashable {
        case spam
        case content
    }

    public var reason: Reason
    /// `ClientNotice {ttl}`: present when the operator attached a notice; ttl nil = indefinite.
    public var notice: Notice?

    public struct Notice: Sendable, Hashable {
        public var ttl: Int64?
        public init(ttl: Int64?) { self.ttl = ttl }
    }

    public init(reason: Reason, notice: Notice? = nil) {
        self.reason = reason
        self.notice = notice
    }

    /// `reason=spam[,notice={"ttl":N}]` (strEncode, also the binary form).
    public var encoded: [UInt8] {
        var s = "reason=\(reason.rawValue)"
        if let notice { s += ",notice=" + (notice.ttl.map { "{\"ttl\":\($0)}" } ?? "{}") }
        return Array(s.utf8)
    }

    public init?(encoded bytes: [UInt8]) {
        let s = String(decoding: bytes, as: UTF8.self)
        guard s.hasPrefix("reason=") else { return nil }
        let body = s.dropFirst("reason=".count)
        let parts = body.split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false)
        guard let r = Reason(rawValue: String(parts[0])) else { return nil }
        reason = r
        if parts.count == 2 {
            guard parts[1].hasPrefix("notice=") else { return nil }
            guard let n = Self.parseNotice(parts[1].dropFirst("notice=".count)) else { return nil }
            notice = n
        } else {
            notice = nil
        }
    }

    /// The two JSON shapes aeson writes for `ClientNotice` (`{}` and `{"ttl":N}`), with spaces allowed.
    static func parseNotice(_ json: Substring) -> Notice? {
        let compact = json.filter { !$0.isWhitespace }
        if compact == "{}" || compact == "{\"ttl\":null}" { return Notice(ttl: nil) }
        guard compact.hasPrefix("{\"ttl\":"), compact.hasSuffix("}") else { return nil }
        let num = compact.dropFirst("{\"ttl\":".count).dropLast()
        guard let v = Int64(num) else { return nil }
        return Notice(ttl: v)
    }
}
