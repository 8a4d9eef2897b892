import SimplexFoundation

/// `cmdError` of the spec: what was wrong with a command's shape or credentials.
public enum CommandError: String, Sendable, Hashable, CaseIterable {
    case unknown = "UNKNOWN"
    case syntax = "SYNTAX"
    case prohibited = "PROHIBITED"
    case noAuth = "NO_AUTH"
    case hasAuth = "HAS_AUTH"
    case noEntity = "NO_ENTITY"
}

/// `errorType` of `ERR` responses. The server answers every failure with one of these and keeps
/// the connection, so a bad transmission never costs a client its other queues.
public enum ErrorType: Error, Sendable, Hashable, CustomStringConvertible {
    /// Incorrect block format, encoding or authorization size.
    case block
    /// Missing or different session ID.
    case session
    case cmd(CommandError)
    case proxy(ProxyError)
    /// Wrong authorization, unknown or suspended queue, or an ID used by the wrong party.
    case auth
    /// Too many undelivered messages in the queue.
    case quota
    /// SEND body larger than the version's maximum message length.
    case largeMessage
    /// ACK of a message that was not the last one delivered.
    case noMessage
    case internalError
    /// A transport-level error reported inside a response (used by proxies and clients).
    case transport(TransportError)

    public var description: String { String(decoding: (try? smpEncoded()) ?? [], as: UTF8.self) }
}

extension ErrorType: SMPEncodable, SMPDecodable {
    public func encode(into e: inout SMPEncoder) throws {
        switch self {
        case .block: e.ascii("BLOCK")
        case .session: e.ascii("SESSION")
        case .cmd(let c):
            e.ascii("CMD ")
            e.raw(Array(c.rawValue.utf8))
        case .proxy(let p):
            e.ascii("PROXY ")
            try p.encode(into: &e)
        case .auth: e.ascii("AUTH")
        case .quota: e.ascii("QUOTA")
        case .largeMessage: e.ascii("LARGE_MSG")
        case .noMessage: e.ascii("NO_MSG")
        case .internalError: e.ascii("INTERNAL")
        case .transport(let t):
            e.ascii("TRANSPORT ")
            try t.encode(into: &e)
        }
    }

    public init(from d: inout SMPDecoder) throws {
        let tag = d.word()
        switch String(decoding: tag, as: UTF8.self) {
        case "BLOCK": self = .block
        case "SESSION": self = .session
        case "CMD":
            try d.expect(" ")
            guard let c = CommandError(rawValue: String(decoding: d.word(), as: UTF8.self)) else {
                throw DecodingError.invalid("bad CMD error")
            }
            self = .cmd(c)
        case "PROXY":
            try d.expect(" ")
            self = .proxy(try ProxyError(from: &d))
        case "AUTH": self = .auth
        case "QUOTA": self = .quota
        case "LARGE_MSG": self = .largeMessage
        case "NO_MSG": self = .noMessage
        case "INTERNAL": self = .internalError
        case "TRANSPORT":
            try d.expect(" ")
            self = .transport(try TransportError(from: &d))
        default: throw DecodingError.invalid("unknown error type")
        }
    }
}

/// `proxyError` of the spec, for errors a proxying relay reports about the destination.
public indirect enum ProxyError: Sendable, Hashable {
    case proto(ErrorType)
    case broker(BrokerError)
    case basicAuth
    case noSession
}

extension ProxyError: SMPEncodable, SMPDecodable {
    public func encode(into e: inout SMPEncoder) throws {
        switch self {
        case .proto(let t):
            e.ascii("PROTOCOL ")
            try t.encode(into: &e)
        case .broker(let b):
            e.ascii("BROKER ")
            try b.encode(into: &e)
        case .basicAuth: e.ascii("BASIC_AUTH")
        case .noSession: e.ascii("NO_SESSION")
        }
    }

    public init(from d: inout SMPDecoder) throws {
        switch String(decoding: d.word(), as: UTF8.self) {
        case "PROTOCOL":
            try d.expect(" ")
            self = .proto(try ErrorType(from: &d))
        case "BROKER":
            try d.expect(" ")
            self = .broker(try BrokerError(from: &d))
        case "BASIC_AUTH": self = .basicAuth
        case "NO_SESSION": self = .noSession
        default: throw DecodingError.invalid("unknown proxy error")
        }
    }
}

/// `brokerError`: what went wrong talking to a relay (also what SMP clients report upward).
public enum BrokerError: Sendable, Hashable {
    case response(String)
    case unexpected(String)
    case network
    case timeout
    case host
    case transport(TransportError)
}

extension BrokerError: SMPEncodable, SMPDecodable {
    public func encode(into e: inout SMPEncoder) throws {
        switch self {
        case .response(let s):
            e.ascii("RESPONSE ")
            try e.shortString(Array(s.utf8.prefix(255)))
        case .unexpected(let s):
            e.ascii("UNEXPECTED ")
            try e.shortString(Array(s.utf8.prefix(255)))
        case .network: e.ascii("NETWORK")
        case .timeout: e.ascii("TIMEOUT")
        case .host: e.ascii("HOST")
        case .transport(let t):
            e.ascii("TRANSPORT ")
            try t.encode(into: &e)
        }
    }

    public init(from d: inout SMPDecoder) throws {
        switch String(decoding: d.word(), as: UTF8.self) {
        case "RESPONSE":
            try d.expect(" ")
            self = .response(String(decoding: try d.shortString(), as: UTF8.self))
        case "UNEXPECTED":
            try d.expect(" ")
            self = .unexpected(String(decoding: try d.shortString(), as: UTF8.self))
        case "NETWORK": self = .network
        case "TIMEOUT": self = .timeout
        case "HOST": self = .host
        case "TRANSPORT":
            try d.expect(" ")
            self = .transport(try TransportError(from: &d))
        default: throw DecodingError.invalid("unknown broker error")
        }
    }
}

/// `transportError` of the spec: failures of the block transport and its handshake.
public enum TransportError: Error, Sendable, Hashable {
    case block
    case version
    case largeMessage
    case session
    case noAuth
    case handshake(HandshakeError)

    public enum HandshakeError: String, Sendable, Hashable {
        case parse = "PARSE"
        case identity = "IDENTITY"
        case badAuth = "BAD_AUTH"
        case badService = "BAD_SERVICE"
    }
}

extension TransportError: SMPEncodable, SMPDecodable {
    public func encode(into e: inout SMPEncoder) throws {
        switch self {
        case .block: e.ascii("BLOCK")
        case .version: e.ascii("VERSION")
        case .largeMessage: e.ascii("LARGE_MSG")
        case .session: e.ascii("SESSION")
        case .noAuth: e.ascii("NO_AUTH")
        case .handshake(let h):
            e.ascii("HANDSHAKE ")
            e.raw(Array(h.rawValue.utf8))
        }
    }

    public init(from d: inout SMPDecoder) throws {
        switch String(decoding: d.word(), as: UTF8.self) {
        case "BLOCK": self = .block
        case "VERSION": self = .version
        case "LARGE_MSG": self = .largeMessage
        case "SESSION": self = .session
        case "NO_AUTH": self = .noAuth
        case "HANDSHAKE":
            try d.expect(" ")
            guard let h = HandshakeError(rawValue: String(decoding: d.word(), as: UTF8.self)) else {
                throw DecodingError.invalid("bad handshake error")
            }
            self = .handshake(h)
        default: throw DecodingError.invalid("unknown transport error")
        }
    }
}
