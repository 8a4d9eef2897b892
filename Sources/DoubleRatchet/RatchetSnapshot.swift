import SimplexFoundation

/// Every field of a ratchet state under the reference's names (simplexmq `Ratchet`: `rcVersion`,
/// `rcAD`, `rcDHRs`, `rcKEM`, `rcSupportKEM`, `rcEnableKEM`, `rcSndKEM`, `rcRcvKEM`, `rcRK`,
/// `rcSnd`, `rcRcv`, `rcNs`, `rcNr`, `rcPN`, `rcNHKs`, `rcNHKr`) plus the skipped message keys
/// (simplexmq keeps `MKSKIPPED` beside the state). Lets tests and the reference-vector runner
/// set up and compare states field by field.
public struct RatchetSnapshot: Sendable, Equatable {
    public struct Sending: Sendable, Equatable {
        /// `rcDHRr`, `rcCKs`, `rcHKs`.
        public var peerRatchetKey: X448PublicKey
        public var chainKey: [UInt8]
        public var headerKey: [UInt8]
        public init(peerRatchetKey: X448PublicKey, chainKey: [UInt8], headerKey: [UInt8]) {
            self.peerRatchetKey = peerRatchetKey
            self.chainKey = chainKey
            self.headerKey = headerKey
        }
    }

    public struct Receiving: Sendable, Equatable {
        /// `rcCKr`, `rcHKr`.
        public var chainKey: [UInt8]
        public var headerKey: [UInt8]
        public init(chainKey: [UInt8], headerKey: [UInt8]) {
            self.chainKey = chainKey
            self.headerKey = headerKey
        }
    }

    /// `RatchetKEM`: `rcPQRs` and, once a secret was encapsulated, `rcKEMs`.
    public struct KEM: Sendable, Equatable {
        public var keyPair: KEMKeyPair
        public var accepted: RatchetKEMAccepted?
        public init(keyPair: KEMKeyPair, accepted: RatchetKEMAccepted?) {
            self.keyPair = keyPair
            self.accepted = accepted
        }
    }

    /// A skipped message key: message number, key and IV, under the header key of its chain.
    public struct SkippedKey: Sendable, Equatable {
        public var headerKey: [UInt8]
        public var number: UInt32
        public var key: [UInt8]
        public var iv: [UInt8]
        public init(headerKey: [UInt8], number: UInt32, key: [UInt8], iv: [UInt8]) {
            self.headerKey = headerKey
            self.number = number
            self.key = key
            self.iv = iv
        }
    }

    public var versions: RatchetVersions
    public var associatedData: [UInt8]
    public var dhRatchetKey: X448PrivateKey
    public var kem: KEM?
    public var pqSupport: Bool
    public var pqEncryption: Bool
    public var sendingPQ: Bool
    public var receivingPQ: Bool
    public var rootKey: [UInt8]
    public var sending: Sending?
    public var receiving: Receiving?
    public var ns: UInt32
    public var nr: UInt32
    public var pn: UInt32
    public var nextSendHeaderKey: [UInt8]
    public var nextReceiveHeaderKey: [UInt8]
    public var skipped: [SkippedKey]

    public init(
        versions: RatchetVersions, associatedData: [UInt8], dhRatchetKey: X448PrivateKey, kem: KEM?,
        pqSupport: Bool, pqEncryption: Bool, sendingPQ: Bool, receivingPQ: Bool, rootKey: [UInt8],
        sending: Sending?, receiving: Receiving?, ns: UInt32, nr: UInt32, pn: UInt32,
        nextSendHeaderKey: [UInt8], nextReceiveHeaderKey: [UInt8], skipped: [SkippedKey] = []
    ) {
        self.versions = versions
        self.associatedData = associatedData
        self.dhRatchetKey = dhRatchetKey
        self.kem = kem
        self.pqSupport = pqSupport
        self.pqEncryption = pqEncryption
        self.sendingPQ = sendingPQ
        self.receivingPQ = receivingPQ
        self.rootKey = rootKey
        self.sending = sending
        self.receiving = receiving
        self.ns = ns
        self.nr = nr
        self.pn = pn
        self.nextSendHeaderKey = nextSendHeaderKey
        self.nextReceiveHeaderKey = nextReceiveHeaderKey
        self.skipped = skipped
    }
}

extension Ratchet {
    /// The state as a snapshot (skipped keys oldest chain first, ascending numbers).
    public var snapshot: RatchetSnapshot {
        RatchetSnapshot(
            versions: versions, associatedData: associatedData, dhRatchetKey: dhRatchetKey,
            kem: kem.map { RatchetSnapshot.KEM(keyPair: $0.keyPair, accepted: $0.accepted) },
            pqSupport: pqSupport, pqEncryption: pqEncryption, sendingPQ: sendingPQ, receivingPQ: receivingPQ,
            rootKey: rootKey,
            sending: sending.map { RatchetSnapshot.Sending(peerRatchetKey: $0.peerRatchetKey, chainKey: $0.chainKey, headerKey: $0.headerKey) },
            receiving: receiving.map { RatchetSnapshot.Receiving(chainKey: $0.chainKey, headerKey: $0.headerKey) },
            ns: ns, nr: nr, pn: pn, nextSendHeaderKey: nextSendHeaderKey, nextReceiveHeaderKey: nextReceiveHeaderKey,
            skipped: skipped.chains.flatMap { c in
                c.keys.map { RatchetSnapshot.SkippedKey(headerKey: c.headerKey, number: $0.number, key: $0.key.key, iv: $0.key.iv) }
            })
    }

    /// A ratchet in the given state; key sizes and versions are checked as when loading a stored state.
    public init(snapshot s: RatchetSnapshot) throws(RatchetError) {
        try s.versions.validate()
        for k in [s.rootKey, s.nextSendHeaderKey, s.nextReceiveHeaderKey] + [s.sending?.chainKey, s.sending?.headerKey, s.receiving?.chainKey, s.receiving?.headerKey].compactMap({ $0 }) {
            guard k.count == 32 else { throw .badEncoding("key of \(k.count) bytes") }
        }
        var skipped = SkippedMessageKeys()
        for k in s.skipped.sorted(by: { $0.number < $1.number }) {
            guard k.key.count == 32, k.iv.count == 16, k.headerKey.count == 32 else { throw .badEncoding("skipped key sizes") }
            skipped.add(headerKey: k.headerKey, keys: [(k.number, MessageKey(key: k.key, iv: k.iv))])
        }
        self.init(
            versions: s.versions, associatedData: s.associatedData, dhRatchetKey: s.dhRatchetKey,
            kem: s.kem.map { KEMState(keyPair: $0.keyPair, accepted: $0.accepted) },
            pqSupport: s.pqSupport, pqEncryption: s.pqEncryption, sendingPQ: s.sendingPQ, receivingPQ: s.receivingPQ,
            rootKey: s.rootKey,
            sending: s.sending.map { SendingChain(peerRatchetKey: $0.peerRatchetKey, chainKey: $0.chainKey, headerKey: $0.headerKey) },
            receiving: s.receiving.map { ReceivingChain(chainKey: $0.chainKey, headerKey: $0.headerKey) },
            ns: s.ns, nr: s.nr, pn: s.pn, nextSendHeaderKey: s.nextSendHeaderKey, nextReceiveHeaderKey: s.nextReceiveHeaderKey,
            skipped: skipped)
    }
}
