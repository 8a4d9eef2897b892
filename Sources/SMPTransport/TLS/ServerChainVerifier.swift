import Foundation

/// The client's check of the server's TLS certificate chain, replacing WebPKI validation as
/// simplexmq's `validateCertificateChain` does: the chain (leaf first) has 2, 3 or 4 certificates
/// (`chainIdCaCerts`); the second is the identity certificate, whose SHA-256 must be the pinned
/// key hash; the last is the CA the chain must lead to. Every certificate is issued by the next,
/// every issuer is a CA, all are within their validity, and the leaf is X.509 v3. Host names are
/// not checked.
public struct ServerChainVerifier: Sendable {
    /// The expected server identity (SHA-256 of the identity certificate's DER).
    public let keyHash: [UInt8]

    public init(keyHash: [UInt8]) {
        self.keyHash = keyHash
    }

    /// The identity certificate of a chain as `chainIdCaCerts` picks it: the second certificate of
    /// a chain of 2, 3 or 4; nil for any other length.
    public static func identityCertificate(of chain: [[UInt8]]) -> [UInt8]? {
        (2...4).contains(chain.count) ? chain[1] : nil
    }

    /// Verifies a chain of DER certificates as presented in TLS (leaf first).
    public func verify(chain: [[UInt8]], now: Date = Date()) throws(ChainVerificationError) -> VerifiedServerChain {
        guard let identity = Self.identityCertificate(of: chain) else { throw .chainLength(chain.count) }
        guard ServerIdentity.keyHash(ofCertificateDER: identity) == keyHash else { throw .identityMismatch }
        var certs: [X509Certificate] = []
        for der in chain {
            guard let cert = try? X509Certificate(der: der) else { throw .malformedCertificate }
            certs.append(cert)
        }
        guard certs[0].version == 3 else { throw .malformedCertificate }
        for i in 0..<(certs.count - 1) {
            guard certs[i].isIssued(by: certs[i + 1]), certs[i + 1].isCA else { throw .badSignature }
        }
        for cert in certs {
            guard let v = cert.validity, now >= v.notBefore, now <= v.notAfter else { throw .expired }
        }
        return VerifiedServerChain(onlineCertificate: chain[0], identityCertificate: identity)
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
    /// A certificate could not be parsed, or the leaf is not X.509 v3.
    case malformedCertificate
    /// A certificate is not issued by the next one in the chain, or an issuer is not a CA.
    case badSignature
    /// A certificate is not yet valid or has expired.
    case expired
}
