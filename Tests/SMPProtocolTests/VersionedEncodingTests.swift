import SimplexFoundation
import SMPProtocol
import XCTest

/// Fixtures for every command and response at SMP v6, v7, v9, v15 and v18.
///
/// The expected bytes are derived by hand from simplexmq 6.5.5.0's encoders
/// (`Simplex.Messaging.Protocol`: `encodeProtocol v` for `Command p` and `BrokerMsg`,
/// `tEncode`/`encodeTransmission`/`batchTransmissions_`), with the `Encoding` instances of
/// `Simplex.Messaging.Encoding`: ByteString = 1-byte length + bytes, `Large` = 2-byte length,
/// `Maybe` = '0' | '1' value, Bool = 'T'/'F', Int64 = 8 bytes big-endian, `Tail` = raw bytes.
/// Keys are stand-in byte strings (the encoders do not look inside them).
final class VersionedEncodingTests: XCTestCase {
    let versions: [UInt16] = [6, 7, 9, 15, 18]
    let k: [UInt8] = [0xA1, 0xA2, 0xA3]  // an auth key's DER stand-in
    let dh: [UInt8] = [0xD1, 0xD2]  // a DH key's DER stand-in
    let id24 = [UInt8](repeating: 0x11, count: 24)
    let id24b = [UInt8](repeating: 0x22, count: 24)

    func s(_ b: [UInt8]) -> [UInt8] { [UInt8(b.count)] + b }
    func s(_ t: String) -> [UInt8] { s(Array(t.utf8)) }
    func large(_ b: [UInt8]) -> [UInt8] { [UInt8(b.count >> 8), UInt8(b.count & 255)] + b }
    func a(_ t: String) -> [UInt8] { Array(t.utf8) }

    /// Checks `cmd` encodes to `bytes[v]` at each version and the bytes parse back to `parsed[v] ?? cmd`.
    func check(_ cmd: SMPCommand, _ bytes: (UInt16) -> [UInt8], parsed: (UInt16) -> SMPCommand? = { _ in nil },
               file: StaticString = #filePath, line: UInt = #line) throws {
        for v in versions {
            let want = bytes(v)
            XCTAssertEqual(try cmd.smpEncoded(version: v), want, "\(cmd.tag) v\(v)", file: file, line: line)
            XCTAssertEqual(try SMPCommand.parse(want, version: v), parsed(v) ?? cmd, "\(cmd.tag) parse v\(v)", file: file, line: line)
        }
    }

    func check(_ m: BrokerMessage, _ bytes: (UInt16) -> [UInt8], parsed: (UInt16) -> BrokerMessage? = { _ in nil },
               file: StaticString = #filePath, line: UInt = #line) throws {
        for v in versions {
            let want = bytes(v)
            XCTAssertEqual(try m.smpEncoded(version: v), want, "\(m.tag) v\(v)", file: file, line: line)
            XCTAssertEqual(try BrokerMessage.parse(want, version: v), parsed(v) ?? m, "\(m.tag) parse v\(v)", file: file, line: line)
        }
    }

    // MARK: commands

    func testNEWInEachVersionsLayout() throws {
        let plain = SMPCommand.new(NewQueueRequest(recipientAuthKey: k, recipientDhKey: dh, basicAuth: nil, subscribe: true, senderCanSecure: true))
        try check(plain, { v in
            let head = self.a("NEW ") + self.s(self.k) + self.s(self.dh)
            switch v {
            case ..<9: return head + self.a("S")  // no auth, subMode
            case ..<15: return head + self.a("0ST")  // Maybe auth, subMode, sndSecure
            case ..<17: return head + self.a("0S1M0")  // Maybe auth, subMode, Just (QRMessaging Nothing)
            default: return head + self.a("0S1M00")  // ... and no ntfCreds
            }
        }, parsed: { v in
            // v6-v8 carry no mode.
            v < 9 ? .new(NewQueueRequest(recipientAuthKey: self.k, recipientDhKey: self.dh, basicAuth: nil, subscribe: true, mode: nil, queueData: nil, ntfCreds: nil)) : nil
        })

        let authContact = SMPCommand.new(NewQueueRequest(recipientAuthKey: k, recipientDhKey: dh, basicAuth: a("pw"), subscribe: false, senderCanSecure: false))
        try check(authContact, { v in
            let head = self.a("NEW ") + self.s(self.k) + self.s(self.dh)
            switch v {
            case ..<9: return head + self.a("A") + self.s("pw") + self.a("C")  // 'A' basic auth
            case ..<15: return head + self.a("1") + self.s("pw") + self.a("CF")
            case ..<17: return head + self.a("1") + self.s("pw") + self.a("C1C0")
            default: return head + self.a("1") + self.s("pw") + self.a("C1C00")
            }
        }, parsed: { v in
            v < 9 ? .new(NewQueueRequest(recipientAuthKey: self.k, recipientDhKey: self.dh, basicAuth: self.a("pw"), subscribe: false, mode: nil, queueData: nil, ntfCreds: nil)) : nil
        })
    }

    func testNEWWithLinkDataAndNotifierCredentials() throws {
        let data = QueueLinkData(fixedData: [1, 2], userData: [3])
        let link = NewQueueRequest(recipientAuthKey: k, recipientDhKey: dh, basicAuth: nil, subscribe: true, mode: .contact,
                                   queueData: .contact(linkId: [7, 7], senderId: id24, data: data), ntfCreds: NewNtfCreds(notifierKey: [9], recipientNtfDhKey: [8]))
        let head = a("NEW ") + s(k) + s(dh) + a("0S")
        let qrd = a("1C1") + s([7, 7]) + s(id24) + large([1, 2]) + large([3])
        XCTAssertEqual(try SMPCommand.new(link).smpEncoded(version: 15), head + qrd)
        XCTAssertEqual(try SMPCommand.new(link).smpEncoded(version: 18), head + qrd + a("1") + s([9]) + s([8]))
        XCTAssertEqual(try SMPCommand.parse(head + qrd + a("1") + s([9]) + s([8]), version: 18), .new(link))
        // Before v15 the link data cannot be sent: the mode survives as the v9 flag.
        XCTAssertEqual(try SMPCommand.new(link).smpEncoded(version: 9), head + a("F"))
        let msgLink = NewQueueRequest(recipientAuthKey: k, recipientDhKey: dh, basicAuth: nil, subscribe: true, mode: .messaging,
                                      queueData: .messaging(senderId: id24, data: data), ntfCreds: nil)
        XCTAssertEqual(try SMPCommand.new(msgLink).smpEncoded(version: 15), head + a("1M1") + s(id24) + large([1, 2]) + large([3]))
    }

    func testCommandsWithTheSameFormAtEveryVersion() throws {
        let same: [(SMPCommand, [UInt8])] = [
            (.sub, a("SUB")),
            (.subs, a("SUBS")),
            (.key(senderKey: k), a("KEY ") + s(k)),
            (.rkey(recipientKeys: [k, dh]), a("RKEY ") + [2] + s(k) + s(dh)),
            (.nkey(notifierKey: k, recipientNtfDhKey: dh), a("NKEY ") + s(k) + s(dh)),
            (.ndel, a("NDEL")),
            (.get, a("GET")),
            (.ack(msgId: id24), a("ACK ") + s(id24)),
            (.off, a("OFF")),
            (.del, a("DEL")),
            (.que, a("QUE")),
            (.skey(senderKey: k), a("SKEY ") + s(k)),
            (.send(flags: MsgFlags(notification: true), body: a("hello")), a("SEND T hello")),
            (.send(flags: MsgFlags(notification: false), body: []), a("SEND F ")),
            (.ping, a("PING")),
            (.nsub, a("NSUB")),
            (.nsubs, a("NSUBS")),
            (.lset(linkId: [5], data: QueueLinkData(fixedData: [1], userData: [])), a("LSET ") + s([5]) + large([1]) + large([])),
            (.ldel, a("LDEL")),
            (.lkey(senderKey: k), a("LKEY ") + s(k)),
            (.lget, a("LGET")),
            (.pfwd(version: 17, publicKey: dh, encryptedTransmission: [1, 2]), a("PFWD ") + [0, 17] + s(dh) + [1, 2]),
            (.rfwd(encryptedTransmission: [3, 4]), a("RFWD ") + [3, 4]),
        ]
        for (c, bytes) in same { try check(c, { _ in bytes }) }
    }

    func testReferenceParserRules() throws {
        // Flags after the notification flag are skipped up to the space (no limit in the reference).
        XCTAssertEqual(try SMPCommand.parse(a("SEND Tabcdefghij body"), version: 18), .send(flags: MsgFlags(notification: true), body: a("body")))
        // Parameters must parse to the end; the tag is everything before the first space.
        for (input, e) in [("SUB ", CommandError.syntax), ("SUB x", .syntax), ("OK", .unknown), ("", .unknown), ("NEW", .syntax), ("PINGPONG", .unknown)] {
            XCTAssertThrowsError(try SMPCommand.parse(a(input), version: 18), input) { XCTAssertEqual(($0 as? SMPProtocolError)?.errorType, .cmd(e), input) }
        }
        // A v9 NEW read at v6 has bytes left over: SYNTAX, as the reference.
        XCTAssertThrowsError(try SMPCommand.parse(a("NEW ") + s(k) + s(dh) + a("0ST"), version: 6))
    }

    // MARK: responses

    func testIDSInEachVersionsLayout() throws {
        let q = QueueIDs(recipientId: id24, senderId: id24b, serverDhKey: dh, queueMode: .messaging)
        try check(.ids(q), { v in
            let head = self.a("IDS ") + self.s(self.id24) + self.s(self.id24b) + self.s(self.dh)
            switch v {
            case ..<9: return head
            case ..<15: return head + self.a("T")
            case ..<16: return head + self.a("1M0")  // Just QMMessaging, no link ID
            case ..<17: return head + self.a("1M00")  // ... no service ID
            default: return head + self.a("1M000")  // ... no notifier credentials
            }
        }, parsed: { v in
            v < 9 ? .ids(QueueIDs(recipientId: self.id24, senderId: self.id24b, serverDhKey: self.dh, queueMode: nil)) : nil
        })
        let full = QueueIDs(recipientId: id24, senderId: id24b, serverDhKey: dh, queueMode: .contact, linkId: [4, 4],
                            serviceId: [6], serverNtfCreds: ServerNtfCreds(notifierId: [8], serverNtfDhKey: [9]))
        let head = a("IDS ") + s(id24) + s(id24b) + s(dh)
        XCTAssertEqual(try BrokerMessage.ids(full).smpEncoded(version: 9), head + a("F"))
        XCTAssertEqual(try BrokerMessage.ids(full).smpEncoded(version: 15), head + a("1C1") + s([4, 4]))
        XCTAssertEqual(try BrokerMessage.ids(full).smpEncoded(version: 16), head + a("1C1") + s([4, 4]) + a("1") + s([6]))
        let v18 = head + a("1C1") + s([4, 4]) + a("1") + s([6]) + a("1") + s([8]) + s([9])
        XCTAssertEqual(try BrokerMessage.ids(full).smpEncoded(version: 18), v18)
        XCTAssertEqual(try BrokerMessage.parse(v18, version: 18), .ids(full))
    }

    func testResponsesThatChangeWithTheVersion() throws {
        // SOK is OK before v16 (SUB and NSUB answers).
        try check(.sok(serviceId: nil), { v in v < 16 ? self.a("OK") : self.a("SOK 0") }, parsed: { v in v < 16 ? .ok : nil })
        // DELD is END before v10.
        try check(.deld, { v in v < 10 ? self.a("END") : self.a("DELD") }, parsed: { v in v < 10 ? .end : nil })
        // BLOCKED is AUTH before v12 and loses its notice before v18.
        let blocked = BrokerMessage.err(.blocked(BlockingInfo(reason: .spam, notice: .init(ttl: 3600))))
        try check(blocked, { v in
            switch v {
            case ..<12: return self.a("ERR AUTH")
            case ..<18: return self.a("ERR BLOCKED reason=spam")
            default: return self.a("ERR BLOCKED reason=spam,notice={\"ttl\":3600}")
            }
        }, parsed: { v in
            switch v {
            case ..<12: return .err(.auth)
            case ..<18: return .err(.blocked(BlockingInfo(reason: .spam)))
            default: return nil
            }
        })
        XCTAssertEqual(try BrokerMessage.err(.blocked(BlockingInfo(reason: .content, notice: .init(ttl: nil)))).smpEncoded(version: 18),
                       a("ERR BLOCKED reason=content,notice={}"))
    }

    func testResponsesWithTheSameFormAtEveryVersion() throws {
        let nonce = [UInt8](repeating: 0x33, count: 24)
        let same: [(BrokerMessage, [UInt8])] = [
            (.lnk(senderId: id24, data: QueueLinkData(fixedData: [1], userData: [2, 3])), a("LNK ") + s(id24) + large([1]) + large([2, 3])),
            (.soks(5), a("SOKS ") + [0, 0, 0, 0, 0, 0, 0, 5]),
            (.msg(msgId: id24, encryptedBody: [9, 9, 9]), a("MSG ") + s(id24) + [9, 9, 9]),
            (.nid(notifierId: id24, serverNtfDhKey: dh), a("NID ") + s(id24) + s(dh)),
            (.nmsg(nonce: nonce, encryptedMeta: [1, 2, 3]), a("NMSG ") + nonce + s([1, 2, 3])),
            (.pkey(sessionId: [1, 2], versions: SMPVersionRange(min: 6, max: 17)!, certChainPubKey: [7]), a("PKEY ") + s([1, 2]) + [0, 6, 0, 17, 7]),
            (.rres(encrypted: [4]), a("RRES ") + [4]),
            (.pres(encrypted: [5]), a("PRES ") + [5]),
            (.end, a("END")),
            (.ends(2), a("ENDS ") + [0, 0, 0, 0, 0, 0, 0, 2]),
            (.info(json: a("{\"qiSnd\":false}")), a("INFO {\"qiSnd\":false}")),
            (.ok, a("OK")),
            (.pong, a("PONG")),
        ]
        for (m, bytes) in same { try check(m, { _ in bytes }) }
    }

    func testEveryErrorType() throws {
        let errors: [(ErrorType, String)] = [
            (.block, "BLOCK"), (.session, "SESSION"), (.auth, "AUTH"), (.service, "SERVICE"), (.crypto, "CRYPTO"),
            (.quota, "QUOTA"), (.store("db error"), "STORE db error"), (.largeMessage, "LARGE_MSG"), (.expired, "EXPIRED"),
            (.noMessage, "NO_MSG"), (.internalError, "INTERNAL"), (.duplicate, "DUPLICATE_"),
            (.cmd(.unknown), "CMD UNKNOWN"), (.cmd(.syntax), "CMD SYNTAX"), (.cmd(.prohibited), "CMD PROHIBITED"),
            (.cmd(.noAuth), "CMD NO_AUTH"), (.cmd(.hasAuth), "CMD HAS_AUTH"), (.cmd(.noEntity), "CMD NO_ENTITY"),
            (.proxy(.basicAuth), "PROXY BASIC_AUTH"), (.proxy(.noSession), "PROXY NO_SESSION"),
            (.proxy(.proto(.auth)), "PROXY PROTOCOL AUTH"),
            (.proxy(.broker(.network)), "PROXY BROKER NETWORK"), (.proxy(.broker(.timeout)), "PROXY BROKER TIMEOUT"),
            (.proxy(.broker(.host)), "PROXY BROKER HOST"), (.proxy(.broker(.noService)), "PROXY BROKER NO_SERVICE"),
            (.proxy(.broker(.transport(.version))), "PROXY BROKER TRANSPORT VERSION"),
            (.proxy(.broker(.transport(.handshake(.badService)))), "PROXY BROKER TRANSPORT HANDSHAKE BAD_SERVICE"),
        ]
        for (e, text) in errors {
            try check(.err(e), { _ in self.a("ERR " + text) })
        }
        // RESPONSE/UNEXPECTED carry a length-prefixed string.
        try check(.err(.proxy(.broker(.response("bad")))), { _ in self.a("ERR PROXY BROKER RESPONSE ") + self.s("bad") })
        // Older names and newer details the reference also reads.
        XCTAssertEqual(try BrokerMessage.parse(a("ERR CMD NO_QUEUE"), version: 18), .err(.cmd(.noEntity)))
        XCTAssertEqual(try BrokerMessage.parse(a("ERR PROXY BROKER NETWORK FAILED"), version: 18), .err(.proxy(.broker(.network))))
    }

    // MARK: transmissions and blocks

    func testTransmissionFramingPerVersion() throws {
        let session = [UInt8](repeating: 0x5E, count: 32)
        let corr = [UInt8](repeating: 0xC0, count: 24)
        let sig = [UInt8](repeating: 0x51, count: 64)
        let t = RawTransmission(authorization: sig, corrId: corr, entityId: id24, body: a("SUB"))
        let core = s(corr) + s(id24) + a("SUB")
        // v6: the session ID is sent; v7: implied; v16: a service-signature field ('0') follows the authorization.
        XCTAssertEqual(try t.encoded(TransmissionParams(sessionId: session, version: 6)), s(sig) + s(session) + core)
        XCTAssertEqual(try t.encoded(TransmissionParams(sessionId: session, version: 7)), s(sig) + core)
        XCTAssertEqual(try t.encoded(TransmissionParams(sessionId: session, version: 15)), s(sig) + core)
        XCTAssertEqual(try t.encoded(TransmissionParams(sessionId: session, version: 16)), s(sig) + a("0") + core)
        XCTAssertEqual(try t.encoded(TransmissionParams(sessionId: session, version: 18)), s(sig) + a("0") + core)
        // No authorization: no service field at any version.
        let unsigned = RawTransmission(corrId: corr, entityId: [], body: a("PING"))
        XCTAssertEqual(try unsigned.encoded(TransmissionParams(sessionId: session, version: 18)), [0] + s(corr) + [0] + a("PING"))
        // The authorization covers the session ID at every version.
        XCTAssertEqual(try t.authorizedBytes(sessionId: session), s(session) + core)

        for v in versions {
            let p = TransmissionParams(sessionId: session, version: v)
            let parsed = try RawTransmission.parse(try t.encoded(p), p)
            XCTAssertEqual(parsed.transmission, t, "v\(v)")
            XCTAssertEqual(parsed.authorization, .ed25519Signature(sig))
            XCTAssertEqual(parsed.authorized, s(session) + core)
        }
    }

    func testServerSideTransmissionErrors() throws {
        let session = [UInt8](repeating: 0x5E, count: 32)
        let corr = [UInt8](repeating: 0xC0, count: 24)
        let p6 = TransmissionParams(sessionId: session, version: 6)
        let p18 = TransmissionParams(sessionId: session, version: 18)
        func failure(_ bytes: [UInt8], _ p: TransmissionParams) -> RawTransmission.ParseFailure? {
            do {
                _ = try RawTransmission.parse(bytes, p)
                return nil
            } catch {
                return error
            }
        }
        // Another session ID below v7: SESSION with the corrId.
        XCTAssertEqual(failure([0] + s([1, 2]) + s(corr) + [0] + a("PING"), p6), .init(corrId: corr, error: .session))
        // Authorization sizes: 64, 114 and 80 are keys' sizes; any other is BLOCK with the corrId.
        for n in [1, 32, 63, 65, 79, 81, 113, 115, 200] {
            XCTAssertEqual(failure(s([UInt8](repeating: 1, count: n)) + a("0") + s(corr) + [0] + a("SUB"), p18), .init(corrId: corr, error: .block), "\(n)")
        }
        XCTAssertNil(failure(s([UInt8](repeating: 1, count: 80)) + a("0") + s(corr) + [0] + a("SUB"), p18))
        XCTAssertNil(failure(s([UInt8](repeating: 1, count: 114)) + a("0") + s(corr) + [0] + a("SUB"), p18))
        // Framing that does not parse: BLOCK without corrId.
        XCTAssertEqual(failure([5, 1], p18), .init(corrId: [], error: .block))
        XCTAssertEqual(failure(s([UInt8](repeating: 1, count: 64)) + a("X") + s(corr), p18), .init(corrId: [], error: .block))
    }

    func testBatchedBlock() throws {
        let corr = [UInt8](repeating: 0xC0, count: 24)
        let p = TransmissionParams(sessionId: [], version: 18)
        let ts = try (0..<3).map { i in try RawTransmission(corrId: corr, entityId: [UInt8(i)], body: a("SUB")).encoded(p) }
        let batches = try TransmissionBatch.batches(ts)
        XCTAssertEqual(batches, [[3] + ts.flatMap(large)])
        let block = try TransmissionBatch.blocks(ts)[0]
        XCTAssertEqual(block.count, 16384)
        XCTAssertEqual(Array(block.prefix(2)), [UInt8(batches[0].count >> 8), UInt8(batches[0].count & 255)])
        XCTAssertEqual(try TransmissionBatch.split(block: block), ts)
        // 16365 bytes of Large transmissions fit one block (19 bytes kept for padding length, count and the v11 tag).
        let oneFull = [UInt8](repeating: 1, count: TransmissionBatch.capacity - 2)
        XCTAssertEqual(try TransmissionBatch.batches([oneFull]).count, 1)
        XCTAssertThrowsError(try TransmissionBatch.batches([oneFull + [1]]))
        XCTAssertEqual(try TransmissionBatch.batches([oneFull, [1]]).count, 2)
        // Blocks are built padded in place: the same bytes as padding each batch.
        for set in [ts, [oneFull, [1]], Array(repeating: [UInt8](repeating: 5, count: 3), count: 300)] {
            XCTAssertEqual(try TransmissionBatch.blocks(set), try TransmissionBatch.batches(set).map { try Padding.pad($0, to: 16384) })
        }
        // At most 255 transmissions per block.
        XCTAssertEqual(try TransmissionBatch.batches(Array(repeating: [1], count: 256)).map { $0.first }, [255, 1])
        // Trailing bytes or a zero count are bad blocks.
        XCTAssertThrowsError(try TransmissionBatch.split([1, 0, 1, 7, 9]))
        XCTAssertThrowsError(try TransmissionBatch.split([0]))
    }

    /// A padded block is read in place: its padded length bounds the transmissions, so one
    /// running into the padding, bytes left before the padding, an empty content or a padded
    /// length past the block are bad blocks, as when the content was copied out first.
    func testPaddedBlockBoundsTransmissions() throws {
        func block(_ content: [UInt8], length: Int? = nil) -> [UInt8] {
            let n = length ?? content.count
            var b = [UInt8(n >> 8), UInt8(n & 255)] + content
            b += [UInt8](repeating: UInt8(ascii: "#"), count: 16384 - b.count)
            return b
        }
        XCTAssertEqual(try TransmissionBatch.split(block: block([1, 0, 2, 7, 9])), [[7, 9]])
        // The transmission says 3 bytes; the content (padded length 5) holds 2, the padding the third.
        XCTAssertThrowsError(try TransmissionBatch.split(block: block([1, 0, 3, 7, 9])))
        // A byte left after the transmission, before the padding.
        XCTAssertThrowsError(try TransmissionBatch.split(block: block([1, 0, 1, 7, 9])))
        // The padded length cuts the transmission's own length field.
        XCTAssertThrowsError(try TransmissionBatch.split(block: block([1, 0, 2, 7, 9], length: 2)))
        XCTAssertThrowsError(try TransmissionBatch.split(block: block([], length: 0)))
        XCTAssertThrowsError(try TransmissionBatch.split(block: block([1, 0, 2, 7, 9], length: 16383)))
        XCTAssertThrowsError(try TransmissionBatch.split(block: [UInt8](repeating: 0, count: 100)))
    }

    func testMessageSizesPerVersion() {
        XCTAssertEqual(SMPVersion.maxMessageLength(6), 16088)
        XCTAssertEqual(SMPVersion.maxMessageLength(7), 16088)
        XCTAssertEqual(SMPVersion.maxMessageLength(8), 16064)
        XCTAssertEqual(SMPVersion.maxMessageLength(10), 16064)
        XCTAssertEqual(SMPVersion.maxMessageLength(11), 16048)
        XCTAssertEqual(SMPVersion.maxMessageLength(18), 16048)
        XCTAssertEqual(SMPVersion.supported, SMPVersionRange(min: 6, max: 18))
    }
}
