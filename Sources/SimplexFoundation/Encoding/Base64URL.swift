/// base64url of RFC 4648 §5, used for server identities, queue IDs and keys in links.
/// Encodes with "=" padding as simplexmq does; decodes with or without it.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    private static let reverse: [Int8] = {
        var r = [Int8](repeating: -1, count: 256)
        for (i, c) in alphabet.enumerated() { r[Int(c)] = Int8(i) }
        // Standard base64 characters are accepted too, since some encoders use them.
        r[Int(UInt8(ascii: "+"))] = 62
        r[Int(UInt8(ascii: "/"))] = 63
        return r
    }()

    public static func encode<C: Collection>(_ data: C, padded: Bool = true) -> String where C.Element == UInt8 {
        let b = Array(data)
        var out = [UInt8]()
        out.reserveCapacity((b.count + 2) / 3 * 4)
        var i = 0
        while i + 2 < b.count {
            let n = UInt32(b[i]) << 16 | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2])
            out += [alphabet[Int(n >> 18 & 63)], alphabet[Int(n >> 12 & 63)], alphabet[Int(n >> 6 & 63)], alphabet[Int(n & 63)]]
            i += 3
        }
        let left = b.count - i
        if left == 1 {
            let n = UInt32(b[i]) << 16
            out += [alphabet[Int(n >> 18 & 63)], alphabet[Int(n >> 12 & 63)]]
            if padded { out += [UInt8(ascii: "="), UInt8(ascii: "=")] }
        } else if left == 2 {
            let n = UInt32(b[i]) << 16 | UInt32(b[i + 1]) << 8
            out += [alphabet[Int(n >> 18 & 63)], alphabet[Int(n >> 12 & 63)], alphabet[Int(n >> 6 & 63)]]
            if padded { out.append(UInt8(ascii: "=")) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Returns nil for any character outside the alphabet or an impossible length.
    public static func decode(_ s: some StringProtocol) -> [UInt8]? {
        var chars = Array(s.utf8)
        while chars.last == UInt8(ascii: "=") { chars.removeLast() }
        if chars.count % 4 == 1 { return nil }
        var out = [UInt8]()
        out.reserveCapacity(chars.count * 3 / 4)
        var acc: UInt32 = 0
        var bits = 0
        for c in chars {
            let v = reverse[Int(c)]
            if v < 0 { return nil }
            acc = acc << 6 | UInt32(v)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: acc >> UInt32(bits)))
            }
        }
        return out
    }
}
