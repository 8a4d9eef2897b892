import DoubleRatchet
import SimplexFoundation

/// What agents put in `ClientMessage.body` (agent-protocol.md `decryptedSMPClientMessage`,
/// simplexmq `AgentMsgEnvelope`): `agentVersion(2)` and a tag, then the case's fields; the
/// last field runs to the end.
public enum AgentMsgEnvelope: Sendable, Hashable {
    /// `'C' Maybe(e2eParams) encConnInfo`: the handshake confirmation, its info encrypted
    /// with the new ratchet; the joining party includes its ratchet keys.
    case confirmation(agentVersion: UInt16, e2eParams: E2ERatchetParams?, encConnInfo: [UInt8])
    /// `'M' encAgentMessage`: an `AgentMessage` encrypted with the ratchet.
    case message(agentVersion: UInt16, encAgentMessage: [UInt8])
    /// `'I' Large(invitation link) connInfo`: a contact request, sent to a contact address with
    /// only the per-queue encryption. `connReq` must be an invitation (decoding refuses others).
    case invitation(agentVersion: UInt16, connReq: ConnectionRequestURI, connInfo: [UInt8])
    /// `'R' e2eParams info`: new ratchet keys to re-synchronize the ratchet.
    case ratchetKey(agentVersion: UInt16, e2eParams: E2ERatchetParams, info: [UInt8])

    public var agentVersion: UInt16 {
        switch self {
        case .confirmation(let v, _, _), .message(let v, _), .invitation(let v, _, _), .ratchetKey(let v, _, _): v
        }
    }

    public static func decode(_ bytes: [UInt8]) throws(DecodingError) -> AgentMsgEnvelope {
        try AgentWire.decodeAll(bytes) { (d) throws(DecodingError) in try AgentMsgEnvelope(from: &d) }
    }
}

extension AgentMsgEnvelope: SMPEncodable, SMPDecodable {
    public func encode(into e: inout SMPEncoder) throws(EncodingError) {
        e.word16(agentVersion)
        switch self {
        case .confirmation(_, let params, let enc):
            e.byte(UInt8(ascii: "C"))
            if let params {
                e.byte(UInt8(ascii: "1"))
                try Self.encodeParams(params, into: &e)
            } else {
                e.byte(UInt8(ascii: "0"))
            }
            e.raw(enc)
        case .message(_, let enc):
            e.byte(UInt8(ascii: "M"))
            e.raw(enc)
        case .invitation(_, let connReq, let info):
            e.byte(UInt8(ascii: "I"))
            try AgentWire.largeString(Array(connReq.uriString.utf8), into: &e)
            e.raw(info)
        case .ratchetKey(_, let params, let info):
            e.byte(UInt8(ascii: "R"))
            try Self.encodeParams(params, into: &e)
            e.raw(info)
        }
    }

    public init(from d: inout SMPDecoder) throws(DecodingError) {
        let v = try AgentWire.decoding { try d.word16() }
        switch try AgentWire.decoding({ try d.byte() }) {
        case UInt8(ascii: "C"):
            let params = try AgentWire.decodeOptional(&d) { (d) throws(DecodingError) in try Self.decodeParams(&d) }
            self = .confirmation(agentVersion: v, e2eParams: params, encConnInfo: d.rest())
        case UInt8(ascii: "M"):
            self = .message(agentVersion: v, encAgentMessage: d.rest())
        case UInt8(ascii: "I"):
            let text = try AgentWire.decoding { try d.largeString() }
            guard let s = LinkSyntax.asciiText(text) else { throw .invalid("invitation link is not printable ASCII") }
            let connReq: ConnectionRequestURI
            do {
                connReq = try ConnectionRequestURI(parsing: s)
            } catch {
                throw .invalid("invitation link: \(error)")
            }
            guard connReq.mode == .invitation else { throw .invalid("contact link in an invitation envelope") }
            self = .invitation(agentVersion: v, connReq: connReq, connInfo: d.rest())
        case UInt8(ascii: "R"):
            let params = try Self.decodeParams(&d)
            // Re-synchronization params are the receiving side's: a KEM proposal at most.
            if case .accepted? = params.kem { throw .invalid("ratchet key with accepted KEM params") }
            self = .ratchetKey(agentVersion: v, e2eParams: params, info: d.rest())
        case let b:
            throw .invalid("bad agent envelope tag \(b)")
        }
    }

    private static func encodeParams(_ p: E2ERatchetParams, into e: inout SMPEncoder) throws(EncodingError) {
        do {
            e.raw(try p.encoded())
        } catch {
            throw .tooLarge("e2e params: \(error)")
        }
    }

    private static func decodeParams(_ d: inout SMPDecoder) throws(DecodingError) -> E2ERatchetParams {
        try AgentWire.decoding { try E2ERatchetParams(from: &d) }
    }
}
