import CSNTRUP761
import SimplexFoundation

/// Streamlined NTRU Prime 761, the KEM of SimpleX's PQ ratchet (simplexmq `sntrup761Keypair`,
/// `sntrup761Enc`, `sntrup761Dec`), over our C implementation in `CSNTRUP761`. Randomness is a
/// parameter so tests can replay known answers; by default it is the system CSPRNG.
public enum SNTRUP761RatchetKEM: RatchetKEM {
    public static let name = "sntrup761"
    public static let publicKeyLength = Int(SXQ_SNTRUP761_PUBLICKEY_BYTES)
    public static let secretKeyLength = Int(SXQ_SNTRUP761_SECRETKEY_BYTES)
    public static let ciphertextLength = Int(SXQ_SNTRUP761_CIPHERTEXT_BYTES)
    public static let sharedSecretLength = Int(SXQ_SNTRUP761_SHAREDSECRET_BYTES)
    /// simplexmq `paddedHeaderLen` with PQ support: the largest header (2282 bytes with an
    /// accepted KEM, 2284 with the padding length) plus the reference's reserve.
    public static let paddedHeaderLength = 2310

    /// `sntrup761Keypair`: the secret key embeds the public key (bytes 382..<1540).
    public static func generateKeyPair(random: (Int) -> [UInt8]) throws(RatchetError) -> KEMKeyPair {
        var pk = [UInt8](repeating: 0, count: publicKeyLength)
        var sk = [UInt8](repeating: 0, count: secretKeyLength)
        let rc = withRandomCallback(random) { ctx, fn in
            pk.withUnsafeMutableBufferPointer { p in
                sk.withUnsafeMutableBufferPointer { s in sxq_sntrup761_keypair(p.baseAddress, s.baseAddress, ctx, fn) }
            }
        }
        guard rc == 0 else { throw .kem("\(name) key generation failed") }
        return KEMKeyPair(publicKey: KEMPublicKey(pk), secretKey: KEMSecretKey(sk))
    }

    /// `sntrup761Enc`: a new shared secret and its ciphertext for `publicKey`.
    public static func encapsulate(_ publicKey: KEMPublicKey, random: (Int) -> [UInt8]) throws(RatchetError)
        -> (ciphertext: KEMCiphertext, sharedSecret: KEMSharedSecret) {
        guard publicKey.bytes.count == publicKeyLength else {
            throw .kem("\(name) public key of \(publicKey.bytes.count) bytes")
        }
        var c = [UInt8](repeating: 0, count: ciphertextLength)
        var k = [UInt8](repeating: 0, count: sharedSecretLength)
        let rc = withRandomCallback(random) { ctx, fn in
            c.withUnsafeMutableBufferPointer { cp in
                k.withUnsafeMutableBufferPointer { kp in
                    publicKey.bytes.withUnsafeBufferPointer { pk in sxq_sntrup761_enc(cp.baseAddress, kp.baseAddress, pk.baseAddress, ctx, fn) }
                }
            }
        }
        guard rc == 0 else { throw .kem("\(name) encapsulation failed") }
        return (KEMCiphertext(c), KEMSharedSecret(k))
    }

    /// `sntrup761Dec`. A well-sized but forged ciphertext is not an error: implicit rejection
    /// gives an unrelated secret, so the ratchet then fails to decrypt, as with the reference.
    public static func decapsulate(_ ciphertext: KEMCiphertext, secretKey: KEMSecretKey) throws(RatchetError) -> KEMSharedSecret {
        guard ciphertext.bytes.count == ciphertextLength else {
            throw .kem("\(name) ciphertext of \(ciphertext.bytes.count) bytes")
        }
        guard secretKey.bytes.count == secretKeyLength else {
            throw .kem("\(name) secret key of \(secretKey.bytes.count) bytes")
        }
        var k = [UInt8](repeating: 0, count: sharedSecretLength)
        let rc = k.withUnsafeMutableBufferPointer { kp in
            ciphertext.bytes.withUnsafeBufferPointer { cp in
                secretKey.bytes.withUnsafeBufferPointer { sp in sxq_sntrup761_dec(kp.baseAddress, cp.baseAddress, sp.baseAddress) }
            }
        }
        guard rc == 0 else { throw .kem("\(name) decapsulation failed") }
        return KEMSharedSecret(k)
    }

    /// The public key a secret key carries (sk = f || 1/g || pk || rho || hash(pk)).
    public static func publicKey(of secretKey: KEMSecretKey) -> KEMPublicKey? {
        guard secretKey.bytes.count == secretKeyLength else { return nil }
        let start = 2 * 191
        return KEMPublicKey(Array(secretKey.bytes[start..<(start + publicKeyLength)]))
    }
}

/// Holds the Swift byte source while C calls back into it.
private final class RandomSource {
    let next: (Int) -> [UInt8]
    init(_ next: @escaping (Int) -> [UInt8]) { self.next = next }
}

private func withRandomCallback<T>(
    _ random: (Int) -> [UInt8],
    _ body: (UnsafeMutableRawPointer, @convention(c) (UnsafeMutableRawPointer?, Int, UnsafeMutablePointer<UInt8>?) -> Void) -> T
) -> T {
    withoutActuallyEscaping(random) { escaping in
        let source = RandomSource(escaping)
        let ctx = Unmanaged.passUnretained(source).toOpaque()
        let result = body(ctx) { ctx, length, dst in
            guard let ctx, let dst else { return }
            let bytes = Unmanaged<RandomSource>.fromOpaque(ctx).takeUnretainedValue().next(length)
            precondition(bytes.count == length, "random source gave \(bytes.count) of \(length) bytes")
            for i in 0..<length { dst[i] = bytes[i] }
        }
        withExtendedLifetime(source) {}
        return result
    }
}
