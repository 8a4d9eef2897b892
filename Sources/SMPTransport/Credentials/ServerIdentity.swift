import Crypto

/// The SMP server identity: SHA-256 of the offline CA certificate's DER, what simplexmq computes
/// with `XV.getFingerprint caCert X.HashSHA256` and puts in `smp://<fingerprint>@host`.
public enum ServerIdentity {
    /// SHA-256 of a certificate's full DER encoding (the signed certificate, not only its key).
    public static func keyHash(ofCertificateDER der: [UInt8]) -> [UInt8] {
        Array(SHA256.hash(data: der))
    }
}
