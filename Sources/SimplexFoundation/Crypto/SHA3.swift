import COpenSSL

/// SHA3-256 and SHA3-384 (FIPS 202) from the system OpenSSL: swift-crypto has no SHA-3.
/// Short links use them: the link key is SHA3-256 of the link's fixed data, and a queue's
/// client-chosen sender ID is the first 24 bytes of SHA3-384 of the NEW command's corrId.
extension CryptoHash {
    public static let sha3_256Length = 32
    public static let sha3_384Length = 48

    public static func sha3_256(_ data: [UInt8]) -> [UInt8] { sha3(data, md: EVP_sha3_256(), length: sha3_256Length) }

    public static func sha3_384(_ data: [UInt8]) -> [UInt8] { sha3(data, md: EVP_sha3_384(), length: sha3_384Length) }

    private static func sha3(_ data: [UInt8], md: OpaquePointer?, length: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: length)
        var len: UInt32 = 0
        let ok = data.withUnsafeBufferPointer { buf -> Int32 in
            var dummy: UInt8 = 0
            return withUnsafePointer(to: &dummy) { d in
                EVP_Digest(buf.baseAddress.map { UnsafeRawPointer($0) } ?? UnsafeRawPointer(d), buf.count, &out, &len, md, nil)
            }
        }
        // EVP_Digest only fails on allocation failure; a hash is never optional for callers.
        precondition(ok == 1 && Int(len) == length, "EVP_Digest(SHA3) failed")
        return out
    }
}
