import Crypto
import Foundation
import X509

/// Client-side check of the server's TLS certificate chain, replacing WebPKI validation: the
/// identity is the pinned fingerprint, not a host name. Mirrors simplexmq's `chainIdCaCerts` +
/// `x509validate`: the chain (leaf first) has 2, 3 or 4 certificates, the second one is the
/// identity (offline CA) certificate whose SHA-256 must equal the expected key hash, every
/// certificate is signed by the next one, and all are within their validity period.
public struct ServerChainVerifier: Sendable {
    /// The expected server identity (SHA-256 of the CA certificate's DER).
    public let keyHash: [UInt8]

    public init(keyHash: [UInt8]) {
        self.keyHash = keyHash
    }

    /// Verifies a chain of DER certificates as presented in TLS (leaf first).
    public func verify(chain: [[UInt8]], now: Date = Date()) throws(ChainVerificationError) -> VerifiedServerChain {
        guard (2...4).contains(chain.count) else { throw .chainLength(chain.count) }
        guard ServerIdentity.keyHash(ofCertificateDER: chain[1]) == keyHash else { throw .identityMismatch }
        var certs: [Certificate] = []
        for der in chain {
            guard let cert = try? CertificateInspection.parse(der) else { throw .malformedCertificate }
            certs.append(cert)
        }
        for i in 0..<(certs.count - 1) {
            let cert = certs[i]
            let issuer = certs[i + 1]
            guard cert.issuer == issuer.subject, issuer.publicKey.isValidSignature(cert.signature, for: cert) else {
                throw .badSignature
            }
        }
        for cert in certs where now < cert.notValidBefore || now > cert.notValidAfter {
            throw .expired
        }
        return VerifiedServerChain(onlineCertificate: chain[0], identityCertificate: chain[1])
    }
}

/// The parts of a verified chain the SMP handshake needs.
public struct VerifiedServerChain: Sendable, Hashable {
    /// DER of the TLS leaf (online) certificate; its key signs the server's session key.
    public let onlineCertificate: [UInt8]
    /// DER of the identity (offline CA) certificate.
    public let identityCertificate: [UInt8]
}

/// Why the client refused the server's certificate chain.
public enum ChainVerificationError: Error, Sendable, Hashable {
    /// Not 2, 3 or 4 certificates.
    case chainLength(Int)
    /// The identity certificate's fingerprint differs from the server address.
    case identityMismatch
    /// A certificate could not be parsed.
    case malformedCertificate
    /// A certificate is not signed by the next one in the chain.
    case badSignature
    /// A certificate is not yet valid or has expired.
    case expired
}
