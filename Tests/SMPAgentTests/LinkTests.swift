import DoubleRatchet
import Foundation
import SMPTransport
import SimplexFoundation
import Testing

@testable import SMPAgent

// MARK: - fixtures

/// Deterministic key material, the same bytes the hand-built simplexmq link below encodes.
enum LinkFixtures {
    static let keyHash = [UInt8](0..<32)
    static let senderId = [UInt8](100..<124)
    static let dhRaw = (0..<32).map { UInt8(($0 * 7 + 3) % 256) }
    static let x448Raw1 = (0..<56).map { UInt8(($0 * 5 + 1) % 256) }
    static let x448Raw2 = (0..<56).map { UInt8(($0 * 11 + 2) % 256) }

    static let keyHashB64 = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="
    static let senderIdB64 = "ZGVmZ2hpamtsbW5vcHFyc3R1dnd4eXp7"
    static let dhB64 = "MCowBQYDK2VuAyEAAwoRGB8mLTQ7QklQV15lbHN6gYiPlp2kq7K5wMfO1dw="
    static let x448B64a = "MEIwBQYDK2VvAzkAAQYLEBUaHyQpLjM4PUJHTFFWW2Blam90eX6DiI2Sl5yhpquwtbq_xMnO09jd4ufs8fb7AAUKDxQ="
    static let x448B64b = "MEIwBQYDK2VvAzkAAg0YIy45RE9aZXB7hpGcp7K9yNPe6fT_ChUgKzZBTFdibXiDjpmkr7rF0Nvm8fwHEh0oMz5JVF8="

    static func dhKey() throws -> X25519PublicKey { try X25519PublicKey(rawRepresentation: dhRaw) }

    static func server(_ hosts: [String] = ["smp.example.com"], port: Int? = nil) throws -> SMPServerAddress {
        try SMPServerAddress(keyHash: keyHash, hosts: hosts, port: port)
    }

    static func queue(
        hosts: [String] = ["smp.example.com"], port: Int? = nil, versions: VersionRange = SMPClientVersion.supported,
        secure: Bool = true
    ) throws -> SMPQueueURI {
        SMPQueueURI(
            server: try server(hosts, port: port), senderId: SecureRandom.bytes(24), clientVersions: versions,
            dhPublicKey: X25519PrivateKey().publicKey, senderCanSecure: secure)
    }

    static func e2e(pq: Bool) throws -> E2ERatchetParamsURI {
        E2ERatchetParamsURI(try PQRatchet.generateReceiverParams(pqSupport: pq).publicParams)
    }

    /// A valid queue URI text in our own form (v=1-3, one host, k=s).
    static let queueText = "smp://\(keyHashB64)@smp.example.com/\(senderIdB64)#/?v=1-3&dh=\(escape(dhB64))&k=s"
    static let e2eText = "v=2-3&x3dh=\(x448B64a),\(x448B64b)"

    /// An invitation link from raw parameter values (escaped here, independently of the code under test).
    static func link(
        _ mode: String = "invitation", v: String? = "7", smp: String? = queueText, e2e: String? = e2eText,
        prefix: String = "simplex:", extra: String = ""
    ) -> String {
        var params: [String] = []
        if let v { params.append("v=" + escape(v)) }
        if let smp { params.append("smp=" + escape(smp)) }
        if let e2e { params.append("e2e=" + escape(e2e)) }
        return prefix + "/" + mode + "#/?" + params.joined(separator: "&") + extra
    }

    /// http-types `urlEncode False`, written out again for the tests.
    static func escape(_ s: String) -> String {
        var out = ""
        for b in s.utf8 {
            let c = Character(UnicodeScalar(b))
            if (c.isASCII && (c.isLetter || c.isNumber)) || "-._~".contains(c) {
                out.append(c)
            } else {
                out += "%" + String(b, radix: 16, uppercase: true).leftPadded(2)
            }
        }
        return out
    }
}

extension String {
    fileprivate func leftPadded(_ n: Int) -> String { count >= n ? self : String(repeating: "0", count: n - count) + self }
}

// MARK: - versions

@Suite struct VersionRangeTests {
    @Test func textAndBinaryForms() throws {
        #expect(VersionRange(parsing: "7") == VersionRange(7))
        #expect(VersionRange(parsing: "2-7") == VersionRange(min: 2, max: 7))
        #expect(VersionRange(min: 2, max: 7)?.description == "2-7")
        #expect(VersionRange(7).description == "7")
        for bad in ["", "-", "7-", "-7", "7-3", "a", "1-2-3", "65536", "123456", " 7", "+7", "0x7"] {
            #expect(VersionRange(parsing: bad) == nil, "\(bad)")
        }
        let r = try #require(VersionRange(min: 2, max: 7))
        #expect(try r.smpEncoded() == [0, 2, 0, 7])
        #expect(try VersionRange.smpDecode([0, 2, 0, 7]) == r)
        #expect(throws: (any Error).self) { try VersionRange.smpDecode([0, 7, 0, 2]) }
    }

    @Test func intersection() throws {
        let a = try #require(VersionRange(min: 2, max: 7)), b = try #require(VersionRange(min: 5, max: 9))
        #expect(a.intersection(b) == VersionRange(min: 5, max: 7))
        #expect(a.highestCommon(with: b) == 7)
        #expect(a.intersection(VersionRange(8)) == nil)
        #expect(a.contains(2) && a.contains(7) && !a.contains(8) && !a.contains(1))
        #expect(AgentVersion.supported == VersionRange(min: 2, max: 7))
        #expect(SMPClientVersion.supported == VersionRange(min: 1, max: 4))
    }
}

// MARK: - queue URIs

@Suite struct QueueURITests {
    @Test func rendersAsSimplexmq() throws {
        let dh = try LinkFixtures.dhKey()
        let modern = SMPQueueURI(
            server: try LinkFixtures.server(["a.example.com", "b.example.com"], port: 5224), senderId: LinkFixtures.senderId,
            clientVersions: try #require(VersionRange(min: 2, max: 3)), dhPublicKey: dh, senderCanSecure: true)
        #expect(
            modern.uriString
                == "smp://\(LinkFixtures.keyHashB64)@a.example.com,b.example.com:5224/\(LinkFixtures.senderIdB64)#/?v=2-3&dh=MCowBQYDK2VuAyEAAwoRGB8mLTQ7QklQV15lbHN6gYiPlp2kq7K5wMfO1dw%3D&q=m&k=s"
        )
        // Minimum version 1: the first host in the authority, the others in "srv".
        let legacy = SMPQueueURI(
            server: try LinkFixtures.server(["a.example.com", "b.example.com"]), senderId: LinkFixtures.senderId,
            clientVersions: SMPClientVersion.supported, dhPublicKey: dh, senderCanSecure: false)
        #expect(
            legacy.uriString
                == "smp://\(LinkFixtures.keyHashB64)@a.example.com/\(LinkFixtures.senderIdB64)#/?v=1-4&dh=MCowBQYDK2VuAyEAAwoRGB8mLTQ7QklQV15lbHN6gYiPlp2kq7K5wMfO1dw%3D&q=c&srv=b.example.com"
        )
        #expect(try SMPQueueURI(parsing: modern.uriString) == modern)
        #expect(try SMPQueueURI(parsing: legacy.uriString) == legacy)
    }

    @Test(arguments: [
        (["smp.example.com"], nil as Int?), (["a.example.com", "b.onion", "10.0.0.1"], 443), (["[::1]"], 5223),
        (["x.example.com", "y.example.com"], 65535),
    ])
    func roundTrips(hosts: [String], port: Int?) throws {
        let ranges = [VersionRange(1), VersionRange(min: 1, max: 3)!, VersionRange(min: 2, max: 3)!, VersionRange(3), VersionRange(min: 1, max: 4)!, VersionRange(4)]
        for versions in ranges {
            for mode in [nil, QueueMode.messaging, .contact] {
                let q = SMPQueueURI(
                    server: try LinkFixtures.server(hosts, port: port), senderId: SecureRandom.bytes(24), clientVersions: versions,
                    dhPublicKey: X25519PrivateKey().publicKey, queueMode: mode)
                #expect(try SMPQueueURI(parsing: q.uriString) == q)
                #expect(try SMPQueueURI.smpDecode(q.smpEncoded()) == normalizedBinary(q))
            }
        }
    }

    /// What the binary form keeps of the mode (simplexmq `smpEncode SMPQueueUri`): all of it
    /// from minimum version 4; "T"/"F" from minimum version 3 (or "T" when the maximum reaches
    /// 3), read back as messaging/contact (so no mode becomes contact); nothing otherwise.
    private func normalizedBinary(_ q: SMPQueueURI) -> SMPQueueURI {
        let v = q.clientVersions
        if v.min >= 4 { return q }
        let flag = v.min >= 3 || (v.max >= 3 && q.senderCanSecure)
        let mode: QueueMode? = flag ? (q.senderCanSecure ? .messaging : .contact) : nil
        return SMPQueueURI(server: q.server, senderId: q.senderId, clientVersions: v, dhPublicKey: q.dhPublicKey, queueMode: mode)
    }

    @Test func acceptsVariants() throws {
        let kh = LinkFixtures.keyHashB64, sid = LinkFixtures.senderIdB64, dh = LinkFixtures.dhB64
        let unpadded = String(dh.dropLast())
        let base = "smp://\(kh)@smp.example.com"
        let variants: [(String, Bool)] = [
            ("\(base)/\(sid)#/?v=1-3&dh=\(dh)", false),
            ("\(base)/\(sid)/#/?v=1-3&dh=\(dh)", false),
            ("\(base)/\(sid)#?v=1-3&dh=\(dh)", false),
            ("\(base)/\(sid)/#?v=1-3&dh=\(unpadded)&k=s", true),
            ("\(base)/\(sid)#/?dh=\(LinkFixtures.escape(dh))&v=1-3&q=m", true),
            ("\(base)/\(sid)#/?v=1-3&dh=\(dh)&q=c&k=s", false),
            ("\(base)/\(sid)#/?v=1-3&x=1&dh=\(dh)&future=%41%42;k=s", true),
            ("smp://\(String(kh.dropLast()))@smp.example.com/\(sid)#/?v=1-3&dh=\(dh)", false),
        ]
        for (text, secure) in variants {
            let q = try SMPQueueURI(parsing: text)
            #expect(q.senderId == LinkFixtures.senderId, "\(text)")
            #expect(q.dhPublicKey == (try LinkFixtures.dhKey()))
            #expect(q.server.keyHash == LinkFixtures.keyHash)
            #expect(q.senderCanSecure == secure, "\(text)")
        }
        // simplexmq's unversioned form: the DH key right after "#", version 1.
        let old = try SMPQueueURI(parsing: "\(base)/\(sid)#\(dh)")
        let fixtureDh = try LinkFixtures.dhKey()
        #expect(old.clientVersions == VersionRange(1) && old.dhPublicKey == fixtureDh)
        // Extra hosts in srv are appended.
        let srv = try SMPQueueURI(parsing: "\(base):5000/\(sid)#/?v=1-3&dh=\(dh)&srv=b.example.com%2Cc.onion")
        #expect(srv.server.hosts == ["smp.example.com", "b.example.com", "c.onion"] && srv.server.port == 5000)
    }

    @Test func specificErrors() throws {
        let kh = LinkFixtures.keyHashB64, sid = LinkFixtures.senderIdB64, dh = LinkFixtures.dhB64
        let ed = Base64URL.encode(Ed25519PrivateKey().publicKey.x509Encoded)
        let cases: [(String, (LinkError) -> Bool)] = [
            ("smpx://\(kh)@h.com/\(sid)#/?v=1&dh=\(dh)", { if case .unsupportedScheme = $0 { true } else { false } }),
            ("smp://\(kh)@h.com/\(sid)#/?dh=\(dh)", { $0 == .missingParameter("v") }),
            ("smp://\(kh)@h.com/\(sid)#/?v=1", { $0 == .missingParameter("dh") }),
            ("smp://\(kh)@h.com/\(sid)#/?v=3-1&dh=\(dh)", { if case .invalidParameter("v", _) = $0 { true } else { false } }),
            ("smp://\(kh)@h.com/\(sid)#/?v=1&dh=\(ed)", { if case .invalidParameter("dh", _) = $0 { true } else { false } }),
            ("smp://\(kh)@h.com/\(sid)#/?v=1&dh=AAAA", { if case .invalidParameter("dh", _) = $0 { true } else { false } }),
            ("smp://\(kh)@h.com/\(sid)#/?v=1&dh=@@", { $0 == .invalidParameter(name: "dh", reason: "not base64url") }),
            ("smp://\(kh)@h.com:0/\(sid)#/?v=1&dh=\(dh)", { $0 == .invalidQueueURI("bad server port") }),
            ("smp://\(kh)@/\(sid)#/?v=1&dh=\(dh)", { $0 == .invalidQueueURI("missing or empty server host") }),
            ("smp://A@h.com/\(sid)#/?v=1&dh=\(dh)", { $0 == .invalidQueueURI("bad server identity (key hash)") }),
            ("smp://\(kh)@h.com/#/?v=1&dh=\(dh)", { $0 == .invalidQueueURI("no sender ID") }),
            ("smp://\(kh)@h.com/a+b#/?v=1&dh=\(dh)", { $0 == .invalidQueueURI("sender ID is not base64url") }),
            ("smp://\(kh)@h.com/\(sid)?v=1&dh=\(dh)", { $0 == .invalidQueueURI("no \"#\" before the parameters") }),
            ("smp://\(kh)@h.com/\(sid)#/?v=1&dh=\(dh)&srv=,", { if case .invalidParameter("srv", _) = $0 { true } else { false } }),
        ]
        for (text, check) in cases {
            do {
                _ = try SMPQueueURI(parsing: text)
                Issue.record("accepted \(text)")
            } catch {
                #expect(check(error), "\(text) -> \(error)")
            }
        }
    }

    @Test func infoConversion() throws {
        let q = try LinkFixtures.queue(versions: SMPClientVersion.supported, secure: true)
        let info = try q.compatibleInfo()
        #expect(info.clientVersion == 4 && info.senderCanSecure && info.senderId == q.senderId)
        // As simplexmq's `toVersionT`, the mode stays; version 2 just cannot encode it.
        #expect(q.info(version: 2).queueMode == .messaging)
        #expect(try SMPQueueInfo.smpDecode(q.info(version: 2).smpEncoded()).queueMode == nil)
        #expect(info.uri(clientVersions: q.clientVersions) == q)
        let future = try LinkFixtures.queue(versions: VersionRange(min: 5, max: 6)!)
        #expect(throws: LinkError.self) { try future.compatibleInfo() }
    }
}

// MARK: - e2e params

@Suite struct E2EParamsURITests {
    @Test func roundTripsAndVersions() throws {
        for pq in [false, true] {
            let e = try LinkFixtures.e2e(pq: pq)
            #expect(try E2ERatchetParamsURI(parsing: e.queryString) == e)
            #expect(e.queryString.hasPrefix("v=2-3&x3dh=MEIwBQYDK2VvAzkA"))
            #expect(e.queryString.contains("&kem_key=") == pq)
            let p = try e.compatibleParams()
            #expect(p.version == 3 && (p.kem != nil) == pq)
            #expect(e.params(version: 2).kem == nil)
        }
        let accepted = try PQRatchet.generateSenderParams(replyingTo: try LinkFixtures.e2e(pq: true).params(version: 3)).publicParams
        let uri = E2ERatchetParamsURI(accepted)
        #expect(uri.queryString.contains("&kem_ct=") && uri.queryString.range(of: "kem_ct")!.lowerBound < uri.queryString.range(of: "kem_key")!.lowerBound)
        // A link can only propose a KEM (simplexmq `RcvE2ERatchetParamsUri`).
        #expect(throws: LinkError.self) { try E2ERatchetParamsURI(parsing: uri.queryString) }
        // Below version 3 there is no KEM in the text form, in either direction.
        let v2 = E2ERatchetParamsURI(accepted, versions: VersionRange(2))
        #expect(!v2.queryString.contains("kem") && v2.params(version: 2).kem == nil)
        let ignored = try E2ERatchetParamsURI(parsing: "v=2&x3dh=\(LinkFixtures.x448B64a),\(LinkFixtures.x448B64b)&kem_key=AAAA")
        #expect(ignored.kem == nil)
    }

    @Test func fixtureKeys() throws {
        let e = try E2ERatchetParamsURI(parsing: LinkFixtures.e2eText)
        #expect(e.key1.rawRepresentation == LinkFixtures.x448Raw1 && e.key2.rawRepresentation == LinkFixtures.x448Raw2)
        #expect(e.queryString == LinkFixtures.e2eText)
    }

    @Test func errors() throws {
        let a = LinkFixtures.x448B64a, b = LinkFixtures.x448B64b
        let x25519 = LinkFixtures.dhB64
        let kem = Base64URL.encode(SecureRandom.bytes(1158))
        let ct = Base64URL.encode(SecureRandom.bytes(1039))
        let cases: [(String, String)] = [
            ("x3dh=\(a),\(b)", "v"),
            ("v=2-3", "x3dh"),
            ("v=2-3&x3dh=\(a)", "x3dh"),
            ("v=2-3&x3dh=\(a),\(b),\(a)", "x3dh"),
            ("v=2-3&x3dh=\(x25519),\(x25519)", "x3dh"),
            ("v=2-3&x3dh=\(a),!!", "x3dh"),
            ("v=2-3&x3dh=\(a),\(b)&kem_key=!!", "kem_key"),
            ("v=2-3&x3dh=\(a),\(b)&kem_key=\(kem)&kem_ct=AAAA", "kem_ct"),
            ("v=2-3&x3dh=\(a),\(b)&kem_key=\(kem)&kem_ct=\(ct)", "kem_ct"),
            ("v=3-2&x3dh=\(a),\(b)", "v"),
        ]
        for (text, name) in cases {
            do {
                _ = try E2ERatchetParamsURI(parsing: text)
                Issue.record("accepted \(text)")
            } catch {
                switch error {
                case .missingParameter(let n), .invalidParameter(let n, _): #expect(n == name, "\(text) -> \(error)")
                default: Issue.record("\(text) -> \(error)")
                }
            }
        }
        // As simplexmq: kem_ct without kem_key is ignored, and KEM keys are opaque bytes.
        #expect(try E2ERatchetParamsURI(parsing: "v=2-3&x3dh=\(a),\(b)&kem_ct=\(ct)").kem == nil)
        #expect(try E2ERatchetParamsURI(parsing: "v=2-3&x3dh=\(a),\(b)&kem_key=AAAA").kem == .proposed(KEMPublicKey([0, 0, 0])))
    }
}

// MARK: - full links

@Suite struct ConnectionLinkTests {
    @Test(arguments: [LinkScheme.simplex, .https(host: "simplex.chat"), .https(host: "example.com:8443")])
    func invitationRoundTrips(scheme: LinkScheme) throws {
        for pq in [false, true] {
            let queues = [
                try LinkFixtures.queue(hosts: ["a.example.com", "a.onion"], port: 5224),
                try LinkFixtures.queue(hosts: ["b.example.com"], versions: VersionRange(min: 2, max: 3)!, secure: false),
                try LinkFixtures.queue(hosts: ["1.2.3.4", "c.example.com"], port: 443, versions: VersionRange(3)),
            ]
            let link = try ConnectionRequestURI(
                mode: .invitation, scheme: scheme, queues: queues, e2eParams: try LinkFixtures.e2e(pq: pq),
                clientData: pq ? "{\"type\":\"group\", \"ünïcode\": \"&=;#%\"}" : nil)
            let text = link.uriString
            #expect(text.hasPrefix(scheme.prefix + "/invitation#/?v=2-7&smp=smp%3A%2F%2F"))
            #expect(text.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F })
            // As simplexmq's `strP`, the parsed link has the `simplex:` scheme.
            #expect(try ConnectionRequestURI(parsing: text) == link.withSimplexScheme)
            #expect(try ConnectionLink(parsing: "  \n" + text + "\r\n ") == .full(link.withSimplexScheme))
            #expect(link.withSimplexScheme.scheme == .simplex)
        }
    }

    @Test func contactRoundTrips() throws {
        let link = try ConnectionRequestURI(
            mode: .contact, scheme: .https(host: "simplex.chat"),
            queues: [try LinkFixtures.queue(secure: false), try LinkFixtures.queue(hosts: ["x.example.com", "y.example.com"])],
            e2eParams: try LinkFixtures.e2e(pq: false))
        #expect(link.e2eParams == nil)
        #expect(link.uriString.hasPrefix("https://simplex.chat/contact#/?v=2-7&smp="))
        #expect(!link.uriString.contains("e2e="))
        #expect(try ConnectionRequestURI(parsing: link.uriString) == link.withSimplexScheme)
        #expect(try ConnectionLink(parsing: link.uriString).mode == .contact)
        // A contact link ignores e2e parameters.
        let withE2E = try ConnectionRequestURI(parsing: LinkFixtures.link("contact"))
        #expect(withE2E.e2eParams == nil && withE2E.mode == .contact)
        #expect(throws: LinkError.noQueues) { try ConnectionRequestURI(mode: .contact, queues: [], e2eParams: nil) }
        #expect(throws: LinkError.missingE2EParameters) {
            try ConnectionRequestURI(mode: .invitation, queues: [try LinkFixtures.queue()], e2eParams: nil)
        }
    }

    /// A link as simplex-chat makes it today (agent v2-7, queue v1-4 with q=m, k=s and an onion
    /// host in srv, e2e without KEM), built by hand from the Haskell encoders: note "%253D", the
    /// "=" of the DH key escaped by the queue URI and again by the link.
    @Test func parsesSimplexmqLink() throws {
        let text =
            "simplex:/invitation#/?v=2-7&smp=smp%3A%2F%2FAAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8%3D%40smp4.simplex.im%2FZGVmZ2hpamtsbW5vcHFyc3R1dnd4eXp7%23%2F%3Fv%3D1-4%26dh%3DMCowBQYDK2VuAyEAAwoRGB8mLTQ7QklQV15lbHN6gYiPlp2kq7K5wMfO1dw%253D%26q%3Dm%26k%3Ds%26srv%3Do5vmywmrnaxalvz6wi3zicyftgio6psuvyniis6gco6bp6ekl4cqj4id.onion&e2e=v%3D2-3%26x3dh%3DMEIwBQYDK2VvAzkAAQYLEBUaHyQpLjM4PUJHTFFWW2Blam90eX6DiI2Sl5yhpquwtbq_xMnO09jd4ufs8fb7AAUKDxQ%3D%2CMEIwBQYDK2VvAzkAAg0YIy45RE9aZXB7hpGcp7K9yNPe6fT_ChUgKzZBTFdibXiDjpmkr7rF0Nvm8fwHEh0oMz5JVF8%3D"
        guard case .full(let link) = try ConnectionLink(parsing: text) else {
            Issue.record("not a full link")
            return
        }
        #expect(link.mode == .invitation && link.scheme == .simplex)
        #expect(link.agentVersions == VersionRange(min: 2, max: 7))
        let q = try #require(link.queues.first)
        #expect(link.queues.count == 1)
        #expect(q.server.keyHash == LinkFixtures.keyHash)
        #expect(q.server.hosts == ["smp4.simplex.im", "o5vmywmrnaxalvz6wi3zicyftgio6psuvyniis6gco6bp6ekl4cqj4id.onion"])
        #expect(q.server.port == nil)
        #expect(q.senderId == LinkFixtures.senderId)
        #expect(q.dhPublicKey.rawRepresentation == LinkFixtures.dhRaw)
        #expect(q.clientVersions == VersionRange(min: 1, max: 4) && q.senderCanSecure)
        #expect(try q.compatibleInfo().clientVersion == 4)
        let e2e = try #require(link.e2eParams)
        #expect(e2e.versions == VersionRange(min: 2, max: 3) && e2e.kem == nil)
        #expect(e2e.key1.rawRepresentation == LinkFixtures.x448Raw1 && e2e.key2.rawRepresentation == LinkFixtures.x448Raw2)
        // Rendered again: the same bytes.
        #expect(link.uriString == text)
    }

    /// Our own link with PQ keys, checked against a string assembled by hand.
    @Test func rendersExactly() throws {
        let dh = try LinkFixtures.dhKey()
        let q = SMPQueueURI(
            server: try LinkFixtures.server(["smp.example.com"], port: 5223), senderId: LinkFixtures.senderId,
            clientVersions: SMPClientVersion.supported, dhPublicKey: dh, senderCanSecure: true)
        let kemKey = [UInt8](repeating: 0xFB, count: 1158)  // an sntrup761 key's size
        let e2e = E2ERatchetParamsURI(
            versions: VersionRange(min: 2, max: 3)!, key1: try X448PublicKey(rawRepresentation: LinkFixtures.x448Raw1),
            key2: try X448PublicKey(rawRepresentation: LinkFixtures.x448Raw2), kem: .proposed(KEMPublicKey(kemKey)))
        let link = try ConnectionRequestURI(mode: .invitation, queues: [q, q], e2eParams: e2e, clientData: "a b")
        let kemB64 = String(repeating: "-_v7", count: 386)  // 1158 bytes of 0xFB, no padding
        let queue =
            "smp%3A%2F%2FAAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8%3D%40smp.example.com%3A5223%2FZGVmZ2hpamtsbW5vcHFyc3R1dnd4eXp7%23%2F%3Fv%3D1-4%26dh%3DMCowBQYDK2VuAyEAAwoRGB8mLTQ7QklQV15lbHN6gYiPlp2kq7K5wMfO1dw%253D%26q%3Dm%26k%3Ds"
        let expected =
            "simplex:/invitation#/?v=2-7&smp=\(queue)%3B\(queue)&e2e=v%3D2-3%26x3dh%3D\(LinkFixtures.x448B64a.replacingOccurrences(of: "=", with: "%3D"))%2C\(LinkFixtures.x448B64b.replacingOccurrences(of: "=", with: "%3D"))%26kem_key%3D\(kemB64)&data=a%20b"
        #expect(link.uriString == expected)
        #expect(try ConnectionRequestURI(parsing: expected) == link)
    }

    @Test func parameterOrderAndUnknownParameters() throws {
        let reordered = "simplex:/invitation/#/?e2e=\(LinkFixtures.escape(LinkFixtures.e2eText))&foo=bar&smp=\(LinkFixtures.escape(LinkFixtures.queueText))&v=6-8&v=1"
        let link = try ConnectionRequestURI(parsing: reordered)
        #expect(link.agentVersions == VersionRange(min: 6, max: 8))  // the first "v" wins
        #expect(link.queues.count == 1 && link.e2eParams != nil && link.clientData == nil)
        let plus = try ConnectionRequestURI(parsing: LinkFixtures.link(extra: "&data=hello+world%21"))
        #expect(plus.clientData == "hello world!")
    }

    @Test func shortLinks() throws {
        let key = [UInt8](repeating: 7, count: 32), id = [UInt8](1...24)
        let k = Base64URL.encode(key, padded: false), i = Base64URL.encode(id, padded: false)
        let kh = Base64URL.encode(LinkFixtures.keyHash, padded: false)

        let inv = try ShortLink(parsing: "https://smp.example.com/i#\(i)/\(k)")
        #expect(inv.mode == .invitation && inv.scheme == .server && inv.hosts == ["smp.example.com"])
        #expect(inv.linkId == id && inv.linkKey == key && inv.serverKeyHash == nil && inv.server == nil)
        #expect(inv.uriString == "https://smp.example.com/i#\(i)/\(k)")

        let text = "simplex:/a#\(k)?h=smp.example.com%2Cx.onion&p=5224&c=\(kh)"
        let contact = try ShortLink(parsing: text)
        #expect(contact.mode == .contact && contact.contactType == .contact && contact.scheme == .simplex)
        #expect(contact.hosts == ["smp.example.com", "x.onion"] && contact.port == 5224)
        #expect(contact.server == (try LinkFixtures.server(["smp.example.com", "x.onion"], port: 5224)))
        #expect(contact.uriString == text)

        for t in ShortLink.ContactType.allCases {
            let l = try ShortLink(parsing: "https://h.example.com/\(t.rawValue.uppercased())/#\(k)?h=b.example.com")
            #expect(l.contactType == t && l.hosts == ["h.example.com", "b.example.com"])
            #expect(try ShortLink(parsing: l.uriString) == l)
            #expect(try ConnectionLink(parsing: l.uriString) == .short(l))
        }
        #expect(try ConnectionLink(parsing: "\t" + inv.uriString + "\n") == .short(inv))
    }
}

// MARK: - malformed links

enum ErrorKind: Sendable, Equatable {
    case tooLong, unsupportedScheme, unknownLinkType, malformed, noQueues, missingE2E
    case missing(String)
    case invalid(String)
    case queue(String)  // invalidQueueURI whose text contains this
    case incompatible(String)

    func matches(_ e: LinkError) -> Bool {
        switch (self, e) {
        case (.tooLong, .tooLong), (.unsupportedScheme, .unsupportedScheme), (.unknownLinkType, .unknownLinkType),
            (.malformed, .malformed), (.noQueues, .noQueues), (.missingE2E, .missingE2EParameters):
            true
        case (.missing(let a), .missingParameter(let b)): a == b
        case (.invalid(let a), .invalidParameter(let b, _)): a == b
        case (.queue(let a), .invalidQueueURI(let b)): b.contains(a)
        case (.incompatible(let a), .incompatibleVersion(let b)): b.contains(a)
        default: false
        }
    }
}

struct MalformedLink: Sendable, CustomTestStringConvertible {
    let name: String
    let text: String
    let expected: ErrorKind
    var testDescription: String { name }
}

let malformedLinks: [MalformedLink] = {
    let f = LinkFixtures.self
    let kh = f.keyHashB64, sid = f.senderIdB64, dh = f.dhB64
    func queue(_ server: String = "\(f.keyHashB64)@smp.example.com", id: String = f.senderIdB64, v: String = "1-3", dh: String = f.dhB64) -> String {
        "smp://\(server)/\(id)#/?v=\(v)&dh=\(LinkFixtures.escape(dh))"
    }
    let ed = Base64URL.encode(Ed25519PrivateKey().publicKey.x509Encoded)
    let shortDh = Base64URL.encode(Array(Base64URL.decode(dh)!.dropLast()))
    let a = f.x448B64a, b = f.x448B64b
    let good = f.link()
    return [
        MalformedLink(name: "empty", text: "", expected: .malformed),
        MalformedLink(name: "only spaces", text: "   \n", expected: .malformed),
        MalformedLink(name: "http scheme", text: f.link(prefix: "http://simplex.chat"), expected: .unsupportedScheme),
        MalformedLink(name: "no scheme", text: "/invitation#/?v=7", expected: .unsupportedScheme),
        MalformedLink(name: "queue URI as link", text: f.queueText, expected: .unsupportedScheme),
        MalformedLink(name: "upper-case scheme", text: f.link(prefix: "SIMPLEX:"), expected: .unsupportedScheme),
        MalformedLink(name: "unknown type", text: f.link("invite"), expected: .unknownLinkType),
        MalformedLink(name: "unknown short type", text: "simplex:/x#AAAA", expected: .unknownLinkType),
        MalformedLink(name: "no slash after scheme", text: good.replacingOccurrences(of: "simplex:/", with: "simplex:"), expected: .malformed),
        MalformedLink(name: "no fragment", text: "simplex:/invitation?v=7", expected: .malformed),
        MalformedLink(name: "no ? in fragment", text: good.replacingOccurrences(of: "#/?", with: "#/"), expected: .malformed),
        MalformedLink(name: "https empty host", text: f.link(prefix: "https://"), expected: .malformed),
        MalformedLink(name: "https bad port", text: f.link(prefix: "https://simplex.chat:0"), expected: .malformed),
        MalformedLink(name: "https bad host", text: f.link(prefix: "https://simplex!chat"), expected: .malformed),
        MalformedLink(name: "missing v", text: f.link(v: nil), expected: .missing("v")),
        MalformedLink(name: "missing smp", text: f.link(smp: nil), expected: .missing("smp")),
        MalformedLink(name: "empty smp", text: f.link(smp: ""), expected: .noQueues),
        MalformedLink(name: "missing e2e", text: f.link(e2e: nil), expected: .missingE2E),
        MalformedLink(name: "bad version", text: f.link(v: "seven"), expected: .invalid("v")),
        MalformedLink(name: "inverted version", text: f.link(v: "7-2"), expected: .invalid("v")),
        MalformedLink(name: "#? instead of #/?", text: good.replacingOccurrences(of: "#/?", with: "#?"), expected: .malformed),
        MalformedLink(name: "bad base64 DH key", text: f.link(smp: queue(dh: "MCow*BQ")), expected: .queue("dh")),
        MalformedLink(name: "short DH key", text: f.link(smp: queue(dh: shortDh)), expected: .queue("dh")),
        MalformedLink(name: "Ed25519 DH key", text: f.link(smp: queue(dh: ed)), expected: .queue("dh")),
        MalformedLink(name: "X448 DH key", text: f.link(smp: queue(dh: a)), expected: .queue("dh")),
        MalformedLink(name: "bad sender ID", text: f.link(smp: queue(id: "a.b")), expected: .queue("sender ID")),
        MalformedLink(name: "bad server port", text: f.link(smp: queue("\(kh)@smp.example.com:70000")), expected: .queue("port")),
        MalformedLink(name: "empty server host", text: f.link(smp: queue("\(kh)@")), expected: .queue("host")),
        MalformedLink(name: "empty host in list", text: f.link(smp: queue("\(kh)@a.com,,b.com")), expected: .queue("host")),
        MalformedLink(name: "bad server host", text: f.link(smp: queue("\(kh)@a_b!.com")), expected: .queue("host")),
        MalformedLink(name: "bad key hash", text: f.link(smp: queue("A@smp.example.com")), expected: .queue("identity")),
        MalformedLink(name: "queue with basic auth", text: f.link(smp: queue("\(kh):pass@smp.example.com")), expected: .queue("identity")),
        MalformedLink(name: "empty queue in list", text: f.link(smp: f.queueText + ";"), expected: .queue("empty")),
        MalformedLink(name: "queue without dh", text: f.link(smp: "smp://\(kh)@smp.example.com/\(sid)#/?v=1-3"), expected: .queue("dh")),
        MalformedLink(name: "queue wrong scheme", text: f.link(smp: "smq://\(kh)@smp.example.com/\(sid)#/?v=1-3"), expected: .queue("scheme")),
        MalformedLink(name: "accepted KEM in a link", text: f.link(e2e: "v=2-3&x3dh=\(a),\(b)&kem_key=AAAA&kem_ct=AAAA"), expected: .invalid("e2e")),
        MalformedLink(name: "one x3dh key", text: f.link(e2e: "v=2-3&x3dh=\(a)"), expected: .invalid("e2e")),
        MalformedLink(name: "X25519 x3dh keys", text: f.link(e2e: "v=2-3&x3dh=\(dh),\(dh)"), expected: .invalid("e2e")),
        MalformedLink(name: "bad kem key", text: f.link(e2e: "v=2-3&x3dh=\(a),\(b)&kem_key=A"), expected: .invalid("e2e")),
        MalformedLink(name: "e2e without version", text: f.link(e2e: "x3dh=\(a),\(b)"), expected: .invalid("e2e")),
        MalformedLink(name: "truncated escape", text: good + "&data=%4", expected: .malformed),
        MalformedLink(name: "truncated escape at end", text: good + "%", expected: .malformed),
        MalformedLink(name: "bad escape", text: good + "&data=%ZZ", expected: .malformed),
        MalformedLink(name: "bad nested escape", text: f.link(smp: f.queueText + "%2"), expected: .queue("percent")),
        MalformedLink(name: "escaped non-ASCII in smp", text: good.replacingOccurrences(of: "smp=smp", with: "smp=%C3%A9smp"), expected: .invalid("smp")),
        MalformedLink(name: "huge", text: "simplex:/invitation#/?v=7&smp=" + String(repeating: "A", count: 70_000), expected: .tooLong),
        MalformedLink(name: "emoji", text: "simplex:/invitation#/?v=7&smp=😀", expected: .malformed),
        MalformedLink(name: "RTL override", text: "simplex:/invitation#/?v=7\u{202E}&smp=x", expected: .malformed),
        MalformedLink(name: "space inside", text: good.replacingOccurrences(of: "&smp", with: " &smp"), expected: .malformed),
        MalformedLink(name: "NUL inside", text: good.replacingOccurrences(of: "&smp", with: "\u{0}&smp"), expected: .malformed),
        MalformedLink(name: "short link bad key", text: "https://smp.example.com/i#AAAA/B", expected: .invalid("link key")),
        MalformedLink(name: "short link no id", text: "https://smp.example.com/i#\(String(repeating: "A", count: 43))", expected: .malformed),
        MalformedLink(name: "short link without host", text: "simplex:/a#\(String(repeating: "A", count: 43))", expected: .missing("h")),
        MalformedLink(name: "short link bad port", text: "simplex:/a#\(String(repeating: "A", count: 43))?h=a.com&p=x", expected: .invalid("p")),
        MalformedLink(name: "short link bad key hash", text: "simplex:/a#\(String(repeating: "A", count: 43))?h=a.com&c=A", expected: .invalid("c")),
    ]
}()

@Suite struct MalformedLinkTests {
    @Test(arguments: malformedLinks)
    func rejected(_ c: MalformedLink) {
        do {
            let link = try ConnectionLink(parsing: c.text)
            Issue.record("\(c.name): accepted as \(link)")
        } catch {
            #expect(c.expected.matches(error), "\(c.name): got \(error)")
            #expect(!error.description.isEmpty && error.description.count < 400)
        }
    }

    @Test func tableIsLarge() { #expect(malformedLinks.count >= 25) }

    /// Every prefix of a valid link, and random garbage, gives an error or a link, never a trap.
    @Test func prefixesAndGarbage() throws {
        let link = try ConnectionRequestURI(
            mode: .invitation, queues: [try LinkFixtures.queue(), try LinkFixtures.queue(hosts: ["a.com", "b.com"], port: 1)],
            e2eParams: try LinkFixtures.e2e(pq: true))
        let text = Array(link.uriString)
        for n in stride(from: 0, to: text.count, by: 7) {
            _ = try? ConnectionLink(parsing: String(text[0..<n]))
        }
        var rng = SystemRandomNumberGenerator()
        let alphabet = Array("simplex:/invitation#?&=;%25smp:@,.-_~+0123456789ABCdef\u{0}é😀 ")
        for _ in 0..<2000 {
            let n = Int.random(in: 0..<120, using: &rng)
            let s = String((0..<n).map { _ in alphabet.randomElement(using: &rng)! })
            _ = try? ConnectionLink(parsing: s)
            _ = try? ConnectionLink(parsing: "simplex:/invitation#/?" + s)
            _ = try? SMPQueueURI(parsing: "smp://" + s)
            _ = try? E2ERatchetParamsURI(parsing: s)
        }
        // Mutations of a valid link.
        for _ in 0..<500 {
            var t = text
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                t[Int.random(in: 0..<t.count, using: &rng)] = alphabet.randomElement(using: &rng)!
            }
            _ = try? ConnectionLink(parsing: String(t))
        }
    }
}
