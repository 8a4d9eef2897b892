/// The fixed 16384-byte SMP transport block: `padded(transmissionCount transmissions)`, each
/// transmission prefixed by its 2-byte length. Fixed size keeps traffic uniform on the wire.
public enum TransportBlock {
    public static let size = 16384
    /// Room for transmissions once the 2-byte padding length and 1-byte count are taken.
    public static let capacity = size - 3

    /// Packs transmissions into one block; throws if they do not fit or if there are none or over 255.
    public static func encode(_ transmissions: [[UInt8]]) throws -> [UInt8] {
        guard !transmissions.isEmpty, transmissions.count <= 255 else {
            throw EncodingError.tooLarge("\(transmissions.count) transmissions in a block")
        }
        var body = [UInt8]()
        body.reserveCapacity(size)
        body.append(UInt8(transmissions.count))
        for t in transmissions {
            guard t.count <= 65535 else { throw EncodingError.tooLarge("transmission of \(t.count) bytes") }
            body.append(UInt8(truncatingIfNeeded: t.count >> 8))
            body.append(UInt8(truncatingIfNeeded: t.count))
            body.append(contentsOf: t)
        }
        return try Padding.pad(body, to: size)
    }

    /// Encoded size a transmission adds to a block (its length prefix included).
    public static func cost(of transmission: [UInt8]) -> Int { transmission.count + 2 }

    /// Splits transmissions into as few blocks as possible, keeping their order. A transmission
    /// that cannot fit even alone is reported rather than dropped.
    public static func batch(_ transmissions: [[UInt8]]) throws -> [[UInt8]] {
        var blocks: [[UInt8]] = []
        var current: [[UInt8]] = []
        var used = 0
        for t in transmissions {
            let c = cost(of: t)
            guard c <= capacity else { throw EncodingError.tooLarge("transmission of \(t.count) bytes exceeds block") }
            if used + c > capacity || current.count == 255 {
                blocks.append(try encode(current))
                current = []
                used = 0
            }
            current.append(t)
            used += c
        }
        if !current.isEmpty { blocks.append(try encode(current)) }
        return blocks
    }

    /// Parses a block into its transmissions. Any malformation is a `DecodingError`; the caller
    /// answers ERR BLOCK and keeps the connection.
    public static func decode<C: Collection>(_ block: C) throws -> [[UInt8]] where C.Element == UInt8, C.Index == Int {
        guard block.count == size else { throw DecodingError.invalid("block of \(block.count) bytes") }
        var d = SMPDecoder(try Padding.unpad(block))
        let count = Int(try d.byte())
        guard count >= 1 else { throw DecodingError.invalid("empty block") }
        var out: [[UInt8]] = []
        out.reserveCapacity(count)
        for _ in 0..<count { out.append(try d.largeString()) }
        try d.expectEnd()
        return out
    }
}
