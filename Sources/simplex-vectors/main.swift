import Foundation
import SimplexVectors

// simplex-vectors FILE...: checks reference vectors (../shared/refvectors format) against this
// implementation; exits non-zero when any vector fails.
let args = Array(CommandLine.arguments.dropFirst())
if args.isEmpty || args.contains("--help") || args.contains("-h") {
    print("""
    usage: simplex-vectors FILE...
    Checks every vector in FILE (the format of ../shared/refvectors, see its README) against this
    implementation and prints PASS name / FAIL name: why / SKIP name: why, then
    "vectors: N passed, M failed, K skipped". A kind the runner does not know is skipped.
    """)
    exit(args.isEmpty ? 2 : 0)
}
let totals = VectorRunner.standard.run(files: args) { print($0) }
exit(totals.failed == 0 ? 0 : 1)
