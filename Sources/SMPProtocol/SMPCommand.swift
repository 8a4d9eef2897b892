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
public struct NewQueueRequest: Sendable, Hashable {
    public var recipientAuthKey: [UInt8]
    public var recipientDhKey: [UInt8]
    public var basicAuth: [UInt8]?
    public var subscribe: Bool
    public var senderCanSecure: Bool

    public init(recipientAuthKey: [UInt8], recipientDhKey: [UInt8], basicAuth: [UInt8]? = nil, subscribe: Bool = true, senderCanSecure: Bool = true) {
        self.recipientAuthKey = recipientAuthKey
        self.recipientDhKey = recipientDhKey
        self.basicAuth = basicAuth
        self.subscribe = subscribe
        self.senderCanSecure = senderCanSecure
    }
}

/// Who may send a command, which decides which queue ID it must carry and which key authorizes it.
public enum SMPParty: Sendable {
    case creator, recipient, sender, notifier, anyone
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

    public var party: SMPParty {
        switch self {
        case .new: .creator
        case .sub, .key, .nkey, .ndel, .get, .ack, .off, .del, .que: .recipient
        case .skey, .send: .sender
        case .nsub: .notifier
        case .ping: .anyone
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
            e.bool(r.senderCanSecure)
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
                let sndSecure = d.isAtEnd ? false : try d.bool()
                self = .new(NewQueueRequest(recipientAuthKey: rk, recipientDhKey: dh, basicAuth: auth, subscribe: sub, senderCanSecure: sndSecure))
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
