import NIOCore
import NIOSSL

/// TLS settings of the spec for SMP: TLS 1.3 only, x25519 key exchange, Ed25519 signatures,
/// ALPN "smp/1", no renegotiation, and on the client pinning of the server identity instead of
/// WebPKI validation. NIOSSL (BoringSSL) does not let TLS 1.3 cipher suites be restricted, so
/// CHACHA20-POLY1305 is offered alongside AES-GCM; nor can session tickets be turned off (our
/// client never resumes a session, and every connection still runs the SMP handshake).
public enum SMPTLS {
    /// The ALPN name of the current SMP handshake.
    public static let alpn = "smp/1"

    /// Server configuration presenting the chain [online, CA].
    public static func serverConfiguration(credentials: ServerCredentials) throws -> TLSConfiguration {
        let online = try NIOSSLCertificate(bytes: credentials.serverCertificateDER, format: .der)
        let ca = try NIOSSLCertificate(bytes: credentials.caCertificateDER, format: .der)
        let key = try NIOSSLPrivateKey(bytes: credentials.serverPrivateKeyPKCS8, format: .der)
        var c = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(online), .certificate(ca)],
            privateKey: .privateKey(key)
        )
        restrict(&c)
        c.certificateVerification = .none
        return c
    }

    /// Client configuration. Certificate checks are done by `ServerChainVerifier` through a custom
    /// verification callback (see `SMPTransportClient`); no host name is checked and no system
    /// trust store is loaded.
    public static func clientConfiguration() -> TLSConfiguration {
        var c = TLSConfiguration.makeClientConfiguration()
        restrict(&c)
        // Must not be `.none`, or NIOSSL skips the custom callback.
        c.certificateVerification = .noHostnameVerification
        c.trustRoots = .certificates([])
        return c
    }

    private static func restrict(_ c: inout TLSConfiguration) {
        c.minimumTLSVersion = .tlsv13
        c.maximumTLSVersion = .tlsv13
        c.applicationProtocols = [alpn]
        c.curves = [.x25519]
        c.signingSignatureAlgorithms = [.ed25519]
        c.verifySignatureAlgorithms = [.ed25519]
        c.renegotiationSupport = .none
    }
}
