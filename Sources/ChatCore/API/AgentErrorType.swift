/// Agent (network and connection) errors as the chat API reports them (TYPES.md AgentErrorType
/// and the types it uses). Names that would clash with the agent module's own error types carry
/// a prefix; each comment gives the TYPES.md name. Members from newer versions are kept raw.
public enum AgentErrorType: Sendable, Hashable, Codable {
    case cmd(cmdErr: AgentCommandErrorType, errContext: String)
    case conn(connErr: AgentConnectionErrorType, errContext: String)
    case noUser
    case smp(serverAddress: String, smpErr: SMPErrorType)
    case ntf(serverAddress: String, ntfErr: SMPErrorType)
    case xftp(serverAddress: String, xftpErr: XFTPErrorType)
    case file(fileErr: FileErrorType)
    case proxy(proxyServer: String, relayServer: String, proxyErr: ProxyClientError)
    case rcp(rcpErr: RCErrorType)
    case broker(brokerAddress: String, brokerErr: AgentBrokerErrorType)
    case agent(agentErr: SMPAgentError)
    case notice(server: String, preset: Bool, expiresAt: UTCTime?)
    case `internal`(internalErr: String)
    case critical(offerRestart: Bool, criticalErr: String)
    case inactive
    case unknown(JSONValue)

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        switch try c.tag() {
        case "CMD": self = try .cmd(cmdErr: c.v("cmdErr"), errContext: c.v("errContext", default: ""))
        case "CONN": self = try .conn(connErr: c.v("connErr"), errContext: c.v("errContext", default: ""))
        case "NO_USER": self = .noUser
        case "SMP": self = try .smp(serverAddress: c.v("serverAddress"), smpErr: c.v("smpErr"))
        case "NTF": self = try .ntf(serverAddress: c.v("serverAddress"), ntfErr: c.v("ntfErr"))
        case "XFTP": self = try .xftp(serverAddress: c.v("serverAddress"), xftpErr: c.v("xftpErr"))
        case "FILE": self = try .file(fileErr: c.v("fileErr"))
        case "PROXY": self = try .proxy(proxyServer: c.v("proxyServer"), relayServer: c.v("relayServer"), proxyErr: c.v("proxyErr"))
        case "RCP": self = try .rcp(rcpErr: c.v("rcpErr"))
        case "BROKER": self = try .broker(brokerAddress: c.v("brokerAddress"), brokerErr: c.v("brokerErr"))
        case "AGENT": self = try .agent(agentErr: c.v("agentErr"))
        case "NOTICE": self = try .notice(server: c.v("server"), preset: c.v("preset"), expiresAt: c.opt("expiresAt"))
        case "INTERNAL": self = try .internal(internalErr: c.v("internalErr"))
        case "CRITICAL": self = try .critical(offerRestart: c.v("offerRestart"), criticalErr: c.v("criticalErr"))
        case "INACTIVE": self = .inactive
        default: self = try .unknown(rawJSON(decoder))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        if case .unknown(let json) = self {
            try json.encode(to: encoder)
            return
        }
        var c = encoder.container(keyedBy: JSONKey.self)
        switch self {
        case .cmd(let e, let ctx):
            try c.tag("CMD")
            try c.put(e, "cmdErr")
            try c.put(ctx, "errContext")
        case .conn(let e, let ctx):
            try c.tag("CONN")
            try c.put(e, "connErr")
            try c.put(ctx, "errContext")
        case .noUser: try c.tag("NO_USER")
        case .smp(let a, let e):
            try c.tag("SMP")
            try c.put(a, "serverAddress")
            try c.put(e, "smpErr")
        case .ntf(let a, let e):
            try c.tag("NTF")
            try c.put(a, "serverAddress")
            try c.put(e, "ntfErr")
        case .xftp(let a, let e):
            try c.tag("XFTP")
            try c.put(a, "serverAddress")
            try c.put(e, "xftpErr")
        case .file(let e):
            try c.tag("FILE")
            try c.put(e, "fileErr")
        case .proxy(let p, let r, let e):
            try c.tag("PROXY")
            try c.put(p, "proxyServer")
            try c.put(r, "relayServer")
            try c.put(e, "proxyErr")
        case .rcp(let e):
            try c.tag("RCP")
            try c.put(e, "rcpErr")
        case .broker(let a, let e):
            try c.tag("BROKER")
            try c.put(a, "brokerAddress")
            try c.put(e, "brokerErr")
        case .agent(let e):
            try c.tag("AGENT")
            try c.put(e, "agentErr")
        case .notice(let s, let p, let exp):
            try c.tag("NOTICE")
            try c.put(s, "server")
            try c.put(p, "preset")
            try c.put(exp, "expiresAt")
        case .internal(let e):
            try c.tag("INTERNAL")
            try c.put(e, "internalErr")
        case .critical(let r, let e):
            try c.tag("CRITICAL")
            try c.put(r, "offerRestart")
            try c.put(e, "criticalErr")
        case .inactive: try c.tag("INACTIVE")
        case .unknown: break
        }
    }
}

/// TYPES.md CommandErrorType: a command the agent could not run.
public enum AgentCommandErrorType: String, TypeTaggedEnum {
    case prohibited = "PROHIBITED"
    case syntax = "SYNTAX"
    case noConn = "NO_CONN"
    case size = "SIZE"
    case large = "LARGE"
}

/// TYPES.md ConnectionErrorType.
public enum AgentConnectionErrorType: String, TypeTaggedEnum {
    case notFound = "NOT_FOUND"
    case duplicate = "DUPLICATE"
    case simplex = "SIMPLEX"
    case notAccepted = "NOT_ACCEPTED"
    case notAvailable = "NOT_AVAILABLE"
}

/// TYPES.md CommandError: an SMP server's reply to a bad command.
public enum SMPCommandError: String, TypeTaggedEnum {
    case unknown = "UNKNOWN"
    case syntax = "SYNTAX"
    case prohibited = "PROHIBITED"
    case noAuth = "NO_AUTH"
    case hasAuth = "HAS_AUTH"
    case noEntity = "NO_ENTITY"
}

/// TYPES.md BlockingReason.
public enum BlockingReason: String, Codable, Sendable, Hashable {
    case spam, content
}

/// TYPES.md ClientNotice.
public struct ClientNotice: Codable, Sendable, Hashable {
    public var ttl: Int64?
    public init(ttl: Int64?) { self.ttl = ttl }
}

/// Why a server blocked something (TYPES.md BlockingInfo).
public struct BlockingInfo: Codable, Sendable, Hashable {
    public var reason: BlockingReason
    public var notice: ClientNotice?
    public init(reason: BlockingReason, notice: ClientNotice? = nil) {
        self.reason = reason
        self.notice = notice
    }
}

/// An SMP (or notification) server error (TYPES.md ErrorType).
public enum SMPErrorType: Sendable, Hashable, Codable {
    case block
    case session
    case cmd(cmdErr: SMPCommandError)
    case proxy(proxyErr: SMPProxyError)
    case auth
    case blocked(blockInfo: BlockingInfo)
    case service
    case crypto
    case quota
    case store(storeErr: String)
    case noMsg
    case largeMsg
    case expired
    case `internal`
    case duplicate
    case unknown(JSONValue)

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        switch try c.tag() {
        case "BLOCK": self = .block
        case "SESSION": self = .session
        case "CMD": self = try .cmd(cmdErr: c.v("cmdErr"))
        case "PROXY": self = try .proxy(proxyErr: c.v("proxyErr"))
        case "AUTH": self = .auth
        case "BLOCKED": self = try .blocked(blockInfo: c.v("blockInfo"))
        case "SERVICE": self = .service
        case "CRYPTO": self = .crypto
        case "QUOTA": self = .quota
        case "STORE": self = try .store(storeErr: c.v("storeErr"))
        case "NO_MSG": self = .noMsg
        case "LARGE_MSG": self = .largeMsg
        case "EXPIRED": self = .expired
        case "INTERNAL": self = .internal
        case "DUPLICATE_": self = .duplicate
        default: self = try .unknown(rawJSON(decoder))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        if case .unknown(let json) = self {
            try json.encode(to: encoder)
            return
        }
        var c = encoder.container(keyedBy: JSONKey.self)
        switch self {
        case .block: try c.tag("BLOCK")
        case .session: try c.tag("SESSION")
        case .cmd(let e):
            try c.tag("CMD")
            try c.put(e, "cmdErr")
        case .proxy(let e):
            try c.tag("PROXY")
            try c.put(e, "proxyErr")
        case .auth: try c.tag("AUTH")
        case .blocked(let info):
            try c.tag("BLOCKED")
            try c.put(info, "blockInfo")
        case .service: try c.tag("SERVICE")
        case .crypto: try c.tag("CRYPTO")
        case .quota: try c.tag("QUOTA")
        case .store(let e):
            try c.tag("STORE")
            try c.put(e, "storeErr")
        case .noMsg: try c.tag("NO_MSG")
        case .largeMsg: try c.tag("LARGE_MSG")
        case .expired: try c.tag("EXPIRED")
        case .internal: try c.tag("INTERNAL")
        case .duplicate: try c.tag("DUPLICATE_")
        case .unknown: break
        }
    }
}

/// A proxy server's error forwarding to a relay (TYPES.md ProxyError).
public indirect enum SMPProxyError: Sendable, Hashable, Codable {
    case `protocol`(protocolErr: SMPErrorType)
    case broker(brokerErr: AgentBrokerErrorType)
    case basicAuth
    case noSession

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        switch try c.tag() {
        case "PROTOCOL": self = try .protocol(protocolErr: c.v("protocolErr"))
        case "BROKER": self = try .broker(brokerErr: c.v("brokerErr"))
        case "BASIC_AUTH": self = .basicAuth
        case "NO_SESSION": self = .noSession
        case let t: throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "unknown ProxyError \(t)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONKey.self)
        switch self {
        case .protocol(let e):
            try c.tag("PROTOCOL")
            try c.put(e, "protocolErr")
        case .broker(let e):
            try c.tag("BROKER")
            try c.put(e, "brokerErr")
        case .basicAuth: try c.tag("BASIC_AUTH")
        case .noSession: try c.tag("NO_SESSION")
        }
    }
}

/// The client's view of a failed proxied send (TYPES.md ProxyClientError).
public enum ProxyClientError: Sendable, Hashable, Codable {
    case protocolError(protocolErr: SMPErrorType)
    case unexpectedResponse(responseStr: String)
    case responseError(responseErr: SMPErrorType)

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        switch try c.tag() {
        case "protocolError": self = try .protocolError(protocolErr: c.v("protocolErr"))
        case "unexpectedResponse": self = try .unexpectedResponse(responseStr: c.v("responseStr"))
        case "responseError": self = try .responseError(responseErr: c.v("responseErr"))
        case let t: throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "unknown ProxyClientError \(t)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONKey.self)
        switch self {
        case .protocolError(let e):
            try c.tag("protocolError")
            try c.put(e, "protocolErr")
        case .unexpectedResponse(let s):
            try c.tag("unexpectedResponse")
            try c.put(s, "responseStr")
        case .responseError(let e):
            try c.tag("responseError")
            try c.put(e, "responseErr")
        }
    }
}

/// A failure talking to a server (TYPES.md BrokerErrorType).
public enum AgentBrokerErrorType: Sendable, Hashable, Codable {
    case response(respErr: String)
    case unexpected(respErr: String)
    case network(networkError: NetworkError)
    case host
    case noService
    case transport(transportErr: SMPTransportErrorType)
    case timeout

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        switch try c.tag() {
        case "RESPONSE": self = try .response(respErr: c.v("respErr"))
        case "UNEXPECTED": self = try .unexpected(respErr: c.v("respErr"))
        case "NETWORK": self = try .network(networkError: c.v("networkError", default: .failedError))
        case "HOST": self = .host
        case "NO_SERVICE": self = .noService
        case "TRANSPORT": self = try .transport(transportErr: c.v("transportErr"))
        case "TIMEOUT": self = .timeout
        case let t: throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "unknown BrokerErrorType \(t)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONKey.self)
        switch self {
        case .response(let e):
            try c.tag("RESPONSE")
            try c.put(e, "respErr")
        case .unexpected(let e):
            try c.tag("UNEXPECTED")
            try c.put(e, "respErr")
        case .network(let e):
            try c.tag("NETWORK")
            try c.put(e, "networkError")
        case .host: try c.tag("HOST")
        case .noService: try c.tag("NO_SERVICE")
        case .transport(let e):
            try c.tag("TRANSPORT")
            try c.put(e, "transportErr")
        case .timeout: try c.tag("TIMEOUT")
        }
    }
}

/// TYPES.md NetworkError.
public enum NetworkError: Sendable, Hashable, Codable {
    case connectError(connectError: String)
    case tlsError(tlsError: String)
    case unknownCAError
    case failedError
    case timeoutError
    case subscribeError(subscribeError: String)

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        switch try c.tag() {
        case "connectError": self = try .connectError(connectError: c.v("connectError"))
        case "tLSError": self = try .tlsError(tlsError: c.v("tlsError"))
        case "unknownCAError": self = .unknownCAError
        case "failedError": self = .failedError
        case "timeoutError": self = .timeoutError
        case "subscribeError": self = try .subscribeError(subscribeError: c.v("subscribeError"))
        case let t: throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "unknown NetworkError \(t)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONKey.self)
        switch self {
        case .connectError(let e):
            try c.tag("connectError")
            try c.put(e, "connectError")
        case .tlsError(let e):
            try c.tag("tLSError")
            try c.put(e, "tlsError")
        case .unknownCAError: try c.tag("unknownCAError")
        case .failedError: try c.tag("failedError")
        case .timeoutError: try c.tag("timeoutError")
        case .subscribeError(let e):
            try c.tag("subscribeError")
            try c.put(e, "subscribeError")
        }
    }
}

/// TYPES.md TransportError.
public enum SMPTransportErrorType: Sendable, Hashable, Codable {
    case badBlock
    case version
    case largeMsg
    case badSession
    case noServerAuth
    case handshake(handshakeErr: SMPHandshakeError)

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        switch try c.tag() {
        case "badBlock": self = .badBlock
        case "version": self = .version
        case "largeMsg": self = .largeMsg
        case "badSession": self = .badSession
        case "noServerAuth": self = .noServerAuth
        case "handshake": self = try .handshake(handshakeErr: c.v("handshakeErr"))
        case let t: throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "unknown TransportError \(t)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONKey.self)
        switch self {
        case .badBlock: try c.tag("badBlock")
        case .version: try c.tag("version")
        case .largeMsg: try c.tag("largeMsg")
        case .badSession: try c.tag("badSession")
        case .noServerAuth: try c.tag("noServerAuth")
        case .handshake(let e):
            try c.tag("handshake")
            try c.put(e, "handshakeErr")
        }
    }
}

/// TYPES.md HandshakeError (a plain string enum).
public enum SMPHandshakeError: String, Codable, Sendable, Hashable {
    case parse = "PARSE"
    case identity = "IDENTITY"
    case badAuth = "BAD_AUTH"
    case badService = "BAD_SERVICE"
}

/// An XFTP server error (TYPES.md XFTPErrorType).
public enum XFTPErrorType: Sendable, Hashable, Codable {
    case cmd(cmdErr: SMPCommandError)
    case blocked(blockInfo: BlockingInfo)
    /// Every member without fields, by its tag (BLOCK, SESSION, HANDSHAKE, AUTH, SIZE, QUOTA,
    /// DIGEST, CRYPTO, NO_FILE, HAS_FILE, FILE_IO, TIMEOUT, INTERNAL, DUPLICATE_).
    case simple(String)

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        switch try c.tag() {
        case "CMD": self = try .cmd(cmdErr: c.v("cmdErr"))
        case "BLOCKED": self = try .blocked(blockInfo: c.v("blockInfo"))
        case let t: self = .simple(t)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONKey.self)
        switch self {
        case .cmd(let e):
            try c.tag("CMD")
            try c.put(e, "cmdErr")
        case .blocked(let info):
            try c.tag("BLOCKED")
            try c.put(info, "blockInfo")
        case .simple(let t): try c.tag(t)
        }
    }
}

/// A local file error in the agent (TYPES.md FileErrorType).
public enum FileErrorType: Sendable, Hashable, Codable {
    case notApproved
    case size
    case redirect(redirectError: String)
    case fileIO(fileIOError: String)
    case noFile

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        switch try c.tag() {
        case "NOT_APPROVED": self = .notApproved
        case "SIZE": self = .size
        case "REDIRECT": self = try .redirect(redirectError: c.v("redirectError"))
        case "FILE_IO": self = try .fileIO(fileIOError: c.v("fileIOError"))
        case "NO_FILE": self = .noFile
        case let t: throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "unknown FileErrorType \(t)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONKey.self)
        switch self {
        case .notApproved: try c.tag("NOT_APPROVED")
        case .size: try c.tag("SIZE")
        case .redirect(let e):
            try c.tag("REDIRECT")
            try c.put(e, "redirectError")
        case .fileIO(let e):
            try c.tag("FILE_IO")
            try c.put(e, "fileIOError")
        case .noFile: try c.tag("NO_FILE")
        }
    }
}

/// A remote-control protocol error (TYPES.md RCErrorType), kept as its tag and members: the
/// core has no remote control, so it only passes these on.
public struct RCErrorType: Sendable, Hashable, Codable {
    public var type: String
    /// The members other than `type` (e.g. `internalErr`, `exception`, `ctrlErr`, `syntaxErr`).
    public var fields: [String: JSONValue]

    public init(type: String, fields: [String: JSONValue] = [:]) {
        self.type = type
        self.fields = fields
    }

    public init(from decoder: any Decoder) throws {
        var o = try rawJSON(decoder).objectValue ?? [:]
        guard let t = o.removeValue(forKey: "type")?.stringValue else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "RCErrorType without type"))
        }
        type = t
        fields = o
    }

    public func encode(to encoder: any Encoder) throws {
        var o = fields
        o["type"] = .string(type)
        try JSONValue.object(o).encode(to: encoder)
    }
}

/// A message-level agent error (TYPES.md SMPAgentError).
public enum SMPAgentError: Sendable, Hashable, Codable {
    case message
    case prohibited(prohibitedErr: String)
    case version
    case link(linkErr: String)
    case crypto(cryptoErr: AgentCryptoError)
    case duplicate(droppedMsg_: DroppedMsg?)
    case queue(queueErr: String)

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        switch try c.tag() {
        case "A_MESSAGE": self = .message
        case "A_PROHIBITED": self = try .prohibited(prohibitedErr: c.v("prohibitedErr", default: ""))
        case "A_VERSION": self = .version
        case "A_LINK": self = try .link(linkErr: c.v("linkErr"))
        case "A_CRYPTO": self = try .crypto(cryptoErr: c.v("cryptoErr"))
        case "A_DUPLICATE": self = try .duplicate(droppedMsg_: c.opt("droppedMsg_"))
        case "A_QUEUE": self = try .queue(queueErr: c.v("queueErr"))
        case let t: throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "unknown SMPAgentError \(t)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONKey.self)
        switch self {
        case .message: try c.tag("A_MESSAGE")
        case .prohibited(let e):
            try c.tag("A_PROHIBITED")
            try c.put(e, "prohibitedErr")
        case .version: try c.tag("A_VERSION")
        case .link(let e):
            try c.tag("A_LINK")
            try c.put(e, "linkErr")
        case .crypto(let e):
            try c.tag("A_CRYPTO")
            try c.put(e, "cryptoErr")
        case .duplicate(let dropped):
            try c.tag("A_DUPLICATE")
            try c.put(dropped, "droppedMsg_")
        case .queue(let e):
            try c.tag("A_QUEUE")
            try c.put(e, "queueErr")
        }
    }
}

/// simplexmq AgentCryptoError. RATCHET_EARLIER and RATCHET_SKIPPED carry a message count,
/// which aeson writes as `"data"` (TYPES.md lists only the members without one).
public enum AgentCryptoError: Sendable, Hashable, Codable {
    case decryptAES
    case decryptCB
    case ratchetHeader
    case ratchetEarlier(UInt32)
    case ratchetSkipped(UInt32)
    case ratchetSync

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        switch try c.tag() {
        case "DECRYPT_AES": self = .decryptAES
        case "DECRYPT_CB": self = .decryptCB
        case "RATCHET_HEADER": self = .ratchetHeader
        case "RATCHET_EARLIER": self = try .ratchetEarlier(c.v("data"))
        case "RATCHET_SKIPPED": self = try .ratchetSkipped(c.v("data"))
        case "RATCHET_SYNC": self = .ratchetSync
        case let t: throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "unknown AgentCryptoError \(t)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONKey.self)
        switch self {
        case .decryptAES: try c.tag("DECRYPT_AES")
        case .decryptCB: try c.tag("DECRYPT_CB")
        case .ratchetHeader: try c.tag("RATCHET_HEADER")
        case .ratchetEarlier(let n):
            try c.tag("RATCHET_EARLIER")
            try c.put(n, "data")
        case .ratchetSkipped(let n):
            try c.tag("RATCHET_SKIPPED")
            try c.put(n, "data")
        case .ratchetSync: try c.tag("RATCHET_SYNC")
        }
    }
}

/// A duplicate message the ratchet dropped (simplexmq DroppedMsg).
public struct DroppedMsg: Codable, Sendable, Hashable {
    public var brokerTs: UTCTime
    public var attempts: Int
    public init(brokerTs: UTCTime, attempts: Int) {
        self.brokerTs = brokerTs
        self.attempts = attempts
    }
}
