/// Vectors of `Simplex.Messaging.Protocol` (../shared/refvectors). Not checked yet: every vector is skipped.
public struct SMPProtocolVectors: VectorSuite {
    public init() {}
    public func accepts(module: String) -> Bool { module == "Simplex.Messaging.Protocol" }
    public func check(_ vector: Vector) -> VectorResult? { nil }
}
