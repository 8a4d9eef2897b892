import Foundation

/// PEM armour (RFC 7468) for the certificate and key files, in the layout OpenSSL writes, so a
/// data folder made by simplexmq's `smp-server init` loads here and ours loads there.
enum PEM {
    static func encode(type: String, der: [UInt8]) -> String {
        let b64 = Data(der).base64EncodedString()
        var lines: [Substring] = []
        var i = b64.startIndex
        while i < b64.endIndex {
            let j = b64.index(i, offsetBy: 64, limitedBy: b64.endIndex) ?? b64.endIndex
            lines.append(b64[i..<j])
            i = j
        }
        return "-----BEGIN \(type)-----\n" + lines.joined(separator: "\n") + "\n-----END \(type)-----\n"
    }

    /// Every block of `type` in the text, in order.
    static func decode(type: String, text: String) -> [[UInt8]] {
        let begin = "-----BEGIN \(type)-----", end = "-----END \(type)-----"
        var out: [[UInt8]] = []
        var rest = Substring(text)
        while let b = rest.range(of: begin), let e = rest.range(of: end, range: b.upperBound..<rest.endIndex) {
            let body = rest[b.upperBound..<e.lowerBound].filter { !$0.isWhitespace }
            if let data = Data(base64Encoded: String(body)) { out.append(Array(data)) }
            rest = rest[e.upperBound...]
        }
        return out
    }
}
