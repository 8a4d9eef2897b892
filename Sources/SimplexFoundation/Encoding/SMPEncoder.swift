/// Builds the binary encodings of the SimpleX specs: big-endian integers, 1-byte and 2-byte
/// length-prefixed strings, fixed-size fields. Appends to one growing buffer.
public struct SMPEncoder: Sendable {
    public private(set) var bytes: [UInt8]

    public init(capacity: Int = 64) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    public mutating func byte(_ b: UInt8) { bytes.append(b) }

    /// Bytes written so far.
    public var count: Int { bytes.count }

    /// Replaces 4 bytes written before (a length or checksum known only after what follows it).
    public mutating func overwriteWord32(_ v: UInt32, at offset: Int) {
        for i in 0..<4 { bytes[offset + i] = UInt8(truncatingIfNeeded: v >> UInt32(24 - 8 * i)) }
    }

    /// Read access to bytes written so far, without a copy.
    public func withUnsafeBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try bytes.withUnsafeBufferPointer(body)
    }

    public mutating func word16(_ v: UInt16) {
        bytes.append(UInt8(truncatingIfNeeded: v >> 8))
        bytes.append(UInt8(truncatingIfNeeded: v))
    }

    public mutating func word32(_ v: UInt32) {
        for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: v >> UInt32(shift))) }
    }

    public mutating func int64(_ v: Int64) {
        let u = UInt64(bitPattern: v)
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: u >> UInt64(shift))) }
    }

    /// Raw bytes with no length prefix (fixed-size fields, or the tail of a transmission).
    public mutating func raw<C: Collection>(_ data: C) where C.Element == UInt8 { bytes.append(contentsOf: data) }

    /// ASCII text with no length prefix (command tags such as "SEND ").
    public mutating func ascii(_ s: StaticString) {
        s.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// `shortString = length *OCTET`, 0-255 bytes.
    public mutating func shortString<C: Collection>(_ data: C) throws where C.Element == UInt8 {
        try shortLength(data.count)
        bytes.append(contentsOf: data)
    }

    /// A string with a 2-byte length prefix (`originalLength` fields, `Large` strings).
    public mutating func largeString<C: Collection>(_ data: C) throws where C.Element == UInt8 {
        try largeLength(data.count)
        bytes.append(contentsOf: data)
    }

    // Array forms of the three above: callers in other modules otherwise take the unspecialized
    // generic path, which showed in profiles of 16 KB message bodies.

    public mutating func raw(_ data: [UInt8]) { bytes.append(contentsOf: data) }

    public mutating func shortString(_ data: [UInt8]) throws {
        try shortLength(data.count)
        bytes.append(contentsOf: data)
    }

    public mutating func largeString(_ data: [UInt8]) throws {
        try largeLength(data.count)
        bytes.append(contentsOf: data)
    }

    private mutating func shortLength(_ n: Int) throws {
        guard n <= 255 else { throw EncodingError.tooLarge("shortString of \(n) bytes") }
        bytes.append(UInt8(n))
    }

    private mutating func largeLength(_ n: Int) throws {
        guard n <= 65535 else { throw EncodingError.tooLarge("largeString of \(n) bytes") }
        word16(UInt16(n))
    }

    /// `"T"` / `"F"` booleans of the spec.
    public mutating func bool(_ b: Bool) { bytes.append(b ? UInt8(ascii: "T") : UInt8(ascii: "F")) }

    /// `Maybe a` of simplexmq: "0" for nothing, "1" followed by the value.
    public mutating func optional<T>(_ v: T?, _ enc: (inout SMPEncoder, T) throws -> Void) rethrows {
        if let v {
            bytes.append(UInt8(ascii: "1"))
            try enc(&self, v)
        } else {
            bytes.append(UInt8(ascii: "0"))
        }
    }

    public mutating func encode<T: SMPEncodable>(_ v: T) throws { try v.encode(into: &self) }
}

/// A value with a binary encoding of the spec.
public protocol SMPEncodable {
    func encode(into e: inout SMPEncoder) throws
}

/// A value that can be parsed from its binary encoding, never trapping on bad input.
public protocol SMPDecodable {
    init(from d: inout SMPDecoder) throws
}

extension SMPEncodable {
    /// The whole encoding as bytes.
    public func smpEncoded() throws -> [UInt8] {
        var e = SMPEncoder()
        try encode(into: &e)
        return e.bytes
    }
}

extension SMPDecodable {
    /// Parses a value that must use all of `bytes`.
    public static func smpDecode<C: Collection>(_ bytes: C) throws -> Self where C.Element == UInt8 {
        var d = SMPDecoder(bytes)
        let v = try Self(from: &d)
        try d.expectEnd()
        return v
    }
}
