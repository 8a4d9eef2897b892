import SimplexFoundation

/// The plaintext ratchet header (simplexmq `MsgHeader`, pqdr.md `HEADER_PQ2`): the highest
/// version the sender supports, its DH ratchet key, from v3 its KEM params, PN and N.
/// Encoding: `maxVersion(2) shortString(x509 DHRs) [Maybe RKEMParams if v >= 3] PN(4) N(4)`.
struct MessageHeader: Sendable, Equatable {
    var maxVersion: UInt16
    var dhRatchetKey: X448PublicKey
    var kem: RatchetKEMParams?
    var previousCount: UInt32
    var number: UInt32

    /// Encodes for version `v` (the sender's current version, carried in the encrypted header).
    func encoded(version v: UInt16) throws(RatchetError) -> [UInt8] {
        var e = SMPEncoder(capacity: kem == nil ? 96 : 2400)
        e.word16(maxVersion)
        try short(&e, dhRatchetKey.x509Encoded)
        if v >= E2EVersion.pqRatchet {
            if let kem {
                e.byte(UInt8(ascii: "1"))
                try kem.encode(into: &e)
            } else {
                e.byte(UInt8(ascii: "0"))
            }
        }
        e.word32(previousCount)
        e.word32(number)
        return e.bytes
    }

    /// Parses for version `v`; trailing bytes are ignored (simplexmq parses with `parseOnly`,
    /// leaving room for later fields inside the padded header).
    init(decoding bytes: [UInt8], version v: UInt16) throws(RatchetError) {
        var d = SMPDecoder(bytes)
        maxVersion = try wrap { try d.word16() }
        dhRatchetKey = try x448Key(try wrap { try d.shortString() })
        kem = nil
        if v >= E2EVersion.pqRatchet {
            switch try wrap({ try d.byte() }) {
            case UInt8(ascii: "0"): kem = nil
            case UInt8(ascii: "1"): kem = try RatchetKEMParams.decode(from: &d)
            case let b: throw .badEncoding("bad maybe tag \(b)")
            }
        }
        previousCount = try wrap { try d.word32() }
        number = try wrap { try d.word32() }
    }

    init(maxVersion: UInt16, dhRatchetKey: X448PublicKey, kem: RatchetKEMParams?, previousCount: UInt32, number: UInt32) {
        self.maxVersion = maxVersion
        self.dhRatchetKey = dhRatchetKey
        self.kem = kem
        self.previousCount = previousCount
        self.number = number
    }

    /// simplexmq `paddedHeaderLen`: 88 without PQ support (or below v3), the KEM's large size with it.
    static func paddedLength<KEM: RatchetKEM>(version v: UInt16, pqSupport: Bool, kem: KEM.Type) -> Int {
        pqSupport && v >= E2EVersion.pqRatchet ? KEM.paddedHeaderLength : 88
    }
}

/// The encrypted header (simplexmq `EncMessageHeader`): `version(2) headerIV(16) tag(16) body`,
/// body length-prefixed with 2 bytes from v3 and 1 byte before.
struct EncryptedHeader: Sendable, Equatable {
    var version: UInt16
    var iv: [UInt8]
    var tag: [UInt8]
    var body: [UInt8]

    func encoded() throws(RatchetError) -> [UInt8] {
        var e = SMPEncoder(capacity: 36 + body.count + 2)
        e.word16(version)
        e.raw(iv)
        e.raw(tag)
        try encodeLarge(&e, version: version, body)
        return e.bytes
    }

    /// Parses the whole of `bytes` (simplexmq `parseE ... smpP`, which requires the end).
    init(decoding bytes: [UInt8]) throws(RatchetError) {
        var d = SMPDecoder(bytes)
        version = try wrap { try d.word16() }
        iv = try wrap { try d.take(AESGCM.ivLength) }
        tag = try wrap { try d.take(AESGCM.tagLength) }
        body = try decodeLarge(&d)
        guard d.isAtEnd else { throw .badEncoding("\(d.remaining) trailing bytes after encrypted header") }
    }

    init(version: UInt16, iv: [UInt8], tag: [UInt8], body: [UInt8]) {
        self.version = version
        self.iv = iv
        self.tag = tag
        self.body = body
    }
}

/// A whole ratchet message (simplexmq `EncRatchetMessage`): `lengthPrefixed(encHeader) tag(16) body`,
/// the body running to the end. The header's prefix is 2 bytes from v3, 1 byte before.
struct EncryptedMessage: Sendable {
    var header: [UInt8]
    var tag: [UInt8]
    var body: [UInt8]

    func encoded(version v: UInt16) throws(RatchetError) -> [UInt8] {
        var e = SMPEncoder(capacity: header.count + 2 + 16 + body.count)
        try encodeLarge(&e, version: v, header)
        e.raw(tag)
        e.raw(body)
        return e.bytes
    }

    init(decoding bytes: [UInt8]) throws(RatchetError) {
        var d = SMPDecoder(bytes)
        header = try decodeLarge(&d)
        tag = try wrap { try d.take(AESGCM.tagLength) }
        body = d.rest()
    }

    init(header: [UInt8], tag: [UInt8], body: [UInt8]) {
        self.header = header
        self.tag = tag
        self.body = body
    }
}

/// simplexmq `encodeLarge`: 2-byte length from v3 (even for short headers), 1-byte before.
func encodeLarge(_ e: inout SMPEncoder, version v: UInt16, _ s: [UInt8]) throws(RatchetError) {
    if v >= E2EVersion.pqRatchet { try large(&e, s) } else { try short(&e, s) }
}

/// simplexmq `largeP`: headers are never shorter than 32 bytes, so a first byte below 32 can
/// only be the high byte of a 2-byte length; this lets a version upgrade happen in one message.
func decodeLarge(_ d: inout SMPDecoder) throws(RatchetError) -> [UInt8] {
    guard let first = d.peek() else { throw .badEncoding("unexpected end of input") }
    return first < 32 ? try wrap { try d.largeString() } : try wrap { try d.shortString() }
}
