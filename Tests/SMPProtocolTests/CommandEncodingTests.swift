import SimplexFoundation
import SMPProtocol
import XCTest

/// Commands and responses survive encode → decode, and bad bytes become the ERR the relay sends.
final class CommandEncodingTests: XCTestCase {
    let key = Array(repeating: UInt8(7), count: 44)

    func testCommandsRoundTrip() throws {
        let commands: [SMPCommand] = [
            .new(NewQueueRequest(recipientAuthKey: key, recipientDhKey: key, basicAuth: Array("pw".utf8), subscribe: true, senderCanSecure: true)),
            .new(NewQueueRequest(recipientAuthKey: key, recipientDhKey: key, basicAuth: nil, subscribe: false, senderCanSecure: false)),
            .sub, .key(senderKey: key), .nkey(notifierKey: key, recipientNtfDhKey: key), .ndel, .get,
            .ack(msgId: Array(repeating: 1, count: 24)), .off, .del, .que, .skey(senderKey: key),
            .send(flags: MsgFlags(notification: true), body: Array("hello world".utf8)),
            .send(flags: MsgFlags(notification: false), body: []),
            .ping, .nsub,
        ]
        for c in commands {
            XCTAssertEqual(try SMPCommand.smpDecode(try c.smpEncoded()), c, c.tag)
        }
    }

    func testWireFormatMatchesSpec() throws {
        XCTAssertEqual(try SMPCommand.ping.smpEncoded(), Array("PING".utf8))
        XCTAssertEqual(try SMPCommand.send(flags: MsgFlags(notification: true), body: Array("x".utf8)).smpEncoded(), Array("SEND T x".utf8))
        XCTAssertEqual(try SMPCommand.ack(msgId: [1, 2]).smpEncoded(), Array("ACK ".utf8) + [2, 1, 2])
        let new = SMPCommand.new(NewQueueRequest(recipientAuthKey: [9], recipientDhKey: [8], basicAuth: nil, subscribe: true, senderCanSecure: true))
        XCTAssertEqual(try new.smpEncoded(version: 9), Array("NEW ".utf8) + [1, 9, 1, 8] + Array("0ST".utf8))
        // Without a version: the newest form (v18).
        XCTAssertEqual(try new.smpEncoded(), Array("NEW ".utf8) + [1, 9, 1, 8] + Array("0S1M00".utf8))
        XCTAssertEqual(try BrokerMessage.err(.cmd(.syntax)).smpEncoded(), Array("ERR CMD SYNTAX".utf8))
        XCTAssertEqual(try BrokerMessage.err(.proxy(.broker(.transport(.handshake(.identity))))).smpEncoded(),
                       Array("ERR PROXY BROKER TRANSPORT HANDSHAKE IDENTITY".utf8))
    }

    func testReservedSendFlagsAreIgnored() throws {
        XCTAssertEqual(try SMPCommand.smpDecode(Array("SEND Tabc body".utf8)), .send(flags: MsgFlags(notification: true), body: Array("body".utf8)))
        // The reference skips everything up to the space, however long.
        XCTAssertEqual(try SMPCommand.smpDecode(Array("SEND Tabcdefgh body".utf8)), .send(flags: MsgFlags(notification: true), body: Array("body".utf8)))
    }

    func testResponsesRoundTrip() throws {
        let responses: [BrokerMessage] = [
            .ids(QueueIDs(recipientId: Array(repeating: 1, count: 24), senderId: Array(repeating: 2, count: 24), serverDhKey: key, queueMode: .messaging)),
            .msg(msgId: Array(repeating: 3, count: 24), encryptedBody: Array(repeating: 4, count: 100)),
            .nid(notifierId: [5], serverNtfDhKey: key),
            .nmsg(nonce: Array(repeating: 6, count: 24), encryptedMeta: [7, 8]),
            .end, .info(json: Array("{}".utf8)), .ok, .pong,
        ] + allErrors.map { .err($0) }
        for r in responses {
            XCTAssertEqual(try BrokerMessage.smpDecode(try r.smpEncoded()), r, r.tag)
        }
    }

    var allErrors: [ErrorType] {
        [.block, .session, .auth, .quota, .largeMessage, .noMessage, .internalError, .service, .crypto, .expired, .duplicate,
         .store("disk full"), .blocked(BlockingInfo(reason: .content, notice: .init(ttl: 10)))]
            + CommandError.allCases.map { .cmd($0) }
            + [.proxy(.basicAuth), .proxy(.noSession), .proxy(.proto(.auth)),
               .proxy(.broker(.response("bad"))), .proxy(.broker(.unexpected("x"))), .proxy(.broker(.network)),
               .proxy(.broker(.timeout)), .proxy(.broker(.host)), .proxy(.broker(.transport(.version)))]
            + [.transport(.block), .transport(.largeMessage), .transport(.session), .transport(.noAuth),
               .transport(.handshake(.parse)), .transport(.handshake(.badAuth))]
    }

    func testBadCommandsMapToTheirErrors() {
        let cases: [(String, ErrorType)] = [
            ("", .cmd(.unknown)), ("FOO", .cmd(.unknown)), ("NEW", .cmd(.syntax)), ("NEW ", .cmd(.syntax)),
            ("KEY", .cmd(.syntax)), ("ACK \u{5}ab", .cmd(.syntax)), ("SEND", .cmd(.syntax)), ("SEND ", .cmd(.syntax)),
            ("SEND X y", .cmd(.syntax)), ("NKEY \u{1}a", .cmd(.syntax)), ("PING extra", .cmd(.syntax)),
        ]
        for (input, expected) in cases {
            do {
                _ = try SMPCommand.smpDecode(Array(input.utf8))
                XCTFail("parsed \(input)")
            } catch let e as SMPProtocolError {
                XCTAssertEqual(e.errorType, expected, input)
            } catch is DecodingError {
                // Trailing bytes after a complete command: the relay answers CMD SYNTAX.
                XCTAssertEqual(expected, .cmd(.syntax), input)
            } catch {
                XCTFail("\(input): \(error)")
            }
        }
    }

    func testTransmissionEncodingAndAuthorizedBytes() throws {
        let t = RawTransmission(authorization: [1, 2], corrId: Array(repeating: 9, count: 24), entityId: [3], body: Array("SUB".utf8))
        let bytes = try t.smpEncoded()
        XCTAssertEqual(bytes, [2, 1, 2, 24] + Array(repeating: 9, count: 24) + [1, 3] + Array("SUB".utf8))
        XCTAssertEqual(try RawTransmission.smpDecode(bytes), t)
        // The session ID is covered by the authorization but not sent.
        XCTAssertEqual(try t.authorizedBytes(sessionId: [7, 7]), [2, 7, 7, 24] + Array(repeating: 9, count: 24) + [1, 3] + Array("SUB".utf8))
        XCTAssertThrowsError(try RawTransmission.smpDecode([0, 3, 1, 2, 3]))
        XCTAssertThrowsError(try RawTransmission.smpDecode([5, 1]))
    }

    func testRcvMessageBody() throws {
        let m = RcvMessageBody.message(timestamp: 1_700_000_000, flags: MsgFlags(notification: true), body: [1, 2, 3])
        XCTAssertEqual(try RcvMessageBody.smpDecode(try m.smpEncoded()), m)
        let q = RcvMessageBody.quotaExceeded(timestamp: 42)
        XCTAssertEqual(try q.smpEncoded(), Array("QUOTA ".utf8) + [0, 0, 0, 0, 0, 0, 0, 42])
        XCTAssertEqual(try RcvMessageBody.smpDecode(try q.smpEncoded()), q)
    }

    func testVersionRanges() {
        let ours = SMPVersion.supported
        XCTAssertEqual(ours.compatible(with: SMPVersionRange(min: 6, max: 8)!), 8)
        XCTAssertEqual(ours.compatible(with: SMPVersionRange(min: 9, max: 18)!), 18)
        XCTAssertEqual(ours.compatible(with: SMPVersionRange(min: 10, max: 20)!), 18)
        XCTAssertNil(ours.compatible(with: SMPVersionRange(min: 19, max: 20)!))
        XCTAssertNil(ours.compatible(with: SMPVersionRange(min: 1, max: 5)!))
        XCTAssertNil(SMPVersionRange(min: 3, max: 2))
    }
}
