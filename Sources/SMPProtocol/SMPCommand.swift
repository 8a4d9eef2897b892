import SimplexFoundation

/// `msgFlags` of SEND: only the notification flag is defined; up to 7 reserved bytes follow it
/// and are ignored, so newer clients can add flags without breaking older relays.
public struct MsgFlags: Sendable, Hashable {
    public var notification: Bool
    public init(notification: Bool) { self.notification = notification }

    /// Reads `msgFlags SP`: the notification flag, at most 7 reserved bytes, then the space.
    static func decodeWithSpace(from d: inout SMPDecoder) throws -> MsgFlags {
        let notification = try d.bool()
        var reserved = 0
        while let b = d.peek(), b != 0x20 {
            _ = try d.byte()
            reserved += 1
            if reserved > 7 { throw DecodingError.invalid("too many message flags") }
        }
        try d.expect(" ")
        return MsgFlags(notification: notification)
    }
}

/// `NEW` parameters: the recipient's command key, its DH key for server-to-recipient encryption,
/// optional basic auth, whether to subscribe at once, and whether the sender may secure the queue.
///
/// The last field has two wire forms, told apart by their first byte: the v9 form is
/// `sndSecure` ("T"/"F"); the link form is simplexmq's v15 `Maybe QueueReqData` ("0", or "1" then
/// "M"/"C" and the optional link data). The link form is used when `queueData` is set (a queue
/// created with its short link) or `linkForm` is true; the IDS answer then uses the v15 form too.
public struct NewQueueRequest: Sendable, Hashable {
    public var recipientAuthKey: [UInt8]
    public var recipientDhKey: [UInt8]
    public var basicAuth: [UInt8]?
    public var subscribe: Bool
    public var senderCanSecure: Bool
    /// Short link data to store with the new queue; its mode decides `senderCanSecure`.
    public var queueData: QueueRequestData?
    /// Whether the request is (to be) encoded in the link form.
    public var linkForm: Bool

    public init(recipientAuthKey: [UInt8], recipientDhKey: [UInt8], basicAuth: [UInt8]? = nil, subscribe: Bool = true, senderCanSecure: Bool = true,
                queueData: QueueRequestData? = nil, linkForm: Bool = false) {
        self.recipientAuthKey = recipientAuthKey
        self.recipientDhKey = recipientDhKey
        self.basicAuth = basicAuth
        self.subscribe = subscribe
        self.senderCanSecure = queueData.map { $0.mode == .messaging } ?? senderCanSecure
        self.queueData = queueData
        self.linkForm = linkForm || queueData != nil
    }

    func encodeQueueData(into e: inout SMPEncoder) throws {
        guard linkForm else {
            e.bool(senderCanSecure)
            return
        }
        e.byte(UInt8(ascii: "1"))
        switch queueData {
        case nil:
            e.byte(senderCanSecure ? UInt8(ascii: "M") : UInt8(ascii: "C"))
            e.byte(UInt8(ascii: "0"))
        case .messaging(let sid, let data)?:
            e.ascii("M1")
            try e.shortString(sid)
            try data.encode(into: &e)
        case .contact(let lid, let sid, let data)?:
            e.ascii("C1")
            try e.shortString(lid)
            try e.shortString(sid)
            try data.encode(into: &e)
        }
    }

    /// Reads either form of the last field (absent means v8 and earlier: no sender securing).
    static func decodeQueueData(from d: inout SMPDecoder) throws -> (senderCanSecure: Bool, queueData: QueueRequestData?, linkForm: Bool) {
        guard let first = d.peek() else { return (false, nil, false) }
        switch first {
        case UInt8(ascii: "T"), UInt8(ascii: "F"):
            return (try d.bool(), nil, false)
        case UInt8(ascii: "0"):
            _ = try d.byte()
            return (false, nil, true)
        case UInt8(ascii: "1"):
            _ = try d.byte()
            let mode = try QueueMode.decode(from: &d)
            let hasLink: Bool
            switch try d.byte() {
            case UInt8(ascii: "0"): hasLink = false
            case UInt8(ascii: "1"): hasLink = true
            case let b: throw DecodingError.invalid("bad maybe tag \(b)")
            }
            guard hasLink else { return (mode == .messaging, nil, true) }
            switch mode {
            case .messaging:
                let sid = try d.shortString()
                return (true, .messaging(senderId: sid, data: try QueueLinkData.decode(from: &d)), true)
            case .contact:
                let lid = try d.shortString()
                let sid = try d.shortString()
                return (false, .contact(linkId: lid, senderId: sid, data: try QueueLinkData.decode(from: &d)), true)
            }
        case let b:
            throw DecodingError.invalid("bad queue request data \(b)")
        }
    }
}

/// Who may send a command, which decides which queue ID it must carry and which key authorizes it.
public enum SMPParty: Sendable {
    /// `linkClient`: whoever holds a short link (LKEY, LGET), addressed by the link ID.
    case creator, recipient, sender, notifier, anyone, linkClient
}

/// Client commands of the spec (`smpCommand` minus proxy commands, which this relay does not offer).
/// Keys are x509-encoded (DER SubjectPublicKeyInfo) byte strings.
public enum SMPCommand: Sendable, Hashable {
    case new(NewQueueRequest)
    case sub
    case key(senderKey: [UInt8])
    case nkey(notifierKey: [UInt8], recipientNtfDhKey: [UInt8])
    case ndel
    case get
    case ack(msgId: [UInt8])
    case off
    case del
    case que
    case skey(senderKey: [UInt8])
    case send(flags: MsgFlags, body: [UInt8])
    case ping
    case nsub
    /// Sets (or replaces the user part of) the queue's short link data.
    case lset(linkId: [UInt8], data: QueueLinkData)
    /// Deletes the queue's short link data.
    case ldel
    /// Secures a messaging queue found by link ID with the sender key and returns its link data
    /// (a 1-time invitation short link: only the first resolver succeeds).
    case lkey(senderKey: [UInt8])
    /// Returns a contact queue's link data, found by link ID; no authorization.
    case lget

    public var party: SMPParty {
        switch self {
        case .new: .creator
        case .sub, .key, .nkey, .ndel, .get, .ack, .off, .del, .que, .lset, .ldel: .recipient
        case .skey, .send: .sender
        case .nsub: .notifier
        case .ping: .anyone
        case .lkey, .lget: .linkClient
        }
    }

    /// Short name for logs and errors.
    public var tag: String {
        switch self {
        case .new: "NEW"
        case .sub: "SUB"
        case .key: "KEY"
        case .nkey: "NKEY"
        case .ndel: "NDEL"
        case .get: "GET"
        case .ack: "ACK"
        case .off: "OFF"
        case .del: "DEL"
        case .que: "QUE"
        case .skey: "SKEY"
        case .send: "SEND"
        case .ping: "PING"
        case .nsub: "NSUB"
        case .lset: "LSET"
        case .ldel: "LDEL"
        case .lkey: "LKEY"
        case .lget: "LGET"
        }
    }
}

extension SMPCommand: SMPEncodable {
    public func encode(into e: inout SMPEncoder) throws {
        switch self {
        case .new(let r):
            e.ascii("NEW ")
            try e.shortString(r.recipientAuthKey)
            try e.shortString(r.recipientDhKey)
            try e.optional(r.basicAuth) { try $0.shortString($1) }
            e.byte(r.subscribe ? UInt8(ascii: "S") : UInt8(ascii: "C"))
            try r.encodeQueueData(into: &e)
        case .sub: e.ascii("SUB")
        case .key(let k):
            e.ascii("KEY ")
            try e.shortString(k)
        case .nkey(let k, let dh):
            e.ascii("NKEY ")
            try e.shortString(k)
            try e.shortString(dh)
        case .ndel: e.ascii("NDEL")
        case .get: e.ascii("GET")
        case .ack(let id):
            e.ascii("ACK ")
            try e.shortString(id)
        case .off: e.ascii("OFF")
        case .del: e.ascii("DEL")
        case .que: e.ascii("QUE")
        case .skey(let k):
            e.ascii("SKEY ")
            try e.shortString(k)
        case .send(let flags, let body):
            e.ascii("SEND ")
            e.bool(flags.notification)
            e.byte(0x20)
            e.raw(body)
        case .ping: e.ascii("PING")
        case .nsub: e.ascii("NSUB")
        case .lset(let lid, let data):
            e.ascii("LSET ")
            try e.shortString(lid)
            try data.encode(into: &e)
        case .ldel: e.ascii("LDEL")
        case .lkey(let k):
            e.ascii("LKEY ")
            try e.shortString(k)
        case .lget: e.ascii("LGET")
        }
    }
}

extension SMPCommand: SMPDecodable {
    /// Parses a command; unknown tags are `CommandError.unknown`, bad arguments `.syntax`.
    public init(from d: inout SMPDecoder) throws {
        let tag = String(decoding: d.word(), as: UTF8.self)
        do {
            switch tag {
            case "NEW":
                try d.expect(" ")
                let rk = try d.shortString()
                let dh = try d.shortString()
                let auth = try d.optional { try $0.shortString() }
                let sub: Bool
                switch try d.byte() {
                case UInt8(ascii: "S"): sub = true
                case UInt8(ascii: "C"): sub = false
                default: throw DecodingError.invalid("bad subscribe mode")
                }
                let (sndSecure, queueData, linkForm) = try NewQueueRequest.decodeQueueData(from: &d)
                self = .new(NewQueueRequest(recipientAuthKey: rk, recipientDhKey: dh, basicAuth: auth, subscribe: sub, senderCanSecure: sndSecure,
                                            queueData: queueData, linkForm: linkForm))
            case "SUB": self = .sub
            case "KEY":
                try d.expect(" ")
                self = .key(senderKey: try d.shortString())
            case "NKEY":
                try d.expect(" ")
                let k = try d.shortString()
                self = .nkey(notifierKey: k, recipientNtfDhKey: try d.shortString())
            case "NDEL": self = .ndel
            case "GET": self = .get
            case "ACK":
                try d.expect(" ")
                self = .ack(msgId: try d.shortString())
            case "OFF": self = .off
            case "DEL": self = .del
            case "QUE": self = .que
            case "SKEY":
                try d.expect(" ")
                self = .skey(senderKey: try d.shortString())
            case "SEND":
                try d.expect(" ")
                let flags = try MsgFlags.decodeWithSpace(from: &d)
                self = .send(flags: flags, body: d.rest())
            case "PING": self = .ping
            case "NSUB": self = .nsub
            case "LSET":
                try d.expect(" ")
                let lid = try d.shortString()
                let data = try QueueLinkData.decode(from: &d)
                self = .lset(linkId: lid, data: data)
            case "LDEL": self = .ldel
            case "LKEY":
                try d.expect(" ")
                self = .lkey(senderKey: try d.shortString())
            case "LGET": self = .lget
            default: throw SMPProtocolError.command(.unknown)
            }
        } catch let e as DecodingError {
            throw SMPProtocolError.command(.syntax, e)
        }
    }
}

/// A parse failure mapped to the `ERR` the relay should answer with.
public enum SMPProtocolError: Error, Sendable, Equatable {
    case command(CommandError, DecodingError? = nil)
    case block(DecodingError)

    public var errorType: ErrorType {
        switch self {
        case .command(let c, _): .cmd(c)
        case .block: .block
        }
    }
}
