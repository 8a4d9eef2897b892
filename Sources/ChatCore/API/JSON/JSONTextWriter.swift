import Foundation

/// Writes JSON scalars as bytes exactly as Foundation's JSONWriter does with
/// `.withoutEscapingSlashes`, so our encoder's output stays byte-identical to JSONEncoder's.
enum JSONTextWriter {
    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    /// A quoted string: `"` and `\` escaped, control characters as `\b \f \n \r \t` or `\u00xx`
    /// (lowercase hex); everything else, `/`, DEL and U+2028 included, passes through as UTF-8.
    static func writeString(_ string: String, into out: inout [UInt8]) {
        out.append(0x22)
        var s = string
        s.withUTF8 { p in
            var mark = 0
            var i = 0
            let n = p.count
            while i < n {
                let b = p[i]
                if b >= 0x20 && b != 0x22 && b != 0x5C {
                    i += 1
                    continue
                }
                if i > mark { out.append(contentsOf: UnsafeBufferPointer(rebasing: p[mark..<i])) }
                switch b {
                case 0x22: out.append(0x5C); out.append(0x22)
                case 0x5C: out.append(0x5C); out.append(0x5C)
                case 0x08: out.append(0x5C); out.append(UInt8(ascii: "b"))
                case 0x0C: out.append(0x5C); out.append(UInt8(ascii: "f"))
                case 0x0A: out.append(0x5C); out.append(UInt8(ascii: "n"))
                case 0x0D: out.append(0x5C); out.append(UInt8(ascii: "r"))
                case 0x09: out.append(0x5C); out.append(UInt8(ascii: "t"))
                default:
                    out.append(contentsOf: [0x5C, UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                    out.append(hex[Int(b >> 4)])
                    out.append(hex[Int(b & 0xF)])
                }
                i += 1
                mark = i
            }
            if mark < n { out.append(contentsOf: UnsafeBufferPointer(rebasing: p[mark..<n])) }
        }
        out.append(0x22)
    }

    /// Integers in decimal, as `description` gives them.
    @inline(__always)
    static func writeInteger<I: FixedWidthInteger & CustomStringConvertible>(_ value: I, into out: inout [UInt8]) {
        out.append(contentsOf: value.description.utf8)
    }

    /// Floating point as Foundation writes it: `description` without a trailing ".0"
    /// (`1`, `-0`, `1e-07`, `1e+21`); NaN and infinity throw, as with the default strategy.
    static func writeFloat<F: BinaryFloatingPoint & CustomStringConvertible>(
        _ value: F, into out: inout [UInt8], path: @autoclosure () -> [any CodingKey]
    ) throws {
        guard !value.isNaN, !value.isInfinite else {
            throw EncodingError.invalidValue(value, .init(
                codingPath: path(), debugDescription: "Unable to encode \(F.self).\(value) directly in JSON."))
        }
        var s = value.description
        if s.hasSuffix(".0") { s.removeLast(2) }
        out.append(contentsOf: s.utf8)
    }

    @inline(__always)
    static func writeBool(_ value: Bool, into out: inout [UInt8]) {
        if value {
            out.append(contentsOf: [0x74, 0x72, 0x75, 0x65])
        } else {
            out.append(contentsOf: [0x66, 0x61, 0x6C, 0x73, 0x65])
        }
    }

    @inline(__always)
    static func writeNull(into out: inout [UInt8]) {
        out.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C])
    }

    /// Writes `value` directly when it is a scalar JSONEncoder special-cases (primitives, and
    /// Data / URL / Decimal, which it turns into base64, `absoluteString` and a number);
    /// false when it must be encoded through its own `encode(to:)`.
    @inline(__always)
    static func writeIfScalar<T: Encodable>(
        _ value: T, into out: inout [UInt8], path: @autoclosure () -> [any CodingKey]
    ) throws -> Bool {
        if T.self == String.self { writeString(unsafeBitCast(value, to: String.self), into: &out); return true }
        if T.self == Int64.self { writeInteger(unsafeBitCast(value, to: Int64.self), into: &out); return true }
        if T.self == Int.self { writeInteger(unsafeBitCast(value, to: Int.self), into: &out); return true }
        if T.self == Bool.self { writeBool(unsafeBitCast(value, to: Bool.self), into: &out); return true }
        if T.self == Double.self { try writeFloat(unsafeBitCast(value, to: Double.self), into: &out, path: path()); return true }
        if T.self == Int32.self { writeInteger(unsafeBitCast(value, to: Int32.self), into: &out); return true }
        if T.self == UInt64.self { writeInteger(unsafeBitCast(value, to: UInt64.self), into: &out); return true }
        if T.self == UInt32.self { writeInteger(unsafeBitCast(value, to: UInt32.self), into: &out); return true }
        if T.self == UInt16.self { writeInteger(unsafeBitCast(value, to: UInt16.self), into: &out); return true }
        if T.self == UInt8.self { writeInteger(unsafeBitCast(value, to: UInt8.self), into: &out); return true }
        if T.self == UInt.self { writeInteger(unsafeBitCast(value, to: UInt.self), into: &out); return true }
        if T.self == Int16.self { writeInteger(unsafeBitCast(value, to: Int16.self), into: &out); return true }
        if T.self == Int8.self { writeInteger(unsafeBitCast(value, to: Int8.self), into: &out); return true }
        if T.self == Int128.self { writeInteger(unsafeBitCast(value, to: Int128.self), into: &out); return true }
        if T.self == UInt128.self { writeInteger(unsafeBitCast(value, to: UInt128.self), into: &out); return true }
        if T.self == Float.self { try writeFloat(unsafeBitCast(value, to: Float.self), into: &out, path: path()); return true }
        if T.self == Data.self { writeString(unsafeBitCast(value, to: Data.self).base64EncodedString(), into: &out); return true }
        if T.self == URL.self { writeString(unsafeBitCast(value, to: URL.self).absoluteString, into: &out); return true }
        if T.self == Decimal.self { out.append(contentsOf: unsafeBitCast(value, to: Decimal.self).description.utf8); return true }
        return false
    }
}
