import SimplexFoundation

/// `queueIds` of the IDS response to NEW.
public struct QueueIDs: Sendable, Hashable {
    public var recipientId: [UInt8]
    public var senderId: [UInt8]
    /// The server's X25519 key (x509) for the server-to-recipient crypto_box of MSG bodies.
    public var serverDhKey: [UInt8]
    public var senderCanSecure: Bool
    /// The short link's ID, when the queue was created with link data.
    public var linkId: [UInt8]?
    /// Encode the tail in simplexmq's v15 form (`Maybe QueueMode`, `Maybe LinkId`) rather than
    /// the v9 `sndSecure` flag: the relay answers a NEW in the form the NEW used.
    public var linkForm: Bool

    public init(recipientId: [UInt8], senderId: [UInt8], serverDhKey: [UInt8], senderCanSecure: Bool, linkId: [UInt8]? = nil, linkForm: Bool = false) {
        self.recipientId = recipientId
        self.senderId = senderId
        self.serverDhKey = serverDhKey
        self.senderCanSecure = senderCanSecure
        self.linkId = linkId
        self.linkForm = linkForm || linkId != nil
    }
}

/// Server responses and notifications (`serverMsg` of the spec).
public enum BrokerMessage: Sendable, Hashable {
    case ids(QueueIDs)
    /// A delivered message: server-assigned ID (also the crypto_box nonce) and the encrypted body.
    case msg(msgId: [UInt8], encryptedBody: [UInt8])
    case nid(notifierId: [UInt8], serverNtfDhKey: [UInt8])
    case nmsg(nonce: [UInt8], encryptedMeta: [UInt8])
    /// Another connection subscribed to this queue; this one no longer receives it.
    case end
    case info(json: [UInt8])
    case ok
    case err(ErrorType)
    case pong
    /// Short link data (answer to LKEY and LGET): the queue's sender ID and the encrypted data.
    case lnk(senderId: [UInt8], data: QueueLinkData)

    public var tag: String {
        switch self {
        case .ids: "IDS"
        case .msg: "MSG"
        case .nid: "NID"
        case .nmsg: "NMSG"
        case .end: "END"
        case .info: "INFO"
        case .ok: "OK"
        case .err: "ERR"
        case .pong: "PONG"
        case .lnk: "LNK"
        }
    }
}

extension BrokerMessage: SMPEncodable, SMPDecodable {
    public func encode(into e: inout SMPEncoder) throws {
        switch self {
        case .ids(let q):
            e.ascii("IDS ")
            try e.shortString(q.recipientId)
            try e.shortString(q.senderId)
            try e.shortString(q.serverDhKey)
            if q.linkForm {
                e.byte(UInt8(ascii: "1"))
                e.byte(q.senderCanSecure ? UInt8(ascii: "M") : UInt8(ascii: "C"))
                try e.optional(q.linkId) { try $0.shortString($1) }
            } else {
                e.bool(q.senderCanSecure)
            }
        case .msg(let id, let body):
            e.ascii("MSG ")
            try e.shortString(id)
            e.raw(body)
        case .nid(let id, let dh):
            e.ascii("NID ")
            try e.shortString(id)
            try e.shortString(dh)
        case .nmsg(let nonce, let meta):
            e.ascii("NMSG ")
            e.raw(nonce)
            e.raw(meta)
        case .end: e.ascii("END")
        case .info(let json):
            e.ascii("INFO ")
            e.raw(json)
        case .ok: e.ascii("OK")
        case .err(let t):
            e.ascii("ERR ")
            try t.encode(into: &e)
        case .pong: e.ascii("PONG")
        case .lnk(let sid, let data):
            e.ascii("LNK ")
            try e.shortString(sid)
            try data.encode(into: &e)
        }
    }

    public init(from d: inout SMPDecoder) throws {
        let tag = String(decoding: d.word(), as: UTF8.self)
        switch tag {
        case "IDS":
            try d.expect(" ")
            let r = try d.shortString()
            let s = try d.shortString()
            let dh = try d.shortString()
            switch d.peek() {
            case nil:
                self = .ids(QueueIDs(recipientId: r, senderId: s, serverDhKey: dh, senderCanSecure: false))
            case UInt8(ascii: "0"), UInt8(ascii: "1"):
                // v15 form: Maybe QueueMode, Maybe LinkId
                let mode = try d.optional { try QueueMode.decode(from: &$0) }
                let linkId = try d.optional { try $0.shortString() }
                self = .ids(QueueIDs(recipientId: r, senderId: s, serverDhKey: dh, senderCanSecure: mode == .messaging,
                                     linkId: linkId, linkForm: true))
            default:
                self = .ids(QueueIDs(recipientId: r, senderId: s, serverDhKey: dh, senderCanSecure: try d.bool()))
            }
        case "MSG":
            try d.expect(" ")
            let id = try d.shortString()
            self = .msg(msgId: id, encryptedBody: d.rest())
        case "NID":
            try d.expect(" ")
            let id = try d.shortString()
            self = .nid(notifierId: id, serverNtfDhKey: try d.shortString())
        case "NMSG":
            try d.expect(" ")
            let nonce = try d.take(24)
            self = .nmsg(nonce: nonce, encryptedMeta: d.rest())
        case "END": self = .end
        case "INFO":
            try d.expect(" ")
            self = .info(json: d.rest())
        case "OK": self = .ok
        case "ERR":
            try d.expect(" ")
            self = .err(try ErrorType(from: &d))
        case "PONG": self = .pong
        case "LNK":
            try d.expect(" ")
            let sid = try d.shortString()
            self = .lnk(senderId: sid, data: try QueueLinkData.decode(from: &d))
        default: throw DecodingError.invalid("unknown response \(tag.prefix(16))")
        }
    }
}
