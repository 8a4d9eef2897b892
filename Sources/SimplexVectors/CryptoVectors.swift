/// Vectors of `Simplex.Messaging.Crypto` (../shared/refvectors). Not checked yet: every vector is skipped.
public struct CryptoVectors: VectorSuite {
    public init() {}
    public func accepts(module: String) -> Bool { module == "Simplex.Messaging.Crypto" }
    public func check(_ vector: Vector) -> VectorResult? { nil }
}
