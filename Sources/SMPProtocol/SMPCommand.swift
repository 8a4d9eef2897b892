import SimplexFoundation

/// `msgFlags` of SEND: only the notification flag is defined. The reference reads the flag and
/// skips whatever follows up to the space, so newer clients can add flags without breaking relays.
public struct MsgFlags: Sendable, Hashable {
    public var notification: Bool
    public init(notification: Bool) { self.notification = notification }

    /// Reads `msgFlags SP`: the notification flag, any further flag bytes (ignored), then the space.
    static func decodeWithSpace(from d: inout SMPDecoder) throws -> MsgFlags {
        let notification = try d.bool()
        _ = d.word()
        try d.expect(" ")
        return MsgFlags(notification: notification)
    }
}

/// `NEW` parameters (simplexmq `NewQueueReq`): the recipient's command key, its DH key for
/// server-to-recipient encryption, optional basic auth, whether to subscribe at once, the queue
/// mode with optional short link data (`QueueReqData`) and optional notifier credentials.
///
/// Each version writes the tail differently: v6-v8 `['A' auth] subMode`; v9 `Maybe auth subMode
/// sndSecure`; v15 `Maybe auth subMode Maybe QueueReqData`; v17 adds `Maybe NewNtfCreds`.
public struct NewQueueRequest: Sendable, Hashable {
    public var recipientAuthKey: [UInt8]
    public var recipientDhKey: [UInt8]
    public var basicAuth: [UInt8]?
    public var subscribe: Bool
    /// Messaging (the sender may secure the queue) or contact queue; nil only when decoded
    /// from v6-v8, whose NEW has no mode.
    public var mode: QueueMode?
    /// Short link data to store with the new queue (v15); its mode is `mode`.
    public var queueData: QueueRequestData?
    /// Notifier credentials to create with the queue (v17).
    public var ntfCreds: NewNtfCreds?

    public init(recipientAuthKey: [UInt8], recipientDhKey: [UInt8], basicAuth: [UInt8]? = nil, subscribe: Bool = true,
                senderCanSecure: Bool = true, queueData: QueueRequestData? = nil, ntfCreds: NewNtfCreds? = nil) {
        self.init(recipientAuthKey: recipientAuthKey, recipientDhKey: recipientDhKey, basicAuth: basicAuth, subscribe: subscribe,
                  mode: queueData?.mode ?? (senderCanSecure ? .messaging : .contact), queueData: queueData, ntfCreds: ntfCreds)
    }

    public init(recipientAuthKey: [UInt8], recipientDhKey: [UInt8], basicAuth: [UInt8]?, subscribe: Bool,
                mode: QueueMode?, queueData: QueueRequestData?, ntfCreds: NewNtfCreds?) {
        self.recipientAuthKey = recipientAuthKey
        self.recipientDhKey = recipientDhKey
        self.basicAuth = basicAuth
        self.subscribe = subscribe
        self.mode = queueData?.mode ?? mode
        self.queueData = queueData
        self.ntfCreds = ntfCreds
    }

    /// `senderCanSecure (queueReqMode <$> queueReqData)`.
    public var senderCanSecure: Bool { mode == .messaging }

    func encode(into e: inout SMPEncoder, version v: UInt16) throws {
        try e.shortString(recipientAuthKey)
        try e.shortString(recipientDhKey)
        if v < SMPVersion.senderSecure {
            if let basicAuth {
                e.byte(UInt8(ascii: "A"))
                try e.shortString(basicAuth)
            }
            e.byte(subscribe ? UInt8(ascii: "S") : UInt8(ascii: "C"))
            return
        }
        try e.optional(basicAuth) { try $0.shortString($1) }
        e.byte(subscribe ? UInt8(ascii: "S") : UInt8(ascii: "C"))
        if v < SMPVersion.shortLinks {
            e.bool(senderCanSecure)
            return
        }
        if let mode {
            e.byte(UInt8(ascii: "1"))
            e.byte(mode.tag)
            switch queueData {
            case nil:
                e.byte(UInt8(ascii: "0"))
            case .messaging(let sid, let data)?:
                e.byte(UInt8(ascii: "1"))
                try e.shortString(sid)
                try data.encode(into: &e)
            case .contact(let lid, let sid, let data)?:
                e.byte(UInt8(ascii: "1"))
                try e.shortString(lid)
                try e.shortString(sid)
                try data.encode(into: &e)
            }
        } else {
            e.byte(UInt8(ascii: "0"))
        }
        if v >= SMPVersion.newNtfCreds {
            try e.optional(ntfCreds) {
                try $0.shortString($1.notifierKey)
                try $0.shortString($1.recipientNtfDhKey)
            }
        }
    }

    static func decode(from d: inout SMPDecoder, version v: UInt16) throws -> NewQueueRequest {
        let rk = try d.shortString()
        let dh = try d.shortString()
        func subMode() throws -> Bool {
            switch try d.byte() {
            case UInt8(ascii: "S"): return true
            case UInt8(ascii: "C"): return false
            default: throw DecodingError.invalid("bad subscription mode")
            }
        }
        if v < SMPVersion.senderSecure {
            var auth: [UInt8]?
            if d.consume("A") { auth = try d.shortString() }
            let sub = try subMode()
            return NewQueueRequest(recipientAuthKey: rk, recipientDhKey: dh, basicAuth: auth, subscribe: sub, mode: nil, queueData: nil, ntfCreds: nil)
        }
        let auth = try d.optional { try $0.shortString() }
        let sub = try subMode()
        if v < SMPVersion.shortLinks {
            let mode: QueueMode = try d.bool() ? .messaging : .contact
            return NewQueueRequest(recipientAuthKey: rk, recipientDhKey: dh, basicAuth: auth, subscribe: sub, mode: mode, queueData: nil, ntfCreds: nil)
        }
        var mode: QueueMode?
        var queueData: QueueRequestData?
        if try d.optional({ _ in true }) != nil {
            let m = try QueueMode.decode(from: &d)
            mode = m
            queueData = try d.optional { d in
                switch m {
                case .messaging:
                    let sid = try d.shortString()
                    return .messaging(senderId: sid, data: try QueueLinkData.decode(from: &d))
                case .contact:
                    let lid = try d.shortString()
                    let sid = try d.shortString()
                    return .contact(linkId: lid, senderId: sid, data: try QueueLinkData.decode(from: &d))
                }
            }
        }
        var ntf: NewNtfCreds?
        if v >= SMPVersion.newNtfCreds {
            ntf = try d.optional { d in
                let k = try d.shortString()
                return NewNtfCreds(notifierKey: k, recipientNtfDhKey: try d.shortString())
            }
        }
        return NewQueueRequest(recipientAuthKey: rk, recipientDhKey: dh, basicAuth: auth, subscribe: sub, mode: mode, queueData: queueData, ntfCreds: ntf)
    }
}

/// Who may send a command, which decides which queue ID it must carry and which key authorizes it
/// (simplexmq `Party`).
public enum SMPParty: Sendable {
    /// `linkClient`: whoever holds a short link (LKEY, LGET), addressed by the link ID.
    case creator, recipient, recipientService, sender, idleClient, notifier, notifierService, linkClient, proxiedClient, proxyService
}

/// Client commands of simplexmq's `Command` at versions 6-18. Keys are x509-encoded (DER
/// SubjectPublicKeyInfo) byte strings.
public enum SMPCommand: Sendable, Hashable {
    case new(NewQueueRequest)
    case sub
    /// Subscribe all queues of a client service (v16 service sessions).
    case subs
    case key(senderKey: [UInt8])
    /// Replace the recipient keys of a contact queue.
    case rkey(recipientKeys: [[UInt8]])
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
    case nsubs
    /// Sets (or replaces the user part of) the queue's short link data.
    case lset(linkId: [UInt8], data: QueueLinkData)
    /// Deletes the queue's short link data.
    case ldel
    /// Secures a messaging queue found by link ID with the sender key and returns its link data.
    case lkey(senderKey: [UInt8])
    /// Returns a contact queue's link data, found by link ID; no authorization.
    case lget
    /// Private routing: ask a proxy for a session with the destination relay `server`, with the
    /// proxy's basic auth (its queue-creation password) if it requires one.
    case prxy(server: ProtocolServer, basicAuth: [UInt8]?)
    /// Private routing: a transmission for the destination, encrypted to it.
    case pfwd(version: UInt16, publicKey: [UInt8], encryptedTransmission: [UInt8])
    /// Private routing: a proxy forwarding an encrypted transmission to this relay.
    case rfwd(encryptedTransmission: [UInt8])

    public var party: SMPParty {
        switch self {
        case .new: .creator
        case .sub, .key, .rkey, .nkey, .ndel, .get, .ack, .off, .del, .que, .lset, .ldel: .recipient
        case .subs: .recipientService
        case .skey, .send: .sender
        case .nsub: .notifier
        case .nsubs: .notifierService
        case .ping: .idleClient
        case .lkey, .lget: .linkClient
        case .prxy, .pfwd: .proxiedClient
        case .rfwd: .proxyService
        }
    }

    /// The command tag on the wire, also used in logs and errors.
    public var tag: String {
        switch self {
        case .new: "NEW"
        case .sub: "SUB"
        case .subs: "SUBS"
        case .key: "KEY"
        case .rkey: "RKEY"
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
        case .nsubs: "NSUBS"
        case .lset: "LSET"
        case .ldel: "LDEL"
        case .lkey: "LKEY"
        case .lget: "LGET"
        case .prxy: "PRXY"
        case .pfwd: "PFWD"
        case .rfwd: "RFWD"
        }
    }

    /// Commands a destination relay executes when they arrive inside RFWD (`rejectOrVerify`):
    /// the sender's; anything else is CMD PROHIBITED.
    public var allowedForwarded: Bool {
        switch self {
        case .send, .skey, .lkey, .lget: true
        default: false
        }
    }

    /// Commands that carry the service signature in a service session (`useServiceAuth`).
    public var usesServiceAuth: Bool {
        switch self {
        case .new, .sub, .nsub: true
        default: false
        }
    }

    /// `checkCredentials` of the reference: whether the transmission's authorization and entity ID
    /// are what this command requires; the ERR to answer otherwise.
    public func credentialsError(hasAuthorization auth: Bool, entityId: [UInt8]) -> ErrorType? {
        let noEntity = entityId.isEmpty
        switch self {
        case .new:
            if !auth { return .cmd(.noAuth) }
            if !noEntity { return .cmd(.hasAuth) }
            return nil
        case .send:
            return noEntity ? .cmd(.noEntity) : nil
        case .lget, .pfwd:
            if noEntity { return .cmd(.noEntity) }
            return auth ? .cmd(.hasAuth) : nil
        case .ping, .prxy, .rfwd:
            return !auth && noEntity ? nil : .cmd(.hasAuth)
        default:
            return !auth || noEntity ? .cmd(.noAuth) : nil
        }
    }

    public func encode(into e: inout SMPEncoder, version v: UInt16) throws {
        switch self {
        case .new(let r):
            e.ascii("NEW ")
            try r.encode(into: &e, version: v)
        case .sub: e.ascii("SUB")
        case .subs: e.ascii("SUBS")
        case .key(let k):
            e.ascii("KEY ")
            try e.shortString(k)
        case .rkey(let ks):
            e.ascii("RKEY ")
            guard !ks.isEmpty, ks.count <= 255 else { throw EncodingError.tooLarge("\(ks.count) recipient keys") }
            e.byte(UInt8(ks.count))
            for k in ks { try e.shortString(k) }
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
        case .nsubs: e.ascii("NSUBS")
        case .lset(let lid, let data):
            e.ascii("LSET ")
            try e.shortString(lid)
            try data.encode(into: &e)
        case .ldel: e.ascii("LDEL")
        case .lkey(let k):
            e.ascii("LKEY ")
            try e.shortString(k)
        case .lget: e.ascii("LGET")
        case .prxy(let server, let auth):
            e.ascii("PRXY ")
            try server.encode(into: &e)
            try e.optional(auth) { try $0.shortString($1) }
        case .pfwd(let fv, let key, let t):
            e.ascii("PFWD ")
            e.word16(fv)
            try e.shortString(key)
            e.raw(t)
        case .rfwd(let t):
            e.ascii("RFWD ")
            e.raw(t)
        }
    }

    public func smpEncoded(version v: UInt16) throws -> [UInt8] {
        var e = SMPEncoder()
        try encode(into: &e, version: v)
        return e.bytes
    }

    /// `parseProtocol v`: the tag is everything before the first space; an unknown tag is
    /// `CMD UNKNOWN`, parameters that do not parse to the end are `CMD SYNTAX`.
    public static func parse<C: Collection>(_ bytes: C, version v: UInt16) throws(SMPProtocolError) -> SMPCommand where C.Element == UInt8 {
        var d = SMPDecoder(bytes)
        let tag = String(decoding: d.word(), as: UTF8.self)
        guard let parse = commandParsers[tag] else { throw .command(.unknown) }
        do {
            let c = try parse(&d, v)
            try d.expectEnd()
            return c
        } catch let e as DecodingError {
            throw .command(.syntax, e)
        } catch {
            throw .command(.syntax)
        }
    }
}

/// `BasicAuth`'s parser over Latin-1 characters: `isPrint`, not `isSpace`, not '@', ':' or '/'.
private func isBasicAuthByte(_ c: UInt8) -> Bool {
    switch c {
    case UInt8(ascii: "@"), UInt8(ascii: ":"), UInt8(ascii: "/"): false
    case 0x21..<0x7F: true
    case 0xA1...0xFF: c != 0xAD
    default: false
    }
}

private typealias CommandParser = @Sendable (inout SMPDecoder, UInt16) throws -> SMPCommand

private let commandParsers: [String: CommandParser] = [
    "NEW": { d, v in
        try d.expect(" ")
        return .new(try NewQueueRequest.decode(from: &d, version: v))
    },
    "SUB": { _, _ in .sub },
    "SUBS": { _, _ in .subs },
    "KEY": { d, _ in
        try d.expect(" ")
        return .key(senderKey: try d.shortString())
    },
    "RKEY": { d, _ in
        try d.expect(" ")
        let n = Int(try d.byte())
        guard n > 0 else { throw DecodingError.invalid("empty key list") }
        var ks: [[UInt8]] = []
        for _ in 0..<n { ks.append(try d.shortString()) }
        return .rkey(recipientKeys: ks)
    },
    "LSET": { d, _ in
        try d.expect(" ")
        let lid = try d.shortString()
        return .lset(linkId: lid, data: try QueueLinkData.decode(from: &d))
    },
    "LDEL": { _, _ in .ldel },
    "NKEY": { d, _ in
        try d.expect(" ")
        let k = try d.shortString()
        return .nkey(notifierKey: k, recipientNtfDhKey: try d.shortString())
    },
    "NDEL": { _, _ in .ndel },
    "GET": { _, _ in .get },
    "ACK": { d, _ in
        try d.expect(" ")
        return .ack(msgId: try d.shortString())
    },
    "OFF": { _, _ in .off },
    "DEL": { _, _ in .del },
    "QUE": { _, _ in .que },
    "SKEY": { d, _ in
        try d.expect(" ")
        return .skey(senderKey: try d.shortString())
    },
    "SEND": { d, _ in
        try d.expect(" ")
        let flags = try MsgFlags.decodeWithSpace(from: &d)
        return .send(flags: flags, body: d.rest())
    },
    "PING": { _, _ in .ping },
    "LKEY": { d, _ in
        try d.expect(" ")
        return .lkey(senderKey: try d.shortString())
    },
    "LGET": { _, _ in .lget },
    "PRXY": { d, _ in
        try d.expect(" ")
        let server = try ProtocolServer(from: &d)
        return .prxy(server: server, basicAuth: try d.optional { d in
            let a = try d.shortString()
            guard a.allSatisfy(isBasicAuthByte) else { throw DecodingError.invalid("bad basic auth") }
            return a
        })
    },
    "PFWD": { d, _ in
        try d.expect(" ")
        let fv = try d.word16()
        let key = try d.shortString()
        return .pfwd(version: fv, publicKey: key, encryptedTransmission: d.rest())
    },
    "RFWD": { d, _ in
        try d.expect(" ")
        return .rfwd(encryptedTransmission: d.rest())
    },
    "NSUB": { _, _ in .nsub },
    "NSUBS": { _, _ in .nsubs },
]

extension SMPCommand: SMPEncodable, SMPDecodable {
    /// The encoding at the newest version (`SMPVersion.current`).
    public func encode(into e: inout SMPEncoder) throws { try encode(into: &e, version: SMPVersion.current) }

    /// Parses the rest of the input at the newest version.
    public init(from d: inout SMPDecoder) throws {
        self = try SMPCommand.parse(d.rest(), version: SMPVersion.current)
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
