import Foundation

/// A family of vectors this implementation can check. `check` answers nil for a vector it does
/// not recognise, so the runner reports it as skipped (never as passed).
public protocol VectorSuite: Sendable {
    /// True when the suite handles vectors of this file (matched on the file's `module`).
    func accepts(module: String) -> Bool
    func check(_ vector: Vector) -> VectorResult?
}

/// Runs every vector of the given files through the suites and prints
/// `PASS name` / `FAIL name: why` / `SKIP name: why`, then the totals line.
public struct VectorRunner: Sendable {
    public var suites: [any VectorSuite]

    public static let standard = VectorRunner(suites: [
        CryptoVectors(), RatchetVectors(), SMPProtocolVectors(), SMPTransmissionVectors(),
        SMPTransportVectors(), AgentVectors(), XFTPVectors(),
    ])

    public init(suites: [any VectorSuite]) { self.suites = suites }

    public struct Totals: Sendable { public var passed = 0, failed = 0, skipped = 0 }

    public func run(files: [String], print emit: (String) -> Void) -> Totals {
        var t = Totals()
        for path in files {
            let vectors: [Vector]
            do {
                vectors = try Self.load(path)
            } catch {
                emit("FAIL \(path): cannot read (\(error))")
                t.failed += 1
                continue
            }
            for v in vectors {
                let label = "\((path as NSString).lastPathComponent):\(v.name)"
                switch check(v) {
                case .pass: t.passed += 1; emit("PASS \(label)")
                case .fail(let why): t.failed += 1; emit("FAIL \(label): \(why)")
                case .skip(let why): t.skipped += 1; emit("SKIP \(label): \(why)")
                }
            }
        }
        emit("vectors: \(t.passed) passed, \(t.failed) failed, \(t.skipped) skipped")
        return t
    }

    public func check(_ v: Vector) -> VectorResult {
        for s in suites where s.accepts(module: v.module) {
            if let r = s.check(v) { return r }
        }
        return .skip("kind not known to this runner")
    }

    public static func load(_ path: String) throws -> [Vector] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        guard let top = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              let list = top["vectors"] as? [[String: Any]]
        else { throw VectorError.missing("vectors") }
        let module = top["module"] as? String ?? ""
        let file = (path as NSString).lastPathComponent
        return list.map { Vector(file: file, module: module, json: $0) }
    }
}

/// Runs a check body, turning thrown errors into failures.
func guarded(_ body: () throws -> VectorResult) -> VectorResult {
    do { return try body() } catch { return .fail("\(error)") }
}
