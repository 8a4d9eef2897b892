import CSimplexTLS
import SimplexFoundation

/// Issues X.509 certificates through OpenSSL, in the two profiles simplexmq's `smp-server init`
/// writes with its openssl configs: the CA (SKID, AKID, basicConstraints critical CA:TRUE) and the
/// online certificate (CA:FALSE, keyUsage digitalSignature+nonRepudiation+keyAgreement,
/// extendedKeyUsage serverAuth, SKID, AKID); v3, 159-bit random serial.
enum CertificateFactory {
    static func make(subjectKey: AnyPrivateKey, issuerKey: AnyPrivateKey, issuerCertificate: [UInt8]?,
                     commonName: String, organization: String?, isCA: Bool,
                     validityDays: Int) throws(ServerCredentialsError) -> [UInt8] {
        let subject = subjectKey.pkcs8Encoded, issuer = issuerKey.pkcs8Encoded
        var out: UnsafeMutablePointer<UInt8>?
        var err = [CChar](repeating: 0, count: 256)
        let n = subject.withUnsafeBufferPointer { s in
            issuer.withUnsafeBufferPointer { i in
                withOptionalBuffer(issuerCertificate) { c, cn in
                    withOptionalCString(organization) { org in
                        sxtls_x509_create(s.baseAddress, s.count, i.baseAddress, i.count, c, cn, commonName, org,
                                          isCA ? 1 : 0, validityDays, 3600, &out, &err, err.count)
                    }
                }
            }
        }
        guard n > 0, let out else { throw .malformed("issuing certificate: \(TLSContext.string(err))") }
        defer { sxtls_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: Int(n)))
    }

    private static func withOptionalCString<R>(_ s: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
        guard let s else { return body(nil) }
        return s.withCString { body($0) }
    }

    private static func withOptionalBuffer<R>(_ bytes: [UInt8]?, _ body: (UnsafePointer<UInt8>?, Int) -> R) -> R {
        guard let bytes else { return body(nil, 0) }
        return bytes.withUnsafeBufferPointer { body($0.baseAddress, $0.count) }
    }
}
