import SimplexFoundation

/// The private header inside the per-queue encryption (simplexmq `PrivHeader`): in the first
/// message to an unsecured queue, the key the recipient will secure it with.
public enum PrivHeader: Sendable, Hashable {
    /// `"_"`.
    case empty
    /// `"K" shortString(x509 key)`: an Ed25519, Ed448 or X25519 SMP auth key.
    case senderKey(AnyPublicKey)
}

extension PrivHeader: SMPEncodable, SMPDecodable {
    public func encode(into e: inout SMPEncoder) throws(EncodingError) {
        switch self {
        case .empty: e.byte(UInt8(ascii: "_"))
        case .senderKey(let k):
            e.byte(UInt8(ascii: "K"))
            try AgentWire.shortString(k.x509Encoded, into: &e)
        }
    }

    public init(from d: inout SMPDecoder) throws(DecodingError) {
        switch try AgentWire.decoding({ try d.byte() }) {
        case UInt8(ascii: "_"): self = .empty
        case UInt8(ascii: "K"): self = .senderKey(try AgentWire.decodeAuthKey(&d))
        case let b: throw .invalid("bad private header tag \(b)")
        }
    }
}

/// The decrypted SMP message body (simplexmq `ClientMessage`): the private header, then the
/// agent envelope to the end.
public struct ClientMessage: Sendable, Hashable {
    public let privHeader: PrivHeader
    public let body: [UInt8]

    public init(privHeader: PrivHeader, body: [UInt8]) {
        self.privHeader = privHeader
        self.body = body
    }

    public static func decode(_ bytes: [UInt8]) throws(DecodingError) -> ClientMessage {
        try AgentWire.decodeAll(bytes) { (d) throws(DecodingError) in try ClientMessage(from: &d) }
    }
}

extension ClientMessage: SMPEncodable, SMPDecodable {
    public func encode(into e: inout SMPEncoder) throws(EncodingError) {
        try privHeader.encode(into: &e)
        e.raw(body)
    }

    public init(from d: inout SMPDecoder) throws(DecodingError) {
        privHeader = try PrivHeader(from: &d)
        body = d.rest()
    }
}
