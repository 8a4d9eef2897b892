import SimplexFoundation

/// The double ratchet with header encryption augmented with two parallel KEM agreements
/// (pqdr.md "PQ2HE"), as simplexmq's Ratchet.hs runs it, with X448 DH keys and sntrup761. A
/// value: the agent loads it, calls `encrypt`/`decrypt`, and stores `serialized()` again.
public typealias PQRatchet = Ratchet<SNTRUP761RatchetKEM>

/// Ratchet state over a chosen KEM. Field names follow Ratchet.hs (`rcDHRs`, `rcNs`...) in Swift
/// spelling; the skipped-message keys (`MKSKIPPED`) are part of the state (see `SkippedMessageKeys`).
public struct Ratchet<KEM: RatchetKEM>: Sendable, Equatable {
    /// Most keys skipped in one step (simplexmq `maxSkip`); more is `tooManySkipped`.
    public static var maxSkip: UInt32 { 512 }
    /// Most skipped keys kept in total; beyond it the oldest are dropped (simplexmq has no bound).
    public static var maxStoredSkippedKeys: Int { 2048 }

    /// `rcVersion`: current version used to encrypt, and the max advertised in headers.
    public internal(set) var versions: RatchetVersions
    /// `rcAD`: raw X448 keys `sk1 || rk1` of the X3DH, authenticated with every header and body.
    public let associatedData: [UInt8]
    /// `DHRs`.
    var dhRatchetKey: X448PrivateKey
    /// `rcKEM`: `PQRs` and, once accepted, `PQRr`, `PQRss`, `PQRct`.
    var kem: KEMState?
    /// `rcSupportKEM`: large (PQ-capable) headers; once on, it stays on.
    public internal(set) var pqSupport: Bool
    /// `rcEnableKEM`: use KEM on the next ratchet step (the user's or the peer's choice).
    public internal(set) var pqEncryption: Bool
    /// `rcSndKEM`: the current sending chain includes a KEM secret.
    public internal(set) var sendingPQ: Bool
    /// `rcRcvKEM`: the current receiving chain includes a KEM secret.
    public internal(set) var receivingPQ: Bool
    /// `RK`.
    var rootKey: [UInt8]
    /// `DHRr`, `CKs`, `HKs`.
    var sending: SendingChain?
    /// `CKr`, `HKr`.
    var receiving: ReceivingChain?
    /// `Ns`, `Nr`, `PN`.
    var ns: UInt32
    var nr: UInt32
    var pn: UInt32
    /// `NHKs`, `NHKr`.
    var nextSendHeaderKey: [UInt8]
    var nextReceiveHeaderKey: [UInt8]
    /// `MKSKIPPED`.
    var skipped: SkippedMessageKeys

    struct SendingChain: Sendable, Equatable {
        var peerRatchetKey: X448PublicKey
        var chainKey: [UInt8]
        var headerKey: [UInt8]
    }

    struct ReceivingChain: Sendable, Equatable {
        var chainKey: [UInt8]
        var headerKey: [UInt8]
    }

    struct KEMState: Sendable, Equatable {
        var keyPair: KEMKeyPair
        var accepted: RatchetKEMAccepted?
    }

    /// True when the ratchet can encrypt (Bob's side cannot until Alice's first message arrives).
    public var canEncrypt: Bool { sending != nil }

    /// Number of skipped-message keys currently kept.
    public var skippedKeyCount: Int { skipped.count }
}

/// The KEM agreement of one sending step (pqdr.md `PQRr`, `PQRss`, `PQRct`).
public struct RatchetKEMAccepted: Sendable, Equatable {
    /// `PQRr`: the peer's encapsulation key we encapsulated to.
    public let peerKey: KEMPublicKey
    /// `PQRss`: the shared secret, mixed into the sending root KDF.
    public let sharedSecret: KEMSharedSecret
    /// `PQRct`: its encapsulation, sent in headers until the next step.
    public let ciphertext: KEMCiphertext

    public init(peerKey: KEMPublicKey, sharedSecret: KEMSharedSecret, ciphertext: KEMCiphertext) {
        self.peerKey = peerKey
        self.sharedSecret = sharedSecret
        self.ciphertext = ciphertext
    }
}

/// Output of the X3DH (`pqX3dhSnd`/`pqX3dhRcv`), input of ratchet initialisation
/// (simplexmq `RatchetInitParams` plus the KEM key pair returned beside it).
public struct RatchetInitParams: Sendable, Equatable {
    /// `rcAD`.
    public let associatedData: [UInt8]
    /// `SK`.
    public let ratchetKey: [UInt8]
    /// `shared_hka`: the sender's first header key.
    public let sendHeaderKey: [UInt8]
    /// `shared_nhkb`: the sender's next receiving header key.
    public let receiveNextHeaderKey: [UInt8]
    /// The KEM agreement completed in the handshake, if any.
    public let kemAccepted: RatchetKEMAccepted?
    /// One's own KEM key pair (`PQRs`), when one proposed or accepted.
    public let kemKeyPair: KEMKeyPair?
}

// MARK: - handshake

extension Ratchet {
    /// simplexmq `generateE2EParams`: two X448 key pairs and, from v3, the KEM part, drawn from
    /// `random` in the reference's order (key1, key2, KEM key pair, encapsulation).
    public static func generateParams<R: RatchetRandomness>(version: UInt16, useKEM: UseKEM?, random: inout R) throws(RatchetError) -> E2EPrivateParams {
        guard E2EVersion.supported.contains(version) else { throw .unsupportedVersion(version) }
        let key1 = try random.dhPrivateKey()
        let key2 = try random.dhPrivateKey()
        var kem: PrivateRatchetKEMParams?
        if let useKEM, version >= E2EVersion.pqRatchet {
            let kp = try random.kemKeyPair(KEM.self)
            switch useKEM {
            case .propose: kem = .proposed(kp)
            case .accept(let peerKey):
                let (ct, ss) = try random.kemEncapsulate(KEM.self, to: peerKey)
                kem = .accepted(ct, ss, kp)
            }
        }
        return E2EPrivateParams(version: version, key1: key1, key2: key2, kem: kem)
    }

    /// `generateParams` with the system CSPRNG.
    public static func generateParams(version: UInt16, useKEM: UseKEM?) throws(RatchetError) -> E2EPrivateParams {
        var random = SystemRatchetRandomness()
        return try generateParams(version: version, useKEM: useKEM, random: &random)
    }

    /// Params of the party creating the connection (Bob in pqdr.md, simplexmq
    /// `generateRcvE2EParams`): proposes a KEM when `pqSupport` is on (the default).
    public static func generateReceiverParams(version: UInt16 = E2EVersion.current, pqSupport: Bool = true) throws(RatchetError) -> E2EPrivateParams {
        try generateParams(version: version, useKEM: pqSupport ? .propose : nil)
    }

    /// Params of the party joining (Alice, `generateSndE2EParams` with `replyKEM_`): accepts the
    /// peer's proposal, or proposes itself, when `pqSupport` is on; uses the peer's version.
    public static func generateSenderParams(replyingTo peer: E2ERatchetParams, pqSupport: Bool = true) throws(RatchetError) -> E2EPrivateParams {
        try generateParams(version: peer.version, useKEM: UseKEM.reply(version: peer.version, peerKEM: peer.kem, pqSupport: pqSupport))
    }

    /// simplexmq `pqX3dhSnd` (the joining party, after receiving `peer`).
    public static func pqX3dhSnd(_ own: E2EPrivateParams, _ peer: E2ERatchetParams) throws(RatchetError) -> RatchetInitParams {
        var keyPair: KEMKeyPair?
        var accepted: RatchetKEMAccepted?
        if let ownKEM = own.kem, peer.version >= E2EVersion.pqRatchet {
            switch (ownKEM, peer.kem) {
            case (.accepted(let ct, let ss, let kp), .proposed(let k)?):
                keyPair = kp
                accepted = RatchetKEMAccepted(peerKey: k, sharedSecret: ss, ciphertext: ct)
            case (.proposed(let kp), _):
                keyPair = kp  // both parties may propose (ratchet renegotiation)
            default:
                throw .pqMismatch
            }
        }
        let pk1 = own.key1, pk2 = own.key2
        return try pqX3dh(
            sk1: pk1.publicKey, rk1: peer.key1,
            dh1: dh(pk2, peer.key1), dh2: dh(pk1, peer.key2), dh3: dh(pk2, peer.key2),
            accepted: accepted, keyPair: keyPair)
    }

    /// simplexmq `pqX3dhRcv` (the creating party, after receiving the reply `peer`).
    public static func pqX3dhRcv(_ own: E2EPrivateParams, _ peer: E2ERatchetParams) throws(RatchetError) -> RatchetInitParams {
        var keyPair: KEMKeyPair?
        var accepted: RatchetKEMAccepted?
        if case .accepted(let ct, let peerKey)? = peer.kem, peer.version >= E2EVersion.pqRatchet {
            guard case .proposed(let kp)? = own.kem else { throw .pqMismatch }
            let ss = try KEM.decapsulate(ct, secretKey: kp.secretKey)
            keyPair = kp
            accepted = RatchetKEMAccepted(peerKey: peerKey, sharedSecret: ss, ciphertext: ct)
        }
        let pk1 = own.key1, pk2 = own.key2
        return try pqX3dh(
            sk1: peer.key1, rk1: pk1.publicKey,
            dh1: dh(pk1, peer.key2), dh2: dh(pk2, peer.key1), dh3: dh(pk2, peer.key2),
            accepted: accepted, keyPair: keyPair)
    }

    private static func pqX3dh(
        sk1: X448PublicKey, rk1: X448PublicKey, dh1: [UInt8], dh2: [UInt8], dh3: [UInt8],
        accepted: RatchetKEMAccepted?, keyPair: KEMKeyPair?
    ) throws(RatchetError) -> RatchetInitParams {
        let (hk, nhk, sk) = try RatchetKDF.x3dh(dh1: dh1, dh2: dh2, dh3: dh3, kemSecret: accepted?.sharedSecret)
        return RatchetInitParams(
            associatedData: sk1.rawRepresentation + rk1.rawRepresentation, ratchetKey: sk,
            sendHeaderKey: hk, receiveNextHeaderKey: nhk, kemAccepted: accepted, kemKeyPair: keyPair)
    }

    /// Alice's ratchet (the joining party): X3DH with the creator's `peer` params, then
    /// `RatchetInitAlicePQ2HE` with a fresh DH ratchet key against the peer's second key.
    public static func initSend(versions: RatchetVersions = .latest, own: E2EPrivateParams, peer: E2ERatchetParams) throws(RatchetError) -> Ratchet {
        var random = SystemRatchetRandomness()
        return try initSend(versions: versions, own: own, peer: peer, random: &random)
    }

    /// `initSend` taking the first DH ratchet key from `random`.
    public static func initSend<R: RatchetRandomness>(
        versions: RatchetVersions = .latest, own: E2EPrivateParams, peer: E2ERatchetParams, random: inout R
    ) throws(RatchetError) -> Ratchet {
        try versions.validate()
        let params = try pqX3dhSnd(own, peer)
        return try initSend(versions: versions, peerRatchetKey: peer.key2, dhRatchetKey: try random.dhPrivateKey(), params: params)
    }

    /// simplexmq `initSndRatchet`: `RK, CKs, NHKs = KDF_RK_HE(SK, DH(DHRs, DHRr) || PQRss)`.
    public static func initSend(
        versions: RatchetVersions, peerRatchetKey: X448PublicKey, dhRatchetKey: X448PrivateKey, params: RatchetInitParams
    ) throws(RatchetError) -> Ratchet {
        try versions.validate()
        let (rk, cks, nhks) = try RatchetKDF.root(
            rootKey: params.ratchetKey, dhOutput: dh(dhRatchetKey, peerRatchetKey), kemSecret: params.kemAccepted?.sharedSecret)
        let pqOn = params.kemKeyPair != nil
        return Ratchet(
            versions: versions, associatedData: params.associatedData, dhRatchetKey: dhRatchetKey,
            kem: params.kemKeyPair.map { KEMState(keyPair: $0, accepted: params.kemAccepted) },
            pqSupport: pqOn, pqEncryption: pqOn, sendingPQ: params.kemAccepted != nil, receivingPQ: false,
            rootKey: rk,
            sending: SendingChain(peerRatchetKey: peerRatchetKey, chainKey: cks, headerKey: params.sendHeaderKey),
            receiving: nil, ns: 0, nr: 0, pn: 0,
            nextSendHeaderKey: nhks, nextReceiveHeaderKey: params.receiveNextHeaderKey, skipped: SkippedMessageKeys())
    }

    /// Bob's ratchet (the creating party), after the reply `peer` arrives: X3DH, then
    /// `RatchetInitBobPQ2HE` with his second key as `DHRs`. `pqSupport` is his PQ preference
    /// (simplexmq passes its own setting and-ed with the agent version's PQ support).
    public static func initReceive(versions: RatchetVersions = .latest, own: E2EPrivateParams, peer: E2ERatchetParams, pqSupport: Bool = true) throws(RatchetError) -> Ratchet {
        try versions.validate()
        let params = try pqX3dhRcv(own, peer)
        return try initReceive(versions: versions, dhRatchetKey: own.key2, params: params, pqSupport: pqSupport)
    }

    /// simplexmq `initRcvRatchet`: `RK = SK`, no chains yet; header keys swapped relative to Alice.
    public static func initReceive(versions: RatchetVersions, dhRatchetKey: X448PrivateKey, params: RatchetInitParams, pqSupport: Bool) throws(RatchetError) -> Ratchet {
        try versions.validate()
        return Ratchet(
            versions: versions, associatedData: params.associatedData, dhRatchetKey: dhRatchetKey,
            kem: params.kemKeyPair.map { KEMState(keyPair: $0, accepted: params.kemAccepted) },
            pqSupport: pqSupport, pqEncryption: pqSupport, sendingPQ: false, receivingPQ: false,
            rootKey: params.ratchetKey, sending: nil, receiving: nil, ns: 0, nr: 0, pn: 0,
            nextSendHeaderKey: params.receiveNextHeaderKey, nextReceiveHeaderKey: params.sendHeaderKey,
            skipped: SkippedMessageKeys())
    }
}

// MARK: - encrypt

extension Ratchet {
    /// Whether `length` bytes fit `paddedLength` (simplexmq `rcCheckCanPad`).
    public static func canPad(_ length: Int, paddedLength: Int) -> Bool {
        length <= 65533 && paddedLength - length - 2 >= 0
    }

    /// Size of an encrypted message whose body is padded to `paddedLength`, at the current
    /// version and PQ support: the agent sizes its envelopes with this.
    public func encryptedLength(paddedLength: Int) -> Int {
        let v = versions.current
        let prefix = v >= E2EVersion.pqRatchet ? 2 : 1
        let header = 2 + 16 + 16 + prefix + MessageHeader.paddedLength(version: v, pqSupport: pqSupport, kem: KEM.self)
        return prefix + header + 16 + paddedLength
    }

    /// `RatchetEncryptPQ2HE` (simplexmq `rcEncryptHeader` + `rcEncryptMsg`): encrypts `plaintext`
    /// padded to `paddedLength`. `pqEnable` turns PQ encryption on or off from the next ratchet
    /// step (nil keeps the current choice). The state changes only when it succeeds.
    /// `supportedVersion` is the E2E version the agent supports (simplexmq passes its current
    /// maximum); the header advertises at least that, and at least v3 when PQ is being enabled.
    public mutating func encrypt(
        _ plaintext: [UInt8], paddedLength: Int, pqEnable: Bool? = nil, supportedVersion: UInt16 = E2EVersion.current
    ) throws(RatchetError) -> [UInt8] {
        var next = self
        let message = try next.prepare(plaintext, paddedLength: paddedLength, pqEnable: pqEnable, supportedVersion: supportedVersion).sealed()
        self = next
        return message
    }

    /// `encrypt` up to the body: advances the state (header encrypted, message key taken) and
    /// returns what `PreparedMessage.sealed()` turns into the same bytes `encrypt` returns.
    public mutating func prepare(
        _ plaintext: [UInt8], paddedLength: Int, pqEnable: Bool? = nil, supportedVersion: UInt16 = E2EVersion.current
    ) throws(RatchetError) -> PreparedMessage {
        guard let snd = sending else { throw .noSendingChain }
        guard Self.canPad(plaintext.count, paddedLength: paddedLength) else { throw .messageTooLarge }
        let (ck, mk, iv, headerIV) = try RatchetKDF.chain(snd.chainKey)
        let v = versions.current
        let pqEnc = pqEnable ?? pqEncryption
        let pqSup = pqSupport || (v >= E2EVersion.pqRatchet && pqEnc)
        // rcEncryptHeader: `max supportedE2EVersion (if PQ is being enabled then 3 else current)`;
        // the current version itself only rises when the peer decrypts.
        let maxSupported = max(supportedVersion, pqEnable == true ? E2EVersion.pqRatchet : v)
        let header = MessageHeader(
            maxVersion: maxSupported, dhRatchetKey: dhRatchetKey.publicKey, kem: kem.map(Self.headerKEM),
            previousCount: pn, number: ns)
        let encHeader: [UInt8]
        do {
            let hdrBody = try AESGCM.encryptAEAD(
                key: snd.headerKey, iv: headerIV, paddedLength: MessageHeader.paddedLength(version: v, pqSupport: pqSup, kem: KEM.self),
                aad: associatedData, message: try header.encoded(version: v))
            encHeader = try EncryptedHeader(version: v, iv: headerIV, tag: hdrBody.tag, body: hdrBody.ciphertext).encoded()
        } catch let e as RatchetError {
            throw e
        } catch {
            throw .messageTooLarge  // AES-GCM with checked key/IV sizes fails only on padding
        }
        sending!.chainKey = ck
        ns += 1
        pqSupport = pqSup
        pqEncryption = pqEnc
        versions.maxSupported = maxSupported
        if pqEnable == false { kem?.accepted = nil }
        return PreparedMessage(version: v, header: encHeader, messageKey: mk, iv: iv, associatedData: associatedData,
                               plaintext: plaintext, paddedLength: paddedLength)
    }

    private static func headerKEM(_ s: KEMState) -> RatchetKEMParams {
        if let a = s.accepted { .accepted(a.ciphertext, s.keyPair.publicKey) } else { .proposed(s.keyPair.publicKey) }
    }
}

// MARK: - decrypt

extension Ratchet {
    /// `RatchetDecryptPQ2HE` (simplexmq `rcDecrypt`). Atomic: on any error the state is unchanged,
    /// so a forged, corrupted or replayed message costs nothing and the next genuine one decrypts.
    public mutating func decrypt(_ message: [UInt8]) throws(RatchetError) -> [UInt8] {
        var random = SystemRatchetRandomness()
        return try decrypt(message, random: &random)
    }

    /// `decrypt` taking a ratchet step's new DH key, KEM key pair and encapsulation from `random`.
    public mutating func decrypt<R: RatchetRandomness>(_ message: [UInt8], random: inout R) throws(RatchetError) -> [UInt8] {
        var next = self
        let plaintext = try next.decryptInPlace(message, random: &random)
        self = next
        return plaintext
    }

    private enum Step { case same, advance }

    private mutating func decryptInPlace<R: RatchetRandomness>(_ bytes: [UInt8], random: inout R) throws(RatchetError) -> [UInt8] {
        let msg = try EncryptedMessage(decoding: bytes)
        let encHeader = try EncryptedHeader(decoding: msg.header)
        // TrySkippedMessageKeysHE
        for chain in skipped.chains {
            guard let header = try decryptHeader(chain.headerKey, encHeader) else { continue }
            if let mk = skipped.key(headerKey: chain.headerKey, number: header.number) {
                let plaintext = try decryptBody(mk, msg)
                skipped.remove(headerKey: chain.headerKey, number: header.number)
                return plaintext
            }
            if let rcv = receiving, rcv.headerKey == chain.headerKey {
                return try decryptMessage(.same, header, msg, random: &random)
            } else if chain.headerKey == nextReceiveHeaderKey {
                return try decryptMessage(.advance, header, msg, random: &random)
            }
            // An older chain whose key for this number was used already: a replay, which
            // simplexmq reports as CERatchetHeader.
            throw .header
        }
        // DecryptHeader: HKr, then NHKr
        if let rcv = receiving, let header = try decryptHeader(rcv.headerKey, encHeader) {
            return try decryptMessage(.same, header, msg, random: &random)
        }
        if let header = try decryptHeader(nextReceiveHeaderKey, encHeader) {
            return try decryptMessage(.advance, header, msg, random: &random)
        }
        throw .header
    }

    private mutating func decryptMessage<R: RatchetRandomness>(
        _ step: Step, _ header: MessageHeader, _ msg: EncryptedMessage, random: inout R
    ) throws(RatchetError) -> [UInt8] {
        if header.maxVersion > versions.current {
            versions.current = max(versions.current, min(header.maxVersion, versions.maxSupported))
        }
        if step == .advance {
            try skipMessageKeys(until: header.previousCount)
            try ratchetStep(header, random: &random)
        }
        try skipMessageKeys(until: header.number)
        guard let rcv = receiving else { throw .header }  // unreachable: a step always creates it
        let (ck, mk, iv, _) = try RatchetKDF.chain(rcv.chainKey)
        let plaintext = try decryptBody(MessageKey(key: mk, iv: iv), msg)
        receiving!.chainKey = ck
        nr += 1
        skipped.trim(to: Self.maxStoredSkippedKeys)
        return plaintext
    }

    /// `SkipMessageKeysHE`: stores keys of the current receiving chain up to message `n`.
    private mutating func skipMessageKeys(until n: UInt32) throws(RatchetError) {
        guard var rcv = receiving else { return }
        let nr = UInt64(self.nr), until = UInt64(n)
        if nr > until + 1 { throw .earlierMessage(UInt32(nr - until - 1)) }
        if nr == until + 1 { throw .duplicateMessage }
        if nr + UInt64(Self.maxSkip) < until { throw .tooManySkipped(UInt32(truncatingIfNeeded: until + 1 - nr)) }
        if nr == until { return }
        var keys: [(number: UInt32, key: MessageKey)] = []
        keys.reserveCapacity(Int(until - nr))
        for i in self.nr..<n {
            let (ck, mk, iv, _) = try RatchetKDF.chain(rcv.chainKey)
            rcv.chainKey = ck
            keys.append((i, MessageKey(key: mk, iv: iv)))
        }
        receiving = rcv
        self.nr = n
        skipped.add(headerKey: rcv.headerKey, keys: keys)
    }

    /// `DHRatchetPQ2HE`: both root KDF steps, each augmented with a KEM secret when there is one.
    private mutating func ratchetStep<R: RatchetRandomness>(_ header: MessageHeader, random: inout R) throws(RatchetError) {
        let (rcvSecret, sndSecret, kem2) = try pqRatchetStep(header.kem, random: &random)
        let newDH = try random.dhPrivateKey()
        let (rk1, ckr, nhkr) = try RatchetKDF.root(rootKey: rootKey, dhOutput: Self.dh(dhRatchetKey, header.dhRatchetKey), kemSecret: rcvSecret)
        let (rk2, cks, nhks) = try RatchetKDF.root(rootKey: rk1, dhOutput: Self.dh(newDH, header.dhRatchetKey), kemSecret: sndSecret)
        let pqEnc = sndSecret != nil || rcvSecret != nil || kem2 != nil
        dhRatchetKey = newDH
        kem = kem2
        pqSupport = pqSupport || (versions.current >= E2EVersion.pqRatchet && pqEnc)
        pqEncryption = pqEnc
        sendingPQ = sndSecret != nil
        receivingPQ = rcvSecret != nil
        rootKey = rk2
        sending = SendingChain(peerRatchetKey: header.dhRatchetKey, chainKey: cks, headerKey: nextSendHeaderKey)
        receiving = ReceivingChain(chainKey: ckr, headerKey: nextReceiveHeaderKey)
        pn = ns
        ns = 0
        nr = 0
        nextSendHeaderKey = nhks
        nextReceiveHeaderKey = nhkr
    }

    /// The KEM half of the step (simplexmq `pqRatchetStep`): the secret decapsulated from the
    /// header (receiving chain), a new secret encapsulated to the header's key (sending chain),
    /// and the new KEM state. With PQ off, a received proposal is not answered, so both sides stop.
    private func pqRatchetStep<R: RatchetRandomness>(_ params: RatchetKEMParams?, random: inout R) throws(RatchetError)
        -> (KEMSharedSecret?, KEMSharedSecret?, KEMState?) {
        let pqOn = pqEncryption && versions.current >= E2EVersion.pqRatchet
        guard let params else {
            // The peer sent no KEM, but we enabled it: propose with a new key pair.
            if kem == nil, pqOn { return (nil, nil, KEMState(keyPair: try random.kemKeyPair(KEM.self), accepted: nil)) }
            return (nil, nil, nil)
        }
        var received: KEMSharedSecret?
        if case .accepted(let ct, _) = params {
            guard let kem else { throw .pqMismatch }
            received = try KEM.decapsulate(ct, secretKey: kem.keyPair.secretKey)
        }
        guard pqOn else { return (received, nil, nil) }
        let peerKey = params.publicKey
        let (ct, ss) = try random.kemEncapsulate(KEM.self, to: peerKey)
        let kp = try random.kemKeyPair(KEM.self)
        return (received, ss, KEMState(keyPair: kp, accepted: RatchetKEMAccepted(peerKey: peerKey, sharedSecret: ss, ciphertext: ct)))
    }

    /// `HDECRYPT`: nil when `decryptAEAD` fails under `key`, tag or padding (simplexmq turns
    /// both into CERatchetHeader and tries the next key), an error when the header does not parse.
    private func decryptHeader(_ key: [UInt8], _ h: EncryptedHeader) throws(RatchetError) -> MessageHeader? {
        let plain: [UInt8]
        do {
            plain = try AESGCM.decryptAEAD(key: key, iv: h.iv, aad: associatedData, ciphertext: h.body, tag: h.tag)
        } catch {
            return nil
        }
        return try MessageHeader(decoding: plain, version: h.version)
    }

    /// `DECRYPT(mk, ciphertext, AD || enc_header)`.
    private func decryptBody(_ mk: MessageKey, _ msg: EncryptedMessage) throws(RatchetError) -> [UInt8] {
        do {
            return try AESGCM.decryptAEAD(key: mk.key, iv: mk.iv, aad: associatedData + msg.header, ciphertext: msg.body, tag: msg.tag)
        } catch .invalidPadding(let why) {
            throw .badEncoding("message padding: \(why)")
        } catch {
            throw .decrypt
        }
    }

    static func dh(_ priv: X448PrivateKey, _ pub: X448PublicKey) throws(RatchetError) -> [UInt8] {
        do {
            return try priv.sharedSecret(with: pub)
        } catch {
            throw .invalidKey("\(error)")
        }
    }
}
