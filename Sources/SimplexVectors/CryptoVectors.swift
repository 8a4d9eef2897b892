import SimplexFoundation

/// Vectors of `Simplex.Messaging.Crypto` (crypto_primitives.json): each kind is recomputed
/// from its inputs with SimplexFoundation and compared byte for byte, decryption and
/// verification results included.
public struct CryptoVectors: VectorSuite {
    public init() {}
    public func accepts(module: String) -> Bool { module == "Simplex.Messaging.Crypto" }

    public func check(_ vector: Vector) -> VectorResult? {
        guard let kind = vector.path.first else { return nil }
        switch kind {
        case "x25519_dh": return guarded { try x25519DH(vector) }
        case "pad": return guarded { try pad(vector) }
        case "cbEncrypt": return guarded { try cbEncrypt(vector) }
        case "sbEncrypt": return guarded { try sbEncrypt(vector) }
        case "cbEncryptNoPad": return guarded { try cbEncryptNoPad(vector) }
        case "sbEncryptNoPad": return guarded { try sbEncryptNoPad(vector) }
        case "cbAuthenticate": return guarded { try cbAuthenticate(vector) }
        case "ed25519_sign", "ed448_sign": return guarded { try sign(vector, kind == "ed25519_sign" ? .ed25519 : .ed448) }
        case "pubkey_encoding": return guarded { try pubkeyEncoding(vector) }
        case "hkdf_sha512": return guarded { try hkdf(vector) }
        case "sbcInit_sbcHkdf": return guarded { try secretBoxChain(vector) }
        case "encryptAEAD": return guarded { try encryptAEAD(vector) }
        default: return nil
        }
    }

    // MARK: - kinds

    private func x25519DH(_ v: Vector) throws -> VectorResult {
        let a = try x25519(v, "a"), b = try x25519(v, "b")
        let ab = try a.sharedSecret(with: b.publicKey), ba = try b.sharedSecret(with: a.publicKey)
        if let want = v.json["dh_ba_hex"] as? String, Hex.decode(want) != ba { return .fail("dh' (publicKey a) b differs") }
        return expectBytes(ab, try v.output(), "X25519 shared secret")
    }

    private func pad(_ v: Vector) throws -> VectorResult {
        let out = try Padding.pad(try v.inputBytes("msg_hex"), to: try v.inputInt("padded_len"))
        let r = expectBytes(out, try v.output(), "padded")
        guard r == .pass else { return r }
        return try Padding.unpad(out) == (try v.inputBytes("msg_hex")) ? .pass : .fail("unpad does not give the message back")
    }

    /// `cbEncrypt (dh' b_pub a_priv) nonce msg paddedLen`; b decrypts with `dh' a_pub b_priv`.
    private func cbEncrypt(_ v: Vector) throws -> VectorResult {
        let a = try x25519(v, "a"), b = try x25519(v, "b")
        let secret = try a.sharedSecret(with: b.publicKey)
        if let want = v.json["dh_secret_hex"] as? String, Hex.decode(want) != secret { return .fail("dh secret differs") }
        let nonce = try v.inputBytes("nonce_hex"), msg = try v.inputBytes("msg_hex")
        let out = try CryptoBox.cbEncrypt(dhSecret: secret, nonce: nonce, message: msg, paddedLength: try v.inputInt("padded_len"))
        let r = expectBytes(out, try v.output(), "cbEncrypt")
        guard r == .pass else { return r }
        let opened = try CryptoBox.cbDecrypt(dhSecret: try b.sharedSecret(with: a.publicKey), nonce: nonce, box: out)
        return expectBytes(opened, try v.bytes("cbDecrypt_by_b_hex"), "cbDecrypt by b")
    }

    private func sbEncrypt(_ v: Vector) throws -> VectorResult {
        let key = try v.inputBytes("key_hex"), nonce = try v.inputBytes("nonce_hex")
        let out = try CryptoBox.sbEncrypt(sbKey: key, nonce: nonce, message: try v.inputBytes("msg_hex"), paddedLength: try v.inputInt("padded_len"))
        let r = expectBytes(out, try v.output(), "sbEncrypt")
        guard r == .pass else { return r }
        return expectBytes(try CryptoBox.sbDecrypt(sbKey: key, nonce: nonce, box: out), try v.bytes("sbDecrypt_hex"), "sbDecrypt")
    }

    /// crypto_box keyed by the raw DH (HSalsa20 inside), no padding: tag ++ ciphertext.
    private func cbEncryptNoPad(_ v: Vector) throws -> VectorResult {
        let a = try x25519(v, "a"), b = try x25519(v, "b")
        let key = try CryptoBox.sharedKey(publicKey: b.publicKey, privateKey: a)
        let nonce = try v.inputBytes("nonce_hex"), msg = try v.inputBytes("msg_hex")
        let out = try CryptoBox.seal(key: key, nonce: nonce, plaintext: msg)
        let r = expectBytes(out, try v.output(), "cbEncryptNoPad")
        guard r == .pass else { return r }
        let back = try CryptoBox.open(key: CryptoBox.sharedKey(publicKey: a.publicKey, privateKey: b), nonce: nonce, box: out)
        return back == msg ? .pass : .fail("b cannot open it")
    }

    private func sbEncryptNoPad(_ v: Vector) throws -> VectorResult {
        let key = try CryptoBoxKey(dhSecret: try v.inputBytes("key_hex"))
        let nonce = try v.inputBytes("nonce_hex"), msg = try v.inputBytes("msg_hex")
        let out = try CryptoBox.seal(key: key, nonce: nonce, plaintext: msg)
        let r = expectBytes(out, try v.output(), "sbEncryptNoPad")
        guard r == .pass else { return r }
        return try CryptoBox.open(key: key, nonce: nonce, box: out) == msg ? .pass : .fail("does not open")
    }

    /// `cbAuthenticate b_pub a_priv nonce msg` (80 bytes); b verifies with its private key.
    private func cbAuthenticate(_ v: Vector) throws -> VectorResult {
        let a = try x25519(v, "a"), b = try x25519(v, "b")
        let nonce = try v.inputBytes("nonce_hex"), msg = try v.inputBytes("msg_hex")
        if let want = v.json["sha512_msg_hex"] as? String, Hex.decode(want) != CryptoHash.sha512(msg) { return .fail("sha512 of the message differs") }
        let out = try SMPAuthenticator.authenticate(authorized: msg, nonce: nonce, serverPublicKey: b.publicKey, queuePrivateKey: a)
        let r = expectBytes(out, try v.output(), "cbAuthenticate")
        guard r == .pass else { return r }
        let verified = SMPAuthenticator.verify(out, authorized: msg, nonce: nonce, queuePublicKey: a.publicKey, serverPrivateKey: b)
        let tampered = SMPAuthenticator.verify(out, authorized: msg + [0], nonce: nonce, queuePublicKey: a.publicKey, serverPrivateKey: b)
        if let want = v.json["cbVerify_by_b"] as? Bool, want != verified { return .fail("cbVerify by b: \(verified), want \(want)") }
        return tampered ? .fail("verifies an altered message") : .pass
    }

    /// Deterministic signatures; `smpEncode` of a signature is its 1-byte length ++ bytes.
    private func sign(_ v: Vector, _ algorithm: KeyAlgorithm) throws -> VectorResult {
        let key = try AnyPrivateKey(algorithm: algorithm, rawRepresentation: v.bytes("priv_raw_hex", in: v.inputObject("key")))
        let msg = try v.inputBytes("msg_hex")
        let sig = try key.sign(msg)
        let r = expectBytes(sig, try v.output(), "signature")
        guard r == .pass else { return r }
        if let enc = v.json["smpEncode_sig_hex"] as? String, Hex.decode(enc) != [UInt8(sig.count)] + sig {
            return .fail("smpEncode of the signature differs")
        }
        let verified = key.publicKey.isValidSignature(sig, for: msg)
        if let want = v.json["verify"] as? Bool, want != verified { return .fail("verify: \(verified), want \(want)") }
        return key.publicKey.isValidSignature(sig, for: msg + [1]) ? .fail("verifies another message") : .pass
    }

    /// The public key derived from the private one: smpEncode = 1-byte length ++ DER SPKI,
    /// strEncode = base64url of the DER.
    private func pubkeyEncoding(_ v: Vector) throws -> VectorResult {
        guard v.path.count > 1 else { return .skip("no algorithm in the name") }
        let algorithm: KeyAlgorithm
        switch v.path[1] {
        case "x25519": algorithm = .x25519
        case "x448": algorithm = .x448
        case "ed25519": algorithm = .ed25519
        case "ed448": algorithm = .ed448
        case let other: return .skip("key algorithm \(other)")
        }
        let keyObject = try v.inputObject("key")
        let pub = try AnyPrivateKey(algorithm: algorithm, rawRepresentation: v.bytes("priv_raw_hex", in: keyObject)).publicKey
        if let raw = keyObject["pub_raw_hex"] as? String, Hex.decode(raw) != pub.rawRepresentation { return .fail("derived public key differs") }
        var e = SMPEncoder()
        try e.shortString(pub.x509Encoded)
        let r = expectBytes(e.bytes, try v.output(), "smpEncode")
        guard r == .pass else { return r }
        if let str = v.json["strEncode"] as? String, Base64URL.encode(pub.x509Encoded) != str {
            return .fail("strEncode: got \(Base64URL.encode(pub.x509Encoded)), want \(str)")
        }
        let parsed = try AnyPublicKey(x509Encoded: pub.x509Encoded)
        return parsed == pub ? .pass : .fail("DER does not parse back")
    }

    private func hkdf(_ v: Vector) throws -> VectorResult {
        let out = try CryptoHash.hkdf(
            salt: try v.inputBytes("salt_hex"), ikm: try v.inputBytes("ikm_hex"),
            info: Array(try v.inputString("info").utf8), count: try v.inputInt("len"))
        return expectBytes(out, try v.output(), "HKDF-SHA512")
    }

    /// `sbcInit salt secret`, then `sbcHkdf` steps on both chains.
    private func secretBoxChain(_ v: Vector) throws -> VectorResult {
        let (ck1, ck2) = try SecretBoxChain.initKeys(salt: try v.inputBytes("salt_hex"), secret: try v.inputBytes("secret_hex"))
        if let key = v.json.keys.first(where: { $0.hasPrefix("sbcInit_chain_keys_hex") }), let hex = v.json[key] as? String,
           Hex.decode(hex) != ck1 + ck2 {
            return .fail("sbcInit chain keys differ")
        }
        let s1 = try SecretBoxChain.step(ck1)
        let r = expectBytes(s1.key + s1.nonce, try v.output(), "chain 1 step 1 key ++ nonce")
        guard r == .pass else { return r }
        let s2 = try SecretBoxChain.step(s1.chainKey)
        let t1 = try SecretBoxChain.step(ck2)
        let expected: [(String, [UInt8])] = [
            ("chain1_step1_key_hex", s1.key), ("chain1_step1_nonce_hex", s1.nonce),
            ("chain1_step2_key_hex", s2.key), ("chain1_step2_nonce_hex", s2.nonce),
            ("chain2_step1_key_hex", t1.key), ("chain2_step1_nonce_hex", t1.nonce),
        ]
        for (name, got) in expected {
            if let hex = v.json[name] as? String, Hex.decode(hex) != got { return .fail("\(name) differs") }
        }
        return .pass
    }

    /// AES-256-GCM with a 16-byte IV over `pad(msg, paddedLen)`; output = ciphertext, tag apart.
    private func encryptAEAD(_ v: Vector) throws -> VectorResult {
        let key = try v.inputBytes("key_hex"), iv = try v.inputBytes("iv_hex"), ad = try v.inputBytes("ad_hex")
        let msg = try v.inputBytes("msg_hex")
        let (ct, tag) = try AESGCM.encryptAEAD(key: key, iv: iv, paddedLength: try v.inputInt("padded_len"), aad: ad, message: msg)
        let r = expectBytes(ct, try v.output(), "ciphertext")
        guard r == .pass else { return r }
        if let want = v.json["auth_tag_hex"] as? String, Hex.decode(want) != tag { return .fail("auth tag differs") }
        let back = try AESGCM.decryptAEAD(key: key, iv: iv, aad: ad, ciphertext: ct, tag: tag)
        return back == msg ? .pass : .fail("decryptAEAD does not give the message back")
    }

    // MARK: - inputs

    private func x25519(_ v: Vector, _ name: String) throws -> X25519PrivateKey {
        try X25519PrivateKey(rawRepresentation: v.bytes("priv_raw_hex", in: v.inputObject(name)))
    }
}
