import Crypto
import Foundation
import SimplexFoundation
import SwiftASN1
import X509

/// The two-certificate identity of an SMP server: an offline CA certificate whose fingerprint is
/// the server identity, and an online certificate signed by it that the server uses for TLS and
/// to sign per-connection session keys. Both keys are Ed25519, as the spec asks.
///
/// The CA private key is only needed to (re)issue the online certificate, so it is optional: an
/// operator can move `ca.key` offline and the server still loads.
public struct ServerCredentials: Sendable {
    public static let caCertificateFile = "ca.crt"
    public static let caKeyFile = "ca.key"
    public static let serverCertificateFile = "server.crt"
    public static let serverKeyFile = "server.key"

    /// DER of the offline CA certificate (self-signed).
    public let caCertificateDER: [UInt8]
    /// The CA key, when it is available on this machine.
    public let caPrivateKey: Curve25519.Signing.PrivateKey?
    /// DER of the online certificate, signed by the CA.
    public let serverCertificateDER: [UInt8]
    /// The online certificate's key: TLS and session-key signatures.
    public let serverPrivateKey: Curve25519.Signing.PrivateKey
    /// The server identity, SHA-256 of `caCertificateDER`.
    public let keyHash: [UInt8]

    /// The identity as it appears in `smp://<fingerprint>@host` (base64url, padded).
    public var fingerprint: String { Base64URL.encode(keyHash) }

    /// Checks that the parts belong together: the online certificate is signed by the CA and
    /// each key matches its certificate.
    public init(
        caCertificateDER: [UInt8],
        serverCertificateDER: [UInt8],
        serverPrivateKey: Curve25519.Signing.PrivateKey,
        caPrivateKey: Curve25519.Signing.PrivateKey? = nil
    ) throws(ServerCredentialsError) {
        let ca: Certificate
        let server: Certificate
        do {
            ca = try CertificateInspection.parse(caCertificateDER)
            server = try CertificateInspection.parse(serverCertificateDER)
        } catch {
            throw .malformed("certificate: \(error)")
        }
        guard ca.publicKey.isValidSignature(server.signature, for: server), server.issuer == ca.subject else {
            throw .mismatch("server certificate is not signed by the CA certificate")
        }
        guard let serverKey = Curve25519.Signing.PublicKey(server.publicKey) else {
            throw .unsupportedKey("server certificate key is not Ed25519")
        }
        guard serverKey.rawRepresentation == serverPrivateKey.publicKey.rawRepresentation else {
            throw .mismatch("server key does not match server certificate")
        }
        if let caPrivateKey {
            guard let caKey = Curve25519.Signing.PublicKey(ca.publicKey),
                caKey.rawRepresentation == caPrivateKey.publicKey.rawRepresentation
            else { throw .mismatch("CA key does not match CA certificate") }
        }
        self.caCertificateDER = caCertificateDER
        self.serverCertificateDER = serverCertificateDER
        self.serverPrivateKey = serverPrivateKey
        self.caPrivateKey = caPrivateKey
        self.keyHash = ServerIdentity.keyHash(ofCertificateDER: caCertificateDER)
    }

    /// Creates a new CA (CN "<commonName> CA") and an online certificate (CN commonName) signed
    /// by it. Both are valid from an hour ago (clock skew) for `validityDays`.
    public static func generate(
        commonName: String,
        validityDays: Int = 3650,
        now: Date = Date()
    ) throws(ServerCredentialsError) -> ServerCredentials {
        let caKey = Curve25519.Signing.PrivateKey()
        let serverKey = Curve25519.Signing.PrivateKey()
        let notBefore = now.addingTimeInterval(-3600)
        let notAfter = now.addingTimeInterval(Double(validityDays) * 86400)
        do {
            let caName = try DistinguishedName { CommonName(commonName + " CA") }
            let serverName = try DistinguishedName { CommonName(commonName) }
            let ca = try Certificate(
                version: .v3,
                serialNumber: Certificate.SerialNumber(),
                publicKey: .init(caKey.publicKey),
                notValidBefore: notBefore,
                notValidAfter: notAfter,
                issuer: caName,
                subject: caName,
                signatureAlgorithm: .ed25519,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                    Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                },
                issuerPrivateKey: .init(caKey)
            )
            let server = try Certificate(
                version: .v3,
                serialNumber: Certificate.SerialNumber(),
                publicKey: .init(serverKey.publicKey),
                notValidBefore: notBefore,
                notValidAfter: notAfter,
                issuer: caName,
                subject: serverName,
                signatureAlgorithm: .ed25519,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.notCertificateAuthority)
                    Critical(KeyUsage(digitalSignature: true))
                },
                issuerPrivateKey: .init(caKey)
            )
            return try ServerCredentials(
                caCertificateDER: CertificateInspection.der(of: ca),
                serverCertificateDER: CertificateInspection.der(of: server),
                serverPrivateKey: serverKey,
                caPrivateKey: caKey
            )
        } catch let e as ServerCredentialsError {
            throw e
        } catch {
            throw .malformed("generating certificates: \(error)")
        }
    }

    /// The same credentials without the CA key, as a server that had `ca.key` moved offline has them.
    public func withoutCAKey() -> ServerCredentials {
        // Safe: the parts were validated together when `self` was made.
        (try? ServerCredentials(
            caCertificateDER: caCertificateDER,
            serverCertificateDER: serverCertificateDER,
            serverPrivateKey: serverPrivateKey
        )) ?? self
    }

    /// Writes `ca.crt`, `server.crt`, `server.key` and, if present, `ca.key` as PEM into
    /// `directory` (created if needed, mode 0700). Keys are written with mode 0600. Existing
    /// files are replaced only when `overwrite` is true.
    public func save(to directory: String, overwrite: Bool = false) throws(ServerCredentialsError) {
        let fm = FileManager.default
        do {
            try fm.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .io("creating \(directory): \(error)")
        }
        var files: [(String, String, Int)] = [
            (Self.caCertificateFile, PEMDocument(type: "CERTIFICATE", derBytes: caCertificateDER).pemString, 0o644),
            (Self.serverCertificateFile, PEMDocument(type: "CERTIFICATE", derBytes: serverCertificateDER).pemString, 0o644),
            (Self.serverKeyFile, Self.pem(of: serverPrivateKey), 0o600),
        ]
        if let caPrivateKey { files.append((Self.caKeyFile, Self.pem(of: caPrivateKey), 0o600)) }
        if !overwrite {
            for (name, _, _) in files where fm.fileExists(atPath: Self.path(directory, name)) {
                throw .io("\(Self.path(directory, name)) already exists")
            }
        }
        for (name, contents, mode) in files {
            let path = Self.path(directory, name)
            try? fm.removeItem(atPath: path)
            guard fm.createFile(atPath: path, contents: Data(contents.utf8), attributes: [.posixPermissions: mode]) else {
                throw .io("cannot write \(path)")
            }
        }
    }

    /// Reads credentials saved by `save(to:)`. `ca.key` is read if present and otherwise not needed.
    public static func load(from directory: String) throws(ServerCredentialsError) -> ServerCredentials {
        let caCert = try readPEM(directory, caCertificateFile, type: "CERTIFICATE")
        let serverCert = try readPEM(directory, serverCertificateFile, type: "CERTIFICATE")
        let serverKey = try ed25519PrivateKey(pkcs8: readPEM(directory, serverKeyFile, type: "PRIVATE KEY"))
        var caKey: Curve25519.Signing.PrivateKey?
        if FileManager.default.fileExists(atPath: path(directory, caKeyFile)) {
            caKey = try ed25519PrivateKey(pkcs8: readPEM(directory, caKeyFile, type: "PRIVATE KEY"))
        }
        return try ServerCredentials(
            caCertificateDER: caCert,
            serverCertificateDER: serverCert,
            serverPrivateKey: serverKey,
            caPrivateKey: caKey
        )
    }

    /// PKCS#8 DER of the online key, for loading into the TLS library.
    var serverPrivateKeyPKCS8: [UInt8] { Self.pkcs8(of: serverPrivateKey) }

    // MARK: - PEM and PKCS#8

    private static func path(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    private static func readPEM(_ directory: String, _ name: String, type: String) throws(ServerCredentialsError) -> [UInt8] {
        let p = path(directory, name)
        guard FileManager.default.fileExists(atPath: p) else { throw .missingFile(p) }
        guard let data = FileManager.default.contents(atPath: p) else { throw .io("cannot read \(p)") }
        do {
            let doc = try PEMDocument(pemString: String(decoding: data, as: UTF8.self))
            guard doc.discriminator == type else { throw ServerCredentialsError.malformed("\(p): expected \(type), found \(doc.discriminator)") }
            return doc.derBytes
        } catch let e as ServerCredentialsError {
            throw e
        } catch {
            throw .malformed("\(p): \(error)")
        }
    }

    /// PKCS#8 v1 of an Ed25519 key (RFC 8410): `30 2e 02 01 00 30 05 06 03 2b 65 70 04 22 04 20 <32 bytes>`.
    private static func pkcs8(of key: Curve25519.Signing.PrivateKey) -> [UInt8] {
        [0x30, 0x2E, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20]
            + Array(key.rawRepresentation)
    }

    private static func pem(of key: Curve25519.Signing.PrivateKey) -> String {
        PEMDocument(type: "PRIVATE KEY", derBytes: pkcs8(of: key)).pemString
    }

    /// Parses a PKCS#8 (v1 or v2) Ed25519 private key.
    static func ed25519PrivateKey(pkcs8 der: [UInt8]) throws(ServerCredentialsError) -> Curve25519.Signing.PrivateKey {
        let ed25519: ASN1ObjectIdentifier = [1, 3, 101, 112]
        do {
            let root = try DER.parse(der)
            let raw: [UInt8] = try DER.sequence(root, identifier: .sequence) { nodes in
                _ = try Int(derEncoded: &nodes)
                guard let algorithm = nodes.next() else { throw ServerCredentialsError.malformed("private key: no algorithm") }
                let oid = try DER.sequence(algorithm, identifier: .sequence) { inner in
                    let oid = try ASN1ObjectIdentifier(derEncoded: &inner)
                    while inner.next() != nil {}
                    return oid
                }
                guard oid == ed25519 else { throw ServerCredentialsError.unsupportedKey("private key is not Ed25519") }
                let outer = try ASN1OctetString(derEncoded: &nodes)
                while nodes.next() != nil {}
                return Array(try ASN1OctetString(derEncoded: outer.bytes).bytes)
            }
            return try Curve25519.Signing.PrivateKey(rawRepresentation: raw)
        } catch let e as ServerCredentialsError {
            throw e
        } catch {
            throw .malformed("private key: \(error)")
        }
    }
}
