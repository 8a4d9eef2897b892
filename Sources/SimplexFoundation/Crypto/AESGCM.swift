import Crypto
import Foundation

/// AES-256-GCM as the double ratchet uses it (simplexmq `encryptAEAD`/`decryptAEAD`): 16-byte
/// IVs (GHASH-derived counter block, standard GCM for non-96-bit IVs), the 16-byte tag returned
/// separately from the ciphertext, optional padding of the plaintext.
public enum AESGCM {
    public static let keyLength = 32
    public static let tagLength = 16
    /// IV length of the ratchet (one AES block); 12-byte IVs and other lengths >= 12 also work.
    public static let ivLength = 16

    /// Encrypts `plaintext`, authenticating `aad` too.
    public static func seal(key: [UInt8], iv: [UInt8], plaintext: [UInt8], aad: [UInt8] = []) throws(CryptoError) -> (ciphertext: [UInt8], tag: [UInt8]) {
        let (k, nonce) = try params(key, iv)
        do {
            let box = try AES.GCM.seal(plaintext, using: k, nonce: nonce, authenticating: aad)
            return (Array(box.ciphertext), Array(box.tag))
        } catch {
            throw .decryptionFailed  // unreachable with checked parameters; keep the error typed
        }
    }

    /// Decrypts and checks the tag; `decryptionFailed` if ciphertext, aad, tag, key or IV differ.
    public static func open(key: [UInt8], iv: [UInt8], ciphertext: [UInt8], aad: [UInt8] = [], tag: [UInt8]) throws(CryptoError) -> [UInt8] {
        let (k, nonce) = try params(key, iv)
        guard tag.count == tagLength else { throw .badLength("GCM tag of \(tag.count) bytes") }
        do {
            let box = try AES.GCM.SealedBox(nonce: nonce, ciphertext: ciphertext, tag: tag)
            return Array(try AES.GCM.open(box, using: k, authenticating: aad))
        } catch {
            throw .decryptionFailed
        }
    }

    /// simplexmq `encryptAEAD`: pads `message` to `paddedLength` (2-byte length prefix, '#'),
    /// so ratchet messages of one kind all have the same size, then seals.
    public static func encryptAEAD(key: [UInt8], iv: [UInt8], paddedLength: Int, aad: [UInt8], message: [UInt8]) throws(CryptoError) -> (ciphertext: [UInt8], tag: [UInt8]) {
        let padded: [UInt8]
        do {
            padded = try Padding.pad(message, to: paddedLength)
        } catch {
            throw .invalidPadding("\(message.count) bytes do not fit padded length \(paddedLength)")
        }
        return try seal(key: key, iv: iv, plaintext: padded, aad: aad)
    }

    /// simplexmq `decryptAEAD`: opens, then removes the padding.
    public static func decryptAEAD(key: [UInt8], iv: [UInt8], aad: [UInt8], ciphertext: [UInt8], tag: [UInt8]) throws(CryptoError) -> [UInt8] {
        let padded = try open(key: key, iv: iv, ciphertext: ciphertext, aad: aad, tag: tag)
        do {
            return try Padding.unpad(padded)
        } catch {
            throw .invalidPadding("\(error)")
        }
    }

    private static func params(_ key: [UInt8], _ iv: [UInt8]) throws(CryptoError) -> (SymmetricKey, AES.GCM.Nonce) {
        guard key.count == keyLength else { throw .badLength("AES-256 key of \(key.count) bytes") }
        guard iv.count >= 12 else { throw .badLength("GCM IV of \(iv.count) bytes") }
        guard let nonce = try? AES.GCM.Nonce(data: iv) else { throw .badLength("GCM IV of \(iv.count) bytes") }
        return (SymmetricKey(data: key), nonce)
    }
}
