import Foundation
import SMPProtocol
import SMPTransport
import SimplexFoundation

/// Vectors of `Simplex.Messaging.Transport` (smp_transport_handshake.json): both hellos and the
/// handshake response encoded from the inputs and parsed back, the live handshakes replayed
/// through our negotiation and key checks, and the v11 encrypted blocks sealed and opened with
/// chain keys computed from the session ID and the X25519 keys.
public struct SMPTransportVectors: VectorSuite {
    public init() {}
    public func accepts(module: String) -> Bool { module == "Simplex.Messaging.Transport" }

    public func check(_ v: Vector) -> VectorResult? {
        switch v.path.first {
        case "server_handshake": guarded { try serverHandshake(v) }
        case "client_handshake": guarded { try clientHandshake(v) }
        case "server_handshake_response": guarded { try handshakeResponse(v) }
        case "live" where v.path.contains("encrypted_block"): guarded { try encryptedBlock(v) }
        case "live" where v.path.last == "handshake": guarded { try liveHandshake(v) }
        default: nil
        }
    }

    // MARK: - Inputs

    private struct Fixture {
        let sessionId: [UInt8]
        let ca: [UInt8]
        let server: [UInt8]
        let keyHash: [UInt8]
        let serverX25519: X25519PrivateKey
        let clientX25519: X25519PrivateKey

        init(_ v: Vector) throws {
            sessionId = try v.inputBytes("session_id_hex")
            ca = try v.inputBytes("ca_cert_der_hex")
            server = try v.inputBytes("server_cert_der_hex")
            keyHash = try v.inputBytes("key_hash_hex")
            serverX25519 = try Self.key(v, "server_x25519")
            clientX25519 = try Self.key(v, "client_x25519")
        }

        /// The private key from `priv_raw_hex`; its public key must be the recorded one.
        static func key(_ v: Vector, _ name: String) throws -> X25519PrivateKey {
            let o = try v.inputObject(name)
            let k = try X25519PrivateKey(rawRepresentation: v.bytes("priv_raw_hex", in: o))
            guard k.publicKey.rawRepresentation == (try v.bytes("pub_raw_hex", in: o)),
                  k.publicKey.x509Encoded == (try v.bytes("pub_der_spki_hex", in: o))
            else { throw VectorError.unsupported("\(name): public key does not match its private key") }
            return k
        }
    }

    private func range(_ v: Vector, _ key: String) throws -> SMPVersionRange {
        let a = try v.array(key, in: v.inputs).compactMap { ($0 as? NSNumber).map { UInt16($0.intValue) } }
        guard a.count == 2, let r = SMPVersionRange(min: a[0], max: a[1]) else { throw VectorError.badType(key) }
        return r
    }

    /// The signed server key from the inputs, checked: the online certificate's key signed the
    /// server's X25519 session key, and the identity of the chain is the key hash.
    private func signedServerKey(_ v: Vector, _ f: Fixture) throws -> CertChainPubKey {
        let signed = try SignedPublicKey(der: v.inputBytes("signed_server_key_der_hex"))
        let key = CertChainPubKey(chain: [f.server, f.ca], signedKey: signed)
        let sessionKey = try SMPHandshakeRules.serverSessionKey(key, keyHash: f.keyHash, tlsChain: [f.server, f.ca])
        guard sessionKey == f.serverX25519.publicKey else { throw VectorError.unsupported("signed key is not the server session key") }
        guard CryptoHash.sha256(f.ca) == f.keyHash else { throw VectorError.unsupported("key hash is not SHA-256 of the CA") }
        return key
    }

    private func compare(_ ours: [UInt8], _ expected: [UInt8], _ what: String) -> VectorResult? {
        guard ours != expected else { return nil }
        let at = zip(ours, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(ours.count, expected.count)
        return .fail("\(what): \(ours.count) bytes vs \(expected.count), first difference at \(at)")
    }

    /// Parses `bytes` with our decoder and re-encodes them: the result must be the same bytes.
    private func roundtrip<T: SMPEncodable & SMPDecodable>(_ type: T.Type, _ bytes: [UInt8]) throws -> VectorResult? {
        var d = SMPDecoder(bytes)
        let parsed = try T(from: &d)
        return compare(try parsed.smpEncoded(), bytes, "re-encoding of the parsed \(T.self)")
    }

    // MARK: - Checks

    private func serverHandshake(_ v: Vector) throws -> VectorResult {
        let f = try Fixture(v)
        let versions = try range(v, "smp_version_range")
        let withKey = v.path.last?.hasSuffix("no_key") != true
        let hello = SMPServerHandshake(versions: versions, sessionId: f.sessionId,
                                       authPubKey: withKey ? try signedServerKey(v, f) : nil)
        let expected = try v.output()
        if let r = compare(try hello.smpEncoded(), expected, "encoding") { return r }
        if let r = try roundtrip(SMPServerHandshake.self, expected) { return r }
        return .pass
    }

    private func clientHandshake(_ v: Vector) throws -> VectorResult {
        let f = try Fixture(v)
        let version = UInt16(try v.inputInt("smp_version"))
        let proxy = (v.inputs["proxy_server"] as? Bool) ?? false
        var service: SMPClientHandshakeService?
        if let role = v.inputs["service_role"] as? String {
            guard let r = role.utf8.first.flatMap(SMPServiceRole.init(rawValue:)) else { throw VectorError.badType("service_role") }
            let signed = try SignedPublicKey(der: v.inputBytes("signed_service_key_der_hex"))
            let serviceKey = try Ed25519PrivateKey(rawRepresentation: v.bytes("priv_raw_hex", in: v.inputObject("service_ed25519")))
            // The fixture chain's leaf key signed the service key.
            let leafKey = try X509Certificate(der: f.server).publicKey()
            guard signed.verify(with: leafKey) == .ed25519(serviceKey.publicKey) else {
                return .fail("signed service key does not verify with the chain's leaf key")
            }
            service = SMPClientHandshakeService(role: r, certKey: CertChainPubKey(chain: [f.server, f.ca], signedKey: signed))
        }
        let noKey = v.path.last == "no_key"
        let hello = SMPClientHandshake(version: version, keyHash: f.keyHash, authPubKey: noKey ? nil : f.clientX25519.publicKey,
                                       proxyServer: proxy, clientService: service)
        let expected = try v.output()
        if let r = compare(try hello.smpEncoded(), expected, "encoding") { return r }
        if let r = try roundtrip(SMPClientHandshake.self, expected) { return r }
        return .pass
    }

    private func handshakeResponse(_ v: Vector) throws -> VectorResult {
        let description = try v.inputString("description")
        let response: SMPServerHandshakeResponse
        if description.hasPrefix("SMPServerHandshakeResponse") {
            response = .serviceId(try v.inputBytes("service_id_hex"))
        } else if let e = Self.transportError(description) {
            response = .error(e)
        } else {
            return .skip("unknown response \(description)")
        }
        let expected = try v.output()
        if let r = compare(try response.smpEncoded(), expected, "encoding") { return r }
        if let r = try roundtrip(SMPServerHandshakeResponse.self, expected) { return r }
        return .pass
    }

    /// The TransportError a description names by its Haskell constructor.
    private static func transportError(_ s: String) -> TransportError? {
        let word = s.split(separator: " ").drop { !$0.hasPrefix("TE") }
        guard let first = word.first else { return nil }
        switch first {
        case "TEBadBlock": return .block
        case "TEVersion": return .version
        case "TELargeMsg": return .largeMessage
        case "TEBadSession": return .session
        case "TENoServerAuth": return .noAuth
        case "TEHandshake":
            guard let h = word.dropFirst().first, let e = TransportError.HandshakeError(rawValue: String(h)) else { return nil }
            return .handshake(e)
        default: return nil
        }
    }

    private func liveHandshake(_ v: Vector) throws -> VectorResult {
        let f = try Fixture(v)
        let serverRange = try range(v, "server_version_range")
        let clientRange = try range(v, "client_version_range")
        let proxy = (v.inputs["proxy_server"] as? Bool) ?? false
        // Server hello, and its padded block.
        let serverHello = SMPServerHandshake(versions: serverRange, sessionId: f.sessionId, authPubKey: try signedServerKey(v, f))
        let serverBytes = try serverHello.smpEncoded()
        if let r = compare(serverBytes, try v.output(), "server hello") { return r }
        if let r = compare(CryptoHash.sha256(try Padding.pad(serverBytes, to: TransportBlock.size)),
                           try v.bytes("server_block_sha256_hex"), "server block") { return r }
        // The client's side: parse the hello, check it, pick the version, answer.
        var d = SMPDecoder(try v.output())
        let parsed = try SMPServerHandshake(from: &d)
        guard parsed.sessionId == f.sessionId, let key = parsed.authPubKey else { return .fail("server hello did not parse back") }
        let sessionKey = try SMPHandshakeRules.serverSessionKey(key, keyHash: f.keyHash, tlsChain: [f.server, f.ca])
        guard sessionKey == f.serverX25519.publicKey else { return .fail("client got another server key") }
        guard let version = SMPHandshakeRules.clientVersion(client: clientRange, server: parsed.versions, proxyServer: proxy) else {
            return .fail("no common version")
        }
        guard Int(version) == (try v.int("agreed_version_client")) else { return .fail("client agreed \(version)") }
        let clientHello = SMPClientHandshake(version: version, keyHash: f.keyHash, authPubKey: f.clientX25519.publicKey, proxyServer: proxy)
        let clientBytes = try clientHello.smpEncoded()
        if let r = compare(clientBytes, try v.bytes("client_handshake_hex"), "client hello") { return r }
        if let r = compare(CryptoHash.sha256(try Padding.pad(clientBytes, to: TransportBlock.size)),
                           try v.bytes("client_block_sha256_hex"), "client block") { return r }
        // The server's side: the client hello as the server reads it.
        var c = SMPDecoder(try v.bytes("client_handshake_hex"))
        let answer = try SMPClientHandshake(from: &c)
        guard answer.keyHash == f.keyHash, serverRange.contains(answer.version),
              Int(answer.version) == (try v.int("agreed_version_server")) else { return .fail("server did not accept the client hello") }
        let encrypted = SMPHandshakeRules.blockEncryption(version: answer.version, proxyServer: answer.proxyServer,
                                                          keysPresent: answer.authPubKey != nil)
        guard encrypted == (try v.bool("block_encryption")) else { return .fail("block encryption \(encrypted)") }
        return .pass
    }

    private func encryptedBlock(_ v: Vector) throws -> VectorResult {
        let f = try Fixture(v)
        let index = try v.inputInt("block_index")
        guard index >= 1 else { throw VectorError.badType("block_index") }
        let fromClient = v.path.contains("client_to_server")
        let dh = try f.serverX25519.sharedSecret(with: f.clientX25519.publicKey)
        guard dh == (try f.clientX25519.sharedSecret(with: f.serverX25519.publicKey)) else { return .fail("DH secrets differ") }
        var server = try EncryptedBlock.chainKeys(sessionId: f.sessionId, dhSecret: dh, isServer: true)
        var client = try EncryptedBlock.chainKeys(sessionId: f.sessionId, dhSecret: dh, isServer: false)
        if index == 1 {
            if let r = compare(server.send.rawRepresentation, try v.bytes("sbc_init_ck1_hex"), "ck1") { return r }
            if let r = compare(server.receive.rawRepresentation, try v.bytes("sbc_init_ck2_hex"), "ck2") { return r }
        }
        let plaintext = try v.inputBytes("plaintext_hex")
        var block: [UInt8] = []
        var expectedKey = [UInt8](), expectedNonce = [UInt8]()
        for i in 1...index {
            // Earlier blocks of the same direction only advance the chains.
            var probe = fromClient ? client.send : server.send
            let (key, nonce) = try probe.next()
            if i == index { (expectedKey, expectedNonce) = (key, nonce) }
            if fromClient {
                block = try EncryptedBlock.seal(i == index ? plaintext : [], chain: &client.send)
            } else {
                block = try EncryptedBlock.seal(i == index ? plaintext : [], chain: &server.send)
            }
            if i < index {
                _ = try (fromClient ? EncryptedBlock.open(block, chain: &server.receive) : EncryptedBlock.open(block, chain: &client.receive))
            }
        }
        if let r = compare(expectedKey, try v.bytes("block_sb_key_hex"), "block key") { return r }
        if let r = compare(expectedNonce, try v.bytes("block_nonce_hex"), "block nonce") { return r }
        if let r = compare(block, try v.output(), "encrypted block") { return r }
        let opened = try fromClient ? EncryptedBlock.open(try v.output(), chain: &server.receive)
                                    : EncryptedBlock.open(try v.output(), chain: &client.receive)
        if let r = compare(opened, try v.bytes("decrypted_by_peer_hex"), "decrypted block") { return r }
        return .pass
    }
}
