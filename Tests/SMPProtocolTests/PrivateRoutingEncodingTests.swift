import SimplexFoundation
import XCTest
@testable import SMPProtocol

/// Private routing encodings, with the expected bytes laid out by hand from simplexmq 6.5.5.0
/// (Protocol.hs: `PRXY host auth_`, `smpEncode (host, port, keyHash)`, `PKEY sid vr certKey`,
/// `FwdTransmission`, `FwdResponse`; Client.hs/Server.hs for the layers and nonces).
final class PrivateRoutingEncodingTests: XCTestCase {
    private func a(_ s: String) -> [UInt8] { Array(s.utf8) }
    private func s(_ b: [UInt8]) -> [UInt8] { [UInt8(b.count)] + b }

    func testPRXYLayout() throws {
        let kh = (0..<32).map { UInt8($0 * 7 & 0xFF) }
        let server = ProtocolServer(hosts: ["smp.example.com", "1.2.3.4"], port: "5223", keyHash: kh)
        let withAuth = SMPCommand.prxy(server: server, basicAuth: a("pass"))
        let expected = a("PRXY ") + [2] + s(a("smp.example.com")) + s(a("1.2.3.4")) + s(a("5223")) + s(kh) + a("1") + s(a("pass"))
        for v in [SMPVersion.sendingProxy, SMPVersion.current] {
            XCTAssertEqual(try withAuth.smpEncoded(version: v), expected)
            XCTAssertEqual(try SMPCommand.parse(expected, version: v), withAuth)
        }
        // Default port: empty; no auth: '0'.
        let plain = SMPCommand.prxy(server: ProtocolServer(hosts: ["[::1]"], port: "", keyHash: kh), basicAuth: nil)
        let plainBytes = a("PRXY ") + [1] + s(a("[::1]")) + [0] + s(kh) + a("0")
        XCTAssertEqual(try plain.smpEncoded(version: 18), plainBytes)
        XCTAssertEqual(try SMPCommand.parse(plainBytes, version: 18), plain)
        XCTAssertEqual(plain.party, .proxiedClient)
        XCTAssertNil(plain.credentialsError(hasAuthorization: false, entityId: []))
        XCTAssertEqual(plain.credentialsError(hasAuthorization: false, entityId: [1]), .cmd(.hasAuth))
    }

    func testPRXYRejectsWhatTheReferenceParserRejects() {
        let kh = [UInt8](repeating: 1, count: 32)
        let bad: [(String, [UInt8])] = [
            ("empty host list", a("PRXY ") + [0] + s(a("")) + s(kh) + a("0")),
            ("host with a slash", a("PRXY ") + [1] + s(a("a/b")) + s(a("1")) + s(kh) + a("0")),
            ("host with a space", a("PRXY ") + [1] + s(a("a b")) + s(a("1")) + s(kh) + a("0")),
            ("empty host", a("PRXY ") + [1] + s([]) + s(a("1")) + s(kh) + a("0")),
            ("basic auth with '@'", a("PRXY ") + [1] + s(a("h")) + s(a("1")) + s(kh) + a("1") + s(a("a@b"))),
            ("basic auth with a space", a("PRXY ") + [1] + s(a("h")) + s(a("1")) + s(kh) + a("1") + s(a("a b"))),
            ("bad Maybe tag", a("PRXY ") + [1] + s(a("h")) + s(a("1")) + s(kh) + a("2")),
            ("trailing bytes", a("PRXY ") + [1] + s(a("h")) + s(a("1")) + s(kh) + a("0") + [0]),
            ("truncated", a("PRXY ") + [1] + s(a("h")) + [5]),
        ]
        for (name, bytes) in bad {
            XCTAssertThrowsError(try SMPCommand.parse(bytes, version: 18), name) { e in
                XCTAssertEqual((e as? SMPProtocolError)?.errorType, .cmd(.syntax), name)
            }
        }
    }

    func testPKEYPFWDRFWDPRESRRESLayouts() throws {
        let sid = [UInt8](repeating: 9, count: 32)
        let cert = [UInt8](repeating: 3, count: 10)
        let pkey = BrokerMessage.pkey(sessionId: sid, versions: SMPVersion.proxied, certChainPubKey: cert)
        let pkeyBytes = a("PKEY ") + s(sid) + [0, 8, 0, 17] + cert
        XCTAssertEqual(try pkey.smpEncoded(version: 18), pkeyBytes)
        XCTAssertEqual(try BrokerMessage.parse(pkeyBytes, version: 18), pkey)
        XCTAssertThrowsError(try BrokerMessage.parse(a("PKEY ") + s(sid) + [0, 17, 0, 8] + cert, version: 18), "min above max")

        let key = X25519PrivateKey().publicKey.x509Encoded
        let pfwd = SMPCommand.pfwd(version: 17, publicKey: key, encryptedTransmission: [1, 2, 3])
        XCTAssertEqual(try pfwd.smpEncoded(version: 18), a("PFWD ") + [0, 17] + s(key) + [1, 2, 3])
        XCTAssertEqual(pfwd.credentialsError(hasAuthorization: false, entityId: []), .cmd(.noEntity))
        XCTAssertEqual(pfwd.credentialsError(hasAuthorization: true, entityId: sid), .cmd(.hasAuth))
        XCTAssertNil(pfwd.credentialsError(hasAuthorization: false, entityId: sid))
        XCTAssertEqual(try BrokerMessage.pres(encrypted: [7, 8]).smpEncoded(version: 18), a("PRES ") + [7, 8])
        XCTAssertEqual(try BrokerMessage.rres(encrypted: [7, 8]).smpEncoded(version: 18), a("RRES ") + [7, 8])
        XCTAssertEqual(try SMPCommand.rfwd(encryptedTransmission: [4]).smpEncoded(version: 18), a("RFWD ") + [4])
        XCTAssertEqual(SMPCommand.rfwd(encryptedTransmission: [4]).party, .proxyService)
        // Inside RFWD only sender commands run.
        XCTAssertTrue(SMPCommand.send(flags: MsgFlags(notification: true), body: []).allowedForwarded)
        XCTAssertTrue(SMPCommand.skey(senderKey: key).allowedForwarded)
        XCTAssertTrue(SMPCommand.lget.allowedForwarded)
        XCTAssertFalse(SMPCommand.ping.allowedForwarded)
        XCTAssertFalse(SMPCommand.sub.allowedForwarded)
        XCTAssertFalse(pfwd.allowedForwarded)
    }

    func testFwdTransmissionAndResponseLayouts() throws {
        let corr = [UInt8](repeating: 5, count: 24)
        let key = X25519PrivateKey().publicKey.x509Encoded
        let fwd = FwdTransmission(corrId: corr, version: 16, key: key, encryptedTransmission: [1, 2, 3, 4])
        let bytes = s(corr) + [0, 16] + s(key) + [1, 2, 3, 4]
        XCTAssertEqual(try fwd.smpEncoded(), bytes)
        XCTAssertEqual(try FwdTransmission.smpDecode(bytes), fwd)
        // `C.PublicKeyX25519`: an Ed25519 key in its place does not parse.
        let ed = try PrivateAuthKey.generate(.ed25519).publicKey.x509Encoded
        XCTAssertThrowsError(try FwdTransmission.smpDecode(s(corr) + [0, 16] + s(ed) + [1]))
        let resp = FwdResponse(corrId: corr, encryptedResponse: [9, 9])
        XCTAssertEqual(try resp.smpEncoded(), s(corr) + [9, 9])
        XCTAssertEqual(try FwdResponse.smpDecode(s(corr) + [9, 9]), resp)
    }

    func testProxyErrorEncodings() throws {
        let cases: [(ErrorType, String)] = [
            (.proxy(.proto(.auth)), "PROXY PROTOCOL AUTH"),
            (.proxy(.proto(.crypto)), "PROXY PROTOCOL CRYPTO"),
            (.proxy(.broker(.network)), "PROXY BROKER NETWORK"),
            (.proxy(.broker(.timeout)), "PROXY BROKER TIMEOUT"),
            (.proxy(.broker(.transport(.version))), "PROXY BROKER TRANSPORT VERSION"),
            (.proxy(.broker(.transport(.noAuth))), "PROXY BROKER TRANSPORT NO_AUTH"),
            (.proxy(.basicAuth), "PROXY BASIC_AUTH"),
            (.proxy(.noSession), "PROXY NO_SESSION"),
            (.crypto, "CRYPTO"),
        ]
        for (e, text) in cases {
            XCTAssertEqual(try BrokerMessage.err(e).smpEncoded(version: 18), a("ERR " + text))
            XCTAssertEqual(try BrokerMessage.parse(a("ERR " + text), version: 18), .err(e))
        }
        // RESPONSE and UNEXPECTED carry a shortString.
        XCTAssertEqual(try ErrorType.proxy(.broker(.response("BLOCK"))).smpEncoded(), a("PROXY BROKER RESPONSE ") + s(a("BLOCK")))
        // A newer peer's NETWORK detail is read and dropped.
        XCTAssertEqual(try ErrorType.smpDecode(a("PROXY BROKER NETWORK {}")), .proxy(.broker(.network)))
    }

    /// The two layers: sizes, nonces (the response's is the request's reversed), padding.
    func testEncryptionLayers() throws {
        let serverKey = X25519PrivateKey(), commandKey = X25519PrivateKey()
        let clientSide = try CryptoBox.sharedKey(publicKey: serverKey.publicKey, privateKey: commandKey)
        let serverSide = try CryptoBox.sharedKey(publicKey: commandKey.publicKey, privateKey: serverKey)
        XCTAssertEqual(clientSide, serverSide)
        let corr = SecureRandom.bytes(24)
        let t = a("transmission bytes")
        let et = try PrivateRouting.encryptTransmission(t, key: clientSide, corrId: corr)
        XCTAssertEqual(et.count, 16 + 16226)
        XCTAssertEqual(try PrivateRouting.decryptTransmission(et, key: serverSide, corrId: corr), [1, 0, UInt8(t.count)] + t)
        XCTAssertThrowsError(try PrivateRouting.decryptTransmission(et, key: serverSide, corrId: PrivateRouting.reverseNonce(corr)))
        let er = try PrivateRouting.encryptResponse(t, key: serverSide, corrId: corr)
        XCTAssertEqual(er.count, 16 + 16226)
        XCTAssertEqual(try PrivateRouting.decryptResponse(er, key: clientSide, corrId: corr), [1, 0, UInt8(t.count)] + t)
        XCTAssertThrowsError(try PrivateRouting.decryptTransmission(er, key: clientSide, corrId: corr))
        // The response box is the request box made with the reversed nonce.
        let manual = try CryptoBox.cbEncrypt(key: serverSide, nonce: Array(corr.reversed()), message: [1, 0, UInt8(t.count)] + t, paddedLength: 16226)
        XCTAssertEqual(try CryptoBox.cbDecrypt(key: clientSide, nonce: Array(corr.reversed()), box: manual),
                       try PrivateRouting.decryptResponse(er, key: clientSide, corrId: corr))
        // `cbNonce` of a short corrId is zero-padded before it is reversed.
        XCTAssertEqual(PrivateRouting.reverseNonce([1, 2, 3]), [UInt8](repeating: 0, count: 21) + [3, 2, 1])
        // A transmission too large for a block cannot be forwarded.
        XCTAssertThrowsError(try PrivateRouting.encryptTransmission([UInt8](repeating: 0, count: 16400), key: clientSide, corrId: corr))

        // p2r: no padding, RFWD corrId as nonce, reversed for RRES.
        let secret = try CryptoBox.sharedKey(publicKey: X25519PrivateKey().publicKey, privateKey: X25519PrivateKey())
        let fwd = FwdTransmission(corrId: corr, version: 17, key: commandKey.publicKey.x509Encoded, encryptedTransmission: et)
        let rfwdCorr = SecureRandom.bytes(24)
        let sealed = try PrivateRouting.sealForwarded(fwd, sessionSecret: secret, corrId: rfwdCorr)
        XCTAssertEqual(sealed.count, 16 + (try fwd.smpEncoded()).count)
        XCTAssertEqual(try FwdTransmission.smpDecode(try PrivateRouting.openForwarded(sealed, sessionSecret: secret, corrId: rfwdCorr)), fwd)
        let fr = FwdResponse(corrId: corr, encryptedResponse: er)
        let rres = try PrivateRouting.sealForwardedResponse(fr, sessionSecret: secret, corrId: rfwdCorr)
        XCTAssertEqual(try CryptoBox.open(key: secret, nonce: Array(rfwdCorr.reversed()), box: rres), try fr.smpEncoded())
        XCTAssertThrowsError(try PrivateRouting.openForwarded(rres, sessionSecret: secret, corrId: rfwdCorr))
    }

    func testVersionRangeIntersection() {
        let a = SMPVersionRange(min: 6, max: 18)!
        XCTAssertEqual(a.intersection(SMPVersion.proxied), SMPVersion.proxied)
        XCTAssertEqual(SMPVersionRange(min: 6, max: 10)!.intersection(SMPVersion.proxied), SMPVersionRange(min: 8, max: 10))
        XCTAssertNil(SMPVersionRange(min: 6, max: 7)!.intersection(SMPVersion.proxied))
    }
}
