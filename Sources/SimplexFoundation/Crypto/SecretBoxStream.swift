import CSodium

/// Incremental XSalsa20-Poly1305 over a stream of any length, as simplexmq's `Crypto.Lazy`
/// (`sbInit`/`cbInit`, `sbEncryptChunk`, `sbDecryptChunk`, `sbAuth`): XFTP encrypts whole files
/// and chunk downloads this way without holding them in memory, with the tag at the end.
///
/// `secret` is used as simplexmq's `SbKey`/`DhSecret`: HSalsa20(secret, 0) is the XSalsa20 key,
/// so a stream of one piece equals `CryptoBox.seal(key: CryptoBoxKey(dhSecret: secret), ...)`.
/// The MAC is libsodium's incremental Poly1305 (SIMD): files of a gigabyte go through it.
public struct SecretBoxStream: Sendable {
    private let key: SalsaKey
    private let n0: UInt32, n1: UInt32
    /// Index of the next keystream block to generate.
    private var counter: UInt64 = 1
    /// Unused keystream bytes of the current block (`ks[ksPos..<64]`).
    private var ks: KeystreamBlock
    private var ksPos: Int
    private var mac = crypto_onetimeauth_poly1305_state()

    public init(secret: [UInt8], nonce: [UInt8]) throws(CryptoError) {
        guard secret.count == 32 else { throw .badLength("secretbox stream key of \(secret.count) bytes") }
        guard nonce.count == 24 else { throw .badLength("secretbox stream nonce of \(nonce.count) bytes") }
        let k1 = try Salsa20.hsalsa20(key: secret, input: [UInt8](repeating: 0, count: 16))
        let (sub, a, b) = SalsaKey.xsalsa(key: k1, nonce: nonce)
        key = sub
        n0 = a
        n1 = b
        var block0 = KeystreamBlock()
        withUnsafeMutableBytes(of: &block0.bytes) { sub.block(nonce0: a, nonce1: b, counter: 0, out: $0.baseAddress!) }
        // Bytes 0..<32 of block 0 are the Poly1305 key; the stream starts at byte 32.
        Sodium.ensureInitialized()
        var state = crypto_onetimeauth_poly1305_state()
        withUnsafeBytes(of: &block0.bytes) { k in
            _ = crypto_onetimeauth_poly1305_init(&state, k.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        mac = state
        ks = block0
        ksPos = 32
    }

    /// Encrypts `data` (the next piece of the stream) and authenticates the ciphertext.
    public mutating func encrypt(_ data: [UInt8]) -> [UInt8] {
        var out = data
        out.withUnsafeMutableBytes { encrypt(inPlace: $0) }
        return out
    }

    /// Decrypts `data` (the next piece of the stream), authenticating the ciphertext.
    public mutating func decrypt(_ data: [UInt8]) -> [UInt8] {
        var out = data
        out.withUnsafeMutableBytes { decrypt(inPlace: $0) }
        return out
    }

    public mutating func encrypt(inPlace p: UnsafeMutableRawBufferPointer) {
        applyKeystream(p)
        absorb(UnsafeRawBufferPointer(p))
    }

    public mutating func decrypt(inPlace p: UnsafeMutableRawBufferPointer) {
        absorb(UnsafeRawBufferPointer(p))
        applyKeystream(p)
    }

    /// Encrypts `src` into `dst` (at least as large): the body of a send is read once, into the
    /// buffer that goes to the network.
    public mutating func encrypt(from src: UnsafeRawBufferPointer, to dst: UnsafeMutableRawBufferPointer) {
        guard let s = src.baseAddress, let d = dst.baseAddress, src.count > 0 else { return }
        precondition(dst.count >= src.count, "secretbox stream output too small")
        applyKeystream(from: s, to: d, count: src.count)
        absorb(UnsafeRawBufferPointer(start: d, count: src.count))
    }

    /// Decrypts `src` (a received piece, left as it is) into `dst` (at least as large).
    public mutating func decrypt(from src: UnsafeRawBufferPointer, to dst: UnsafeMutableRawBufferPointer) {
        guard let s = src.baseAddress, let d = dst.baseAddress, src.count > 0 else { return }
        precondition(dst.count >= src.count, "secretbox stream output too small")
        absorb(src)
        applyKeystream(from: s, to: d, count: src.count)
    }

    /// The 16-byte Poly1305 tag of all ciphertext so far (`sbAuth`); the stream can continue.
    public func tag() -> [UInt8] {
        var st = mac
        var out = [UInt8](repeating: 0, count: 16)
        out.withUnsafeMutableBufferPointer { _ = crypto_onetimeauth_poly1305_final(&st, $0.baseAddress!) }
        return out
    }

    /// Constant-time check of a received tag against `tag()`.
    public func verify(tag received: [UInt8]) -> Bool {
        received.count == 16 && constantTimeEquals(tag(), received)
    }

    /// XORs the keystream of stream bytes `position..<position + p.count` over `p`, leaving the
    /// stream and its MAC as they are: XSalsa20 is a keystream, so the ciphertext at any position
    /// can be produced again (an upload hashes its chunks in one pass and encrypts each again
    /// when it is sent, holding no encrypted copy).
    public func applyKeystream(at position: Int64, _ p: UnsafeMutableRawBufferPointer) {
        guard let base = p.baseAddress, p.count > 0 else { return }
        precondition(position >= 0, "negative stream position")
        // Stream byte 0 is keystream byte 32 (the first 32 keyed the MAC).
        let absolute = UInt64(position) + 32
        var counter = absolute / 64, off = 0
        var block = KeystreamBlock()
        func partial(from start: Int, count n: Int) {
            let c = counter
            withUnsafeMutableBytes(of: &block.bytes) { key.block(nonce0: n0, nonce1: n1, counter: c, out: $0.baseAddress!) }
            withUnsafeBytes(of: &block.bytes) { k in
                for i in 0..<n {
                    let v = base.load(fromByteOffset: off + i, as: UInt8.self) ^ k.load(fromByteOffset: start + i, as: UInt8.self)
                    base.storeBytes(of: v, toByteOffset: off + i, as: UInt8.self)
                }
            }
            counter &+= 1
            off += n
        }
        let skip = Int(absolute % 64)
        if skip > 0 { partial(from: skip, count: min(64 - skip, p.count)) }
        let whole = (p.count - off) & ~63
        if whole > 0 {
            key.xor(nonce0: n0, nonce1: n1, counter: counter, src: base + off, dst: base + off, count: whole)
            counter &+= UInt64(whole / 64)
            off += whole
        }
        if off < p.count { partial(from: 0, count: p.count - off) }
    }

    private mutating func applyKeystream(_ p: UnsafeMutableRawBufferPointer) {
        guard let base = p.baseAddress, p.count > 0 else { return }
        applyKeystream(from: UnsafeRawPointer(base), to: base, count: p.count)
    }

    /// XORs `count` bytes of keystream over `src` into `dst` (the same memory or disjoint).
    private mutating func applyKeystream(from src: UnsafeRawPointer, to base: UnsafeMutableRawPointer, count: Int) {
        guard count > 0 else { return }
        var off = 0
        // Leftover bytes of the current keystream block first.
        if ksPos < 64 {
            let n = min(64 - ksPos, count)
            let pos = ksPos
            withUnsafeBytes(of: &ks.bytes) { k in
                for i in 0..<n {
                    let v = src.load(fromByteOffset: i, as: UInt8.self) ^ k.load(fromByteOffset: pos + i, as: UInt8.self)
                    base.storeBytes(of: v, toByteOffset: i, as: UInt8.self)
                }
            }
            ksPos += n
            off = n
        }
        // Whole blocks straight from the cipher.
        let whole = (count - off) & ~63
        if whole > 0 {
            key.xor(nonce0: n0, nonce1: n1, counter: counter, src: src + off, dst: base + off, count: whole)
            counter &+= UInt64(whole / 64)
            off += whole
        }
        // A partial tail: generate one block and keep what is left of it.
        if off < count {
            let c = counter
            withUnsafeMutableBytes(of: &ks.bytes) { key.block(nonce0: n0, nonce1: n1, counter: c, out: $0.baseAddress!) }
            counter &+= 1
            let n = count - off
            withUnsafeBytes(of: &ks.bytes) { k in
                for i in 0..<n {
                    let v = src.load(fromByteOffset: off + i, as: UInt8.self) ^ k.load(fromByteOffset: i, as: UInt8.self)
                    base.storeBytes(of: v, toByteOffset: off + i, as: UInt8.self)
                }
            }
            ksPos = n
        }
    }

    private mutating func absorb(_ p: UnsafeRawBufferPointer) {
        guard let base = p.baseAddress, p.count > 0 else { return }
        _ = crypto_onetimeauth_poly1305_update(&mac, base.assumingMemoryBound(to: UInt8.self), UInt64(p.count))
    }
}

/// 64 bytes of keystream kept inline (no heap allocation per stream).
struct KeystreamBlock: Sendable {
    var bytes: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
}
