import Foundation
import SimplexFoundation
import SMPClient
import SMPProtocol
import SMPServer
import SMPTransport
import XCTest

/// Our relay as the DESTINATION of private message routing: a proxy (emulated here below the
/// client library, byte by byte as simplexmq's `forwardSMPTransmission` and `proxySMPCommand`
/// build it) sends RFWD; the relay opens both layers, executes the sender's command and answers
/// RRES, or the reference's error.
final class DestinationRelayTests: XCTestCase {
    /// A connection that behaves as a reference proxy does towards the destination.
    struct EmulatedProxy {
        let conn: RawConnection
        let serverKey: X25519PublicKey
        let sessionSecret: CryptoBoxKey

        init(relay: TestRelay) async throws {
            conn = try await RawConnection(relay: relay, proxyServer: true)
            XCTAssertFalse(conn.session.blockEncryption)
            serverKey = try X25519PublicKey(rawRepresentation: Array(conn.session.serverSessionKey!.rawRepresentation))
            let own = try X25519PrivateKey(rawRepresentation: Array(conn.session.clientSessionKey.rawRepresentation))
            sessionSecret = try CryptoBox.sharedKey(publicKey: serverKey, privateKey: own)
        }

        /// The sender's transmission (`tEncode` bytes) for `cmd`, authorized for this session.
        func senderTransmission(_ cmd: SMPCommand, entityId: [UInt8], key: PrivateAuthKey?, corrId: [UInt8], version: UInt16) throws -> [UInt8] {
            let body = try cmd.smpEncoded(version: version)
            var auth: [UInt8] = []
            if let key {
                let authorized = try RawTransmission.authorizedBytes(sessionId: conn.session.sessionId, corrId: corrId, entityId: entityId, body: body)
                auth = try TransmissionAuth.authorize(key: key, authorized: authorized, corrId: corrId, serverSessionKey: serverKey)
            }
            return try RawTransmission(authorization: auth, corrId: corrId, entityId: entityId, body: body)
                .encoded(TransmissionParams(sessionId: conn.session.sessionId, version: version))
        }

        struct Reply {
            let rfwdResponse: BrokerMessage
            /// The client's response inside RRES, when there was one.
            let inner: RawTransmission?
            let innerMessage: BrokerMessage?
        }

        /// Sends RFWD wrapping `batch` (the client's padded batch content) and opens the answer.
        func forward(batch: [UInt8], version: UInt16 = SMPVersion.current, clientCorrId: [UInt8] = SecureRandom.bytes(24),
                     wrap: ((FwdTransmission, _ rfwdCorrId: [UInt8]) throws -> [UInt8])? = nil) async throws -> Reply {
            let commandKey = X25519PrivateKey()
            let clientSecret = try CryptoBox.sharedKey(publicKey: serverKey, privateKey: commandKey)
            let et = try CryptoBox.cbEncrypt(key: clientSecret, nonce: clientCorrId, message: batch, paddedLength: PrivateRouting.paddedTransmissionLength)
            let fwd = FwdTransmission(corrId: clientCorrId, version: version, key: commandKey.publicKey.x509Encoded, encryptedTransmission: et)
            let proxyCorrId = SecureRandom.bytes(24)
            let sealed = try wrap?(fwd, proxyCorrId) ?? PrivateRouting.sealForwarded(fwd, sessionSecret: sessionSecret, corrId: proxyCorrId)
            let r = try await conn.command(.rfwd(encryptedTransmission: sealed), corrId: proxyCorrId)
            guard case .rres(let box) = r else { return Reply(rfwdResponse: r, inner: nil, innerMessage: nil) }
            let fr = try FwdResponse.smpDecode(try PrivateRouting.openForwardedResponse(box, sessionSecret: sessionSecret, corrId: proxyCorrId))
            XCTAssertEqual(fr.corrId, clientCorrId)
            // The response is padded to the reference's fixed size whatever it says.
            XCTAssertEqual(fr.encryptedResponse.count, 16 + PrivateRouting.paddedTransmissionLength)
            let inner = try TransmissionBatch.split(try PrivateRouting.decryptResponse(fr.encryptedResponse, key: clientSecret, corrId: clientCorrId))
            XCTAssertEqual(inner.count, 1)
            let t = try RawTransmission.parseFromServer(inner[0], TransmissionParams(sessionId: conn.session.sessionId, version: version))
            return Reply(rfwdResponse: r, inner: t, innerMessage: try BrokerMessage.parse(t.body, version: version))
        }

        /// A sender command through RFWD; returns the destination's response to it.
        func forward(_ cmd: SMPCommand, entityId: [UInt8], key: PrivateAuthKey? = nil, version: UInt16 = SMPVersion.current) async throws -> BrokerMessage? {
            let corrId = SecureRandom.bytes(24)
            let t = try senderTransmission(cmd, entityId: entityId, key: key, corrId: corrId, version: version)
            let r = try await forward(batch: try PrivateRouting.singleBatch(t), version: version, clientCorrId: corrId)
            if let inner = r.inner {
                XCTAssertEqual(inner.corrId, corrId)
                XCTAssertEqual(inner.entityId, entityId)
            }
            return r.innerMessage ?? r.rfwdResponse
        }
    }

    func testForwardedSendsArriveOnTheRecipientsSubscription() async throws {
        let relay = try await TestRelay.start()
        let recipient = relay.client()
        let events = EventCollector(recipient)
        let q = try await TestQueue.create(recipient)
        let proxy = try await EmulatedProxy(relay: relay)

        // Unsecured queue: SEND without authorization.
        let r1 = try await proxy.forward(.send(flags: MsgFlags(notification: true), body: Array("hello 1".utf8)), entityId: q.queue.senderId)
        XCTAssertEqual(r1, .ok)
        var got = await events.waitForMessages(1)
        XCTAssertEqual(got[0].body, Array("hello 1".utf8))
        try await recipient.ack(recipientId: q.queue.recipientId, key: q.recipientKey, msgId: got[0].msgId)

        // The sender secures the queue through the proxy (SKEY is allowed forwarded), then signs.
        let senderKey = try PrivateAuthKey.generate(.ed25519)
        let sk = try await proxy.forward(.skey(senderKey: senderKey.publicKey.x509Encoded), entityId: q.queue.senderId, key: senderKey)
        XCTAssertEqual(sk, .ok)
        let unsigned = try await proxy.forward(.send(flags: MsgFlags(notification: false), body: [1]), entityId: q.queue.senderId)
        XCTAssertEqual(unsigned, .err(.auth))
        let largest = [UInt8](repeating: 0x55, count: SMPVersion.maxMessageLength(SMPVersion.current))
        let r2 = try await proxy.forward(.send(flags: MsgFlags(notification: false), body: largest), entityId: q.queue.senderId, key: senderKey)
        XCTAssertEqual(r2, .ok)
        got = await events.waitForMessages(2)
        XCTAssertEqual(got[1].body, largest)
        XCTAssertEqual(relay.server.proxyStatistics.forwardedIn, 4)
        await proxy.conn.close()
        await recipient.close()
        await relay.server.shutdown()
    }

    func testForwardedSendWithX25519AuthenticatorAndOlderVersion() async throws {
        let relay = try await TestRelay.start()
        let recipient = relay.client()
        let events = EventCollector(recipient)
        let q = try await TestQueue.create(recipient)
        let proxy = try await EmulatedProxy(relay: relay)
        // A DH authenticator is made with the destination's session key of the proxy connection.
        let senderKey = try PrivateAuthKey.generate(.x25519)
        let sk = try await proxy.forward(.skey(senderKey: senderKey.publicKey.x509Encoded), entityId: q.queue.senderId, key: senderKey)
        XCTAssertEqual(sk, .ok)
        // The client's own version (here 12) decides how its transmission and the response are read.
        let r = try await proxy.forward(.send(flags: MsgFlags(notification: true), body: Array("dh".utf8)), entityId: q.queue.senderId,
                                        key: senderKey, version: 12)
        XCTAssertEqual(r, .ok)
        let got = await events.waitForMessages(1)
        XCTAssertEqual(got[0].body, Array("dh".utf8))
        // Too large for v10 (the limit of that version), fine for v18.
        let body = [UInt8](repeating: 1, count: SMPVersion.maxMessageLength(10) + 1)
        let tooLarge = try await proxy.forward(.send(flags: MsgFlags(notification: true), body: body), entityId: q.queue.senderId,
                                               key: senderKey, version: 10)
        XCTAssertEqual(tooLarge, .err(.largeMessage))
        await proxy.conn.close()
        await recipient.close()
        await relay.server.shutdown()
    }

    /// Bad RFWD bytes get the reference's ERR, and the proxy connection keeps working.
    func testMalformedForwardsGetTheReferenceErrors() async throws {
        let relay = try await TestRelay.start()
        let recipient = relay.client()
        let q = try await TestQueue.create(recipient)
        let proxy = try await EmulatedProxy(relay: relay)
        let send = SMPCommand.send(flags: MsgFlags(notification: false), body: [1, 2, 3])

        // Not sealed with the session secret: CRYPTO.
        let garbage = try await proxy.conn.command(.rfwd(encryptedTransmission: SecureRandom.bytes(200)))
        XCTAssertEqual(garbage, .err(.crypto))
        // Sealed with another secret: CRYPTO.
        let otherSecret = try await proxy.forward(batch: [1]) { fwd, corrId in
            try PrivateRouting.sealForwarded(fwd, sessionSecret: CryptoBoxKey(rawRepresentation: SecureRandom.bytes(32)), corrId: corrId)
        }
        XCTAssertEqual(otherSecret.rfwdResponse, .err(.crypto))
        // Sealed, but not a FwdTransmission inside: CMD SYNTAX.
        let notFwd = try await proxy.forward(batch: [1]) { _, corrId in
            try CryptoBox.seal(key: proxy.sessionSecret, nonce: corrId, plaintext: [5, 1, 2])
        }
        XCTAssertEqual(notFwd.rfwdResponse, .err(.cmd(.syntax)))
        // A forwarding key that is not X25519: CMD SYNTAX.
        let edKey = try await proxy.forward(batch: [1]) { fwd, corrId in
            let ed = try PrivateAuthKey.generate(.ed25519).publicKey.x509Encoded
            let plain = [UInt8(fwd.corrId.count)] + fwd.corrId + [0, 18] + [UInt8(ed.count)] + ed + fwd.encryptedTransmission
            return try CryptoBox.seal(key: proxy.sessionSecret, nonce: corrId, plaintext: plain)
        }
        XCTAssertEqual(edKey.rfwdResponse, .err(.cmd(.syntax)))
        // A client layer that does not open: CRYPTO.
        let tampered = try await proxy.forward(batch: [1]) { fwd, corrId in
            var f = fwd
            f.encryptedTransmission[20] ^= 1
            return try PrivateRouting.sealForwarded(f, sessionSecret: proxy.sessionSecret, corrId: corrId)
        }
        XCTAssertEqual(tampered.rfwdResponse, .err(.crypto))
        // Two transmissions in the client's batch: BLOCK for RFWD itself.
        let c1 = SecureRandom.bytes(24)
        let t1 = try proxy.senderTransmission(send, entityId: q.queue.senderId, key: nil, corrId: c1, version: SMPVersion.current)
        let two = try TransmissionBatch.batches([t1, t1])[0]
        let twoReply = try await proxy.forward(batch: two, clientCorrId: c1)
        XCTAssertEqual(twoReply.rfwdResponse, .err(.block))
        // A batch that does not parse: the client gets ERR BLOCK without corrId, inside RRES.
        let bad = try await proxy.forward(batch: [0])
        XCTAssertEqual(bad.innerMessage, .err(.block))
        XCTAssertEqual(bad.inner?.corrId, [])
        // Commands other than the sender's are refused inside RFWD.
        let r1 = try await proxy.forward(.ping, entityId: [])
        XCTAssertEqual(r1, .err(.cmd(.prohibited)))
        let r2 = try await proxy.forward(.sub, entityId: q.queue.recipientId, key: q.recipientKey)
        XCTAssertEqual(r2, .err(.cmd(.prohibited)))
        let r3 = try await proxy.forward(.rfwd(encryptedTransmission: [1]), entityId: [])
        XCTAssertEqual(r3, .err(.cmd(.prohibited)))
        // The usual checks still apply: unknown command, missing entity, unknown queue.
        let unknownCorr = SecureRandom.bytes(24)
        let unknown = try await proxy.forward(batch: try PrivateRouting.singleBatch(
            try RawTransmission(corrId: unknownCorr, entityId: [], body: Array("HELLO".utf8)).encoded(proxy.conn.params)), clientCorrId: unknownCorr)
        XCTAssertEqual(unknown.innerMessage, .err(.cmd(.unknown)))
        let r4 = try await proxy.forward(send, entityId: [])
        XCTAssertEqual(r4, .err(.cmd(.noEntity)))
        let r5 = try await proxy.forward(send, entityId: SecureRandom.bytes(24))
        XCTAssertEqual(r5, .err(.auth))
        // RFWD itself must come without authorization or entity.
        let withEntity = try await proxy.conn.command(.rfwd(encryptedTransmission: [1]), entityId: [1])
        XCTAssertEqual(withEntity, .err(.cmd(.hasAuth)))

        // After all that, forwarding and plain commands still work on the same connection.
        let r6 = try await proxy.forward(send, entityId: q.queue.senderId)
        XCTAssertEqual(r6, .ok)
        let pong = try await proxy.conn.command(.ping)
        XCTAssertEqual(pong, .pong)
        await proxy.conn.close()
        await recipient.close()
        await relay.server.shutdown()
    }
}
