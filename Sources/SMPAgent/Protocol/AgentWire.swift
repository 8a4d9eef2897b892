import SimplexFoundation

/// Shared plumbing of the agent wire formats: turns the untyped errors of SMPEncoder/SMPDecoder
/// into the typed ones our decoders promise, and encodes the small shared pieces (lists, keys).
enum AgentWire {
    /// Runs a decoder step; anything it throws becomes a `DecodingError`.
    @inline(__always)
    static func decoding<T>(_ body: () throws -> T) throws(DecodingError) -> T {
        do {
            return try body()
        } catch let e as DecodingError {
            throw e
        } catch {
            throw .invalid("\(error)")
        }
    }

    /// Runs an encoder step; anything it throws becomes an `EncodingError`.
    @inline(__always)
    static func encoding<T>(_ body: () throws -> T) throws(EncodingError) -> T {
        do {
            return try body()
        } catch let e as EncodingError {
            throw e
        } catch {
            throw .tooLarge("\(error)")
        }
    }

    /// simplexmq `NonEmpty` encoding: a 1-byte count (1...255), then the items.
    static func encodeNonEmpty<T>(
        _ items: [T], into e: inout SMPEncoder, _ item: (inout SMPEncoder, T) throws(EncodingError) -> Void
    ) throws(EncodingError) {
        guard !items.isEmpty, items.count <= 255 else { throw .tooLarge("list of \(items.count) items (1...255 allowed)") }
        e.byte(UInt8(items.count))
        for x in items { try item(&e, x) }
    }

    static func decodeNonEmpty<T>(
        _ d: inout SMPDecoder, _ item: (inout SMPDecoder) throws(DecodingError) -> T
    ) throws(DecodingError) -> [T] {
        let n = Int(try decoding { try d.byte() })
        guard n > 0 else { throw .invalid("empty list") }
        var out: [T] = []
        out.reserveCapacity(n)
        for _ in 0..<n { out.append(try item(&d)) }
        return out
    }

    static func shortString(_ b: [UInt8], into e: inout SMPEncoder) throws(EncodingError) {
        try encoding { try e.shortString(b) }
    }

    static func largeString(_ b: [UInt8], into e: inout SMPEncoder) throws(EncodingError) {
        try encoding { try e.largeString(b) }
    }

    /// `Maybe` of simplexmq: "0" or "1" followed by the value.
    static func decodeOptional<T>(
        _ d: inout SMPDecoder, _ item: (inout SMPDecoder) throws(DecodingError) -> T
    ) throws(DecodingError) -> T? {
        switch try decoding({ try d.byte() }) {
        case UInt8(ascii: "0"): return nil
        case UInt8(ascii: "1"): return try item(&d)
        case let b: throw .invalid("bad maybe tag \(b)")
        }
    }

    /// An X25519 key as `shortString(x509)`, the form of queue DH keys.
    static func decodeX25519(_ d: inout SMPDecoder) throws(DecodingError) -> X25519PublicKey {
        let der = try decoding { try d.shortString() }
        do {
            return try X25519PublicKey(x509Encoded: der)
        } catch {
            throw .invalid("DH key: \(error)")
        }
    }

    /// An SMP auth key (Ed25519, Ed448 or X25519) as `shortString(x509)`.
    static func decodeAuthKey(_ d: inout SMPDecoder) throws(DecodingError) -> AnyPublicKey {
        let der = try decoding { try d.shortString() }
        do {
            return try AnyPublicKey(x509Encoded: der, allowing: AnyPublicKey.authAlgorithms)
        } catch {
            throw .invalid("auth key: \(error)")
        }
    }

    /// Runs a whole-input decode: the value must use every byte.
    static func decodeAll<T>(_ bytes: [UInt8], _ body: (inout SMPDecoder) throws(DecodingError) -> T) throws(DecodingError) -> T {
        var d = SMPDecoder(bytes)
        let v = try body(&d)
        if d.remaining > 0 { throw .trailingBytes(d.remaining) }
        return v
    }
}
