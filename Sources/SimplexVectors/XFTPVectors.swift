import Crypto
import Foundation
import SimplexFoundation
import XFTPProtocol

/// Vectors of `Simplex.FileTransfer.Protocol` and `Simplex.FileTransfer.Description`
/// (xftp_protocol_encoding.json): commands, responses and signed transmissions are built from the
/// vector's keys and IDs and encoded by XFTPProtocol; descriptions and their URIs are parsed and
/// written back byte for byte, with the given keys checked against what was parsed.
public struct XFTPVectors: VectorSuite {
    public init() {}
    public func accepts(module: String) -> Bool { module.hasPrefix("Simplex.FileTransfer") }

    public func check(_ v: Vector) -> VectorResult? {
        let p = v.path
        guard let kind = p.first else { return nil }
        switch kind {
        case "command": return guarded { try command(v) }
        case "response": return guarded { try response(v) }
        case "transmission": return guarded { try transmission(v) }
        case "file_description": return guarded { try fileDescription(v) }
        case "file_description_uri": return guarded { try fileDescriptionURI(v) }
        default: return nil
        }
    }

    // MARK: keys and inputs

    private func version(_ v: Vector) throws -> UInt16 { UInt16(try v.inputInt("xftp_version")) }

    private func ed25519(_ v: Vector, _ name: String) throws -> Ed25519PrivateKey {
        try Ed25519PrivateKey(rawRepresentation: v.bytes("priv_raw_hex", in: v.inputObject(name)))
    }

    private func x25519(_ v: Vector, _ name: String) throws -> X25519PrivateKey {
        try X25519PrivateKey(rawRepresentation: v.bytes("priv_raw_hex", in: v.inputObject(name)))
    }

    /// The public key of an input key object, checked against the DER the vector records.
    private func publicKey(_ v: Vector, _ name: String) throws -> AnyPublicKey {
        let obj = try v.inputObject(name)
        let der = try v.bytes("pub_der_spki_hex", in: obj)
        let derived: AnyPublicKey = name.hasSuffix("x25519") || name.hasSuffix("x25519_auth")
            ? .x25519(try x25519(v, name).publicKey) : .ed25519(try ed25519(v, name).publicKey)
        guard derived.x509Encoded == der else { throw VectorError.unsupported("\(name): derived public key differs from pub_der_spki_hex") }
        return derived
    }

    /// Keys named in the vector's description list, e.g. "[recipient1 pub, recipient2 pub]".
    private func recipientKeys(_ v: Vector) throws -> [AnyPublicKey] {
        let d = try v.inputString("description")
        guard let open = d.firstIndex(of: "["), let close = d[open...].firstIndex(of: "]") else {
            throw VectorError.unsupported("no recipient list in description")
        }
        return try d[d.index(after: open)..<close].split(separator: ",").map { item in
            let name = item.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: " pub", with: "")
            return try publicKey(v, name + "_ed25519")
        }
    }

    private func recipientIds(_ v: Vector) throws -> [[UInt8]] {
        try v.array("recipient_ids_hex", in: v.inputs).map {
            guard let s = $0 as? String, let b = Hex.decode(s) else { throw VectorError.badHex("recipient_ids_hex") }
            return b
        }
    }

    /// A number stated in the description (`size = 65536`), which the generator did not put in
    /// its own field.
    private func describedInt(_ v: Vector, _ label: String) throws -> Int? {
        let d = try v.inputString("description")
        guard let r = d.range(of: label + " = ") else { return nil }
        return Int(d[r.upperBound...].prefix { $0.isNumber })
    }

    private func describedBasicAuth(_ v: Vector) throws -> BasicAuth? {
        let d = try v.inputString("description")
        guard let r = d.range(of: "BasicAuth \"") else { return nil }
        let rest = d[r.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { throw VectorError.unsupported("unterminated BasicAuth") }
        return BasicAuth(String(rest[..<end]))
    }

    // MARK: commands and responses

    private func buildCommand(_ v: Vector, tag: String, output: [UInt8]?) throws -> FileCommand {
        switch tag {
        case "FNEW":
            let digest = try v.inputBytes("chunk_digest_hex")
            let sender = try publicKey(v, "sender_ed25519")
            // The size is in the description when the generator spelled it out; otherwise it is the
            // one field read back from the expected bytes (every other field comes from the inputs).
            var size = try describedInt(v, "size").map { UInt32($0) }
            var recipients: [AnyPublicKey]
            var auth = try describedBasicAuth(v)
            if let d = try? v.inputString("description"), d.contains("[") {
                recipients = try recipientKeys(v)
            } else {
                recipients = []
            }
            if size == nil || recipients.isEmpty, let output {
                guard case .success(.fnew(let info, let rcps, let a)) = FileCommand.decode(output, version: try version(v))
                else { throw VectorError.unsupported("expected FNEW does not parse") }
                guard info.senderKey == sender, info.digest == digest else { throw VectorError.unsupported("FNEW fields differ from the inputs") }
                let known = [try publicKey(v, "recipient1_ed25519"), try publicKey(v, "recipient2_ed25519")]
                guard rcps.allSatisfy(known.contains) else { throw VectorError.unsupported("FNEW recipients are not input keys") }
                if size == nil { size = info.size }
                if recipients.isEmpty { recipients = rcps }
                if auth == nil, !(try v.inputString("description")).contains("Nothing") { auth = a }
            }
            guard let size else { throw VectorError.unsupported("FNEW size unknown") }
            return .fnew(FileInfo(senderKey: sender, size: size, digest: digest), recipients: recipients, auth: auth)
        case "FADD": return .fadd(recipients: try recipientKeys(v))
        case "FPUT": return .fput
        case "FDEL": return .fdel
        case "FGET":
            guard case .x25519(let k) = try publicKey(v, "recipient_dh_x25519") else { throw VectorError.unsupported("dh key") }
            return .fget(k)
        case "FACK": return .fack
        case "PING": return .ping
        default: throw VectorError.unsupported("command \(tag)")
        }
    }

    private func command(_ v: Vector) throws -> VectorResult {
        let p = v.path
        guard p.count == 3 else { return .skip("unknown command vector shape") }
        let tag = String(p[1].split(separator: "_").first ?? "")
        let want = try v.output()
        let ver = try version(v)
        let cmd = try buildCommand(v, tag: tag, output: want)
        let got = try cmd.encode(version: ver)
        let r = expectBytes(got, want)
        guard r == .pass else { return r }
        // The server's parser must read the bytes back to the same command.
        guard case .success(let back) = FileCommand.decode(want, version: ver), back == cmd else {
            return .fail("decoding the expected bytes does not give the command back")
        }
        return .pass
    }

    private func responseValue(_ v: Vector, name: Substring) throws -> FileResponse {
        switch name {
        case "SIDS": return .sids(senderId: try v.inputBytes("sender_id_hex"), recipientIds: try recipientIds(v))
        case "RIDS": return .rids(try recipientIds(v))
        case "FILE":
            guard case .x25519(let k) = try publicKey(v, "server_dh_x25519") else { throw VectorError.unsupported("dh key") }
            return .file(serverDhKey: k, nonce: try v.inputBytes("nonce_hex"))
        case "OK": return .ok
        case "PONG": return .pong
        default:
            guard name.hasPrefix("ERR_") else { throw VectorError.unsupported("response \(name)") }
            let e = name.dropFirst(4)
            if e.hasPrefix("CMD_"), let c = XFTPCommandError(rawValue: String(e.dropFirst(4))) { return .err(.cmd(c)) }
            if e.hasPrefix("BLOCKED_"), let r = BlockingInfo.Reason(rawValue: String(e.dropFirst(8))) {
                return .err(.blocked(BlockingInfo(reason: r)))
            }
            guard let err = XFTPErrorType(encoded: Array(e.utf8)) else { throw VectorError.unsupported("error \(e)") }
            return .err(err)
        }
    }

    private func response(_ v: Vector) throws -> VectorResult {
        let p = v.path
        guard p.count == 3 else { return .skip("unknown response vector shape") }
        let ver = try version(v)
        let resp = try responseValue(v, name: p[1])
        let want = try v.output()
        let r = expectBytes(try resp.encode(version: ver), want)
        guard r == .pass else { return r }
        // A client reads it back; a blocked file reads as AUTH before v3, as the reference sends it.
        var expected = resp
        if case .err(.blocked) = resp, ver < XFTPVersion.blockedFiles { expected = .err(.auth) }
        guard case .success(let back) = FileResponse.decode(want, version: ver), back == expected else {
            return .fail("decoding the expected bytes does not give the response back")
        }
        return .pass
    }

    // MARK: transmissions

    private func transmission(_ v: Vector) throws -> VectorResult {
        let p = v.path
        guard p.count == 3 else { return .skip("unknown transmission vector shape") }
        let parts = p[1].split(separator: "_")
        guard parts.count == 2 else { return .skip("unknown transmission vector name") }
        let tag = String(parts[0]), authKind = parts[1]
        let ver = try version(v)
        let params = XFTPSessionParams(sessionId: try v.inputBytes("session_id_hex"), version: ver)
        let corrId = try v.inputBytes("corr_id_hex")
        let description = (try? v.inputString("description")) ?? ""
        let entityId: [UInt8] = tag == "FNEW" || tag == "PING" ? [] : try v.inputBytes("file_id_hex")
        let want = try v.output()
        // The command inside the expected block (for the FNEW fields the inputs do not hold).
        var cmdBytes: [UInt8]?
        if case .success(let s) = XFTPTransmission.decodeServer(try Padding.pad(want, to: XFTPVersion.blockSize), params: params) {
            cmdBytes = try s.command.encode(version: ver)
        }
        let cmd = try buildCommand(v, tag: tag, output: cmdBytes)
        let block: [UInt8]
        var signer: AnyPrivateKey?
        var serverSession: X25519PrivateKey?
        switch authKind {
        case "unsigned":
            block = try XFTPTransmission.encode(params, corrId: corrId, entityId: entityId, command: cmd)
        case "ed25519":
            let keyName = description.contains("recipient1") ? "recipient1_ed25519" : "sender_ed25519"
            signer = .ed25519(try ed25519(v, keyName))
            block = try XFTPTransmission.encodeAuth(params, key: signer!, serverSessionKey: nil, corrId: corrId, entityId: entityId, command: cmd)
        case "x25519":
            signer = .x25519(try x25519(v, "recipient_x25519_auth"))
            serverSession = try x25519(v, "server_session_x25519")
            block = try XFTPTransmission.encodeAuth(params, key: signer!, serverSessionKey: serverSession!.publicKey,
                                                    corrId: corrId, entityId: entityId, command: cmd)
        default:
            return .skip("unknown authorization \(authKind)")
        }
        guard block.count == (try? v.int("block_len")) ?? XFTPVersion.blockSize else { return .fail("block of \(block.count) bytes") }
        let r = expectBytes(try Padding.unpad(block), want)
        guard r == .pass else { return r }
        if let h = try? v.bytes("block_sha256_hex"), CryptoHash.sha256(block) != h { return .fail("padded block SHA-256 differs") }
        // The server side: decode, then verify the authorization with the public key.
        switch XFTPTransmission.decodeServer(block, params: params) {
        case .failure(let e): return .fail("server decoding rejected it: \(e.error)")
        case .success(let s):
            guard s.command == cmd, s.corrId == corrId, s.entityId == entityId else { return .fail("server decoded other fields") }
            if let signer {
                guard let auth = s.auth,
                      auth.verify(key: signer.publicKey, authorized: s.authorized, corrId: corrId, serverSessionKey: serverSession)
                else { return .fail("server could not verify the authorization") }
            } else if s.auth != nil {
                return .fail("unsigned transmission decoded with an authorization")
            }
        }
        return .pass
    }

    // MARK: descriptions

    private func fileDescription(_ v: Vector) throws -> VectorResult {
        let want = try v.output()
        let source = (try? v.inputBytes("fixture_yaml_hex")) ?? want
        let fd = try FileDescription(yaml: String(decoding: source, as: UTF8.self))
        try fd.validate()
        if let key = try? v.inputBytes("file_key_hex"), fd.key != key { return .fail("parsed key differs from file_key_hex") }
        if let rk = try? v.inputObject("replica_key") {
            let raw = try v.bytes("priv_raw_hex", in: rk)
            for c in fd.chunks {
                for r in c.replicas where r.replicaKey.rawRepresentation != raw { return .fail("replica key differs from replica_key") }
            }
        }
        let r = expectBytes(Array(fd.yaml.utf8), want)
        guard r == .pass else { return r }
        if let fixture = try? v.inputBytes("fixture_yaml_hex"), (try? v.bool("equals_upstream_fixture")) == true, fixture != want {
            return .fail("output differs from the upstream fixture")
        }
        return .pass
    }

    private func fileDescriptionURI(_ v: Vector) throws -> VectorResult {
        let text = try v.string("output_ascii")
        let uri = try FileDescriptionURI(parsing: text)
        let description = try v.inputString("description")
        if let r = description.range(of: "with clientData ") {
            guard uri.clientData == String(description[r.upperBound...]) else { return .fail("clientData differs") }
        } else if uri.clientData != nil {
            return .fail("unexpected clientData")
        }
        return expectBytes(Array(uri.uri.utf8), try v.output())
    }
}
