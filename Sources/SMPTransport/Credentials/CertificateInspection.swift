import Crypto
import SwiftASN1
import X509

/// Small X.509 helpers shared by credentials, chain verification and the handshake: parse DER,
/// serialize, and pull out the Ed25519 key that signs SMP session keys.
enum CertificateInspection {
    static func parse(_ der: [UInt8]) throws -> Certificate {
        try Certificate(derEncoded: der)
    }

    static func der(of certificate: Certificate) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return serializer.serializedBytes
    }

    /// The certificate's subject key, if it is Ed25519.
    static func ed25519PublicKey(ofCertificate der: [UInt8]) throws -> Curve25519.Signing.PublicKey {
        guard let key = Curve25519.Signing.PublicKey(try parse(der).publicKey) else {
            throw ServerCredentialsError.unsupportedKey("certificate key is not Ed25519")
        }
        return key
    }
}
