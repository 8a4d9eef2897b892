import Foundation
import SimplexFoundation

/// Persistence of the ratchet state: one binary blob (the agent's `ratchet_state` column), in the
/// SMP encoding style, with a format byte so later formats can be migrated, and the KEM name so a
/// state is never restored under another KEM. Codable wraps the same bytes as `Data`.
///
/// Formats: 1 = the same layout written while the KEM was ML-KEM-768 (before sntrup761); 2 =
/// sntrup761; 3 = format 2 with our ratchet key's public half after its private half, so that
/// loading a state (once per message) costs no X448 scalar multiplication (formats 1 and 2
/// compute it when read). A format-1 ML-KEM state is read with PQ off: its KEM keys and any pending proposal
/// are dropped (no SimpleX peer can use them), `pqEncryption` and `receivingPQ` become false and
/// the chains go on classically; the large-header support flag is kept. A state whose current
/// sending chain was agreed with an ML-KEM secret (`sendingPQ`) is refused: the peer could only
/// derive that chain by decapsulating the ML-KEM ciphertext this state no longer sends.
extension Ratchet: Codable {
    /// Current format of `serialized()`.
    public static var stateFormat: UInt8 { 3 }
    /// sntrup761 without the stored public ratchet key, still read.
    static var sntrupStateFormatV2: UInt8 { 2 }
    /// The format written with ML-KEM-768 keys, read as PQ off.
    static var mlkemStateFormat: UInt8 { 1 }

    /// The whole state, skipped-message keys included, as bytes to store after every operation.
    public func serialized() throws(RatchetError) -> [UInt8] {
        var e = SMPEncoder(capacity: 512 + (kem == nil ? 0 : 4800) + skipped.count * 60)
        e.byte(Self.stateFormat)
        try short(&e, Array(KEM.name.utf8))
        e.word16(versions.current)
        e.word16(versions.maxSupported)
        try large(&e, associatedData)
        try short(&e, dhRatchetKey.rawRepresentation)
        try short(&e, dhRatchetKey.publicKey.rawRepresentation)
        if let kem {
            e.byte(UInt8(ascii: "1"))
            try encodeKeyPair(&e, kem.keyPair)
            if let a = kem.accepted {
                e.byte(UInt8(ascii: "1"))
                try large(&e, a.peerKey.bytes)
                try short(&e, a.sharedSecret.bytes)
                try large(&e, a.ciphertext.bytes)
            } else {
                e.byte(UInt8(ascii: "0"))
            }
        } else {
            e.byte(UInt8(ascii: "0"))
        }
        e.bool(pqSupport)
        e.bool(pqEncryption)
        e.bool(sendingPQ)
        e.bool(receivingPQ)
        try short(&e, rootKey)
        if let s = sending {
            e.byte(UInt8(ascii: "1"))
            try short(&e, s.peerRatchetKey.rawRepresentation)
            try short(&e, s.chainKey)
            try short(&e, s.headerKey)
        } else {
            e.byte(UInt8(ascii: "0"))
        }
        if let r = receiving {
            e.byte(UInt8(ascii: "1"))
            try short(&e, r.chainKey)
            try short(&e, r.headerKey)
        } else {
            e.byte(UInt8(ascii: "0"))
        }
        e.word32(ns)
        e.word32(nr)
        e.word32(pn)
        try short(&e, nextSendHeaderKey)
        try short(&e, nextReceiveHeaderKey)
        e.word32(UInt32(skipped.chains.count))
        for c in skipped.chains {
            try short(&e, c.headerKey)
            e.word32(UInt32(c.keys.count))
            for (n, mk) in c.keys {
                e.word32(n)
                try short(&e, mk.key)
                try short(&e, mk.iv)
            }
        }
        return e.bytes
    }

    /// Restores a state written by `serialized()`; any malformed input is `badEncoding`.
    public init(serialized bytes: [UInt8]) throws(RatchetError) {
        var d = SMPDecoder(bytes)
        let format = try wrap { try d.byte() }
        let kemName = try wrap { try d.shortString() }
        let legacyMLKEM: Bool
        switch format {
        case Self.stateFormat where kemName == Array(KEM.name.utf8), Self.sntrupStateFormatV2 where kemName == Array(KEM.name.utf8): legacyMLKEM = false
        case Self.mlkemStateFormat where kemName == Array("ML-KEM-768".utf8): legacyMLKEM = true
        default:
            throw .badEncoding("ratchet state format \(format) for KEM \(String(decoding: kemName, as: UTF8.self)), not \(KEM.name)")
        }
        versions = RatchetVersions(current: try wrap { try d.word16() }, maxSupported: try wrap { try d.word16() })
        associatedData = try wrap { try d.largeString() }
        let dhPrivate = try wrap { try d.shortString() }
        if format == Self.stateFormat {
            let dhPublic = try x448PublicRaw(try wrap { try d.shortString() })
            do { dhRatchetKey = try X448PrivateKey(rawRepresentation: dhPrivate, knownPublicKey: dhPublic) } catch { throw .invalidKey("\(error)") }
        } else {
            dhRatchetKey = try x448PrivateKey(dhPrivate)
        }
        if try Self.flag(&d) {
            let kp = try decodeKeyPair(&d)
            var accepted: RatchetKEMAccepted?
            if try Self.flag(&d) {
                let pk = KEMPublicKey(try wrap { try d.largeString() })
                let ss = KEMSharedSecret(try wrap { try d.shortString() })
                accepted = RatchetKEMAccepted(peerKey: pk, sharedSecret: ss, ciphertext: KEMCiphertext(try wrap { try d.largeString() }))
            }
            kem = KEMState(keyPair: kp, accepted: accepted)
        } else {
            kem = nil
        }
        pqSupport = try wrap { try d.bool() }
        pqEncryption = try wrap { try d.bool() }
        sendingPQ = try wrap { try d.bool() }
        receivingPQ = try wrap { try d.bool() }
        rootKey = try Self.key32(&d)
        if try Self.flag(&d) {
            let peer = try x448PublicRaw(try wrap { try d.shortString() })
            sending = SendingChain(peerRatchetKey: peer, chainKey: try Self.key32(&d), headerKey: try Self.key32(&d))
        } else {
            sending = nil
        }
        receiving = try Self.flag(&d) ? ReceivingChain(chainKey: try Self.key32(&d), headerKey: try Self.key32(&d)) : nil
        ns = try wrap { try d.word32() }
        nr = try wrap { try d.word32() }
        pn = try wrap { try d.word32() }
        nextSendHeaderKey = try Self.key32(&d)
        nextReceiveHeaderKey = try Self.key32(&d)
        let chainCount = try wrap { try d.word32() }
        var chains: [SkippedMessageKeys.Chain] = []
        for _ in 0..<chainCount {
            let hk = try Self.key32(&d)
            let n = try wrap { try d.word32() }
            // Each key takes 54 bytes, so a count beyond the input is malformed, not an allocation.
            guard UInt64(n) * 54 <= UInt64(d.remaining) else { throw .badEncoding("skipped key count \(n) exceeds input") }
            var keys: [(number: UInt32, key: MessageKey)] = []
            keys.reserveCapacity(Int(n))
            var last: UInt32?
            for _ in 0..<n {
                let num = try wrap { try d.word32() }
                if let last, num <= last { throw .badEncoding("skipped keys out of order") }
                last = num
                let mk = try Self.key32(&d)
                let iv = try wrap { try d.shortString() }
                guard iv.count == 16 else { throw .badEncoding("IV of \(iv.count) bytes") }
                keys.append((num, MessageKey(key: mk, iv: iv)))
            }
            chains.append(SkippedMessageKeys.Chain(headerKey: hk, keys: keys))
        }
        skipped = SkippedMessageKeys(chains: chains)
        guard d.isAtEnd else { throw .badEncoding("\(d.remaining) trailing bytes after ratchet state") }
        try versions.validate()
        if legacyMLKEM {
            guard !sendingPQ else {
                throw .badEncoding("ratchet state of the ML-KEM-768 build with a KEM-agreed sending chain: the connection must be made again")
            }
            kem = nil
            pqEncryption = false
            receivingPQ = false
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(Data(try serialized()))
    }

    public init(from decoder: any Decoder) throws {
        let data = try decoder.singleValueContainer().decode(Data.self)
        try self.init(serialized: Array(data))
    }

    private static func flag(_ d: inout SMPDecoder) throws(RatchetError) -> Bool {
        switch try wrap({ try d.byte() }) {
        case UInt8(ascii: "0"): false
        case UInt8(ascii: "1"): true
        case let b: throw .badEncoding("bad maybe tag \(b)")
        }
    }

    private static func key32(_ d: inout SMPDecoder) throws(RatchetError) -> [UInt8] {
        let k = try wrap { try d.shortString() }
        guard k.count == 32 else { throw .badEncoding("key of \(k.count) bytes") }
        return k
    }
}
