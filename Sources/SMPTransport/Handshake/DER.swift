/// Just enough DER to read and write the X.509 `SIGNED { PubKey }` of the handshake: one
/// tag-length-value element at a time, definite lengths only, never trapping.
enum DER {
    struct Element {
        let tag: UInt8
        /// The whole element (tag, length and content).
        let encoded: ArraySlice<UInt8>
        let content: ArraySlice<UInt8>
    }

    /// Reads the element starting at `bytes.startIndex`; nil when malformed or truncated.
    static func read(_ bytes: ArraySlice<UInt8>) -> Element? {
        var i = bytes.startIndex
        guard i < bytes.endIndex else { return nil }
        let tag = bytes[i]
        i += 1
        guard i < bytes.endIndex else { return nil }
        let first = Int(bytes[i])
        i += 1
        var length = first
        if first >= 0x80 {
            let n = first & 0x7F
            guard n >= 1, n <= 3, bytes.endIndex - i >= n else { return nil }
            length = 0
            for _ in 0..<n {
                length = length << 8 | Int(bytes[i])
                i += 1
            }
            // DER: minimal long form only.
            guard length >= 0x80, length >> (8 * (n - 1)) != 0 else { return nil }
        }
        guard bytes.endIndex - i >= length else { return nil }
        return Element(tag: tag, encoded: bytes[bytes.startIndex..<(i + length)], content: bytes[i..<(i + length)])
    }

    /// Reads a sequence of elements filling `bytes` exactly.
    static func readAll(_ bytes: ArraySlice<UInt8>) -> [Element]? {
        var out: [Element] = []
        var rest = bytes
        while !rest.isEmpty {
            guard let e = read(rest) else { return nil }
            out.append(e)
            rest = rest[e.encoded.endIndex...]
        }
        return out
    }

    static func encode(tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        let n = content.count
        var out: [UInt8] = [tag]
        if n < 0x80 {
            out.append(UInt8(n))
        } else if n <= 0xFF {
            out += [0x81, UInt8(n)]
        } else if n <= 0xFFFF {
            out += [0x82, UInt8(n >> 8), UInt8(n & 0xFF)]
        } else {
            out += [0x83, UInt8(n >> 16), UInt8((n >> 8) & 0xFF), UInt8(n & 0xFF)]
        }
        return out + content
    }

    static let sequence: UInt8 = 0x30
    static let bitString: UInt8 = 0x03
}
