import SimplexFoundation

/// What a queue is for (simplexmq `QueueMode`, SMP client version 4): a messaging queue, which
/// the sender secures itself with SKEY, or a contact address queue that many senders use.
/// Links say `q=m` / `q=c`; binary forms "M" / "C" (and "T" / "F" before version 4).
public enum QueueMode: Sendable, Hashable, CaseIterable {
    case messaging
    case contact

    /// The letter in the text form (`q=`).
    public var queryValue: String {
        switch self {
        case .messaging: "m"
        case .contact: "c"
        }
    }

    /// The byte in the binary form from client version 4.
    var binaryTag: UInt8 {
        switch self {
        case .messaging: UInt8(ascii: "M")
        case .contact: UInt8(ascii: "C")
        }
    }

    /// simplexmq `senderCanSecure`: only a messaging queue.
    static func senderCanSecure(_ mode: QueueMode?) -> Bool { mode == .messaging }

    /// The mode that says whether the sender can secure the queue (for callers that only know
    /// the flag, e.g. the `sndSecure` of a created queue).
    public init(senderCanSecure: Bool) {
        self = senderCanSecure ? .messaging : .contact
    }

    /// simplexmq `queueModeP` after an address: "M"/"C" (queue mode), else "T"/"F" (the older
    /// `sndSecure` flag: true is messaging, false contact), else nothing. Any other next byte
    /// belongs to what follows and is left alone.
    static func decodeOptional(_ d: inout SMPDecoder) -> QueueMode? {
        let mode: QueueMode
        switch d.peek() {
        case UInt8(ascii: "M"), UInt8(ascii: "T"): mode = .messaging
        case UInt8(ascii: "C"), UInt8(ascii: "F"): mode = .contact
        default: return nil
        }
        _ = try? d.byte()
        return mode
    }
}
