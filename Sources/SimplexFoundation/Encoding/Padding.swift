/// `paddedString = originalLength string pad` of the SMP spec: fixed-size fields hide the real
/// length of what they carry. The pad byte is "#".
public enum Padding {
    public static let padByte = UInt8(ascii: "#")

    /// Pads `s` to exactly `size` bytes, including the 2-byte length prefix.
    public static func pad<C: Collection>(_ s: C, to size: Int) throws -> [UInt8] where C.Element == UInt8 {
        let n = s.count
        guard n <= 65535, n + 2 <= size else { throw EncodingError.tooLarge("\(n) bytes do not fit padded size \(size)") }
        var out = [UInt8]()
        out.reserveCapacity(size)
        out.append(UInt8(truncatingIfNeeded: n >> 8))
        out.append(UInt8(truncatingIfNeeded: n))
        out.append(contentsOf: s)
        out.append(contentsOf: repeatElement(padByte, count: size - n - 2))
        return out
    }

    /// Returns the original string of a padded field; the pad bytes themselves are not checked,
    /// as the spec says receivers ignore them.
    public static func unpad<C: Collection>(_ p: C) throws -> [UInt8] where C.Element == UInt8, C.Index == Int {
        guard p.count >= 2 else { throw DecodingError.endOfInput }
        let s = p.startIndex
        let n = Int(p[s]) << 8 | Int(p[s + 1])
        guard n <= p.count - 2 else { throw DecodingError.invalid("padded length \(n) exceeds \(p.count - 2)") }
        return Array(p[(s + 2)..<(s + 2 + n)])
    }
}
