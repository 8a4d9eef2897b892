import DoubleRatchet
import SMPTransport
import SimplexFoundation
import Testing

@testable import SMPAgent

// MARK: - fixtures

enum WireFixtures {
    static let keyHash = [UInt8](0..<32)
    static let senderId = [UInt8](100..<124)

    static func server(_ hosts: [String] = ["a.example.com", "b.onion"], port: Int? = 5224) throws -> SMPServerAddress {
        try SMPServerAddress(keyHash: keyHash, hosts: hosts, port: port)
    }

    static func dhKey() -> X25519PublicKey { X25519PrivateKey().publicKey }

    /// A queue info with the mode its version can carry: "T" from version 3, "M"/"C" from 4.
    static func info(_ version: UInt16, secure: Bool, hosts: [String] = ["a.example.com", "b.onion"]) throws -> SMPQueueInfo {
        let mode: QueueMode? = secure && version >= 3 ? .messaging : (!secure && version >= 4 ? .contact : nil)
        return SMPQueueInfo(clientVersion: version, server: try server(hosts), senderId: senderId, dhPublicKey: dhKey(), queueMode: mode)
    }

    static func sndQ(_ hosts: [String] = ["a.example.com", "b.onion"]) throws -> SndQAddr {
        SndQAddr(server: try server(hosts), senderId: SecureRandom.bytes(24))
    }

    /// A queue URI (versions 1-4) that is a messaging queue, or one without a mode.
    static func queueURI(secure: Bool = true) throws -> SMPQueueURI {
        SMPQueueURI(server: try server(), senderId: SecureRandom.bytes(24), dhPublicKey: dhKey(), queueMode: secure ? .messaging : nil)
    }

    static func e2eParams(pq: Bool) throws -> E2ERatchetParams {
        try PQRatchet.generateReceiverParams(pqSupport: pq).publicParams
    }

    static func acceptedParams() throws -> E2ERatchetParams {
        try PQRatchet.generateSenderParams(replyingTo: e2eParams(pq: true)).publicParams
    }

    static func invitationLink() throws -> ConnectionRequestURI {
        try ConnectionRequestURI(
            mode: .invitation, scheme: .simplex, queues: [queueURI(), queueURI(secure: false)],
            e2eParams: E2ERatchetParamsURI(e2eParams(pq: true)), clientData: "{\"x\":1}")
    }

    static func receipt(_ id: Int64) -> AMessageReceipt {
        AMessageReceipt(agentMsgId: id, msgHash: SecureRandom.bytes(32), rcptInfo: SecureRandom.bytes(300))
    }

    static func allAMessages() throws -> [AMessage] {
        [
            .hello,
            .aMsg([]),
            .aMsg(SecureRandom.bytes(1000)),
            .aRcvd([receipt(1)]),
            .aRcvd([receipt(2), receipt(Int64.max), AMessageReceipt(agentMsgId: -5, msgHash: [], rcptInfo: [])]),
            .aQcont(try sndQ()),
            .qAdd([
                QueueAddition(queue: try queueURI(), replaces: try sndQ()),
                QueueAddition(queue: try queueURI(secure: false), replaces: nil),
            ]),
            .qKey([
                QueueSenderKey(queue: try info(3, secure: true), senderKey: .ed25519(Ed25519PrivateKey().publicKey)),
                QueueSenderKey(queue: try info(2, secure: false), senderKey: .ed448(Ed448PrivateKey().publicKey)),
                QueueSenderKey(queue: try info(1, secure: false, hosts: ["c.example.com"]), senderKey: .x25519(dhKey())),
            ]),
            .qUse([QueueUse(queue: try sndQ(), primary: true), QueueUse(queue: try sndQ(["[::1]"]), primary: false)]),
            .qTest([try sndQ(), try sndQ(["1.2.3.4"])]),
            .eReady(0),
            .eReady(-1),
            .eReady(Int64.max),
        ]
    }

    static func allAgentMessages() throws -> [AgentMessage] {
        let header = APrivHeader(sndMsgId: 42, prevMsgHash: SecureRandom.bytes(32))
        return [
            .connInfo([]),
            .connInfo(Array("{\"profile\":\"alice\"}".utf8)),
            .connInfoReply(queues: [try info(3, secure: true)], info: Array("{}".utf8)),
            .connInfoReply(queues: [try info(2, secure: false), try info(3, secure: false), try info(3, secure: true)], info: Array("T{}".utf8)),
            .ratchetInfo(SecureRandom.bytes(10)),
        ] + (try allAMessages()).map { .message(header, $0) }
    }

    static func allEnvelopes() throws -> [AgentMsgEnvelope] {
        [
            .confirmation(agentVersion: 7, e2eParams: try acceptedParams(), encConnInfo: SecureRandom.bytes(500)),
            .confirmation(agentVersion: 7, e2eParams: try e2eParams(pq: false), encConnInfo: SecureRandom.bytes(20)),
            .confirmation(agentVersion: 7, e2eParams: nil, encConnInfo: SecureRandom.bytes(100)),
            .message(agentVersion: 7, encAgentMessage: SecureRandom.bytes(200)),
            .message(agentVersion: 1, encAgentMessage: []),
            .invitation(agentVersion: 7, connReq: try invitationLink(), connInfo: Array("{\"contact\":true}".utf8)),
            .ratchetKey(agentVersion: 7, e2eParams: try e2eParams(pq: true), info: SecureRandom.bytes(30)),
            .ratchetKey(agentVersion: 7, e2eParams: try PQRatchet.generateReceiverParams(version: 2).publicParams, info: []),
        ]
    }
}

/// Encodes, decodes, and checks that no prefix and no extension decodes to the same value.
func checkRoundTrip<T: SMPEncodable & SMPDecodable & Equatable>(_ v: T, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let b = try v.smpEncoded()
    #expect(try T.smpDecode(b) == v, sourceLocation: sourceLocation)
    for n in 0..<b.count {
        #expect((try? T.smpDecode(b[0..<n])) != v, "prefix \(n) of \(b.count)", sourceLocation: sourceLocation)
    }
    for extra: UInt8 in [0, 0x30, 0x31, 0x54, 0xFF] {
        #expect((try? T.smpDecode(b + [extra])) != v, sourceLocation: sourceLocation)
    }
}

// MARK: - exact encodings

@Suite struct WireEncodingTests {
    @Test func serverAndQueueInfoBytes() throws {
        let srv = try WireFixtures.server()
        let srvBytes: [UInt8] =
            [2, 13] + Array("a.example.com".utf8) + [7] + Array("b.onion".utf8) + [4] + Array("5224".utf8) + [32] + WireFixtures.keyHash
        #expect(try srv.smpEncoded() == srvBytes)
        #expect(try SMPServerAddress.smpDecode(srvBytes) == srv)
        let noPort = try WireFixtures.server(["h.com"], port: nil)
        #expect(try noPort.smpEncoded() == [1, 5] + Array("h.com".utf8) + [0, 32] + WireFixtures.keyHash)
        let v6 = try WireFixtures.server(["[::1]"], port: nil)
        #expect(try v6.smpEncoded() == [1, 3] + Array("::1".utf8) + [0, 32] + WireFixtures.keyHash)
        #expect(try SMPServerAddress.smpDecode(v6.smpEncoded()) == v6)

        let info = try WireFixtures.info(3, secure: true)
        let dh = info.dhPublicKey.x509Encoded
        #expect(try info.smpEncoded() == [0, 3] + srvBytes + [24] + WireFixtures.senderId + [44] + dh + [UInt8(ascii: "T")])
        let info2 = SMPQueueInfo(clientVersion: 2, server: srv, senderId: info.senderId, dhPublicKey: info.dhPublicKey, queueMode: nil)
        #expect(try info2.smpEncoded() == [0, 2] + srvBytes + [24] + WireFixtures.senderId + [44] + dh)
        // Version 1: one host, no count byte.
        let info1 = SMPQueueInfo(clientVersion: 1, server: noPort, senderId: info.senderId, dhPublicKey: info.dhPublicKey, senderCanSecure: false)
        #expect(try info1.smpEncoded() == [0, 1, 5] + Array("h.com".utf8) + [0, 32] + WireFixtures.keyHash + [24] + WireFixtures.senderId + [44] + dh)
        // simplexmq's queue mode bytes after the address are read too.
        for (tail, secure) in [(UInt8(ascii: "M"), true), (UInt8(ascii: "C"), false), (UInt8(ascii: "F"), false)] {
            #expect(try SMPQueueInfo.smpDecode(try info2.smpEncoded() + [tail]).senderCanSecure == secure)
        }
        let list = try SMPQueueInfo.encodeList([info, info2])
        #expect(list.first == 2)
        #expect(try SMPQueueInfo.decodeList(list) == [info, info2])
        #expect(throws: (any Error).self) { try SMPQueueInfo.decodeList([0]) }
        #expect(throws: (any Error).self) { try SMPQueueInfo.encodeList([]) }
    }

    @Test func queueURIBytes() throws {
        let q = try WireFixtures.queueURI(secure: true)
        let srv = try q.server.smpEncoded()
        #expect(try q.smpEncoded() == [0, 1, 0, 4] + srv + [24] + q.senderId + [44] + q.dhPublicKey.x509Encoded + [UInt8(ascii: "T")])
        let q2 = try WireFixtures.queueURI(secure: false)
        // Min version 1: no flag when false (compared whole: the key's last byte may be "F").
        #expect(try q2.smpEncoded() == [0, 1, 0, 4] + (try q2.server.smpEncoded()) + [24] + q2.senderId + [44] + q2.dhPublicKey.x509Encoded)
    }

    @Test func headersAndSmallMessages() throws {
        let dh = WireFixtures.dhKey()
        #expect(try PubHeader(clientVersion: 3, senderDhKey: nil).smpEncoded() == [0, 3, UInt8(ascii: "0")])
        #expect(try PubHeader(clientVersion: 3, senderDhKey: dh).smpEncoded() == [0, 3, UInt8(ascii: "1"), 44] + dh.x509Encoded)
        #expect(try PrivHeader.empty.smpEncoded() == [UInt8(ascii: "_")])
        let ed = Ed25519PrivateKey().publicKey
        #expect(try PrivHeader.senderKey(.ed25519(ed)).smpEncoded() == [UInt8(ascii: "K"), 44] + ed.x509Encoded)
        #expect(try ClientMessage(privHeader: .empty, body: [1, 2]).smpEncoded() == [UInt8(ascii: "_"), 1, 2])

        #expect(try AMessage.hello.smpEncoded() == Array("H".utf8))
        #expect(try AMessage.aMsg([9]).smpEncoded() == Array("M".utf8) + [9])
        #expect(try AMessage.eReady(258).smpEncoded() == Array("E".utf8) + [0, 0, 0, 0, 0, 0, 1, 2])
        let addr = SndQAddr(server: try WireFixtures.server(["h.com"], port: nil), senderId: [7, 7])
        let addrBytes = [1, 5] + Array("h.com".utf8) + [0, 32] + WireFixtures.keyHash + [2, 7, 7]
        #expect(try AMessage.aQcont(addr).smpEncoded() == Array("QC".utf8) + addrBytes)
        #expect(try AMessage.qTest([addr, addr]).smpEncoded() == Array("QT".utf8) + [2] + addrBytes + addrBytes)
        #expect(try AMessage.qUse([QueueUse(queue: addr, primary: true)]).smpEncoded() == Array("QU".utf8) + [1] + addrBytes + Array("T".utf8))
        let r = AMessageReceipt(agentMsgId: 1, msgHash: [5, 6], rcptInfo: [1, 2, 3])
        #expect(try AMessage.aRcvd([r]).smpEncoded() == Array("V".utf8) + [1, 0, 0, 0, 0, 0, 0, 0, 1, 2, 5, 6, 0, 3, 1, 2, 3])
        #expect(throws: (any Error).self) { try AMessage.aRcvd([]).smpEncoded() }
        #expect(throws: (any Error).self) { try AMessage.qTest(Array(repeating: addr, count: 256)).smpEncoded() }

        let h = APrivHeader(sndMsgId: 258, prevMsgHash: [1, 2])
        #expect(try h.smpEncoded() == [0, 0, 0, 0, 0, 0, 1, 2, 2, 1, 2])
        #expect(try AgentMessage.message(h, .hello).smpEncoded() == Array("M".utf8) + [0, 0, 0, 0, 0, 0, 1, 2, 2, 1, 2] + Array("H".utf8))
        #expect(try AgentMessage.connInfo([9]).smpEncoded() == Array("I".utf8) + [9])
        #expect(try AgentMessage.ratchetInfo([9]).smpEncoded() == Array("R".utf8) + [9])
        #expect(try AgentMsgEnvelope.message(agentVersion: 7, encAgentMessage: [1, 2, 3]).smpEncoded() == [0, 7, UInt8(ascii: "M"), 1, 2, 3])
        #expect(try AgentMsgEnvelope.confirmation(agentVersion: 7, e2eParams: nil, encConnInfo: [4]).smpEncoded() == [0, 7, UInt8(ascii: "C"), UInt8(ascii: "0"), 4])
        let p = try WireFixtures.e2eParams(pq: false)
        #expect(try AgentMsgEnvelope.ratchetKey(agentVersion: 7, e2eParams: p, info: [4]).smpEncoded() == [0, 7, UInt8(ascii: "R")] + p.encoded() + [4])
        let link = try WireFixtures.invitationLink()
        let text = Array(link.uriString.utf8)
        #expect(
            try AgentMsgEnvelope.invitation(agentVersion: 7, connReq: link, connInfo: [4]).smpEncoded()
                == [0, 7, UInt8(ascii: "I"), UInt8(text.count >> 8), UInt8(text.count & 255)] + text + [4])
    }
}

// MARK: - round trips

@Suite struct WireRoundTripTests {
    @Test func aMessages() throws {
        for m in try WireFixtures.allAMessages() { try checkRoundTrip(m) }
        try checkRoundTrip(APrivHeader(sndMsgId: -1, prevMsgHash: []))
        try checkRoundTrip(WireFixtures.receipt(3))
        try checkRoundTrip(try WireFixtures.sndQ())
    }

    @Test func agentMessages() throws {
        for m in try WireFixtures.allAgentMessages() { try checkRoundTrip(m) }
    }

    @Test func envelopes() throws {
        for e in try WireFixtures.allEnvelopes() {
            try checkRoundTrip(e)
            #expect(try AgentMsgEnvelope.decode(e.smpEncoded()) == e)
        }
    }

    @Test func queueTypes() throws {
        for v: UInt16 in [2, 3, 4] {
            for secure in [false, true] where secure == false || v >= 3 {
                try checkRoundTrip(try WireFixtures.info(v, secure: secure))
            }
        }
        try checkRoundTrip(try WireFixtures.info(1, secure: false, hosts: ["one.example.com"]))
        try checkRoundTrip(try WireFixtures.queueURI(secure: true))
        try checkRoundTrip(try WireFixtures.queueURI(secure: false))
        try checkRoundTrip(try WireFixtures.server(["x.com", "[fe80::1]", "10.1.2.3"], port: 1))
    }

    @Test func clientLayer() throws {
        let dh = WireFixtures.dhKey()
        for header in [PubHeader(clientVersion: 3, senderDhKey: nil), PubHeader(clientVersion: 1, senderDhKey: dh)] {
            try checkRoundTrip(header)
            let env = try #require(ClientMsgEnvelope(pubHeader: header, nonce: SecureRandom.bytes(24), encryptedBody: SecureRandom.bytes(100)))
            try checkRoundTrip(env)
            #expect(try ClientMsgEnvelope.decode(env.smpEncoded()) == env)
        }
        #expect(ClientMsgEnvelope(pubHeader: PubHeader(clientVersion: 3, senderDhKey: nil), nonce: [1], encryptedBody: []) == nil)
        for priv in [PrivHeader.empty, .senderKey(.ed25519(Ed25519PrivateKey().publicKey)), .senderKey(.x25519(dh)), .senderKey(.ed448(Ed448PrivateKey().publicKey))] {
            try checkRoundTrip(priv)
            try checkRoundTrip(ClientMessage(privHeader: priv, body: SecureRandom.bytes(50)))
        }
    }

    @Test func refusedValues() throws {
        // An X448 key is not an SMP auth key; an Ed25519 key is not a queue DH key.
        let x448 = X448PrivateKey().publicKey.x509Encoded
        #expect(throws: (any Error).self) { try PrivHeader.smpDecode([UInt8(ascii: "K"), UInt8(x448.count)] + x448) }
        let ed = Ed25519PrivateKey().publicKey.x509Encoded
        #expect(throws: (any Error).self) { try PubHeader.smpDecode([0, 3, UInt8(ascii: "1"), UInt8(ed.count)] + ed) }
        // A contact link inside an invitation envelope, and accepted KEM params in a ratchet key.
        let contact = try ConnectionRequestURI(mode: .contact, queues: [try WireFixtures.queueURI()], e2eParams: nil)
        let text = Array(contact.uriString.utf8)
        #expect(throws: (any Error).self) {
            try AgentMsgEnvelope.decode([0, 7, UInt8(ascii: "I"), UInt8(text.count >> 8), UInt8(text.count & 255)] + text)
        }
        let accepted = try WireFixtures.acceptedParams().encoded()
        #expect(throws: (any Error).self) { try AgentMsgEnvelope.decode([0, 7, UInt8(ascii: "R")] + accepted) }
        // Empty lists and bad tags.
        for bad: [UInt8] in [Array("V".utf8) + [0], Array("QT".utf8) + [0], Array("QX".utf8), Array("X".utf8), Array("Q".utf8), []] {
            #expect(throws: DecodingError.self) { try AMessage.smpDecode(bad) }
        }
        for bad: [UInt8] in [[0, 7, UInt8(ascii: "X")], [0, 7], [0], [0, 7, UInt8(ascii: "C"), UInt8(ascii: "2")]] {
            #expect(throws: DecodingError.self) { try AgentMsgEnvelope.decode(bad) }
        }
        #expect(throws: DecodingError.self) { try AgentMessage.decode(Array("D".utf8) + [0]) }
        #expect(throws: DecodingError.self) { try AgentMessage.decode(Array("Z".utf8)) }
        #expect(throws: DecodingError.self) { try ClientMessage.decode(Array("X".utf8)) }
    }
}

// MARK: - garbage

@Suite struct WireGarbageTests {
    /// Every decoder on random and mutated input: an error or a value, never a trap.
    @Test func randomAndMutatedInput() throws {
        let decoders: [([UInt8]) -> Void] = [
            { _ = try? AgentMsgEnvelope.decode($0) },
            { _ = try? AgentMessage.decode($0) },
            { _ = try? AMessage.smpDecode($0) },
            { _ = try? ClientMsgEnvelope.decode($0) },
            { _ = try? ClientMessage.decode($0) },
            { _ = try? SMPQueueInfo.smpDecode($0) },
            { _ = try? SMPQueueInfo.decodeList($0) },
            { _ = try? SMPQueueURI.smpDecode($0) },
            { _ = try? SndQAddr.smpDecode($0) },
            { _ = try? AMessageReceipt.smpDecode($0) },
            { _ = try? QueueCrypto.open($0, recipientDhKey: X25519PrivateKey(), agreedKey: nil) },
        ]
        var rng = SystemRandomNumberGenerator()
        let tags = Array("CMIRDHVQAKUTE_K01TF".utf8) + [0, 1, 2, 3, 7, 24, 32, 44, 255]
        for _ in 0..<3000 {
            let n = Int.random(in: 0..<160, using: &rng)
            var b = (0..<n).map { _ in UInt8.random(in: 0...255, using: &rng) }
            // Bias the first bytes towards real tags, lengths and versions so decoders get deeper.
            for i in 0..<min(n, 4) where Bool.random(using: &rng) { b[i] = tags.randomElement(using: &rng)! }
            for d in decoders { d(b) }
        }
        let valid = try (WireFixtures.allEnvelopes().map { try $0.smpEncoded() })
            + (WireFixtures.allAgentMessages().map { try $0.smpEncoded() })
        for v in valid {
            for _ in 0..<40 {
                var b = v
                for _ in 0..<Int.random(in: 1...3, using: &rng) {
                    b[Int.random(in: 0..<b.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
                }
                if Bool.random(using: &rng) { b = Array(b.prefix(Int.random(in: 0...b.count, using: &rng))) }
                for d in decoders { d(b) }
            }
        }
    }
}

// MARK: - per-queue encryption

@Suite struct QueueCryptoTests {
    let recipient = X25519PrivateKey()
    let sender = X25519PrivateKey()

    var key: CryptoBoxKey { get throws { try CryptoBox.sharedKey(publicKey: recipient.publicKey, privateKey: sender) } }

    @Test func confirmationRoundTrip() throws {
        let msg = ClientMessage(privHeader: .senderKey(.ed25519(Ed25519PrivateKey().publicKey)), body: SecureRandom.bytes(1000))
        let sealed = try QueueCrypto.seal(msg, key: key, version: 3, senderDhKey: sender.publicKey)
        #expect(sealed.count == 2 + 1 + 45 + 24 + 16 + QueueCrypto.confirmationPaddedLength)
        #expect(sealed.count <= QueueCrypto.maxEnvelopeLength)
        let opened = try QueueCrypto.open(sealed, recipientDhKey: recipient, agreedKey: nil)
        let k = try key
        #expect(opened.message == msg && opened.key == k)
        #expect(opened.envelope.senderDhKey == sender.publicKey && opened.envelope.clientVersion == 3)
        // The closure form sees the header before choosing the key.
        let (env, m) = try QueueCrypto.open(sealed) { env in
            try CryptoBox.sharedKey(publicKey: #require(env.senderDhKey), privateKey: recipient)
        }
        #expect(m == msg && env.nonce.count == 24)
    }

    @Test func messageRoundTrip() throws {
        let msg = ClientMessage(privHeader: .empty, body: SecureRandom.bytes(3000))
        let sealed = try QueueCrypto.seal(msg, key: key, version: 3, senderDhKey: nil)
        #expect(sealed.count == 2 + 1 + 24 + 16 + QueueCrypto.messagePaddedLength)
        #expect(sealed.count <= QueueCrypto.maxEnvelopeLength)
        #expect(try QueueCrypto.open(sealed, recipientDhKey: recipient, agreedKey: key).message == msg)
        #expect(throws: QueueCryptoError.missingKey) { try QueueCrypto.open(sealed, recipientDhKey: recipient, agreedKey: nil) }
        // Two seals of the same message differ (random nonce).
        #expect(try QueueCrypto.seal(msg, key: key, version: 3, senderDhKey: nil) != sealed)
    }

    @Test func wrongKeyFails() throws {
        let msg = ClientMessage(privHeader: .empty, body: [1, 2, 3])
        let sealed = try QueueCrypto.seal(msg, key: key, version: 3, senderDhKey: nil)
        let other = try CryptoBox.sharedKey(publicKey: X25519PrivateKey().publicKey, privateKey: sender)
        #expect(throws: QueueCryptoError.crypto(.decryptionFailed)) {
            try QueueCrypto.open(sealed, recipientDhKey: recipient, agreedKey: other)
        }
        // A confirmation opened by another recipient.
        let conf = try QueueCrypto.seal(msg, key: key, version: 3, senderDhKey: sender.publicKey)
        #expect(throws: QueueCryptoError.crypto(.decryptionFailed)) {
            try QueueCrypto.open(conf, recipientDhKey: X25519PrivateKey(), agreedKey: nil)
        }
        // Tampering with the ciphertext.
        var bad = sealed
        bad[bad.count - 5] ^= 1
        #expect(throws: QueueCryptoError.crypto(.decryptionFailed)) { try QueueCrypto.open(bad, recipientDhKey: recipient, agreedKey: key) }
        // The closure's own error comes through unchanged.
        struct NoKey: Error {}
        #expect(throws: NoKey.self) { _ = try QueueCrypto.open(sealed) { _ in throw NoKey() } }
        // Truncated envelopes.
        for n in [0, 1, 2, 3, 20, 27, 28, 100, sealed.count - 1] {
            #expect(throws: QueueCryptoError.self) { try QueueCrypto.open(Array(sealed.prefix(n)), recipientDhKey: recipient, agreedKey: key) }
        }
    }

    @Test func sizeLimits() throws {
        for withDh in [false, true] {
            let limit = QueueCrypto.maxClientMessageLength(withDhKey: withDh)
            let fits = ClientMessage(privHeader: .empty, body: SecureRandom.bytes(limit - 1))
            let sealed = try QueueCrypto.seal(fits, key: key, version: 3, senderDhKey: withDh ? sender.publicKey : nil)
            #expect(sealed.count <= QueueCrypto.maxEnvelopeLength)
            #expect(try QueueCrypto.open(sealed, recipientDhKey: recipient, agreedKey: key).message == fits)
            let tooBig = ClientMessage(privHeader: .empty, body: SecureRandom.bytes(limit))
            #expect(throws: QueueCryptoError.messageTooLarge(size: limit + 1, limit: limit)) {
                try QueueCrypto.seal(tooBig, key: key, version: 3, senderDhKey: withDh ? sender.publicKey : nil)
            }
        }
        #expect(QueueCrypto.maxEnvelopeLength == 16048)
    }

    @Test func sealOnce() throws {
        let msg = ClientMessage(privHeader: .empty, body: Array("contact request".utf8))
        let sealed = try QueueCrypto.sealOnce(msg, recipientDhKey: recipient.publicKey, version: 3)
        let opened = try QueueCrypto.open(sealed, recipientDhKey: recipient, agreedKey: nil)
        #expect(opened.message == msg && opened.envelope.senderDhKey != nil)
    }
}

// MARK: - sizes with the real ratchet

@Suite struct AgentMessageSizeTests {
    /// The worst case: the joining party's confirmation with PQ on, carrying its ratchet keys
    /// (sntrup761 key and ciphertext), a full reply, and an Ed448 sender key (the largest auth key).
    @Test(arguments: [true, false])
    func confirmationFits(pq: Bool) throws {
        // Bob creates the link; Alice joins.
        let bobOwn = try PQRatchet.generateReceiverParams(pqSupport: pq)
        let link = E2ERatchetParamsURI(bobOwn.publicParams)
        let peer = try E2ERatchetParamsURI(parsing: link.queryString).compatibleParams()
        let aliceOwn = try PQRatchet.generateSenderParams(replyingTo: peer, pqSupport: pq)
        var alice = try PQRatchet.initSend(own: aliceOwn, peer: peer)

        let padded = AgentMessageSize.e2eEncConnInfoLength(pq: pq)
        let reply = try WireFixtures.info(3, secure: true)
        let overhead = try AgentMessage.connInfoReply(queues: [reply], info: []).smpEncoded().count
        let info = SecureRandom.bytes(padded - 2 - overhead)  // the largest that fits
        let plain = try AgentMessage.connInfoReply(queues: [reply], info: info).smpEncoded()
        let enc = try alice.encrypt(plain, paddedLength: padded)
        #expect(enc.count == alice.encryptedLength(paddedLength: padded))
        #expect(throws: RatchetError.messageTooLarge) { try alice.encrypt(plain + [0], paddedLength: padded) }

        let envelope = AgentMsgEnvelope.confirmation(agentVersion: AgentVersion.current, e2eParams: aliceOwn.publicParams, encConnInfo: enc)
        let msg = ClientMessage(privHeader: .senderKey(.ed448(Ed448PrivateKey().publicKey)), body: try envelope.smpEncoded())
        let room = QueueCrypto.maxClientMessageLength(withDhKey: true)
        let size = try msg.smpEncoded().count
        #expect(size <= room, "confirmation of \(size) bytes, room \(room)")

        let bobQueue = X25519PrivateKey(), aliceQueue = X25519PrivateKey()
        let boxKey = try CryptoBox.sharedKey(publicKey: bobQueue.publicKey, privateKey: aliceQueue)
        let sealed = try QueueCrypto.seal(msg, key: boxKey, version: SMPClientVersion.current, senderDhKey: aliceQueue.publicKey)
        #expect(sealed.count <= QueueCrypto.maxEnvelopeLength)

        // Bob receives it: per-queue layer, envelope, ratchet, agent message.
        let opened = try QueueCrypto.open(sealed, recipientDhKey: bobQueue, agreedKey: nil)
        guard case .confirmation(_, let params?, let encInfo) = try AgentMsgEnvelope.decode(opened.message.body) else {
            Issue.record("not a confirmation with params")
            return
        }
        var bob = try PQRatchet.initReceive(own: bobOwn, peer: params, pqSupport: pq)
        #expect(try AgentMessage.decode(bob.decrypt(encInfo)) == .connInfoReply(queues: [reply], info: info))

        // Bob's largest message back.
        let msgPadded = AgentMessageSize.e2eEncAgentMsgLength(pq: pq)
        let header = APrivHeader(sndMsgId: 1, prevMsgHash: SecureRandom.bytes(32))
        let msgOverhead = try AgentMessage.message(header, .aMsg([])).smpEncoded().count
        let body = SecureRandom.bytes(msgPadded - 2 - msgOverhead)
        let agentMsg = try AgentMessage.message(header, .aMsg(body)).smpEncoded()
        let encMsg = try bob.encrypt(agentMsg, paddedLength: msgPadded)
        let msgEnvelope = try AgentMsgEnvelope.message(agentVersion: AgentVersion.current, encAgentMessage: encMsg).smpEncoded()
        // simplex-messaging.md: clientMsgBody <= 16016 - 4.
        #expect(msgEnvelope.count <= QueueCrypto.messagePaddedLength - 4, "message envelope of \(msgEnvelope.count) bytes")
        let sealedMsg = try QueueCrypto.seal(ClientMessage(privHeader: .empty, body: msgEnvelope), key: boxKey, version: 3, senderDhKey: nil)
        #expect(sealedMsg.count <= QueueCrypto.maxEnvelopeLength)
        let back = try QueueCrypto.open(sealedMsg, recipientDhKey: aliceQueue, agreedKey: boxKey)
        guard case .message(_, let encBack) = try AgentMsgEnvelope.decode(back.message.body) else {
            Issue.record("not a message")
            return
        }
        #expect(try AgentMessage.decode(alice.decrypt(encBack)) == .message(header, .aMsg(body)))
    }

    /// simplexmq's PQ sizes, made for sntrup761, fit: the largest confirmation and message.
    @Test func pqSizesFitSntrup761() throws {
        let bobOwn = try PQRatchet.generateReceiverParams(pqSupport: true)
        let aliceOwn = try PQRatchet.generateSenderParams(replyingTo: bobOwn.publicParams)
        let alice = try PQRatchet.initSend(own: aliceOwn, peer: bobOwn.publicParams)
        let params = try aliceOwn.publicParams.encoded().count
        let confirmation = { (padded: Int) in 2 + 44 + 4 + params + alice.encryptedLength(paddedLength: padded) }  // "K" key, version "C" "1"
        let ed448 = 2 + 69 - 46  // the Ed448 key is 25 bytes longer than Ed25519/X25519
        #expect(AgentMessageSize.connInfoLengthPQ == 11106 && AgentMessageSize.agentMsgLengthPQ == 13618)
        #expect(confirmation(AgentMessageSize.connInfoLengthPQ) + ed448 <= QueueCrypto.maxClientMessageLength(withDhKey: true))
        let message = { (padded: Int) in 3 + alice.encryptedLength(paddedLength: padded) }
        #expect(message(AgentMessageSize.agentMsgLengthPQ) <= QueueCrypto.messagePaddedLength - 4)
        #expect(AgentMessageSize.e2eEncConnInfoLength(version: 4, pq: true) == 14832)
        #expect(AgentMessageSize.e2eEncAgentMsgLength(version: 7, pq: false) == 15840)
    }
}
