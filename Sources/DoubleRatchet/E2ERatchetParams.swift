import SimplexFoundation

/// KEM part of E2E params and headers (simplexmq `RKEMParams`): a proposal carries only the
/// sender's encapsulation key, an acceptance also the ciphertext for the peer's proposed key.
public enum RatchetKEMParams: Sendable, Hashable {
    /// `'P' Large(key)`.
    case proposed(KEMPublicKey)
    /// `'A' Large(ct) Large(key)`.
    case accepted(KEMCiphertext, KEMPublicKey)

    /// The sender's encapsulation key (both cases carry one).
    public var publicKey: KEMPublicKey {
        switch self {
        case .proposed(let k), .accepted(_, let k): k
        }
    }

    func encode(into e: inout SMPEncoder) throws(RatchetError) {
        switch self {
        case .proposed(let k):
            e.byte(UInt8(ascii: "P"))
            try large(&e, k.bytes)
        case .accepted(let ct, let k):
            e.byte(UInt8(ascii: "A"))
            try large(&e, ct.bytes)
            try large(&e, k.bytes)
        }
    }

    static func decode(from d: inout SMPDecoder) throws(RatchetError) -> RatchetKEMParams {
        switch try wrap({ try d.byte() }) {
        case UInt8(ascii: "P"): return .proposed(KEMPublicKey(try wrap { try d.largeString() }))
        case UInt8(ascii: "A"):
            let ct = KEMCiphertext(try wrap { try d.largeString() })
            return .accepted(ct, KEMPublicKey(try wrap { try d.largeString() }))
        case let b: throw .badEncoding("bad ratchet KEM params tag \(b)")
        }
    }
}

/// The keys a party sends in the connection handshake (simplexmq `E2ERatchetParams`): the E2E
/// version, two X448 keys for X3DH, and from version 3 optional KEM params.
/// Encoding: `version(2) shortString(x509 key1) shortString(x509 key2) [Maybe RKEMParams if v >= 3]`.
public struct E2ERatchetParams: Sendable, Hashable {
    public var version: UInt16
    public var key1: X448PublicKey
    public var key2: X448PublicKey
    public var kem: RatchetKEMParams?

    public init(version: UInt16, key1: X448PublicKey, key2: X448PublicKey, kem: RatchetKEMParams?) {
        self.version = version
        self.key1 = key1
        self.key2 = key2
        self.kem = kem
    }

    /// SMP binary encoding; the KEM params are omitted below version 3, as simplexmq does.
    public func encoded() throws(RatchetError) -> [UInt8] {
        var e = SMPEncoder(capacity: 160 + (kem == nil ? 0 : 2300))
        e.word16(version)
        try short(&e, key1.x509Encoded)
        try short(&e, key2.x509Encoded)
        if version >= E2EVersion.pqRatchet {
            if let kem {
                e.byte(UInt8(ascii: "1"))
                try kem.encode(into: &e)
            } else {
                e.byte(UInt8(ascii: "0"))
            }
        }
        return e.bytes
    }

    /// Parses the whole of `bytes`; X25519 params are refused, as simplexmq's agent refuses them
    /// (its ratchet is generic, but the agent parses `E2ERatchetParams 'X448`: "bad algorithm").
    public init(encoded bytes: [UInt8]) throws(RatchetError) {
        var d = SMPDecoder(bytes)
        self = try E2ERatchetParams.decode(from: &d)
        guard d.isAtEnd else { throw .badEncoding("\(d.remaining) trailing bytes after e2e params") }
    }

    static func decode(from d: inout SMPDecoder) throws(RatchetError) -> E2ERatchetParams {
        let v = try wrap { try d.word16() }
        let k1 = try x448Key(try wrap { try d.shortString() })
        let k2 = try x448Key(try wrap { try d.shortString() })
        var kem: RatchetKEMParams?
        if v >= E2EVersion.pqRatchet {
            switch try wrap({ try d.byte() }) {
            case UInt8(ascii: "0"): kem = nil
            case UInt8(ascii: "1"): kem = try RatchetKEMParams.decode(from: &d)
            case let b: throw .badEncoding("bad maybe tag \(b)")
            }
        }
        return E2ERatchetParams(version: v, key1: k1, key2: k2, kem: kem)
    }
}

/// The private half of the KEM params a party keeps until the ratchet is initialised
/// (simplexmq `PrivRKEMParams`): its key pair and, when it accepted, the ciphertext and secret.
public enum PrivateRatchetKEMParams: Sendable, Equatable {
    case proposed(KEMKeyPair)
    case accepted(KEMCiphertext, KEMSharedSecret, KEMKeyPair)

    var keyPair: KEMKeyPair {
        switch self {
        case .proposed(let kp), .accepted(_, _, let kp): kp
        }
    }
}

/// The private keys behind one's own `E2ERatchetParams`, stored by the agent between sending
/// the params and receiving the peer's (simplexmq keeps pk1, pk2 and the KEM params).
public struct E2EPrivateParams: Sendable, Equatable {
    public var version: UInt16
    public var key1: X448PrivateKey
    public var key2: X448PrivateKey
    public var kem: PrivateRatchetKEMParams?

    public init(version: UInt16, key1: X448PrivateKey, key2: X448PrivateKey, kem: PrivateRatchetKEMParams?) {
        self.version = version
        self.key1 = key1
        self.key2 = key2
        self.kem = kem
    }

    /// The params to send to the peer.
    public var publicParams: E2ERatchetParams {
        let pub: RatchetKEMParams? = switch kem {
        case nil: nil
        case .proposed(let kp): .proposed(kp.publicKey)
        case .accepted(let ct, _, let kp): .accepted(ct, kp.publicKey)
        }
        return E2ERatchetParams(version: version, key1: key1.publicKey, key2: key2.publicKey, kem: pub)
    }

    /// Binary form for the agent store: `version shortString(k1) shortString(k2) Maybe(kem)`,
    /// kem = `'P' keyPair` or `'A' Large(ct) shortString(ss) keyPair`, keyPair = `Large(pk) Large(sk)`.
    public func encoded() throws(RatchetError) -> [UInt8] {
        var e = SMPEncoder(capacity: 128 + (kem == nil ? 0 : 2400))
        e.word16(version)
        try short(&e, key1.rawRepresentation)
        try short(&e, key2.rawRepresentation)
        switch kem {
        case nil: e.byte(UInt8(ascii: "0"))
        case .proposed(let kp):
            e.raw([UInt8(ascii: "1"), UInt8(ascii: "P")])
            try encodeKeyPair(&e, kp)
        case .accepted(let ct, let ss, let kp):
            e.raw([UInt8(ascii: "1"), UInt8(ascii: "A")])
            try large(&e, ct.bytes)
            try short(&e, ss.bytes)
            try encodeKeyPair(&e, kp)
        }
        return e.bytes
    }

    public init(encoded bytes: [UInt8]) throws(RatchetError) {
        var d = SMPDecoder(bytes)
        version = try wrap { try d.word16() }
        key1 = try x448PrivateKey(try wrap { try d.shortString() })
        key2 = try x448PrivateKey(try wrap { try d.shortString() })
        switch try wrap({ try d.byte() }) {
        case UInt8(ascii: "0"): kem = nil
        case UInt8(ascii: "1"):
            switch try wrap({ try d.byte() }) {
            case UInt8(ascii: "P"): kem = .proposed(try decodeKeyPair(&d))
            case UInt8(ascii: "A"):
                let ct = KEMCiphertext(try wrap { try d.largeString() })
                let ss = KEMSharedSecret(try wrap { try d.shortString() })
                kem = .accepted(ct, ss, try decodeKeyPair(&d))
            case let b: throw .badEncoding("bad private KEM params tag \(b)")
            }
        case let b: throw .badEncoding("bad maybe tag \(b)")
        }
        guard d.isAtEnd else { throw .badEncoding("\(d.remaining) trailing bytes after private e2e params") }
        // Params stored while the KEM was ML-KEM-768 (key 1184 bytes, seed 64): kept without the
        // KEM, so the handshake goes on classically (a reply accepting that key is refused).
        if let kp = kem?.keyPair, kp.publicKey.bytes.count == 1184, kp.secretKey.bytes.count == 64 { kem = nil }
    }
}

/// How to use the KEM in one's own params (simplexmq `UseKEM`): propose a new agreement, or
/// accept the peer's proposal by encapsulating to its key.
public enum UseKEM: Sendable, Equatable {
    case propose
    case accept(KEMPublicKey)

    /// simplexmq `replyKEM_`: what the joining party puts in its reply to `peer` params when
    /// `pqSupport` is on (accept a proposal, otherwise propose); nil when off or below v3.
    public static func reply(version: UInt16, peerKEM: RatchetKEMParams?, pqSupport: Bool) -> UseKEM? {
        guard pqSupport, version >= E2EVersion.pqRatchet else { return nil }
        if case .proposed(let k) = peerKEM { return .accept(k) }
        return .propose
    }
}

// MARK: - encoding helpers shared by this module

/// Runs an SMPDecoder/SMPEncoder call, turning its untyped errors into `badEncoding`.
@inline(__always)
func wrap<T>(_ body: () throws -> T) throws(RatchetError) -> T {
    do {
        return try body()
    } catch let e as RatchetError {
        throw e
    } catch {
        throw .badEncoding("\(error)")
    }
}

func short(_ e: inout SMPEncoder, _ b: [UInt8]) throws(RatchetError) {
    try wrap { try e.shortString(b) }
}

func large(_ e: inout SMPEncoder, _ b: [UInt8]) throws(RatchetError) {
    try wrap { try e.largeString(b) }
}

func x448Key(_ der: [UInt8]) throws(RatchetError) -> X448PublicKey {
    do {
        return try X448PublicKey(x509Encoded: der)
    } catch {
        throw .invalidKey("\(error)")
    }
}

func x448PrivateKey(_ raw: [UInt8]) throws(RatchetError) -> X448PrivateKey {
    do {
        return try X448PrivateKey(rawRepresentation: raw)
    } catch {
        throw .invalidKey("\(error)")
    }
}

func x448PublicRaw(_ raw: [UInt8]) throws(RatchetError) -> X448PublicKey {
    do {
        return try X448PublicKey(rawRepresentation: raw)
    } catch {
        throw .invalidKey("\(error)")
    }
}

func encodeKeyPair(_ e: inout SMPEncoder, _ kp: KEMKeyPair) throws(RatchetError) {
    try large(&e, kp.publicKey.bytes)
    try large(&e, kp.secretKey.bytes)
}

func decodeKeyPair(_ d: inout SMPDecoder) throws(RatchetError) -> KEMKeyPair {
    let pk = KEMPublicKey(try wrap { try d.largeString() })
    return KEMKeyPair(publicKey: pk, secretKey: KEMSecretKey(try wrap { try d.largeString() }))
}

/// So the agent can embed the params in its own SMP-encoded messages (confirmations, links):
/// the encoding is self-delimiting.
extension E2ERatchetParams: SMPEncodable, SMPDecodable {
    public func encode(into e: inout SMPEncoder) throws { e.raw(try encoded()) }

    public init(from d: inout SMPDecoder) throws { self = try E2ERatchetParams.decode(from: &d) }
}
