import CSimplexTLS
import Foundation
import SimplexFoundation

/// One DER X.509 certificate, checked well-formed by OpenSSL (which, unlike the Swift X.509
/// libraries, handles Ed448). The DER is kept as received: fingerprints hash these exact bytes.
public struct X509Certificate: Sendable, Hashable {
    public let der: [UInt8]

    public init(der: [UInt8]) throws(ServerCredentialsError) {
        guard !der.isEmpty, der.withUnsafeBufferPointer({ sxtls_x509_parse_ok($0.baseAddress, $0.count) }) == 1 else {
            throw .malformed("not a DER certificate")
        }
        self.der = der
    }

    /// SHA-256 of the DER: simplexmq's `getFingerprint cert HashSHA256`, the server identity when
    /// taken of the CA certificate.
    public var fingerprint: [UInt8] { CryptoHash.sha256(der) }

    /// The subject's key, if it is one of SimpleX's algorithms.
    public func publicKey() throws(ServerCredentialsError) -> AnyPublicKey {
        var out: UnsafeMutablePointer<UInt8>?
        let n = der.withUnsafeBufferPointer { sxtls_x509_spki($0.baseAddress, $0.count, &out) }
        guard n > 0, let out else { throw .malformed("certificate key") }
        defer { sxtls_free(out) }
        do {
            return try AnyPublicKey(x509Encoded: Array(UnsafeBufferPointer(start: out, count: Int(n))))
        } catch {
            throw .unsupportedKey("certificate key: \(error)")
        }
    }

    /// True when `issuer` named and signed this certificate.
    public func isIssued(by issuer: X509Certificate) -> Bool {
        der.withUnsafeBufferPointer { c in
            issuer.der.withUnsafeBufferPointer { i in sxtls_x509_issued_by(c.baseAddress, c.count, i.baseAddress, i.count) }
        } == 1
    }

    /// Validity period (notBefore, notAfter).
    public var validity: (notBefore: Date, notAfter: Date)? {
        var a: Int64 = 0, b: Int64 = 0
        guard der.withUnsafeBufferPointer({ sxtls_x509_validity($0.baseAddress, $0.count, &a, &b) }) == 1 else { return nil }
        return (Date(timeIntervalSince1970: TimeInterval(a)), Date(timeIntervalSince1970: TimeInterval(b)))
    }

    /// True when the certificate may act as a CA (basicConstraints CA, keyCertSign if keyUsage is present).
    public var isCA: Bool { der.withUnsafeBufferPointer { sxtls_x509_is_ca($0.baseAddress, $0.count) } == 1 }

    /// The X.509 version number (3 for v3).
    public var version: Int { Int(der.withUnsafeBufferPointer { sxtls_x509_version($0.baseAddress, $0.count) }) }

    /// The subject's common name.
    public var commonName: String? {
        var buf = [CChar](repeating: 0, count: 1024)
        let n = der.withUnsafeBufferPointer { sxtls_x509_common_name($0.baseAddress, $0.count, &buf, buf.count) }
        return n >= 0 ? TLSContext.string(buf) : nil
    }
}
