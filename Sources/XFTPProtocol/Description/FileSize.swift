/// Sizes as file descriptions write them (`FileSize` strEncode): whole gb/mb/kb when exact,
/// otherwise bytes ("8mb", "44kb", "300").
public enum FileSizeText {
    public static let kb: Int64 = 1024
    public static let mb: Int64 = 1024 * 1024
    public static let gb: Int64 = 1024 * 1024 * 1024

    public static func encode(_ bytes: Int64) -> String {
        let (ks, b) = bytes.quotientAndRemainder(dividingBy: 1024)
        if b != 0 { return String(bytes) }
        let (ms, k) = ks.quotientAndRemainder(dividingBy: 1024)
        if k != 0 { return "\(ks)kb" }
        let (gs, m) = ms.quotientAndRemainder(dividingBy: 1024)
        if m != 0 { return "\(ms)mb" }
        return "\(gs)gb"
    }

    /// Decimal digits with an optional gb/mb/kb suffix; nil for anything else or an overflow.
    public static func decode(_ s: some StringProtocol) -> Int64? {
        var digits = Substring(s)
        var unit: Int64 = 1
        for (suffix, u) in [("gb", gb), ("mb", mb), ("kb", kb)] where digits.hasSuffix(suffix) {
            digits = digits.dropLast(2)
            unit = u
            break
        }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let n = Int64(digits) else { return nil }
        let (v, overflow) = n.multipliedReportingOverflow(by: unit)
        return overflow ? nil : v
    }
}

/// base64url text as simplexmq's `strEncode`/`base64urlP` of byte strings: padded on output,
/// only the URL alphabet (plus trailing '=') accepted on input.
public enum Base64Text {
    public static func encode(_ b: [UInt8]) -> String { Base64URLCodec.encode(b) }

    public static func decode(_ s: some StringProtocol) -> [UInt8]? {
        var sawPad = false
        for c in s.utf8 {
            if c == UInt8(ascii: "=") {
                sawPad = true
            } else if sawPad || !isBase64URL(c) {
                return nil
            }
        }
        guard s.utf8.contains(where: { $0 != UInt8(ascii: "=") }) else { return nil }
        return Base64URLCodec.decode(s)
    }

    static func isBase64URL(_ c: UInt8) -> Bool {
        (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || (c >= 0x30 && c <= 0x39) || c == UInt8(ascii: "-") || c == UInt8(ascii: "_")
    }
}
