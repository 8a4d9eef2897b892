import SimplexFoundation
import SMPProtocol

/// A session with a destination relay through a proxy (simplexmq `ProxiedRelay`), from PKEY: the
/// proxy's session ID with the destination (the entity ID of PFWD), the version to encode
/// forwarded commands in, and the destination's session key the client encrypts to.
public struct ProxiedRelay: Sendable, Hashable {
    public let sessionId: [UInt8]
    public let version: UInt16
    /// Kept to ask the same proxy again after NO_SESSION.
    public let basicAuth: [UInt8]?
    public let serverKey: X25519PublicKey

    public init(sessionId: [UInt8], version: UInt16, basicAuth: [UInt8]?, serverKey: X25519PublicKey) {
        self.sessionId = sessionId
        self.version = version
        self.basicAuth = basicAuth
        self.serverKey = serverKey
    }
}

/// Errors between the client and its proxy (simplexmq `ProxyClientError`), returned rather than
/// thrown by `proxyCommand`, so a caller can tell them from the destination's own answers
/// (which are thrown as `SMPClientError.server`).
public enum ProxyClientError: Error, Sendable, Hashable {
    /// The proxy answered ERR (PROXY ..., NO_SESSION, BASIC_AUTH, ...).
    case protocolError(ErrorType)
    /// The proxy answered something other than PRES.
    case unexpectedResponse(String)
    /// The proxy's answer did not parse.
    case responseError(ErrorType)
}

/// What a proxying relay needs of its connection to a destination (`thParams` of the proxy's
/// SMP client): the session ID it hands to clients, the negotiated version and range, and the
/// destination's chain and signed key for PKEY.
public struct RelaySession: Sendable {
    public let sessionId: [UInt8]
    public let version: UInt16
    /// The versions both sides support (`thServerVRange`).
    public let versions: SMPVersionRange?
    /// The destination's `CertChainPubKey`, nil when its hello had none.
    public let certKey: [UInt8]?
}

/// Why forwarding to the destination failed, already in the form the proxy answers its client
/// with (simplexmq `smpProxyError`).
public struct ForwardError: Error, Sendable, Equatable {
    public let errorType: ErrorType
    public init(_ e: ErrorType) { errorType = e }
}

extension SMPClientError {
    /// `smpProxyError`: how a proxy reports to its client a failure of its own connection to the
    /// destination. The reference writes NETWORK without detail; a chain that does not match the
    /// destination's fingerprint fails its TLS handshake, so it is NETWORK there too.
    public var proxyError: ErrorType {
        switch self {
        case .server(let e): .proxy(.proto(e))
        case .network, .transport(.handshake(.identity)): .proxy(.broker(.network))
        case .timeout: .proxy(.broker(.timeout))
        case .transport(let t): .proxy(.broker(.transport(t)))
        case .unexpectedResponse(let s): .proxy(.broker(.unexpected(s)))
        case .badMessage: .crypto
        case .closed: .proxy(.broker(.network))
        }
    }
}
