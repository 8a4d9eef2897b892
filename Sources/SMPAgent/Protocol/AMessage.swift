import SMPTransport
import SimplexFoundation

/// A send-queue address: server and sender ID (simplexmq `SndQAddr`), as QCONT and queue
/// rotation messages name queues. Encoding: `smpServer shortString(senderId)`.
public struct SndQAddr: Sendable, Hashable {
    public let server: SMPServerAddress
    public let senderId: [UInt8]

    public init(server: SMPServerAddress, senderId: [UInt8]) {
        self.server = server
        self.senderId = senderId
    }
}

extension SndQAddr: SMPEncodable, SMPDecodable {
    public func encode(into e: inout SMPEncoder) throws(EncodingError) {
        try server.encode(into: &e)
        try AgentWire.shortString(senderId, into: &e)
    }

    public init(from d: inout SMPDecoder) throws(DecodingError) {
        server = try SMPServerAddress(from: &d)
        senderId = try AgentWire.decoding { try d.shortString() }
    }
}

/// A delivery receipt (simplexmq `AMessageReceipt`): the sender's message ID, the hash of the
/// message as received, and application data. Encoding: `int64 shortString Large`.
public struct AMessageReceipt: Sendable, Hashable {
    public let agentMsgId: Int64
    public let msgHash: [UInt8]
    public let rcptInfo: [UInt8]

    public init(agentMsgId: Int64, msgHash: [UInt8], rcptInfo: [UInt8]) {
        self.agentMsgId = agentMsgId
        self.msgHash = msgHash
        self.rcptInfo = rcptInfo
    }
}

extension AMessageReceipt: SMPEncodable, SMPDecodable {
    public func encode(into e: inout SMPEncoder) throws(EncodingError) {
        e.int64(agentMsgId)
        try AgentWire.shortString(msgHash, into: &e)
        try AgentWire.largeString(rcptInfo, into: &e)
    }

    public init(from d: inout SMPDecoder) throws(DecodingError) {
        agentMsgId = try AgentWire.decoding { try d.int64() }
        msgHash = try AgentWire.decoding { try d.shortString() }
        rcptInfo = try AgentWire.decoding { try d.largeString() }
    }
}

/// QADD item: a new queue to add and, optionally, the queue it replaces.
public struct QueueAddition: Sendable, Hashable {
    public let queue: SMPQueueURI
    public let replaces: SndQAddr?

    public init(queue: SMPQueueURI, replaces: SndQAddr?) {
        self.queue = queue
        self.replaces = replaces
    }
}

/// QKEY item: the new queue at the agreed version and the sender's key to secure it.
public struct QueueSenderKey: Sendable, Hashable {
    public let queue: SMPQueueInfo
    public let senderKey: AnyPublicKey

    public init(queue: SMPQueueInfo, senderKey: AnyPublicKey) {
        self.queue = queue
        self.senderKey = senderKey
    }
}

/// QUSE item: a queue ready to use and whether it becomes the primary one.
public struct QueueUse: Sendable, Hashable {
    public let queue: SndQAddr
    public let primary: Bool

    public init(queue: SndQAddr, primary: Bool) {
        self.queue = queue
        self.primary = primary
    }
}

/// Messages between agents once the connection exists (agent-protocol.md `aMessage`, simplexmq
/// `AMessage`). Lists are non-empty: a 1-byte count (1...255), then the items.
public enum AMessage: Sendable, Hashable {
    /// `"H"`: the queue is secured (standard handshake).
    case hello
    /// `"M" body`: a user message (the body runs to the end).
    case aMsg([UInt8])
    /// `"V" NonEmpty(receipt)`: delivery receipts.
    case aRcvd([AMessageReceipt])
    /// `"QC" SndQAddr`: the queue has room again after QUOTA.
    case aQcont(SndQAddr)
    /// `"QA" NonEmpty(SMPQueueURI Maybe(SndQAddr))`: queue rotation, new queues.
    case qAdd([QueueAddition])
    /// `"QK" NonEmpty(SMPQueueInfo shortString(key))`: keys to secure the new queues.
    case qKey([QueueSenderKey])
    /// `"QU" NonEmpty(SndQAddr bool)`: the new queues are ready.
    case qUse([QueueUse])
    /// `"QT" NonEmpty(SndQAddr)`: test message on the new queues.
    case qTest([SndQAddr])
    /// `"E" int64`: the ratchet is re-synchronized; the last decrypted sender message ID.
    case eReady(Int64)
}

extension AMessage: SMPEncodable, SMPDecodable {
    public func encode(into e: inout SMPEncoder) throws(EncodingError) {
        switch self {
        case .hello:
            e.ascii("H")
        case .aMsg(let body):
            e.ascii("M")
            e.raw(body)
        case .aRcvd(let receipts):
            e.ascii("V")
            try AgentWire.encodeNonEmpty(receipts, into: &e) { (e, r) throws(EncodingError) in try r.encode(into: &e) }
        case .aQcont(let addr):
            e.ascii("QC")
            try addr.encode(into: &e)
        case .qAdd(let items):
            e.ascii("QA")
            try AgentWire.encodeNonEmpty(items, into: &e) { (e, x) throws(EncodingError) in
                try x.queue.encode(into: &e)
                if let r = x.replaces {
                    e.byte(UInt8(ascii: "1"))
                    try r.encode(into: &e)
                } else {
                    e.byte(UInt8(ascii: "0"))
                }
            }
        case .qKey(let items):
            e.ascii("QK")
            try AgentWire.encodeNonEmpty(items, into: &e) { (e, x) throws(EncodingError) in
                try x.queue.encode(into: &e)
                try AgentWire.shortString(x.senderKey.x509Encoded, into: &e)
            }
        case .qUse(let items):
            e.ascii("QU")
            try AgentWire.encodeNonEmpty(items, into: &e) { (e, x) throws(EncodingError) in
                try x.queue.encode(into: &e)
                e.bool(x.primary)
            }
        case .qTest(let addrs):
            e.ascii("QT")
            try AgentWire.encodeNonEmpty(addrs, into: &e) { (e, a) throws(EncodingError) in try a.encode(into: &e) }
        case .eReady(let id):
            e.ascii("E")
            e.int64(id)
        }
    }

    public init(from d: inout SMPDecoder) throws(DecodingError) {
        switch try AgentWire.decoding({ try d.byte() }) {
        case UInt8(ascii: "H"): self = .hello
        case UInt8(ascii: "M"): self = .aMsg(d.rest())
        case UInt8(ascii: "V"):
            self = .aRcvd(try AgentWire.decodeNonEmpty(&d) { (d) throws(DecodingError) in try AMessageReceipt(from: &d) })
        case UInt8(ascii: "E"): self = .eReady(try AgentWire.decoding { try d.int64() })
        case UInt8(ascii: "Q"):
            switch try AgentWire.decoding({ try d.byte() }) {
            case UInt8(ascii: "C"): self = .aQcont(try SndQAddr(from: &d))
            case UInt8(ascii: "A"):
                self = .qAdd(
                    try AgentWire.decodeNonEmpty(&d) { (d) throws(DecodingError) in
                        let q = try SMPQueueURI(from: &d)
                        let r = try AgentWire.decodeOptional(&d) { (d) throws(DecodingError) in try SndQAddr(from: &d) }
                        return QueueAddition(queue: q, replaces: r)
                    })
            case UInt8(ascii: "K"):
                self = .qKey(
                    try AgentWire.decodeNonEmpty(&d) { (d) throws(DecodingError) in
                        let q = try SMPQueueInfo(from: &d)
                        return QueueSenderKey(queue: q, senderKey: try AgentWire.decodeAuthKey(&d))
                    })
            case UInt8(ascii: "U"):
                self = .qUse(
                    try AgentWire.decodeNonEmpty(&d) { (d) throws(DecodingError) in
                        let a = try SndQAddr(from: &d)
                        return QueueUse(queue: a, primary: try AgentWire.decoding { try d.bool() })
                    })
            case UInt8(ascii: "T"):
                self = .qTest(try AgentWire.decodeNonEmpty(&d) { (d) throws(DecodingError) in try SndQAddr(from: &d) })
            case let b: throw .invalid("bad agent message type Q\(b)")
            }
        case let b: throw .invalid("bad agent message type \(b)")
        }
    }
}
