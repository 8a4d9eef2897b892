import SimplexFoundation

/// A queue's command key as the relay keeps it: which algorithm, and the raw key inline for the
/// common 32-byte cases. Ed448 keys are rare enough to live on the heap.
public enum QueueAuthKey: Hashable, Sendable {
    case ed25519(Key32)
    case x25519(Key32)
    case ed448([UInt8])

    /// Parses an x509-encoded (SubjectPublicKeyInfo) key; anything but the three SMP auth
    /// algorithms is rejected.
    public init(x509Encoded der: [UInt8]) throws {
        guard let key = try? AnyPublicKey(x509Encoded: der) else { throw QueueStoreError.badKey }
        switch key {
        case .ed25519(let k): self = .ed25519(Key32(k.rawRepresentation)!)
        case .x25519(let k): self = .x25519(Key32(k.rawRepresentation)!)
        case .ed448(let k): self = .ed448(k.rawRepresentation)
        default: throw QueueStoreError.badKey
        }
    }

    public var x509Encoded: [UInt8] {
        // The raw keys were validated when the queue got them, so re-encoding cannot fail.
        let key: AnyPublicKey? = switch self {
        case .ed25519(let k): try? AnyPublicKey(algorithm: .ed25519, rawRepresentation: k.bytes)
        case .x25519(let k): try? AnyPublicKey(algorithm: .x25519, rawRepresentation: k.bytes)
        case .ed448(let raw): try? AnyPublicKey(algorithm: .ed448, rawRepresentation: raw)
        }
        return key?.x509Encoded ?? []
    }
}

public enum QueueStoreError: Error, Sendable {
    case badKey
    case corruptLog(String)
    case io(String)
}
