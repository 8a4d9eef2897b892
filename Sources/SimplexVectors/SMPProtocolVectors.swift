import Foundation
import SimplexFoundation
import SMPProtocol

/// Vectors of `Simplex.Messaging.Protocol` made by `encodeProtocol v` (smp_protocol_encoding.json):
/// commands and responses at a version, and unsigned transmissions. Each value is built from the
/// vector's inputs and encoded at the vector's version; the expected bytes are also parsed back
/// at that version, as a peer of that version would read them.
public struct SMPProtocolVectors: VectorSuite {
    public init() {}
    public func accepts(module: String) -> Bool { module == "Simplex.Messaging.Protocol" }

    public func check(_ vector: Vector) -> VectorResult? {
        let path = vector.path
        guard let kind = path.first else { return nil }
        switch kind {
        case "command" where path.count == 3: return guarded { try checkCommand(vector, name: String(path[1])) }
        case "response" where path.count == 3: return guarded { try checkResponse(vector, name: String(path[1])) }
        case "transmission" where path.count == 2: return guarded { try checkTransmission(vector) }
        default: return nil
        }
    }

    private func version(_ v: Vector) throws -> UInt16 { UInt16(try v.inputInt("smp_version")) }

    private func pubKey(_ v: Vector, _ key: String) throws -> [UInt8] {
        try v.bytes("pub_der_spki_hex", in: try v.inputObject(key))
    }

    /// The quoted text after `label` in a description (`BasicAuth "x"`, `STORE "x"`).
    private func quoted(_ text: String, after label: String) -> String? {
        guard let r = text.range(of: label + " \"") else { return nil }
        let rest = text[r.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        return String(rest[..<end])
    }

    private func command(_ v: Vector, name: String) throws -> SMPCommand? {
        let description = (try? v.inputString("description")) ?? ""
        switch name {
        case let n where n.hasPrefix("NEW"):
            let mode: QueueMode? = description.contains("QRContact") ? .contact : description.contains("queueReqData=Nothing") ? nil : .messaging
            let auth = quoted(description, after: "BasicAuth").map { Array($0.utf8) }
            let req = NewQueueRequest(recipientAuthKey: try pubKey(v, "auth_key_ed25519"), recipientDhKey: try pubKey(v, "dh_key_x25519"),
                                      basicAuth: auth, subscribe: !description.contains("SMOnlyCreate"), mode: mode, queueData: nil, ntfCreds: nil)
            return .new(req)
        case "SUB": return .sub
        case "GET": return .get
        case "OFF": return .off
        case "DEL": return .del
        case "PING": return .ping
        case "NSUB": return .nsub
        case "KEY": return .key(senderKey: try pubKey(v, "auth_key_ed25519"))
        case "SKEY": return .skey(senderKey: try pubKey(v, "auth_key_ed25519"))
        case "ACK": return .ack(msgId: try v.inputBytes("msg_id_hex"))
        case let n where n.hasPrefix("SEND"):
            let notification = description.contains("notification=True")
            return .send(flags: MsgFlags(notification: notification), body: try v.inputBytes("msg_body_hex"))
        default: return nil
        }
    }

    private func checkCommand(_ v: Vector, name: String) throws -> VectorResult {
        let ver = try version(v)
        guard let cmd = try command(v, name: name) else { return .skip("command \(name) not known to this check") }
        let want = try v.output()
        let r = expectBytes(try cmd.smpEncoded(version: ver), want, "encodeProtocol v\(ver)")
        guard r == .pass else { return r }
        // A relay of this version must read the reference's bytes back as the same command.
        let parsed: SMPCommand
        do {
            parsed = try SMPCommand.parse(want, version: ver)
        } catch {
            return .fail("parse at v\(ver): \(error)")
        }
        var expected = cmd
        if case .new(var req) = cmd, ver < SMPVersion.senderSecure {
            req.mode = nil  // v6-v8 NEW has no mode on the wire
            expected = .new(req)
        }
        return parsed == expected ? .pass : .fail("parsed back as \(parsed)")
    }

    private func response(_ v: Vector, name: String, ver: UInt16, want: [UInt8]) throws -> BrokerMessage? {
        let description = (try? v.inputString("description")) ?? ""
        switch name {
        case "IDS":
            // The IDs are not among the inputs: take them from the reference's bytes, and check the
            // key and mode against the inputs.
            guard case .ids(var q) = try BrokerMessage.parse(want, version: ver) else { throw VectorError.badType("IDS") }
            q.serverDhKey = try pubKey(v, "rcv_dh")
            let mode: QueueMode? = description.contains("QMContact") ? .contact : description.contains("queueMode = Just") ? .messaging : nil
            q.queueMode = mode
            if description.contains("linkId/serviceId/serverNtfCreds = Nothing") {
                q.linkId = nil
                q.serviceId = nil
                q.serverNtfCreds = nil
            }
            return .ids(q)
        case "MSG":
            // The message ID and body are inputs of the command vectors, not of these: when
            // absent, they are read from the reference's bytes (a 24-byte ID, then the body).
            if let id = try? v.inputBytes("msg_id_hex"), let body = try? v.inputBytes("msg_body_hex") {
                return .msg(msgId: id, encryptedBody: body)
            }
            guard case .msg(let id, let body) = try BrokerMessage.parse(want, version: ver), id.count == 24 else { throw VectorError.badType("MSG") }
            return .msg(msgId: id, encryptedBody: body)
        case "END": return .end
        case "DELD": return .deld
        case "OK": return .ok
        case "PONG": return .pong
        case let n where n.hasPrefix("ERR_"):
            let e = String(n.dropFirst(4))
            if e.hasPrefix("CMD_") {
                guard let c = CommandError(rawValue: String(e.dropFirst(4))) else { return nil }
                return .err(.cmd(c))
            }
            if e == "STORE" { return .err(.store(quoted(description, after: "STORE") ?? "")) }
            guard let t = try? ErrorType.smpDecode(Array(e.utf8)) else { return nil }
            return .err(t)
        default: return nil
        }
    }

    private func checkResponse(_ v: Vector, name: String) throws -> VectorResult {
        let ver = try version(v)
        let want = try v.output()
        guard let m = try response(v, name: name, ver: ver, want: want) else { return .skip("response \(name) not known to this check") }
        let r = expectBytes(try m.smpEncoded(version: ver), want, "encodeProtocol v\(ver)")
        guard r == .pass else { return r }
        // A client of this version reads it back; older versions see the older form (DELD as END).
        let parsed: BrokerMessage
        do {
            parsed = try BrokerMessage.parse(want, version: ver)
        } catch {
            return .fail("parse at v\(ver): \(error)")
        }
        return (try parsed.smpEncoded(version: ver)) == want ? .pass : .fail("parsed back as \(parsed), which encodes differently")
    }

    /// `smpEncode (corrId, entityId) <> encodeProtocol v cmd`, then `tEncode` without
    /// authorization, `tEncodeBatch1` and the padded block. The command is PING, SUB or MSG
    /// (whose ID and body are the ones of response/MSG: read from the bytes).
    private func checkTransmission(_ v: Vector) throws -> VectorResult {
        let ver = try version(v)
        let corrId = try v.inputBytes("corr_id_hex")
        let entityId = try v.inputBytes("entity_id_hex")
        let want = try v.output()
        let name = v.path[1]
        var d = SMPDecoder(want)
        _ = try d.shortString()
        _ = try d.shortString()
        let sent = d.rest()
        let body: [UInt8]
        if name.hasPrefix("PING") {
            body = try SMPCommand.ping.smpEncoded(version: ver)
        } else if name.hasPrefix("SUB") {
            body = try SMPCommand.sub.smpEncoded(version: ver)
        } else if name.hasPrefix("MSG") {
            guard case .msg(let id, let b) = try BrokerMessage.parse(sent, version: ver) else { return .fail("not a MSG") }
            body = try BrokerMessage.msg(msgId: id, encryptedBody: b).smpEncoded(version: ver)
        } else {
            return .skip("transmission \(name) not known to this check")
        }
        // `encodeTransmission_` has no session ID at any version: it is the v7+ `tToSend`.
        let t = RawTransmission(corrId: corrId, entityId: entityId, body: body)
        let noSession = TransmissionParams(sessionId: [], version: max(ver, SMPVersion.authCommands))
        var r = expectBytes(try t.bytesToSend(noSession), want, "encodeTransmission_")
        guard r == .pass else { return r }
        let tEncode = try t.encoded(noSession)
        if let w = try? v.bytes("tEncode_no_auth_hex") {
            r = expectBytes(tEncode, w, "tEncode")
            guard r == .pass else { return r }
        }
        guard let batch = try TransmissionBatch.batches([tEncode]).first else { return .fail("no batch") }
        r = expectBytes(batch, try v.bytes("tEncodeBatch1_hex"), "tEncodeBatch1")
        guard r == .pass else { return r }
        if let block = try? v.bytes("block_16384_hex") {
            r = expectBytes(try Padding.pad(batch, to: TransportBlock.size), block, "padded block")
            guard r == .pass else { return r }
            // And the relay reads the block back into this one transmission.
            guard try TransmissionBatch.split(block: block) == [tEncode] else { return .fail("block does not split back") }
        }
        return .pass
    }
}
