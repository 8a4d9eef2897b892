/// Vectors of `Simplex.Messaging.Crypto.Ratchet` (../shared/refvectors). Not checked yet: every vector is skipped.
public struct RatchetVectors: VectorSuite {
    public init() {}
    public func accepts(module: String) -> Bool { module.hasPrefix("Simplex.Messaging.Crypto.Ratchet") }
    public func check(_ vector: Vector) -> VectorResult? { nil }
}
