import SimplexFoundation

/// What the server encrypts to the recipient inside MSG (`rcvMsgBody`): the time it received the
/// message, its flags and the sender's body, or the special quota-exceeded marker.
public enum RcvMessageBody: Sendable, Hashable {
    case message(timestamp: Int64, flags: MsgFlags, body: [UInt8])
    case quotaExceeded(timestamp: Int64)

    /// Size the server pads this to before encryption, so all MSG bodies look alike.
    public static let paddedLength = SMPVersion.maxRcvMessageLength + 2
}

extension RcvMessageBody: SMPEncodable, SMPDecodable {
    public func encode(into e: inout SMPEncoder) throws {
        switch self {
        case .message(let ts, let flags, let body):
            e.int64(ts)
            e.bool(flags.notification)
            e.byte(0x20)
            e.raw(body)
        case .quotaExceeded(let ts):
            e.ascii("QUOTA ")
            e.int64(ts)
        }
    }

    public init(from d: inout SMPDecoder) throws {
        if d.consume("QUOTA ") {
            self = .quotaExceeded(timestamp: try d.int64())
            return
        }
        let ts = try d.int64()
        let flags = try MsgFlags.decodeWithSpace(from: &d)
        self = .message(timestamp: ts, flags: flags, body: d.rest())
    }
}
