import Foundation
import SimplexFoundation

/// The identity of an SMP server as simplexmq builds it: an offline CA certificate whose SHA-256
/// fingerprint is the server identity (`smp://<fingerprint>@host`), and an online certificate
/// signed by it that the server uses for TLS and to sign its per-connection session keys. Both
/// keys are Ed25519 or both Ed448 (`smp-server init -a`).
///
/// The CA key is only needed to issue a new online certificate (`smp-server cert`), so it is
/// optional: an operator can move `ca.key` offline and the server still loads.
public struct ServerCredentials: Sendable {
    public static let caCertificateFile = "ca.crt"
    public static let caKeyFile = "ca.key"
    public static let serverCertificateFile = "server.crt"
    public static let serverKeyFile = "server.key"
    public static let fingerprintFile = "fingerprint"
    /// `openssl req -days 999999`, as the reference's `createServerX509`.
    public static let defaultValidityDays = 999_999

    public let caCertificate: X509Certificate
    public let serverCertificate: X509Certificate
    /// The CA key, when it is available on this machine.
    public let caPrivateKey: AnyPrivateKey?
    /// The online certificate's key: TLS and session-key signatures.
    public let serverPrivateKey: AnyPrivateKey
    /// The server identity, SHA-256 of the CA certificate's DER.
    public let keyHash: [UInt8]

    /// DER of the offline CA certificate.
    public var caCertificateDER: [UInt8] { caCertificate.der }
    /// DER of the online certificate.
    public var serverCertificateDER: [UInt8] { serverCertificate.der }
    /// The certificate chain the server presents in TLS and in its handshake: [online, CA].
    public var chain: [[UInt8]] { [serverCertificate.der, caCertificate.der] }
    /// The identity as it appears in `smp://<fingerprint>@host` (base64url).
    public var fingerprint: String { Base64URL.encode(keyHash) }
    /// The algorithm of the online key.
    public var algorithm: SignAlgorithm { SignAlgorithm(serverPrivateKey.algorithm) ?? .ed25519 }

    /// Checks that the parts belong together: the online certificate is issued by the CA and each
    /// key matches its certificate.
    public init(caCertificateDER: [UInt8], serverCertificateDER: [UInt8], serverPrivateKey: AnyPrivateKey,
                caPrivateKey: AnyPrivateKey? = nil) throws(ServerCredentialsError) {
        let ca = try X509Certificate(der: caCertificateDER)
        let server = try X509Certificate(der: serverCertificateDER)
        guard server.isIssued(by: ca) else { throw .mismatch("server certificate is not signed by the CA certificate") }
        guard SignAlgorithm(serverPrivateKey.algorithm) != nil else { throw .unsupportedKey("server key is not Ed25519 or Ed448") }
        guard try server.publicKey() == serverPrivateKey.publicKey else {
            throw .mismatch("server key does not match server certificate")
        }
        if let caPrivateKey {
            guard try ca.publicKey() == caPrivateKey.publicKey else { throw .mismatch("CA key does not match CA certificate") }
        }
        self.caCertificate = ca
        self.serverCertificate = server
        self.serverPrivateKey = serverPrivateKey
        self.caPrivateKey = caPrivateKey
        self.keyHash = ca.fingerprint
    }

    /// A new CA ("CN=SMP server CA, O=SimpleX") and an online certificate ("CN=<commonName>")
    /// signed by it, with the reference's X.509 profiles. Valid from an hour ago (clock skew).
    public static func generate(commonName: String, algorithm: SignAlgorithm = .ed25519,
                                validityDays: Int = defaultValidityDays) throws(ServerCredentialsError) -> ServerCredentials {
        let caKey = AnyPrivateKey.generate(algorithm.keyAlgorithm)
        let caDER = try CertificateFactory.make(subjectKey: caKey, issuerKey: caKey, issuerCertificate: nil,
                                                commonName: "SMP server CA", organization: "SimpleX", isCA: true,
                                                validityDays: validityDays)
        return try online(caCertificateDER: caDER, caPrivateKey: caKey, commonName: commonName, algorithm: algorithm,
                          validityDays: validityDays)
    }

    /// A new online key and certificate from the same CA (`smp-server cert`): the identity, and
    /// so every address and queue link, stays. Algorithm and common name default to the current
    /// certificate's. Needs the CA key.
    public func rotatingOnlineCertificate(commonName: String? = nil, algorithm: SignAlgorithm? = nil,
                                          validityDays: Int = defaultValidityDays) throws(ServerCredentialsError) -> ServerCredentials {
        guard let caPrivateKey else { throw .missingFile(Self.caKeyFile) }
        guard let cn = commonName ?? serverCertificate.commonName else { throw .malformed("server certificate has no common name") }
        return try Self.online(caCertificateDER: caCertificateDER, caPrivateKey: caPrivateKey, commonName: cn,
                               algorithm: algorithm ?? self.algorithm, validityDays: validityDays)
    }

    private static func online(caCertificateDER: [UInt8], caPrivateKey: AnyPrivateKey, commonName: String,
                               algorithm: SignAlgorithm, validityDays: Int) throws(ServerCredentialsError) -> ServerCredentials {
        let key = AnyPrivateKey.generate(algorithm.keyAlgorithm)
        let der = try CertificateFactory.make(subjectKey: key, issuerKey: caPrivateKey, issuerCertificate: caCertificateDER,
                                              commonName: commonName, organization: nil, isCA: false,
                                              validityDays: validityDays)
        return try ServerCredentials(caCertificateDER: caCertificateDER, serverCertificateDER: der,
                                     serverPrivateKey: key, caPrivateKey: caPrivateKey)
    }

    /// The same credentials without the CA key, as a server that had `ca.key` moved offline has them.
    public func withoutCAKey() -> ServerCredentials {
        (try? ServerCredentials(caCertificateDER: caCertificateDER, serverCertificateDER: serverCertificateDER,
                                serverPrivateKey: serverPrivateKey)) ?? self
    }

    /// Writes `ca.crt`, `server.crt`, `server.key`, `fingerprint` and, if present, `ca.key` into
    /// `directory` (created if needed, mode 0700), as the reference lays them out. Keys get mode
    /// 0600. Existing files are replaced only when `overwrite` is true.
    public func save(to directory: String, overwrite: Bool = false) throws(ServerCredentialsError) {
        let fm = FileManager.default
        do {
            try fm.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .io("creating \(directory): \(error)")
        }
        var files: [(String, String, Int)] = [
            (Self.caCertificateFile, PEM.encode(type: "CERTIFICATE", der: caCertificateDER), 0o644),
            (Self.serverCertificateFile, PEM.encode(type: "CERTIFICATE", der: serverCertificateDER), 0o644),
            (Self.serverKeyFile, PEM.encode(type: "PRIVATE KEY", der: serverPrivateKey.pkcs8Encoded), 0o600),
            (Self.fingerprintFile, fingerprint + "\n", 0o644),
        ]
        if let caPrivateKey { files.append((Self.caKeyFile, PEM.encode(type: "PRIVATE KEY", der: caPrivateKey.pkcs8Encoded), 0o600)) }
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

    /// Reads credentials saved by `save(to:)` or by simplexmq's `smp-server init`. `ca.key` is
    /// read if present and otherwise not needed.
    public static func load(from directory: String) throws(ServerCredentialsError) -> ServerCredentials {
        let caCert = try readPEM(directory, caCertificateFile, type: "CERTIFICATE")
        let serverCert = try readPEM(directory, serverCertificateFile, type: "CERTIFICATE")
        let serverKey = try privateKey(readPEM(directory, serverKeyFile, type: "PRIVATE KEY"))
        var caKey: AnyPrivateKey?
        if FileManager.default.fileExists(atPath: path(directory, caKeyFile)) {
            caKey = try privateKey(readPEM(directory, caKeyFile, type: "PRIVATE KEY"))
        }
        return try ServerCredentials(caCertificateDER: caCert, serverCertificateDER: serverCert,
                                     serverPrivateKey: serverKey, caPrivateKey: caKey)
    }

    private static func privateKey(_ der: [UInt8]) throws(ServerCredentialsError) -> AnyPrivateKey {
        do {
            return try AnyPrivateKey(pkcs8Encoded: der)
        } catch {
            throw .unsupportedKey("private key: \(error)")
        }
    }

    static func path(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    private static func readPEM(_ directory: String, _ name: String, type: String) throws(ServerCredentialsError) -> [UInt8] {
        let p = path(directory, name)
        guard FileManager.default.fileExists(atPath: p) else { throw .missingFile(p) }
        guard let data = FileManager.default.contents(atPath: p) else { throw .io("cannot read \(p)") }
        guard let der = PEM.decode(type: type, text: String(decoding: data, as: UTF8.self)).first else {
            throw .malformed("\(p): no \(type)")
        }
        return der
    }
}
