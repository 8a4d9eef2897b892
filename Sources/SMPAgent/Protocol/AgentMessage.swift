import SimplexFoundation

/// The plaintext inside an envelope (agent-protocol.md `decryptedAgentMessage`, simplexmq
/// `AgentMessage`), after the ratchet (or, for ratchet info, the per-queue layer) is removed.
public enum AgentMessage: Sendable, Hashable {
    /// `'I' connInfo`: the creator's info in its confirmation.
    case connInfo([UInt8])
    /// `'D' NonEmpty(SMPQueueInfo) connInfo`: the joining party's info and its reply queues.
    case connInfoReply(queues: [SMPQueueInfo], info: [UInt8])
    /// `'R' info`: application data sent with new ratchet keys.
    case ratchetInfo([UInt8])
    /// `'M' APrivHeader AMessage`: every message once the connection exists.
    case message(APrivHeader, AMessage)

    public static func decode(_ bytes: [UInt8]) throws(DecodingError) -> AgentMessage {
        try AgentWire.decodeAll(bytes) { (d) throws(DecodingError) in try AgentMessage(from: &d) }
    }
}

extension AgentMessage: SMPEncodable, SMPDecodable {
    public func encode(into e: inout SMPEncoder) throws(EncodingError) {
        switch self {
        case .connInfo(let info):
            e.byte(UInt8(ascii: "I"))
            e.raw(info)
        case .connInfoReply(let queues, let info):
            e.byte(UInt8(ascii: "D"))
            try AgentWire.encodeNonEmpty(queues, into: &e) { (e, q) throws(EncodingError) in try q.encode(into: &e) }
            e.raw(info)
        case .ratchetInfo(let info):
            e.byte(UInt8(ascii: "R"))
            e.raw(info)
        case .message(let header, let msg):
            e.byte(UInt8(ascii: "M"))
            try header.encode(into: &e)
            try msg.encode(into: &e)
        }
    }

    public init(from d: inout SMPDecoder) throws(DecodingError) {
        switch try AgentWire.decoding({ try d.byte() }) {
        case UInt8(ascii: "I"): self = .connInfo(d.rest())
        case UInt8(ascii: "D"):
            let queues = try AgentWire.decodeNonEmpty(&d) { (d) throws(DecodingError) in try SMPQueueInfo(from: &d) }
            self = .connInfoReply(queues: queues, info: d.rest())
        case UInt8(ascii: "R"): self = .ratchetInfo(d.rest())
        case UInt8(ascii: "M"):
            let header = try APrivHeader(from: &d)
            self = .message(header, try AMessage(from: &d))
        case let b: throw .invalid("bad agent message tag \(b)")
        }
    }
}

/// The private header of every agent message (simplexmq `APrivHeader`): the sender's sequential
/// message ID and the hash of its previous message, so the recipient can detect gaps and forks.
public struct APrivHeader: Sendable, Hashable {
    public let sndMsgId: Int64
    public let prevMsgHash: [UInt8]

    public init(sndMsgId: Int64, prevMsgHash: [UInt8]) {
        self.sndMsgId = sndMsgId
        self.prevMsgHash = prevMsgHash
    }
}

extension APrivHeader: SMPEncodable, SMPDecodable {
    public func encode(into e: inout SMPEncoder) throws(EncodingError) {
        e.int64(sndMsgId)
        try AgentWire.shortString(prevMsgHash, into: &e)
    }

    public init(from d: inout SMPDecoder) throws(DecodingError) {
        sndMsgId = try AgentWire.decoding { try d.int64() }
        prevMsgHash = try AgentWire.decoding { try d.shortString() }
    }
}
