import SimplexFoundation

/// `QueueIdsKeys` of the IDS response to NEW. Which fields go on the wire depends on the version:
/// v9 adds the sender-can-secure flag, v15 the queue mode and link ID, v16 the service ID, v17
/// the notifier credentials.
public struct QueueIDs: Sendable, Hashable {
    public var recipientId: [UInt8]
    public var senderId: [UInt8]
    /// The server's X25519 key (x509) for the server-to-recipient crypto_box of MSG bodies.
    public var serverDhKey: [UInt8]
    /// nil when decoded from v6-v8, which do not carry it.
    public var queueMode: QueueMode?
    /// The short link's ID, when the queue was created with link data.
    public var linkId: [UInt8]?
    /// The client service the queue was associated with (v16 service sessions).
    public var serviceId: [UInt8]?
    /// Notifier credentials created with the queue (v17).
    public var serverNtfCreds: ServerNtfCreds?

    public init(recipientId: [UInt8], senderId: [UInt8], serverDhKey: [UInt8], queueMode: QueueMode?, linkId: [UInt8]? = nil,
                serviceId: [UInt8]? = nil, serverNtfCreds: ServerNtfCreds? = nil) {
        self.recipientId = recipientId
        self.senderId = senderId
        self.serverDhKey = serverDhKey
        self.queueMode = queueMode
        self.linkId = linkId
        self.serviceId = serviceId
        self.serverNtfCreds = serverNtfCreds
    }

    public var senderCanSecure: Bool { queueMode == .messaging }
}

/// Server responses and notifications (simplexmq `BrokerMsg`).
public enum BrokerMessage: Sendable, Hashable {
    case ids(QueueIDs)
    /// Short link data (answer to LKEY and LGET): the queue's sender ID and the encrypted data.
    case lnk(senderId: [UInt8], data: QueueLinkData)
    /// Subscription accepted (v16; encoded as OK before): the client service it was associated with.
    case sok(serviceId: [UInt8]?)
    /// Number of queues a service subscription covers.
    case soks(Int64)
    /// A delivered message: server-assigned ID (also the crypto_box nonce) and the encrypted body.
    case msg(msgId: [UInt8], encryptedBody: [UInt8])
    case nid(notifierId: [UInt8], serverNtfDhKey: [UInt8])
    /// Notification: the 24-byte nonce and the encrypted `NMsgMeta`.
    case nmsg(nonce: [UInt8], encryptedMeta: [UInt8])
    /// Proxy's answer to PRXY: the destination's session ID, versions and signed key (kept as bytes).
    case pkey(sessionId: [UInt8], versions: SMPVersionRange, certChainPubKey: [UInt8])
    /// Relay to proxy: the encrypted forwarded response.
    case rres(encrypted: [UInt8])
    /// Proxy to client: the encrypted response.
    case pres(encrypted: [UInt8])
    /// Another connection subscribed to this queue; this one no longer receives it.
    case end
    /// A service's subscriptions ended; how many.
    case ends(Int64)
    /// The queue was deleted (v10; END before).
    case deld
    case info(json: [UInt8])
    case ok
    case err(ErrorType)
    case pong

    public var tag: String {
        switch self {
        case .ids: "IDS"
        case .lnk: "LNK"
        case .sok: "SOK"
        case .soks: "SOKS"
        case .msg: "MSG"
        case .nid: "NID"
        case .nmsg: "NMSG"
        case .pkey: "PKEY"
        case .rres: "RRES"
        case .pres: "PRES"
        case .end: "END"
        case .ends: "ENDS"
        case .deld: "DELD"
        case .info: "INFO"
        case .ok: "OK"
        case .err: "ERR"
        case .pong: "PONG"
        }
    }

    /// `encodeProtocol v`: each response in the form version `v` has (older versions get the
    /// nearest form they understand: DELD as END, SOK as OK, BLOCKED as AUTH).
    public func encode(into e: inout SMPEncoder, version v: UInt16) throws {
        switch self {
        case .ids(let q):
            e.ascii("IDS ")
            try e.shortString(q.recipientId)
            try e.shortString(q.senderId)
            try e.shortString(q.serverDhKey)
            if v >= SMPVersion.shortLinks {
                try e.optional(q.queueMode) { $0.byte($1.tag) }
                try e.optional(q.linkId) { try $0.shortString($1) }
                if v >= SMPVersion.serviceCerts { try e.optional(q.serviceId) { try $0.shortString($1) } }
                if v >= SMPVersion.newNtfCreds {
                    try e.optional(q.serverNtfCreds) {
                        try $0.shortString($1.notifierId)
                        try $0.shortString($1.serverNtfDhKey)
                    }
                }
            } else if v >= SMPVersion.senderSecure {
                e.bool(q.senderCanSecure)
            }
        case .lnk(let sid, let data):
            e.ascii("LNK ")
            try e.shortString(sid)
            try data.encode(into: &e)
        case .sok(let sid):
            if v >= SMPVersion.serviceCerts {
                e.ascii("SOK ")
                try e.optional(sid) { try $0.shortString($1) }
            } else {
                e.ascii("OK")
            }
        case .soks(let n):
            e.ascii("SOKS ")
            e.int64(n)
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
            guard nonce.count == 24 else { throw EncodingError.tooLarge("nonce of \(nonce.count) bytes") }
            e.raw(nonce)
            try e.shortString(meta)
        case .pkey(let sid, let vr, let cert):
            e.ascii("PKEY ")
            try e.shortString(sid)
            e.word16(vr.min)
            e.word16(vr.max)
            e.raw(cert)
        case .rres(let t):
            e.ascii("RRES ")
            e.raw(t)
        case .pres(let t):
            e.ascii("PRES ")
            e.raw(t)
        case .end: e.ascii("END")
        case .ends(let n):
            e.ascii("ENDS ")
            e.int64(n)
        case .deld:
            if v >= SMPVersion.deletedEvent { e.ascii("DELD") } else { e.ascii("END") }
        case .info(let json):
            e.ascii("INFO ")
            e.raw(json)
        case .ok: e.ascii("OK")
        case .err(let t):
            e.ascii("ERR ")
            try t.forVersion(v).encode(into: &e)
        case .pong: e.ascii("PONG")
        }
    }

    public func smpEncoded(version v: UInt16) throws -> [UInt8] {
        var e = SMPEncoder()
        try encode(into: &e, version: v)
        return e.bytes
    }

    /// `parseProtocol v` for responses: the whole input must parse.
    public static func parse<C: Collection>(_ bytes: C, version v: UInt16) throws -> BrokerMessage where C.Element == UInt8 {
        var d = SMPDecoder(bytes)
        let tag = String(decoding: d.word(), as: UTF8.self)
        let m = try decode(tag: tag, from: &d, version: v)
        try d.expectEnd()
        return m
    }

    private static func decode(tag: String, from d: inout SMPDecoder, version v: UInt16) throws -> BrokerMessage {
        switch tag {
        case "IDS":
            try d.expect(" ")
            let r = try d.shortString()
            let s = try d.shortString()
            let dh = try d.shortString()
            var q = QueueIDs(recipientId: r, senderId: s, serverDhKey: dh, queueMode: nil)
            if v >= SMPVersion.shortLinks {
                q.queueMode = try d.optional { try QueueMode.decode(from: &$0) }
                q.linkId = try d.optional { try $0.shortString() }
                if v >= SMPVersion.serviceCerts { q.serviceId = try d.optional { try $0.shortString() } }
                if v >= SMPVersion.newNtfCreds {
                    q.serverNtfCreds = try d.optional { d in
                        let nid = try d.shortString()
                        return ServerNtfCreds(notifierId: nid, serverNtfDhKey: try d.shortString())
                    }
                }
            } else if v >= SMPVersion.senderSecure {
                q.queueMode = try d.bool() ? .messaging : .contact
            }
            return .ids(q)
        case "LNK":
            try d.expect(" ")
            let sid = try d.shortString()
            return .lnk(senderId: sid, data: try QueueLinkData.decode(from: &d))
        case "SOK":
            try d.expect(" ")
            return .sok(serviceId: try d.optional { try $0.shortString() })
        case "SOKS":
            try d.expect(" ")
            return .soks(try d.int64())
        case "MSG":
            try d.expect(" ")
            let id = try d.shortString()
            return .msg(msgId: id, encryptedBody: d.rest())
        case "NID":
            try d.expect(" ")
            let id = try d.shortString()
            return .nid(notifierId: id, serverNtfDhKey: try d.shortString())
        case "NMSG":
            try d.expect(" ")
            let nonce = try d.take(24)
            return .nmsg(nonce: nonce, encryptedMeta: try d.shortString())
        case "PKEY":
            try d.expect(" ")
            let sid = try d.shortString()
            let lo = try d.word16(), hi = try d.word16()
            guard let vr = SMPVersionRange(min: lo, max: hi) else { throw DecodingError.invalid("bad version range") }
            return .pkey(sessionId: sid, versions: vr, certChainPubKey: d.rest())
        case "RRES":
            try d.expect(" ")
            return .rres(encrypted: d.rest())
        case "PRES":
            try d.expect(" ")
            return .pres(encrypted: d.rest())
        case "END": return .end
        case "ENDS":
            try d.expect(" ")
            return .ends(try d.int64())
        case "DELD": return .deld
        case "INFO":
            try d.expect(" ")
            return .info(json: d.rest())
        case "OK": return .ok
        case "ERR":
            try d.expect(" ")
            return .err(try ErrorType(from: &d))
        case "PONG": return .pong
        default: throw DecodingError.invalid("unknown response \(tag.prefix(16))")
        }
    }
}

extension BrokerMessage: SMPEncodable, SMPDecodable {
    /// The encoding at the newest version (`SMPVersion.current`).
    public func encode(into e: inout SMPEncoder) throws { try encode(into: &e, version: SMPVersion.current) }

    public init(from d: inout SMPDecoder) throws {
        self = try BrokerMessage.parse(d.rest(), version: SMPVersion.current)
    }
}
