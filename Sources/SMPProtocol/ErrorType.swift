import Foundation
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

/// Why an operator blocked a queue (`BlockingReason`).
public enum BlockingReason: String, Sendable, Hashable {
    case spam
    case content
}

/// `BlockingInfo` of `ERR BLOCKED`: the reason and, from v18, an optional notice to the client.
/// Encoded as text: `reason=spam` or `reason=content`, then `,notice=<JSON>` when there is one.
public struct BlockingInfo: Sendable, Hashable {
    public var reason: BlockingReason
    /// `ClientNotice`: seconds the block lasts (nil: indefinite); absent when there is no notice.
    public var notice: ClientNotice?

    public init(reason: BlockingReason, notice: ClientNotice? = nil) {
        self.reason = reason
        self.notice = notice
    }

    public struct ClientNotice: Sendable, Hashable {
        public var ttl: Int64?
        public init(ttl: Int64?) { self.ttl = ttl }

        /// aeson's encoding of `ClientNotice {ttl}` with `omitNothingFields`.
        var json: [UInt8] { Array((ttl.map { "{\"ttl\":\($0)}" } ?? "{}").utf8) }

        static func parse(json: [UInt8]) throws -> ClientNotice {
            guard let obj = try? JSONSerialization.jsonObject(with: Data(json)) as? [String: Any] else {
                throw DecodingError.invalid("bad client notice")
            }
            switch obj["ttl"] {
            case nil, is NSNull: return ClientNotice(ttl: nil)
            case let n as NSNumber: return ClientNotice(ttl: n.int64Value)
            default: throw DecodingError.invalid("bad client notice ttl")
            }
        }
    }

    func encode(into e: inout SMPEncoder) {
        e.ascii("reason=")
        e.raw(Array(reason.rawValue.utf8))
        if let notice {
            e.ascii(",notice=")
            e.raw(notice.json)
        }
    }

    static func decode(from d: inout SMPDecoder) throws -> BlockingInfo {
        guard d.consume("reason=") else { throw DecodingError.invalid("bad blocking info") }
        let reason: BlockingReason
        if d.consume("spam") {
            reason = .spam
        } else if d.consume("content") {
            reason = .content
        } else {
            throw DecodingError.invalid("bad blocking reason")
        }
        guard d.consume(",notice=") else { return BlockingInfo(reason: reason) }
        return BlockingInfo(reason: reason, notice: try ClientNotice.parse(json: d.rest()))
    }
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
    /// The queue was blocked by the relay's operator (v12; AUTH before).
    case blocked(BlockingInfo)
    /// A service signature where none is allowed, or a service command outside a service session.
    case service
    /// Encryption or decryption failed in private message routing.
    case crypto
    /// Too many undelivered messages in the queue.
    case quota
    /// The relay's storage failed; the text says how.
    case store(String)
    /// SEND body larger than the version's maximum message length.
    case largeMessage
    /// A proxy's key for the destination expired.
    case expired
    /// ACK of a message that was not the last one delivered.
    case noMessage
    case internalError
    /// Used inside the reference only, never sent; kept so it decodes.
    case duplicate
    /// A transport-level error reported inside a response (used by proxies and clients).
    case transport(TransportError)

    public var description: String { String(decoding: (try? smpEncoded()) ?? [], as: UTF8.self) }

    /// The form version `v` puts on the wire (`encodeProtocol v (ERR e)`): BLOCKED is AUTH before
    /// v12 and loses its notice before v18.
    public func forVersion(_ v: UInt16) -> ErrorType {
        guard case .blocked(var info) = self else { return self }
        if v < SMPVersion.blockedEntity { return .auth }
        if v < SMPVersion.clientNotices { info.notice = nil }
        return .blocked(info)
    }
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
        case .blocked(let info):
            e.ascii("BLOCKED ")
            info.encode(into: &e)
        case .service: e.ascii("SERVICE")
        case .crypto: e.ascii("CRYPTO")
        case .quota: e.ascii("QUOTA")
        case .store(let s):
            e.ascii("STORE ")
            e.raw(Array(s.utf8))
        case .largeMessage: e.ascii("LARGE_MSG")
        case .expired: e.ascii("EXPIRED")
        case .noMessage: e.ascii("NO_MSG")
        case .internalError: e.ascii("INTERNAL")
        case .duplicate: e.ascii("DUPLICATE_")
        case .transport(let t):
            // Not an SMP ErrorType of the reference; only used between our own layers.
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
            let word = String(decoding: d.word(), as: UTF8.self)
            // NO_QUEUE is the old name of NO_ENTITY, still accepted by the reference.
            guard let c = word == "NO_QUEUE" ? .noEntity : CommandError(rawValue: word) else {
                throw DecodingError.invalid("bad CMD error")
            }
            self = .cmd(c)
        case "PROXY":
            try d.expect(" ")
            self = .proxy(try ProxyError(from: &d))
        case "AUTH": self = .auth
        case "BLOCKED":
            try d.expect(" ")
            self = .blocked(try BlockingInfo.decode(from: &d))
        case "SERVICE": self = .service
        case "CRYPTO": self = .crypto
        case "QUOTA": self = .quota
        case "STORE":
            try d.expect(" ")
            self = .store(String(decoding: d.rest(), as: UTF8.self))
        case "LARGE_MSG": self = .largeMessage
        case "EXPIRED": self = .expired
        case "NO_MSG": self = .noMessage
        case "INTERNAL": self = .internalError
        case "DUPLICATE_": self = .duplicate
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
    /// The reference writes NETWORK without its detail (the detail is parsed when present).
    case network
    case timeout
    case host
    case noService
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
        case .noService: e.ascii("NO_SERVICE")
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
        case "NETWORK":
            // `NETWORK <NetworkError>` from newer peers: the detail is not kept.
            if d.consume(" ") { _ = d.rest() }
            self = .network
        case "TIMEOUT": self = .timeout
        case "HOST": self = .host
        case "NO_SERVICE": self = .noService
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
