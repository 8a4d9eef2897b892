import Foundation
import SimplexFoundation
import SMPProtocol

/// Vectors of authorized, batched transmissions (smp_transmissions_auth.json): each block is
/// built from the inputs (commands, keys, session, version) with our authorization and batching,
/// then read back as our relay reads a block (split, parse, verify every authorization).
public struct SMPTransmissionVectors: VectorSuite {
    public init() {}
    public func accepts(module: String) -> Bool { module == "Simplex.Messaging.Protocol" }

    public func check(_ vector: Vector) -> VectorResult? {
        guard vector.path.first == "batch3" || (vector.inputs["transmissions"] != nil) else { return nil }
        return guarded { try checkBatch(vector) }
    }

    private enum Key {
        case ed25519(Ed25519PrivateKey)
        case x25519(X25519PrivateKey)
        case none
    }

    private func key(_ v: Vector, _ t: [String: Any]) throws -> Key {
        let k = try v.object("key", in: t)
        let type = try v.string("type", in: k)
        if type == "none" { return .none }
        let raw = try v.bytes("priv_raw_hex", in: try v.object("key", in: k))
        switch type {
        case "ed25519_signature": return .ed25519(try Ed25519PrivateKey(rawRepresentation: raw))
        case let s where s.hasPrefix("x25519"): return .x25519(try X25519PrivateKey(rawRepresentation: raw))
        default: throw VectorError.unsupported("key type \(type)")
        }
    }

    private func command(_ name: String, _ v: Vector, ver: UInt16) throws -> SMPCommand {
        switch name {
        case "SEND": return .send(flags: MsgFlags(notification: true), body: try v.inputBytes("msg_body_hex"))
        case "SUB": return .sub
        case "ACK": return .ack(msgId: try v.inputBytes("msg_id_hex"))
        case "PING": return .ping
        case "GET": return .get
        case "DEL": return .del
        case "OFF": return .off
        case "NSUB": return .nsub
        default: throw VectorError.unsupported("command \(name)")
        }
    }

    /// The reference's fixed server session key is `detBytes("simplex-ref/transport/server-session-x25519", 32)`;
    /// used when it is the key of the vector, to verify authenticators as the relay does.
    private func serverPrivateKey(matching pub: X25519PublicKey) -> X25519PrivateKey? {
        let raw = Array(CryptoHash.sha512(Array("simplex-ref/transport/server-session-x25519".utf8)).prefix(32))
        guard let k = try? X25519PrivateKey(rawRepresentation: raw), k.publicKey.rawRepresentation == pub.rawRepresentation else { return nil }
        return k
    }

    private func checkBatch(_ v: Vector) throws -> VectorResult {
        let ver = UInt16(try v.inputInt("smp_version"))
        let sessionId = try v.inputBytes("session_id_hex")
        let serverPub = try X25519PublicKey(x509Encoded: try v.inputBytes("server_session_x25519_pub_der_hex"))
        let params = TransmissionParams(sessionId: sessionId, version: ver)
        let list = try v.array("transmissions", in: v.inputs).compactMap { $0 as? [String: Any] }
        var encoded: [[UInt8]] = []
        var keys: [(Key, [UInt8])] = []
        for (i, t) in list.enumerated() {
            let corrId = try v.bytes("corr_id_hex", in: t)
            let entityId = try v.bytes("entity_id_hex", in: t)
            let body = try command(try v.string("command", in: t), v, ver: ver).smpEncoded(version: ver)
            let k = try key(v, t)
            let tForAuth = try RawTransmission.authorizedBytes(sessionId: sessionId, corrId: corrId, entityId: entityId, body: body)
            var r = expectBytes(tForAuth, try v.bytes("t_for_auth_hex", in: t), "t\(i + 1) tForAuth")
            guard r == .pass else { return r }
            let authorization: [UInt8]
            switch k {
            case .ed25519(let p): authorization = try TransmissionAuth.authorize(key: .ed25519(p), authorized: tForAuth, corrId: corrId, serverSessionKey: nil)
            case .x25519(let p): authorization = try TransmissionAuth.authorize(key: .x25519(p), authorized: tForAuth, corrId: corrId, serverSessionKey: serverPub)
            case .none: authorization = []
            }
            r = expectBytes(authorization, try v.bytes("authenticator_hex", in: t), "t\(i + 1) authorization")
            guard r == .pass else { return r }
            let raw = RawTransmission(authorization: authorization, corrId: corrId, entityId: entityId, body: body)
            r = expectBytes(try raw.bytesToSend(params), try v.bytes("t_to_send_hex", in: t), "t\(i + 1) tToSend")
            guard r == .pass else { return r }
            let tEncode = try raw.encoded(params)
            r = expectBytes(tEncode, try v.bytes("tEncode_hex", in: t), "t\(i + 1) tEncode")
            guard r == .pass else { return r }
            encoded.append(tEncode)
            keys.append((k, tForAuth))
        }
        let batches = try TransmissionBatch.batches(encoded)
        guard batches.count == 1 else { return .fail("\(batches.count) blocks for \(encoded.count) transmissions") }
        let r = expectBytes(batches[0], try v.output(), "batch")
        guard r == .pass else { return r }
        let block = try Padding.pad(batches[0], to: TransportBlock.size)
        if let sha = try? v.bytes("padded_block_sha256_hex"), CryptoHash.sha256(block) != sha { return .fail("padded block hash differs") }

        // The relay's side: split the block, parse each transmission at this version and verify it.
        let serverKey = serverPrivateKey(matching: serverPub)
        let parts = try TransmissionBatch.split(block: block)
        guard parts.count == keys.count else { return .fail("block splits into \(parts.count)") }
        for (i, part) in parts.enumerated() {
            let parsed: RawTransmission.Parsed
            do {
                parsed = try RawTransmission.parse(part, params)
            } catch {
                return .fail("t\(i + 1) refused by the relay: \(error.error)")
            }
            guard parsed.authorized == keys[i].1 else { return .fail("t\(i + 1) authorized bytes differ") }
            let auth = parsed.authorization
            switch keys[i].0 {
            case .none:
                guard auth == nil else { return .fail("t\(i + 1) has an authorization") }
            case .ed25519(let p):
                guard case .ed25519Signature(let s)? = auth,
                      TransmissionAuth.verify(key: .ed25519(p.publicKey), authorization: s, authorized: parsed.authorized, corrId: parsed.transmission.corrId, serverSessionKey: nil)
                else { return .fail("t\(i + 1) signature does not verify") }
            case .x25519(let p):
                guard case .authenticator(let a)? = auth else { return .fail("t\(i + 1) is not an authenticator") }
                let ok: Bool
                if let serverKey {
                    ok = TransmissionAuth.verify(key: .x25519(p.publicKey), authorization: a, authorized: parsed.authorized,
                                                 corrId: parsed.transmission.corrId, serverSessionKey: serverKey)
                } else {
                    // Other server keys: the same DH from the queue's side.
                    let shared = try CryptoBox.sharedKey(publicKey: serverPub, privateKey: p)
                    ok = SMPAuthenticator.verify(a, authorized: parsed.authorized, nonce: TransmissionAuth.cbNonce(parsed.transmission.corrId), key: shared)
                }
                guard ok else { return .fail("t\(i + 1) authenticator does not verify") }
            }
        }
        return .pass
    }
}
