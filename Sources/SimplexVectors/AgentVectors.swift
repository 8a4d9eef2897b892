/// Vectors of `Simplex.Messaging.Agent.Protocol` (../shared/refvectors). Not checked yet: every vector is skipped.
public struct AgentVectors: VectorSuite {
    public init() {}
    public func accepts(module: String) -> Bool { module == "Simplex.Messaging.Agent.Protocol" }
    public func check(_ vector: Vector) -> VectorResult? { nil }
}
