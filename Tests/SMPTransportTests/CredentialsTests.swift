import Crypto
import Foundation
import SimplexFoundation
import XCTest

@testable import SMPTransport

final class CredentialsTests: XCTestCase {
    var directory = ""

    override func setUp() {
        directory = NSTemporaryDirectory() + "smp-credentials-\(UUID().uuidString)"
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    func testFingerprintIsSHA256OfCACertificateDER() throws {
        let c = try ServerCredentials.generate(commonName: "smp.example.com")
        XCTAssertEqual(c.keyHash, Array(SHA256.hash(data: c.caCertificateDER)))
        XCTAssertEqual(c.keyHash.count, 32)
        XCTAssertEqual(c.fingerprint, Base64URL.encode(c.keyHash))
        XCTAssertEqual(c.fingerprint.count, 44)
        XCTAssertNotNil(c.caPrivateKey)
    }

    func testSaveLoadRoundTripKeepsIdentity() throws {
        let c = try ServerCredentials.generate(commonName: "smp.example.com")
        try c.save(to: directory)
        for name in ["ca.crt", "ca.key", "server.crt", "server.key", "fingerprint"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: directory + "/" + name), name)
        }
        let pem = try String(contentsOfFile: directory + "/ca.crt", encoding: .utf8)
        XCTAssertTrue(pem.hasPrefix("-----BEGIN CERTIFICATE-----"))
        let keyPEM = try String(contentsOfFile: directory + "/server.key", encoding: .utf8)
        XCTAssertTrue(keyPEM.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let mode = try FileManager.default.attributesOfItem(atPath: directory + "/server.key")[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o600)

        let loaded = try ServerCredentials.load(from: directory)
        XCTAssertEqual(loaded.keyHash, c.keyHash)
        XCTAssertEqual(loaded.fingerprint, c.fingerprint)
        XCTAssertEqual(loaded.caCertificateDER, c.caCertificateDER)
        XCTAssertEqual(loaded.serverCertificateDER, c.serverCertificateDER)
        XCTAssertEqual(loaded.serverPrivateKey.rawRepresentation, c.serverPrivateKey.rawRepresentation)
        XCTAssertEqual(loaded.caPrivateKey?.rawRepresentation, c.caPrivateKey?.rawRepresentation)
        // Stable: loading again gives the same identity.
        XCTAssertEqual(try ServerCredentials.load(from: directory).fingerprint, c.fingerprint)
        // Saving over existing files needs consent.
        XCTAssertThrowsError(try c.save(to: directory))
        XCTAssertNoThrow(try c.save(to: directory, overwrite: true))
    }

    func testEd448CredentialsAndReferenceProfiles() throws {
        let c = try ServerCredentials.generate(commonName: "smp.example.com", algorithm: .ed448)
        try c.save(to: directory)
        let loaded = try ServerCredentials.load(from: directory)
        XCTAssertEqual(loaded.algorithm, .ed448)
        XCTAssertEqual(loaded.keyHash, c.keyHash)
        XCTAssertEqual(c.caCertificate.commonName, "SMP server CA")
        XCTAssertEqual(c.serverCertificate.commonName, "smp.example.com")
        XCTAssertTrue(c.caCertificate.isCA)
        XCTAssertFalse(c.serverCertificate.isCA)
        XCTAssertEqual(c.serverCertificate.version, 3)
        XCTAssertTrue(c.serverCertificate.isIssued(by: c.caCertificate))
        // 999999 days, as `openssl req -days 999999` in the reference's `smp-server init`.
        let validity = try XCTUnwrap(c.serverCertificate.validity)
        XCTAssertGreaterThan(validity.notAfter.timeIntervalSince(validity.notBefore), 999_990 * 86400)
        XCTAssertEqual(try String(contentsOfFile: directory + "/fingerprint", encoding: .utf8), c.fingerprint + "\n")
    }

    /// A data folder made the way simplexmq's `createServerX509` makes it (the openssl CLI with its
    /// configs) loads here, with the same fingerprint the reference computes (SHA-256 of ca.crt's DER).
    func testLoadsCredentialsMadeLikeTheReference() throws {
        let openssl = ["/usr/bin/openssl", "/usr/local/bin/openssl"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let openssl else { throw XCTSkip("no openssl executable") }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let caConf = "[req]\ndistinguished_name = req_distinguished_name\nprompt = no\n\n[req_distinguished_name]\nCN = SMP server CA\nO = SimpleX\n\n[v3]\nsubjectKeyIdentifier = hash\nauthorityKeyIdentifier = keyid:always\nbasicConstraints = critical,CA:true\n"
        let serverConf = "[req]\ndistinguished_name = req_distinguished_name\nprompt = no\n\n[req_distinguished_name]\nCN = localhost\n\n[v3]\nbasicConstraints = CA:FALSE\nkeyUsage = digitalSignature, nonRepudiation, keyAgreement\nextendedKeyUsage = serverAuth\n"
        try caConf.write(toFile: directory + "/openssl_ca.conf", atomically: true, encoding: .utf8)
        try serverConf.write(toFile: directory + "/openssl_server.conf", atomically: true, encoding: .utf8)
        func run(_ args: String) throws {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: openssl)
            p.arguments = args.split(separator: " ").map { String($0).replacingOccurrences(of: "@", with: directory + "/") }
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            try p.run()
            p.waitUntilExit()
            XCTAssertEqual(p.terminationStatus, 0, args)
        }
        try run("genpkey -algorithm ED448 -out @ca.key")
        try run("req -new -x509 -days 999999 -config @openssl_ca.conf -extensions v3 -key @ca.key -out @ca.crt")
        try run("genpkey -algorithm ED448 -out @server.key")
        try run("req -new -config @openssl_server.conf -reqexts v3 -key @server.key -out @server.csr")
        try run("x509 -req -days 999999 -extfile @openssl_server.conf -extensions v3 -in @server.csr -CA @ca.crt -CAkey @ca.key -CAcreateserial -out @server.crt")
        let loaded = try ServerCredentials.load(from: directory)
        XCTAssertEqual(loaded.algorithm, .ed448)
        let caDER = try XCTUnwrap(PEM.decode(type: "CERTIFICATE", text: String(contentsOfFile: directory + "/ca.crt", encoding: .utf8)).first)
        XCTAssertEqual(loaded.keyHash, Array(SHA256.hash(data: caDER)))
        XCTAssertNoThrow(try ServerChainVerifier(keyHash: loaded.keyHash).verify(chain: loaded.chain))
        // Our online certificate rotation works on it too.
        XCTAssertEqual(try loaded.rotatingOnlineCertificate().keyHash, loaded.keyHash)
    }

    func testLoadWorksWithCAKeyMovedOffline() throws {
        let c = try ServerCredentials.generate(commonName: "smp.example.com")
        try c.save(to: directory)
        try FileManager.default.removeItem(atPath: directory + "/ca.key")
        let loaded = try ServerCredentials.load(from: directory)
        XCTAssertNil(loaded.caPrivateKey)
        XCTAssertEqual(loaded.fingerprint, c.fingerprint)
        XCTAssertNil(c.withoutCAKey().caPrivateKey)
        XCTAssertEqual(c.withoutCAKey().keyHash, c.keyHash)
    }

    func testMissingAndMismatchedFilesAreErrors() throws {
        XCTAssertThrowsError(try ServerCredentials.load(from: directory)) { error in
            guard case .missingFile = error as? ServerCredentialsError else { return XCTFail("\(error)") }
        }
        let a = try ServerCredentials.generate(commonName: "a")
        let b = try ServerCredentials.generate(commonName: "b")
        try a.save(to: directory)
        // b's server certificate is not signed by a's CA.
        try FileManager.default.removeItem(atPath: directory + "/server.crt")
        try FileManager.default.copyItem(atPath: directory + "/ca.crt", toPath: directory + "/ca.crt.bak")
        let dirB = directory + "/b"
        try b.save(to: dirB)
        try FileManager.default.copyItem(atPath: dirB + "/server.crt", toPath: directory + "/server.crt")
        XCTAssertThrowsError(try ServerCredentials.load(from: directory)) { error in
            guard case .mismatch = error as? ServerCredentialsError else { return XCTFail("\(error)") }
        }
        // A key that does not match its certificate.
        XCTAssertThrowsError(
            try ServerCredentials(caCertificateDER: a.caCertificateDER, serverCertificateDER: a.serverCertificateDER, serverPrivateKey: b.serverPrivateKey)
        ) { error in
            guard case .mismatch = error as? ServerCredentialsError else { return XCTFail("\(error)") }
        }
        // Garbage instead of PEM.
        try "not a pem".write(toFile: directory + "/server.crt", atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try ServerCredentials.load(from: directory)) { error in
            guard case .malformed = error as? ServerCredentialsError else { return XCTFail("\(error)") }
        }
    }
}
