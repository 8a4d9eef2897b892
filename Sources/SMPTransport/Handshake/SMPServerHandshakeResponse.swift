import SMPProtocol
import SimplexFoundation

/// simplexmq `SMPServerHandshakeResponse`: the third handshake block, sent only to clients that
/// presented a service: `'R' serviceId(shortString)` or `'E' TransportError`.
public enum SMPServerHandshakeResponse: Sendable, Hashable, SMPEncodable, SMPDecodable {
    case serviceId([UInt8])
    case error(TransportError)

    public func encode(into e: inout SMPEncoder) throws {
        switch self {
        case .serviceId(let id):
            e.byte(UInt8(ascii: "R"))
            try e.shortString(id)
        case .error(let err):
            e.byte(UInt8(ascii: "E"))
            try err.encode(into: &e)
        }
    }

    public init(from d: inout SMPDecoder) throws {
        switch try d.byte() {
        case UInt8(ascii: "R"): self = .serviceId(try d.shortString())
        case UInt8(ascii: "E"): self = .error(try TransportError(from: &d))
        default: throw DecodingError.invalid("bad SMPServerHandshakeResponse")
        }
    }
}
