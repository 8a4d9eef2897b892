import DoubleRatchet
import Foundation
import SMPAgent
import SMPTransport
import SimplexFoundation

/// Vectors of `Simplex.Messaging.Agent.Protocol` (agent_protocol_encoding.json): links, queue
/// addresses, short links, envelopes and agent messages. Every check rebuilds the value from
/// the vector's inputs (ids, keys, versions, queue mode) where they name it, encodes it with our
/// encoders and compares bytes; it also decodes the reference's bytes with our parsers and
/// checks the recorded flags (`strDecode_equal`, `smpDecode_equal`, re-encodings), so both
/// directions are exercised and nothing is looked up.
public struct AgentVectors: VectorSuite {
    public init() {}
    public func accepts(module: String) -> Bool { module == "Simplex.Messaging.Agent.Protocol" }

    public func check(_ vector: Vector) -> VectorResult? {
        guard let kind = vector.path.first else { return nil }
        let inputs = AgentInputs(vector)
        switch kind {
        case "conn_req": return guarded { try Self.connReq(vector, inputs) }
        case "smp_queue_uri": return guarded { try Self.queueURI(vector, inputs) }
        case "smp_queue_info": return guarded { try Self.queueInfo(vector, inputs) }
        case "short_link": return guarded { try Self.shortLink(vector, inputs) }
        case "envelope": return guarded { try Self.envelope(vector, inputs) }
        case "amessage": return guarded { try Self.aMessage(vector, inputs) }
        case "agent_message": return guarded { try Self.agentMessage(vector, inputs) }
        default: return nil
        }
    }

    // MARK: full links

    static func connReq(_ v: Vector, _ inp: AgentInputs) throws -> VectorResult {
        let ascii = try v.string("output_ascii")
        if let r = asciiMatchesHex(ascii, try v.output()) { return r }
        let binary = try v.bytes("smpEncode_hex")
        let parsed = try ConnectionRequestURI(parsing: ascii)
        var bd = SMPDecoder(binary)
        let fromBinary = try ConnectionRequestURI(decodingBinary: &bd)
        try bd.expectEnd()

        // The value the reference encoded: the parsed one with the scheme and agent range as
        // written (our parser, like simplexmq's, forces `simplex:` and adjusts contact ranges).
        let original = try ConnectionRequestURI(
            mode: parsed.mode, scheme: try linkScheme(ascii), agentVersions: try writtenAgentVersions(ascii),
            queues: parsed.queues, e2eParams: parsed.e2eParams, clientData: parsed.clientData)
        for q in original.queues {
            if let r = inp.checkQueue(server: q.server, senderId: q.senderId, dh: q.dhPublicKey) { return r }
        }
        if let e2e = original.e2eParams, let r = inp.checkE2E(key1: e2e.key1, key2: e2e.key2, kem: e2e.kem) { return r }

        if original.uriString != ascii { return .fail("strEncode: got \(original.uriString)") }
        var e = SMPEncoder()
        try original.encodeBinary(into: &e)
        if case .fail(let why) = expectBytes(e.bytes, binary, "smpEncode") { return .fail(why) }
        if let r = flag(v, "strDecode_equal", parsed == original) { return r }
        if let r = flag(v, "smpDecode_equal", fromBinary == original) { return r }
        if let want = v.json["strDecode_strEncode_ascii"] as? String, parsed.uriString != want {
            return .fail("strEncode . strDecode: got \(parsed.uriString)")
        }
        var e2 = SMPEncoder()
        try fromBinary.encodeBinary(into: &e2)
        return expectBytes(e2.bytes, binary, "smpEncode . smpDecode")
    }

    /// `simplex:` or `https://<authority>` as written at the start of a link.
    static func linkScheme(_ s: String) throws -> LinkScheme {
        if s.hasPrefix("simplex:") { return .simplex }
        guard s.hasPrefix("https://") else { throw VectorError.unsupported("link scheme") }
        return .https(host: String(s.dropFirst(8).prefix(while: { $0 != "/" })))
    }

    /// The `v` parameter of a link's query, as written.
    static func writtenAgentVersions(_ s: String) throws -> VersionRange {
        guard let q = s.split(separator: "?", maxSplits: 1).last,
            let v = q.split(separator: "&").first(where: { $0.hasPrefix("v=") }),
            let r = VersionRange(parsing: v.dropFirst(2))
        else { throw VectorError.missing("v parameter") }
        return r
    }

    // MARK: queue addresses

    static func queueURI(_ v: Vector, _ inp: AgentInputs) throws -> VectorResult {
        let ascii = try v.string("output_ascii")
        if let r = asciiMatchesHex(ascii, try v.output()) { return r }
        let binary = try v.bytes("smpEncode_hex")
        let range = try v.array("client_version_range", in: v.inputs).compactMap { ($0 as? NSNumber).map { UInt16(truncatingIfNeeded: $0.intValue) } }
        guard range.count == 2, let versions = VersionRange(min: range[0], max: range[1]) else { throw VectorError.badType("client_version_range") }
        let mode = try inp.queueMode()
        let parsed = try SMPQueueURI(parsing: ascii)
        // The server's hosts are not among the inputs (only described): they come from the link.
        let original = SMPQueueURI(
            server: parsed.server, senderId: try inp.senderId(1), clientVersions: versions, dhPublicKey: try inp.queueDH(1), queueMode: mode)
        if let r = inp.checkServer(original.server, number: 1) { return r }
        if original.uriString != ascii { return .fail("strEncode: got \(original.uriString)") }
        if case .fail(let why) = expectBytes(try original.smpEncoded(), binary, "smpEncode") { return .fail(why) }
        if let r = flag(v, "strDecode_equal", parsed == original) { return r }
        if let want = v.json["strDecode_strEncode_ascii"] as? String, parsed.uriString != want {
            return .fail("strEncode . strDecode: got \(parsed.uriString)")
        }
        let fromBinary = try SMPQueueURI.smpDecode(binary)
        if let r = flag(v, "smpDecode_equal", fromBinary == original) { return r }
        return expectBytes(try fromBinary.smpEncoded(), binary, "smpEncode . smpDecode")
    }

    static func queueInfo(_ v: Vector, _ inp: AgentInputs) throws -> VectorResult {
        let out = try v.output()
        let version = UInt16(try v.inputInt("client_version"))
        let mode = try inp.queueMode()
        let decoded = try SMPQueueInfo.smpDecode(out)
        if let r = inp.checkServer(decoded.server, number: 1) { return r }
        // Version 1 carries only the first host: the encoder must not need the others.
        let original = SMPQueueInfo(
            clientVersion: version, server: decoded.server, senderId: try inp.senderId(1), dhPublicKey: try inp.queueDH(1), queueMode: mode)
        if case .fail(let why) = expectBytes(try original.smpEncoded(), out, "smpEncode") { return .fail(why) }
        if case .fail(let why) = expectBytes(try decoded.smpEncoded(), out, "smpEncode . smpDecode") { return .fail(why) }
        // Decoding gives the original back when the version carries the mode and all hosts.
        let sameHosts = decoded.server.hosts.count == (try inp.hostCount(1))
        return flag(v, "smpDecode_equal", sameHosts && decoded.queueMode == mode
            && decoded.senderId == original.senderId && decoded.clientVersion == version) ?? .pass
    }

    // MARK: short links

    static func shortLink(_ v: Vector, _ inp: AgentInputs) throws -> VectorResult {
        let ascii = try v.string("output_ascii")
        if let r = asciiMatchesHex(ascii, try v.output()) { return r }
        let parsed = try ShortLink(parsing: ascii)
        if parsed.linkKey != (try v.inputBytes("link_key_hex")) { return .fail("link key differs from the input") }
        if parsed.mode == .invitation, parsed.linkId != (try v.inputBytes("link_id_hex")) { return .fail("link ID differs from the input") }
        if let kh = parsed.serverKeyHash, !inp.keyHashes.contains(kh) { return .fail("server key hash is not an input's") }
        if let r = flag(v, "strDecode_equal", parsed.uriString == ascii) { return r }
        if let want = v.json["strDecode_strEncode_ascii"] as? String, parsed.uriString != want {
            return .fail("strEncode . strDecode: got \(parsed.uriString)")
        }
        guard let binary = try? v.bytes("smpEncode_hex") else { return .pass }
        var e = SMPEncoder()
        try parsed.encodeBinary(into: &e)
        if case .fail(let why) = expectBytes(e.bytes, binary, "smpEncode") { return .fail(why) }
        var d = SMPDecoder(binary)
        let fromBinary = try ShortLink(decodingBinary: &d)
        try d.expectEnd()
        var e2 = SMPEncoder()
        try fromBinary.encodeBinary(into: &e2)
        if fromBinary.linkKey != parsed.linkKey || fromBinary.hosts != parsed.hosts || fromBinary.contactType != parsed.contactType {
            return .fail("smpDecode gives another link")
        }
        return expectBytes(e2.bytes, binary, "smpEncode . smpDecode")
    }

    // MARK: envelopes and messages

    static func envelope(_ v: Vector, _ inp: AgentInputs) throws -> VectorResult {
        let out = try v.output()
        let env = try AgentMsgEnvelope.decode(out)
        let tails = inp.tails
        switch env {
        case .confirmation(_, let params, let enc):
            if !tails.contains(enc) { return .fail("encConnInfo is not the input's bytes") }
            if let p = params, let r = inp.checkE2E(key1: p.key1, key2: p.key2, kem: p.kem) { return r }
        case .message(_, let enc):
            if !tails.contains(enc) { return .fail("encAgentMessage is not the input's bytes") }
        case .invitation(_, let connReq, let info):
            if !tails.contains(info) { return .fail("connInfo is not the input's bytes") }
            for q in connReq.queues {
                if let r = inp.checkQueue(server: q.server, senderId: q.senderId, dh: q.dhPublicKey) { return r }
            }
        case .ratchetKey(_, let p, let info):
            if !tails.contains(info) { return .fail("info is not the input's bytes") }
            if let r = inp.checkE2E(key1: p.key1, key2: p.key2, kem: p.kem) { return r }
        }
        return reencode(v, try env.smpEncoded(), out)
    }

    static func aMessage(_ v: Vector, _ inp: AgentInputs) throws -> VectorResult {
        let out = try v.output()
        var d = SMPDecoder(out)
        let msg = try AMessage(from: &d)
        try d.expectEnd()
        if let r = inp.checkAMessage(msg) { return r }
        if case .fail(let why) = reencode(v, try msg.smpEncoded(), out) { return .fail(why) }
        guard let full = try? v.bytes("agent_message_hex") else { return .pass }
        guard case .message(let header, let inner) = try AgentMessage.decode(full) else { return .fail("agent_message_hex is not 'M'") }
        if inner != msg { return .fail("agent_message_hex carries another AMessage") }
        if let prev = try? v.bytes("prev_msg_hash_hex"), header.prevMsgHash != prev { return .fail("prevMsgHash differs from the input") }
        let rebuilt = AgentMessage.message(APrivHeader(sndMsgId: header.sndMsgId, prevMsgHash: header.prevMsgHash), msg)
        return expectBytes(try rebuilt.smpEncoded(), full, "AgentMessage")
    }

    static func agentMessage(_ v: Vector, _ inp: AgentInputs) throws -> VectorResult {
        let out = try v.output()
        let msg = try AgentMessage.decode(out)
        switch msg {
        case .connInfo(let info), .ratchetInfo(let info):
            if !inp.tails.contains(info) { return .fail("info is not the input's bytes") }
        case .connInfoReply(let queues, let info):
            if !inp.tails.contains(info) { return .fail("connInfo is not the input's bytes") }
            for q in queues {
                if let r = inp.checkQueue(server: q.server, senderId: q.senderId, dh: q.dhPublicKey) { return r }
            }
        case .message(_, let m):
            if let r = inp.checkAMessage(m) { return r }
        }
        return reencode(v, try msg.smpEncoded(), out)
    }

    // MARK: helpers

    static func reencode(_ v: Vector, _ got: [UInt8], _ want: [UInt8]) -> VectorResult {
        let same = got == want
        if let r = flag(v, "smpDecode_reencode_equal", same) { return r }
        return same ? .pass : expectBytes(got, want, "smpEncode . smpDecode")
    }

    /// nil when the vector has no such flag or our answer agrees with it.
    static func flag(_ v: Vector, _ name: String, _ ours: Bool) -> VectorResult? {
        guard let want = v.json[name] as? Bool, want != ours else { return nil }
        return .fail("\(name): reference says \(want), ours is \(ours)")
    }

    static func asciiMatchesHex(_ ascii: String, _ hex: [UInt8]) -> VectorResult? {
        Array(ascii.utf8) == hex ? nil : .fail("output_ascii and output_hex differ")
    }
}

/// The fixed inputs every agent vector records: sender IDs, queue DH keys, e2e keys, the KEM
/// key, the servers' key hashes and byte strings carried as tails.
struct AgentInputs {
    let vector: Vector

    init(_ vector: Vector) { self.vector = vector }

    func senderId(_ n: Int) throws -> [UInt8] { try vector.inputBytes("sender_id_\(n)_hex") }

    func queueDH(_ n: Int) throws -> X25519PublicKey {
        try X25519PublicKey(x509Encoded: try vector.bytes("pub_der_spki_hex", in: try vector.inputObject("queue\(n)_dh_x25519")))
    }

    /// `q_m`, `q_c`, or anything else (no mode).
    func queueMode() throws -> QueueMode? {
        switch vector.inputs["queue_mode"] as? String {
        case "q_m": .messaging
        case "q_c": .contact
        default: nil
        }
    }

    private func keyDER(_ name: String) -> [UInt8]? {
        (vector.inputs[name] as? [String: Any]).flatMap { $0["pub_der_spki_hex"] as? String }.flatMap(Hex.decode)
    }

    var senderIds: [[UInt8]] { [1, 2].compactMap { try? senderId($0) } }
    var queueKeys: [[UInt8]] { ["queue1_dh_x25519", "queue2_dh_x25519"].compactMap(keyDER) }
    var e2eKeys: [[UInt8]] { ["e2e_dh1_x448", "e2e_dh2_x448"].compactMap(keyDER) }

    /// The key hash written after "key hash = " in the `serverN` description.
    func keyHash(_ n: Int) -> [UInt8]? {
        guard let s = vector.inputs["server\(n)"] as? String, let r = s.range(of: "= ", options: .backwards) else { return nil }
        return Hex.decode(String(s[r.upperBound...]).trimmingCharacters(in: .whitespaces))
    }

    var keyHashes: [[UInt8]] { [1, 2].compactMap(keyHash) }

    /// How many hosts the `serverN` description names ("a + onion host, ..." is two).
    func hostCount(_ n: Int) throws -> Int {
        guard let s = vector.inputs["server\(n)"] as? String, let hosts = s.split(separator: ",").first else {
            throw VectorError.missing("server\(n)")
        }
        return hosts.components(separatedBy: " + ").count
    }

    /// Byte strings a message may carry as its last field.
    var tails: [[UInt8]] { ["enc_bytes_hex", "conn_info_hex", "body_hex"].compactMap { try? vector.inputBytes($0) } }

    func checkServer(_ server: SMPServerAddress, number: Int) -> VectorResult? {
        guard let kh = keyHash(number) else { return nil }
        return server.keyHash == kh ? nil : .fail("server\(number) key hash differs from the input")
    }

    /// A queue address must be made of the inputs' servers, sender IDs and DH keys.
    func checkQueue(server: SMPServerAddress, senderId: [UInt8], dh: X25519PublicKey) -> VectorResult? {
        if !keyHashes.isEmpty, !keyHashes.contains(server.keyHash) { return .fail("queue server key hash is not an input's") }
        if !senderIds.contains(senderId) { return .fail("queue sender ID is not an input's") }
        if !queueKeys.contains(dh.x509Encoded) { return .fail("queue DH key is not an input's") }
        return nil
    }

    /// E2E params must carry the inputs' X448 keys and, when there is one, the KEM key.
    func checkE2E(key1: X448PublicKey, key2: X448PublicKey, kem: RatchetKEMParams?) -> VectorResult? {
        let keys = e2eKeys
        if keys.count == 2, [key1.x509Encoded, key2.x509Encoded] != keys { return .fail("x3dh keys differ from the inputs") }
        let kemInput = try? vector.inputBytes("kem_pub_sntrup761_hex")
        switch (kem, kemInput) {
        case (nil, nil): return nil
        case (let k?, let want?): return k.publicKey.bytes == want ? nil : .fail("KEM key differs from the input")
        case (nil, _?): return .fail("KEM key missing")
        case (_?, nil): return .fail("KEM params without a KEM key input")
        }
    }

    /// Queue addresses and keys inside an agent message must be the inputs'.
    func checkAMessage(_ m: AMessage) -> VectorResult? {
        func addr(_ a: SndQAddr) -> VectorResult? {
            if !keyHashes.isEmpty, !keyHashes.contains(a.server.keyHash) { return .fail("server key hash is not an input's") }
            return senderIds.contains(a.senderId) ? nil : .fail("sender ID is not an input's")
        }
        switch m {
        case .hello, .eReady, .aRcvd: return nil
        case .aMsg(let body):
            return tails.contains(body) ? nil : .fail("A_MSG body is not the input's bytes")
        case .aQcont(let a): return addr(a)
        case .qAdd(let items):
            for x in items {
                if let r = checkQueue(server: x.queue.server, senderId: x.queue.senderId, dh: x.queue.dhPublicKey) { return r }
                if let rep = x.replaces, let r = addr(rep) { return r }
            }
            return nil
        case .qKey(let items):
            let authKey = (vector.inputs["sender_auth_ed25519"] as? [String: Any]).flatMap { $0["pub_der_spki_hex"] as? String }.flatMap(Hex.decode)
            for x in items {
                if let r = checkQueue(server: x.queue.server, senderId: x.queue.senderId, dh: x.queue.dhPublicKey) { return r }
                if let authKey, x.senderKey.x509Encoded != authKey { return .fail("sender auth key differs from the input") }
            }
            return nil
        case .qUse(let items):
            for x in items { if let r = addr(x.queue) { return r } }
            return nil
        case .qTest(let items):
            for a in items { if let r = addr(a) { return r } }
            return nil
        }
    }
}
