import SMPProtocol
import SimplexFoundation

/// The decisions of the reference handshake (`smpClientHandshake`, `smpServerHandshake`,
/// `blockEncryption`) as pure functions, shared by the NIO handlers and the vector checks.
public enum SMPHandshakeRules {
    /// The version a client picks from the server's range: the highest common one. A proxy
    /// talking to a relay older than v14 first caps its own range at v10 (no block encryption).
    public static func clientVersion(client: SMPVersionRange, server: SMPVersionRange, proxyServer: Bool) -> UInt16? {
        var range = client
        if proxyServer, server.max < SMPTransportVersion.proxyServerHandshake {
            range = SMPVersionRange(min: client.min, max: max(client.min, SMPTransportVersion.deletedEvent)) ?? client
        }
        return server.compatible(with: range)
    }

    /// What the server offers: its configured range with ALPN "smp/1", the legacy 6-6 without.
    public static func offeredRange(configured: SMPVersionRange, alpn: String?) -> SMPVersionRange {
        alpn == TLSConfiguration.smpALPN ? configured : SMPTransportVersion.legacyRange
    }

    /// Blocks are encrypted from v11 unless the client is a proxy, when both session keys exist.
    public static func blockEncryption(version: UInt16, proxyServer: Bool, keysPresent: Bool) -> Bool {
        version >= SMPTransportVersion.encryptedBlock && !proxyServer && keysPresent
    }

    /// The server hello's signed key, as the client checks it: the chain in the hello must have
    /// the pinned identity certificate (`chainIdCaCerts`), and the TLS leaf's key must have signed
    /// an X25519 key. Any failure is `HANDSHAKE BAD_AUTH`.
    public static func serverSessionKey(_ key: CertChainPubKey, keyHash: [UInt8], tlsChain: [[UInt8]]) throws(TransportError) -> X25519PublicKey {
        guard let identity = ServerChainVerifier.identityCertificate(of: key.chain),
              ServerIdentity.keyHash(ofCertificateDER: identity) == keyHash,
              let leaf = tlsChain.first, let leafCert = try? X509Certificate(der: leaf),
              let verifyKey = try? leafCert.publicKey(),
              case .x25519(let sessionKey)? = key.signedKey.verify(with: verifyKey)
        else { throw .handshake(.badAuth) }
        return sessionKey
    }

    /// The server hello: the chain [online, CA] and the session key signed by the online key.
    public static func serverHello(versions: SMPVersionRange, sessionId: [UInt8], sessionKey: X25519PublicKey,
                                   credentials: ServerCredentials) throws -> SMPServerHandshake {
        let signed = try SignedPublicKey.sign(.x25519(sessionKey), with: credentials.serverPrivateKey)
        return SMPServerHandshake(versions: versions, sessionId: sessionId,
                                  authPubKey: CertChainPubKey(chain: credentials.chain, signedKey: signed))
    }
}
