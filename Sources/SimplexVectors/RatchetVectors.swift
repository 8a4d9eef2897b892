import DoubleRatchet
import SimplexFoundation
import SMPAgent

/// Vectors of `Simplex.Messaging.Crypto.Ratchet` (ratchet_x448_classic.json and
/// ratchet_x448_pq_sntrup761.json). Every check computes from the vector's inputs:
/// - `*/setup_x3dh`: both parties' E2E params (binary and URI form) made from the recorded
///   X448 keys and KEM values, both X3DH results, and both initial ratchet states;
/// - `*/conv/mNN`: the sender's recorded state encrypts the plaintext (output bytes and state
///   after), the receiver's recorded state decrypts it (plaintext and state after), with the
///   keys and KEM encapsulation the reference drew at a ratchet step injected, and every KEM
///   ciphertext decapsulated by our sntrup761.
public struct RatchetVectors: VectorSuite {
    public init() {}
    public func accepts(module: String) -> Bool { module.hasPrefix("Simplex.Messaging.Crypto.Ratchet") }

    public func check(_ vector: Vector) -> VectorResult? {
        if vector.name.hasSuffix("/setup_x3dh") { return guarded { try checkSetup(vector) } }
        if vector.path.contains("conv") { return guarded { try checkMessage(vector) } }
        return nil
    }

    // MARK: - setup

    private func checkSetup(_ v: Vector) throws -> VectorResult {
        let keys = try v.inputObject("keys")
        func x448(_ name: String) throws -> X448PrivateKey {
            try X448PrivateKey(rawRepresentation: v.bytes("priv_raw_hex", in: v.object(name, in: keys)))
        }
        let e2eVersion = UInt16(try v.inputInt("e2e_version"))
        let rv = try v.inputObject("ratchet_versions")
        let versions = RatchetVersions(current: UInt16(try v.int("current", in: rv)), maxSupported: UInt16(try v.int("maxSupported", in: rv)))
        let pq = try v.input("initiator_pq_support") as? Bool ?? false
        let initiatorState = try Self.field(v.json, prefix: "initiator_initial_state")
        let joinerState = try Self.field(v.json, prefix: "joiner_initial_state")

        // The initiator (creates the invitation): key1, key2 and, with PQ, a KEM key pair.
        var initiatorRandom = RecordedRandomness()
        initiatorRandom.dhKeys = [try x448("initiator_dh1"), try x448("initiator_dh2")]
        if pq {
            let kp = try Self.keyPair(Self.object(Self.object(initiatorState, "KEM"), "PQRs"))
            if let pub = v.inputs["initiator_kem_pub_hex"] as? String, Hex.decode(pub) != kp.publicKey.bytes {
                return .fail("initiator KEM key pair does not match initiator_kem_pub_hex")
            }
            initiatorRandom.kemKeyPairs = [kp]
        }
        let initiatorOwn = try PQRatchet.generateParams(version: e2eVersion, useKEM: pq ? .propose : nil, random: &initiatorRandom)
        let initiatorParams = try initiatorOwn.publicParams.encoded()
        if case .fail(let why) = expectBytes(initiatorParams, try v.output(), "initiator E2ERatchetParams") { return .fail(why) }
        if let uri = v.json["initiator_e2e_params_uri_str"] as? String {
            let ours = E2ERatchetParamsURI(initiatorOwn.publicParams, versions: VersionRange(E2EVersion.supported)).queryString
            guard ours == uri else { return .fail("initiator E2ERatchetParamsUri: got \(ours), want \(uri)") }
        }

        // The joiner parses them and replies: key1, key2, a KEM key pair and an encapsulation
        // to the initiator's key (the ciphertext and secret the reference recorded).
        let peerOfJoiner = try E2ERatchetParams(encoded: initiatorParams)
        var joinerRandom = RecordedRandomness()
        joinerRandom.dhKeys = [try x448("joiner_dh1"), try x448("joiner_dh2")]
        let useKEM = UseKEM.reply(version: peerOfJoiner.version, peerKEM: peerOfJoiner.kem, pqSupport: pq)
        if useKEM != nil {
            let kem = try Self.object(joinerState, "KEM")
            joinerRandom.kemKeyPairs = [try Self.keyPair(Self.object(kem, "PQRs"))]
            if case .accept? = useKEM, let accepted = kem["accepted"] as? [String: Any] {
                joinerRandom.encapsulations = [try Self.accepted(accepted)]
            }
        }
        let joinerOwn = try PQRatchet.generateParams(version: peerOfJoiner.version, useKEM: useKEM, random: &joinerRandom)
        let joinerParams = try joinerOwn.publicParams.encoded()
        if case .fail(let why) = expectBytes(joinerParams, try v.bytes("joiner_e2e_params_smp_hex"), "joiner E2ERatchetParams") { return .fail(why) }

        // X3DH on both sides (the initiator decapsulates the joiner's ciphertext here).
        let snd = try PQRatchet.pqX3dhSnd(joinerOwn, peerOfJoiner)
        if let why = try Self.compareInit(snd, Self.field(v.json, prefix: "joiner_pqX3dhSnd_result")) { return .fail("pqX3dhSnd: \(why)") }
        let rcv = try PQRatchet.pqX3dhRcv(initiatorOwn, try E2ERatchetParams(encoded: joinerParams))
        if let why = try Self.compareInit(rcv, Self.field(v.json, prefix: "initiator_pqX3dhRcv_result")) { return .fail("pqX3dhRcv: \(why)") }

        // Initial states: the joiner's first ratchet key is dh3, the initiator's is its key2.
        let joiner = try PQRatchet.initSend(
            versions: versions, peerRatchetKey: initiatorOwn.key2.publicKey, dhRatchetKey: try x448("joiner_dh3_initial_ratchet"), params: snd)
        if let why = try Self.compareState(joiner.snapshot, joinerState) { return .fail("joiner initial state: \(why)") }
        let initiator = try PQRatchet.initReceive(versions: versions, dhRatchetKey: initiatorOwn.key2, params: rcv, pqSupport: pq)
        if let why = try Self.compareState(initiator.snapshot, initiatorState) { return .fail("initiator initial state: \(why)") }
        return .pass
    }

    private static func compareInit(_ p: RatchetInitParams, _ want: [String: Any]) throws -> String? {
        var diff: [String] = []
        if p.associatedData != (try bytes(want, "assocData_hex")) { diff.append("assocData") }
        if p.ratchetKey != (try bytes(want, "ratchetKey_hex")) { diff.append("ratchetKey") }
        if p.sendHeaderKey != (try bytes(want, "sndHK_hex")) { diff.append("sndHK") }
        if p.receiveNextHeaderKey != (try bytes(want, "rcvNextHK_hex")) { diff.append("rcvNextHK") }
        let wantAccepted = try (want["kemAccepted"] as? [String: Any]).map(accepted)
        if p.kemAccepted?.peerKey != wantAccepted?.peerKey || p.kemAccepted?.ciphertext != wantAccepted?.ciphertext
            || p.kemAccepted?.sharedSecret != wantAccepted?.sharedSecret {
            diff.append("kemAccepted")
        }
        if want.keys.contains("kemKeyPair") {
            let wantKP = try (want["kemKeyPair"] as? [String: Any]).map(keyPair)
            if p.kemKeyPair != wantKP { diff.append("kemKeyPair") }
        }
        return diff.isEmpty ? nil : "differs in " + diff.joined(separator: ", ")
    }

    // MARK: - messages

    private func checkMessage(_ v: Vector) throws -> VectorResult {
        let senderBefore = try v.object("sender_state_before_encrypt")
        let receiverBefore = try v.object("receiver_state_before_decrypt")
        let padded = try v.inputInt("padded_len")
        let plaintext = try v.inputBytes("plaintext_hex")
        let pqParam = try v.inputString("pq_encryption_param")
        let pqEnable: Bool? = switch pqParam {
        case "Nothing": nil
        case let s where s.contains("On") || s.contains("True"): true
        case let s where s.contains("Off") || s.contains("False"): false
        case let s: throw VectorError.unsupported("pq_encryption_param \(s)")
        }
        let supported = UInt16(try v.inputInt("rcEncryptHeader_supported_version"))

        // Encrypt: no randomness is used by the sender.
        var sender = try PQRatchet(snapshot: Self.snapshot(senderBefore))
        let message = try sender.encrypt(plaintext, paddedLength: padded, pqEnable: pqEnable, supportedVersion: supported)
        if case .fail(let why) = expectBytes(message, try v.output(), "ratchet message") { return .fail(why) }
        if let why = try Self.compareState(sender.snapshot, v.object("sender_state_after_encrypt")) {
            return .fail("sender state after encrypt: \(why)")
        }

        // Decrypt on the receiver's recorded state. A message whose key was skipped earlier is
        // found by the receiver among its skipped keys (kept beside the state, not recorded):
        // that key is derived here from the sender's chain key, as the receiver derived it.
        var state = try Self.snapshot(receiverBefore)
        var reconstructed = false
        if let snd = senderBefore["snd"] as? [String: Any] {
            let hks = try Self.bytes(snd, "HKs_hex"), cks = try Self.bytes(snd, "CKs_hex")
            let n = UInt32(try v.int("Ns", in: senderBefore))
            let sameChainEarlier = state.receiving?.headerKey == hks && n < state.nr
            let olderChain = state.receiving?.headerKey != hks && state.nextReceiveHeaderKey != hks
            if sameChainEarlier || olderChain {
                let out = try CryptoHash.hkdf(salt: [], ikm: cks, info: Array("SimpleXChainRatchet".utf8), count: 96)
                state.skipped.append(RatchetSnapshot.SkippedKey(headerKey: hks, number: n, key: Array(out[32..<64]), iv: Array(out[64..<80])))
                reconstructed = true
            }
        }
        var receiver = try PQRatchet(snapshot: state)
        let receiverAfter = try v.object("receiver_state_after_decrypt")
        var random = RecordedRandomness()
        if let dh = v.json["receiver_generated_dh_priv_hex"] as? String {
            guard let raw = Hex.decode(dh) else { throw VectorError.badHex("receiver_generated_dh_priv_hex") }
            random.dhKeys = [try X448PrivateKey(rawRepresentation: raw)]
        }
        // A ratchet step's new KEM key pair and encapsulation, when the state after has new ones.
        let kemBefore = receiverBefore["KEM"] as? [String: Any], kemAfter = receiverAfter["KEM"] as? [String: Any]
        if let kemAfter {
            let kp = try Self.keyPair(Self.object(kemAfter, "PQRs"))
            if try kemBefore.map({ try Self.keyPair(Self.object($0, "PQRs")) }) != kp { random.kemKeyPairs = [kp] }
            if let acc = kemAfter["accepted"] as? [String: Any] {
                let a = try Self.accepted(acc)
                let before = try (kemBefore?["accepted"] as? [String: Any]).map(Self.accepted)
                if before?.ciphertext != a.ciphertext { random.encapsulations = [a] }
            }
        }
        let decryptError = v.json["decrypt_error"] as? String
        do {
            let plain = try receiver.decrypt(message, random: &random)
            if let decryptError { return .fail("decrypted, but the reference failed with \(decryptError)") }
            if case .fail(let why) = expectBytes(plain, try v.bytes("decrypted_hex"), "plaintext") { return .fail(why) }
        } catch {
            if decryptError != nil { return .pass }
            return .fail("decrypt: \(error)")
        }
        if !random.isUsedUp { return .fail("the ratchet step did not use the recorded keys: \(random.leftover)") }
        if let why = try Self.compareState(receiver.snapshot, receiverAfter) { return .fail("receiver state after decrypt: \(why)") }
        if !reconstructed, let count = v.json["receiver_skipped_keys_count_after"] as? Int, receiver.skippedKeyCount != count {
            return .fail("skipped keys after decrypt: \(receiver.skippedKeyCount), want \(count)")
        }
        return .pass
    }

    // MARK: - states

    /// A recorded state (the JSON form of the generator) as a snapshot, without skipped keys.
    static func snapshot(_ s: [String: Any]) throws -> RatchetSnapshot {
        let kem: RatchetSnapshot.KEM? = try (s["KEM"] as? [String: Any]).map { k in
            RatchetSnapshot.KEM(keyPair: try keyPair(object(k, "PQRs")), accepted: try (k["accepted"] as? [String: Any]).map(accepted))
        }
        let snd: RatchetSnapshot.Sending? = try (s["snd"] as? [String: Any]).map { o in
            RatchetSnapshot.Sending(
                peerRatchetKey: try X448PublicKey(rawRepresentation: bytes(o, "DHRr_pub_hex")),
                chainKey: try bytes(o, "CKs_hex"), headerKey: try bytes(o, "HKs_hex"))
        }
        let rcv: RatchetSnapshot.Receiving? = try (s["rcv"] as? [String: Any]).map { o in
            RatchetSnapshot.Receiving(chainKey: try bytes(o, "CKr_hex"), headerKey: try bytes(o, "HKr_hex"))
        }
        return RatchetSnapshot(
            versions: RatchetVersions(current: UInt16(try int(s, "version_current")), maxSupported: UInt16(try int(s, "version_max_supported"))),
            associatedData: try bytes(s, "AD_hex"),
            dhRatchetKey: try X448PrivateKey(rawRepresentation: bytes(s, "DHRs_priv_hex")),
            kem: kem, pqSupport: try bool(s, "supportKEM"), pqEncryption: try bool(s, "enableKEM"),
            sendingPQ: try bool(s, "sndKEM"), receivingPQ: try bool(s, "rcvKEM"), rootKey: try bytes(s, "RK_hex"),
            sending: snd, receiving: rcv,
            ns: UInt32(try int(s, "Ns")), nr: UInt32(try int(s, "Nr")), pn: UInt32(try int(s, "PN")),
            nextSendHeaderKey: try bytes(s, "NHKs_hex"), nextReceiveHeaderKey: try bytes(s, "NHKr_hex"))
    }

    /// Names the fields where our state differs from the recorded one (nil when none does).
    static func compareState(_ got: RatchetSnapshot, _ wantJSON: [String: Any]) throws -> String? {
        let want = try snapshot(wantJSON)
        if let pub = wantJSON["DHRs_pub_hex"] as? String, Hex.decode(pub) != got.dhRatchetKey.publicKey.rawRepresentation {
            return "DHRs public key"
        }
        var diff: [String] = []
        if got.versions != want.versions { diff.append("rcVersion (\(got.versions) vs \(want.versions))") }
        if got.associatedData != want.associatedData { diff.append("rcAD") }
        if got.dhRatchetKey != want.dhRatchetKey { diff.append("rcDHRs") }
        if got.kem?.keyPair != want.kem?.keyPair { diff.append("rcKEM.PQRs") }
        let ga = got.kem?.accepted, wa = want.kem?.accepted
        if ga?.peerKey != wa?.peerKey { diff.append("rcKEM.PQRr") }
        if ga?.ciphertext != wa?.ciphertext { diff.append("rcKEM.PQRct") }
        if ga?.sharedSecret != wa?.sharedSecret { diff.append("rcKEM.PQRss") }
        if got.pqSupport != want.pqSupport { diff.append("rcSupportKEM") }
        if got.pqEncryption != want.pqEncryption { diff.append("rcEnableKEM") }
        if got.sendingPQ != want.sendingPQ { diff.append("rcSndKEM") }
        if got.receivingPQ != want.receivingPQ { diff.append("rcRcvKEM") }
        if got.rootKey != want.rootKey { diff.append("rcRK") }
        if got.sending != want.sending { diff.append("rcSnd") }
        if got.receiving != want.receiving { diff.append("rcRcv") }
        if got.ns != want.ns { diff.append("rcNs (\(got.ns) vs \(want.ns))") }
        if got.nr != want.nr { diff.append("rcNr (\(got.nr) vs \(want.nr))") }
        if got.pn != want.pn { diff.append("rcPN (\(got.pn) vs \(want.pn))") }
        if got.nextSendHeaderKey != want.nextSendHeaderKey { diff.append("rcNHKs") }
        if got.nextReceiveHeaderKey != want.nextReceiveHeaderKey { diff.append("rcNHKr") }
        return diff.isEmpty ? nil : "differs in " + diff.joined(separator: ", ")
    }

    // MARK: - JSON helpers

    static func field(_ json: [String: Any], prefix: String) throws -> [String: Any] {
        // The classic file names some states with a note in the key ("initiator_initial_state (...)").
        guard let key = json.keys.sorted().first(where: { $0 == prefix || $0.hasPrefix(prefix + " ") }),
              let o = json[key] as? [String: Any]
        else { throw VectorError.missing(prefix) }
        return o
    }

    static func object(_ o: [String: Any], _ key: String) throws -> [String: Any] {
        guard let x = o[key] as? [String: Any] else { throw VectorError.missing(key) }
        return x
    }

    static func bytes(_ o: [String: Any], _ key: String) throws -> [UInt8] {
        guard let s = o[key] as? String else { throw VectorError.missing(key) }
        guard let b = Hex.decode(s) else { throw VectorError.badHex(key) }
        return b
    }

    static func int(_ o: [String: Any], _ key: String) throws -> Int {
        guard let i = o[key] as? Int else { throw VectorError.missing(key) }
        return i
    }

    static func bool(_ o: [String: Any], _ key: String) throws -> Bool {
        guard let b = o[key] as? Bool else { throw VectorError.missing(key) }
        return b
    }

    static func keyPair(_ o: [String: Any]) throws -> KEMKeyPair {
        KEMKeyPair(publicKey: KEMPublicKey(try bytes(o, "pub_hex")), secretKey: KEMSecretKey(try bytes(o, "sec_hex")))
    }

    static func accepted(_ o: [String: Any]) throws -> RatchetKEMAccepted {
        RatchetKEMAccepted(
            peerKey: KEMPublicKey(try bytes(o, "PQRr_hex")), sharedSecret: KEMSharedSecret(try bytes(o, "PQRss_hex")),
            ciphertext: KEMCiphertext(try bytes(o, "PQRct_hex")))
    }
}

/// Replays what the reference's DRG produced: the X448 keys, sntrup761 key pairs and
/// encapsulations it recorded, in order. Each recorded key pair must be consistent (its secret
/// key embeds its public key), and each recorded encapsulation must be for the key the ratchet
/// encapsulates to; its ciphertext is then opened by our sntrup761 on the peer's side.
struct RecordedRandomness: RatchetRandomness {
    var dhKeys: [X448PrivateKey] = []
    var kemKeyPairs: [KEMKeyPair] = []
    var encapsulations: [RatchetKEMAccepted] = []

    var isUsedUp: Bool { dhKeys.isEmpty && kemKeyPairs.isEmpty && encapsulations.isEmpty }
    var leftover: String { "\(dhKeys.count) DH keys, \(kemKeyPairs.count) KEM key pairs, \(encapsulations.count) encapsulations" }

    mutating func dhPrivateKey() throws(RatchetError) -> X448PrivateKey {
        guard !dhKeys.isEmpty else { throw .invalidKey("no recorded DH key for this step") }
        return dhKeys.removeFirst()
    }

    mutating func kemKeyPair<KEM: RatchetKEM>(_ kem: KEM.Type) throws(RatchetError) -> KEMKeyPair {
        guard !kemKeyPairs.isEmpty else { throw .kem("no recorded KEM key pair for this step") }
        let kp = kemKeyPairs.removeFirst()
        guard SNTRUP761RatchetKEM.publicKey(of: kp.secretKey) == kp.publicKey else { throw .kem("recorded KEM secret key does not hold its public key") }
        return kp
    }

    mutating func kemEncapsulate<KEM: RatchetKEM>(_ kem: KEM.Type, to publicKey: KEMPublicKey) throws(RatchetError)
        -> (ciphertext: KEMCiphertext, sharedSecret: KEMSharedSecret) {
        guard !encapsulations.isEmpty else { throw .kem("no recorded encapsulation for this step") }
        let e = encapsulations.removeFirst()
        guard e.peerKey == publicKey else { throw .kem("the ratchet encapsulates to another key than the recorded one") }
        return (e.ciphertext, e.sharedSecret)
    }
}
