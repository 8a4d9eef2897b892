import Crypto
import SimplexFoundation

/// The "x509encoded" keys of the handshake: DER SubjectPublicKeyInfo with the RFC 8410 algorithm
/// identifiers, exactly as simplexmq's `publicToX509` writes them (12-byte prefix + 32-byte key).
/// Kept internal: the crypto layer of SimplexFoundation owns the general-purpose codec.
enum TransportKeyEncoding {
    /// `30 2a 30 05 06 03 2b 65 6e 03 21 00` – SPKI header of an X25519 key (OID 1.3.101.110).
    static let x25519Prefix: [UInt8] = [0x30, 0x2A, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x6E, 0x03, 0x21, 0x00]
    /// `30 2a 30 05 06 03 2b 65 70 03 21 00` – SPKI header of an Ed25519 key (OID 1.3.101.112).
    static let ed25519Prefix: [UInt8] = [0x30, 0x2A, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x03, 0x21, 0x00]
    /// Length of an X25519 or Ed25519 SubjectPublicKeyInfo.
    static let spkiLength = 44
    /// Length of an Ed25519 signature.
    static let ed25519SignatureLength = 64

    static func encodeX25519(_ key: Curve25519.KeyAgreement.PublicKey) -> [UInt8] {
        x25519Prefix + Array(key.rawRepresentation)
    }

    static func decodeX25519(_ der: [UInt8]) throws(DecodingError) -> Curve25519.KeyAgreement.PublicKey {
        guard der.count == spkiLength, der.starts(with: x25519Prefix) else {
            throw .invalid("not an X25519 SubjectPublicKeyInfo")
        }
        do {
            return try Curve25519.KeyAgreement.PublicKey(rawRepresentation: der[x25519Prefix.count...])
        } catch {
            throw .invalid("bad X25519 key")
        }
    }

    static func encodeEd25519(_ key: Curve25519.Signing.PublicKey) -> [UInt8] {
        ed25519Prefix + Array(key.rawRepresentation)
    }

    static func decodeEd25519(_ der: [UInt8]) throws(DecodingError) -> Curve25519.Signing.PublicKey {
        guard der.count == spkiLength, der.starts(with: ed25519Prefix) else {
            throw .invalid("not an Ed25519 SubjectPublicKeyInfo")
        }
        do {
            return try Curve25519.Signing.PublicKey(rawRepresentation: der[ed25519Prefix.count...])
        } catch {
            throw .invalid("bad Ed25519 key")
        }
    }

    /// Length of the DER TLV that starts `bytes` (tag, length, content), or nil if the header is
    /// malformed or claims more bytes than there are. Used to split "SPKI || signature".
    static func derElementLength(_ bytes: ArraySlice<UInt8>) -> Int? {
        var i = bytes.startIndex
        guard i < bytes.endIndex else { return nil }
        i += 1  // tag
        guard i < bytes.endIndex else { return nil }
        let first = Int(bytes[i])
        i += 1
        var length: Int
        if first < 0x80 {
            length = first
        } else {
            let n = first & 0x7F
            guard n >= 1, n <= 3, bytes.endIndex - i >= n else { return nil }
            length = 0
            for _ in 0..<n {
                length = length << 8 | Int(bytes[i])
                i += 1
            }
        }
        let total = (i - bytes.startIndex) + length
        return total <= bytes.count ? total : nil
    }
}
