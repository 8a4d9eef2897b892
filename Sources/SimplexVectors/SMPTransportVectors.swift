/// Vectors of `Simplex.Messaging.Transport` (../shared/refvectors). Not checked yet: every vector is skipped.
public struct SMPTransportVectors: VectorSuite {
    public init() {}
    public func accepts(module: String) -> Bool { module == "Simplex.Messaging.Transport" }
    public func check(_ vector: Vector) -> VectorResult? { nil }
}
