/// Reads the binary encodings of the SimpleX specs from a byte array; every read checks bounds and
/// throws `DecodingError` rather than trapping, so any input is safe to feed it.
public struct SMPDecoder: Sendable {
    public let bytes: [UInt8]
    public private(set) var position: Int

    public init<C: Collection>(_ data: C) where C.Element == UInt8 {
        bytes = Array(data)
        position = 0
    }

    /// An array is read where it is (its storage shared, never copied), without the generic path.
    public init(_ data: [UInt8]) {
        bytes = data
        position = 0
    }

    public var remaining: Int { bytes.count - position }
    public var isAtEnd: Bool { position >= bytes.count }

    public mutating func byte() throws -> UInt8 {
        guard position < bytes.count else { throw DecodingError.endOfInput }
        defer { position += 1 }
        return bytes[position]
    }

    /// Looks at the next byte without consuming it.
    public func peek() -> UInt8? { position < bytes.count ? bytes[position] : nil }

    public mutating func take(_ n: Int) throws -> [UInt8] {
        guard n >= 0, n <= remaining else { throw DecodingError.endOfInput }
        defer { position += n }
        return Array(bytes[position..<position + n])
    }

    /// All bytes that are left.
    public mutating func rest() -> [UInt8] {
        defer { position = bytes.count }
        return Array(bytes[position...])
    }

    public mutating func word16() throws -> UInt16 {
        let b = try take(2)
        return UInt16(b[0]) << 8 | UInt16(b[1])
    }

    public mutating func word32() throws -> UInt32 {
        let b = try take(4)
        return b.reduce(0) { $0 << 8 | UInt32($1) }
    }

    public mutating func int64() throws -> Int64 {
        let b = try take(8)
        return Int64(bitPattern: b.reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
    }

    public mutating func shortString() throws -> [UInt8] { try take(Int(byte())) }

    public mutating func largeString() throws -> [UInt8] { try take(Int(word16())) }

    public mutating func bool() throws -> Bool {
        switch try byte() {
        case UInt8(ascii: "T"): return true
        case UInt8(ascii: "F"): return false
        case let b: throw DecodingError.invalid("bad bool byte \(b)")
        }
    }

    public mutating func optional<T>(_ dec: (inout SMPDecoder) throws -> T) throws -> T? {
        switch try byte() {
        case UInt8(ascii: "0"): return nil
        case UInt8(ascii: "1"): return try dec(&self)
        case let b: throw DecodingError.invalid("bad maybe tag \(b)")
        }
    }

    /// Consumes `tag` if the input continues with it.
    public mutating func consume(_ tag: StaticString) -> Bool {
        let ok = tag.withUTF8Buffer { t -> Bool in
            guard t.count <= remaining else { return false }
            for i in 0..<t.count where bytes[position + i] != t[i] { return false }
            return true
        }
        if ok { position += tag.utf8CodeUnitCount }
        return ok
    }

    /// Requires `tag` next, or fails with a syntax error.
    public mutating func expect(_ tag: StaticString) throws {
        guard consume(tag) else { throw DecodingError.invalid("expected \(tag)") }
    }

    /// Reads bytes up to (not including) the next space or the end.
    public mutating func word() -> [UInt8] {
        let start = position
        while position < bytes.count, bytes[position] != 0x20 { position += 1 }
        return Array(bytes[start..<position])
    }

    public func expectEnd() throws {
        if remaining > 0 { throw DecodingError.trailingBytes(remaining) }
    }

    public mutating func decode<T: SMPDecodable>(_: T.Type = T.self) throws -> T { try T(from: &self) }
}
