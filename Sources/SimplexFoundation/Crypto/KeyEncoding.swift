/// SMP's "x509encoded" keys: DER SubjectPublicKeyInfo for public keys and PKCS#8 (RFC 5958 v1)
/// for private keys, with the RFC 8410 algorithm identifiers (OID 1.3.101.110-113, no parameters).
/// Decoding parses the DER strictly, so any other algorithm or malformed input is a typed error.
enum KeyEncoding {
    private static let idPrefix: [UInt8] = [0x06, 0x03, 0x2B, 0x65]  // OID 1.3.101.

    /// DER SubjectPublicKeyInfo: 30 L 30 05 06 03 2b 65 xx 03 L' 00 key.
    static func encodeSPKI(_ algorithm: KeyAlgorithm, raw: [UInt8]) -> [UInt8] {
        let bitString: [UInt8] = [0x03, UInt8(raw.count + 1), 0x00]
        let algId = algorithmIdentifier(algorithm)
        var out: [UInt8] = [0x30, UInt8(algId.count + bitString.count + raw.count)]
        out.reserveCapacity(Int(out[1]) + 2)
        out += algId
        out += bitString
        out += raw
        return out
    }

    /// DER PKCS#8 PrivateKeyInfo v1: 30 L 02 01 00 AlgorithmIdentifier 04 L (04 L key).
    static func encodePKCS8(_ algorithm: KeyAlgorithm, raw: [UInt8]) -> [UInt8] {
        let algId = algorithmIdentifier(algorithm)
        let inner: [UInt8] = [0x04, UInt8(raw.count)] + raw
        let octet: [UInt8] = [0x04, UInt8(inner.count)] + inner
        let body: [UInt8] = [0x02, 0x01, 0x00] + algId + octet
        return [0x30, UInt8(body.count)] + body
    }

    /// Algorithm and raw key bytes of a DER SubjectPublicKeyInfo; checks the key length.
    static func decodeSPKI(_ der: [UInt8]) throws(CryptoError) -> (KeyAlgorithm, [UInt8]) {
        var outer = DERReader(der[...])
        var spki = try outer.read(tag: 0x30, "SubjectPublicKeyInfo")
        try outer.finish("SubjectPublicKeyInfo")
        let algorithm = try readAlgorithmIdentifier(&spki)
        let bits = try spki.read(tag: 0x03, "subjectPublicKey")
        try spki.finish("SubjectPublicKeyInfo")
        guard let unused = bits.bytes.first, unused == 0 else {
            throw .invalidEncoding("public key BIT STRING with unused bits")
        }
        let raw = Array(bits.bytes.dropFirst())
        guard raw.count == algorithm.publicKeyLength else {
            throw .invalidKey("\(algorithm.rawValue) public key of \(raw.count) bytes")
        }
        return (algorithm, raw)
    }

    /// Algorithm and raw key bytes of a DER PKCS#8 PrivateKeyInfo / OneAsymmetricKey (v1 or v2;
    /// attributes and the optional public key are skipped).
    static func decodePKCS8(_ der: [UInt8]) throws(CryptoError) -> (KeyAlgorithm, [UInt8]) {
        var outer = DERReader(der[...])
        var info = try outer.read(tag: 0x30, "PrivateKeyInfo")
        try outer.finish("PrivateKeyInfo")
        let version = try info.read(tag: 0x02, "version")
        guard version.bytes.count == 1, version.bytes.first! <= 1 else {
            throw .invalidEncoding("PKCS#8 version")
        }
        let algorithm = try readAlgorithmIdentifier(&info)
        var octet = try info.read(tag: 0x04, "privateKey")
        let curveKey = try octet.read(tag: 0x04, "CurvePrivateKey")
        try octet.finish("privateKey")
        while !info.isEmpty {
            let tag = info.bytes.first!
            guard tag == 0xA0 || tag == 0x81 || tag == 0xA1 else {
                throw .invalidEncoding("unexpected element 0x\(String(tag, radix: 16)) in PrivateKeyInfo")
            }
            _ = try info.read(tag: tag, "PrivateKeyInfo optional field")
        }
        let raw = Array(curveKey.bytes)
        guard raw.count == algorithm.privateKeyLength else {
            throw .invalidKey("\(algorithm.rawValue) private key of \(raw.count) bytes")
        }
        return (algorithm, raw)
    }

    private static func algorithmIdentifier(_ algorithm: KeyAlgorithm) -> [UInt8] {
        [0x30, 0x05] + idPrefix + [algorithm.oidLastArc]
    }

    private static func readAlgorithmIdentifier(_ r: inout DERReader) throws(CryptoError) -> KeyAlgorithm {
        var algId = try r.read(tag: 0x30, "AlgorithmIdentifier")
        let oid = try algId.read(tag: 0x06, "algorithm OID")
        // RFC 8410: parameters MUST be absent for these algorithms; other algorithms may carry them.
        let hasParameters = !algId.isEmpty
        let oidBytes = Array(oid.bytes)
        if oidBytes.count == 3, oidBytes[0] == 0x2B, oidBytes[1] == 0x65,
           let algorithm = KeyAlgorithm(oidLastArc: oidBytes[2]) {
            guard !hasParameters else { throw .invalidEncoding("\(algorithm.rawValue) with algorithm parameters") }
            return algorithm
        }
        throw .unsupportedAlgorithm("key OID \(oidString(oidBytes))")
    }

    /// Dotted form of a DER OID body, for error messages.
    static func oidString(_ b: [UInt8]) -> String {
        guard let first = b.first else { return "(empty)" }
        var arcs: [String] = [String(first / 40), String(first % 40)]
        var v: UInt64 = 0
        for byte in b.dropFirst() {
            guard v < (1 << 56) else { return "(malformed)" }
            v = (v << 7) | UInt64(byte & 0x7F)
            if byte & 0x80 == 0 {
                arcs.append(String(v))
                v = 0
            }
        }
        return arcs.joined(separator: ".")
    }
}

/// A minimal strict DER TLV reader over a slice: definite lengths in minimal form, single-byte tags.
struct DERReader {
    var bytes: ArraySlice<UInt8>

    init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }

    var isEmpty: Bool { bytes.isEmpty }

    /// Reads one element with the given tag and returns a reader over its contents.
    mutating func read(tag: UInt8, _ what: String) throws(CryptoError) -> DERReader {
        guard let t = bytes.first else { throw .invalidEncoding("\(what): end of input") }
        guard t == tag else {
            throw .invalidEncoding("\(what): expected tag 0x\(String(tag, radix: 16)), found 0x\(String(t, radix: 16))")
        }
        var i = bytes.startIndex + 1
        guard i < bytes.endIndex else { throw .invalidEncoding("\(what): missing length") }
        let first = bytes[i]
        i += 1
        var length = 0
        if first < 0x80 {
            length = Int(first)
        } else {
            let n = Int(first & 0x7F)
            guard n >= 1, n <= 3 else { throw .invalidEncoding("\(what): unsupported length form") }
            guard bytes.endIndex - i >= n else { throw .invalidEncoding("\(what): truncated length") }
            for _ in 0..<n {
                length = length << 8 | Int(bytes[i])
                i += 1
            }
            // DER: the long form only for lengths >= 128, with no leading zero byte.
            guard length >= 0x80, length >> (8 * (n - 1)) != 0 else {
                throw .invalidEncoding("\(what): non-minimal length")
            }
        }
        guard bytes.endIndex - i >= length else { throw .invalidEncoding("\(what): truncated") }
        let content = bytes[i..<(i + length)]
        bytes = bytes[(i + length)...]
        return DERReader(content)
    }

    /// Requires that nothing is left.
    func finish(_ what: String) throws(CryptoError) {
        guard bytes.isEmpty else { throw .invalidEncoding("\(what): \(bytes.count) trailing bytes") }
    }
}
