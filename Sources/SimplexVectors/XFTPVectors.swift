/// Vectors of `Simplex.FileTransfer` (../shared/refvectors). Not checked yet: every vector is skipped.
public struct XFTPVectors: VectorSuite {
    public init() {}
    public func accepts(module: String) -> Bool { module.hasPrefix("Simplex.FileTransfer") }
    public func check(_ vector: Vector) -> VectorResult? { nil }
}
