import SimplexFoundation

/// The signature algorithm of a server's TLS certificates (simplexmq `SignAlgorithm`, chosen with
/// `smp-server init -a`). Both keys of a server (CA and online) use the same one.
public enum SignAlgorithm: String, Sendable, CaseIterable {
    case ed25519 = "ED25519"
    case ed448 = "ED448"

    var keyAlgorithm: KeyAlgorithm {
        switch self {
        case .ed25519: .ed25519
        case .ed448: .ed448
        }
    }

    init?(_ key: KeyAlgorithm) {
        switch key {
        case .ed25519: self = .ed25519
        case .ed448: self = .ed448
        default: return nil
        }
    }
}
