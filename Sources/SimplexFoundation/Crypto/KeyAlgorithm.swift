/// The four key algorithms of SimpleX: Ed25519/Ed448 sign, X25519/X448 agree. SMP auth keys may
/// be Ed25519, Ed448 or X25519; the double ratchet uses X448.
public enum KeyAlgorithm: String, Sendable, Hashable, CaseIterable {
    case ed25519 = "Ed25519"
    case ed448 = "Ed448"
    case x25519 = "X25519"
    case x448 = "X448"

    /// Length of the raw public key (RFC 8032 / RFC 7748).
    public var publicKeyLength: Int {
        switch self {
        case .ed25519, .x25519: 32
        case .ed448: 57
        case .x448: 56
        }
    }

    /// Length of the raw private key (seed for Ed*, scalar for X*).
    public var privateKeyLength: Int { publicKeyLength }

    /// Length of a signature, for the signing algorithms.
    public var signatureLength: Int? {
        switch self {
        case .ed25519: 64
        case .ed448: 114
        case .x25519, .x448: nil
        }
    }

    /// Last arc of the RFC 8410 OID 1.3.101.x.
    var oidLastArc: UInt8 {
        switch self {
        case .x25519: 110
        case .x448: 111
        case .ed25519: 112
        case .ed448: 113
        }
    }

    init?(oidLastArc: UInt8) {
        guard let a = KeyAlgorithm.allCases.first(where: { $0.oidLastArc == oidLastArc }) else { return nil }
        self = a
    }
}
