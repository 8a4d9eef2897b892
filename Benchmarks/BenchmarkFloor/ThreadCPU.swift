import Foundation

/// CPU time of this process's threads by thread name (Linux /proc): which kind of thread (NIO
/// event loops, the Swift task pool, dispatch) a benchmark's time went to, and whether one of
/// them was saturated while the cores were not.
public struct ThreadCPU: Sendable {
    /// Seconds of CPU (user + system) by thread id, with each thread's name.
    let threads: [Int: (name: String, seconds: Double)]

    public static func snapshot() -> ThreadCPU {
        var out: [Int: (String, Double)] = [:]
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        guard let tids = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task") else { return ThreadCPU(threads: [:]) }
        for tid in tids {
            guard let id = Int(tid), let stat = try? String(contentsOfFile: "/proc/self/task/\(tid)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { continue }
            let name = (try? String(contentsOfFile: "/proc/self/task/\(tid)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
            // Fields after the name: state is field 3, utime 14, stime 15.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { continue }
            out[id] = (name, (user + system) / ticks)
        }
        return ThreadCPU(threads: out)
    }

    /// The busiest threads between `start` and now, as "name cores" over `seconds` of wall time,
    /// and the total by kind of thread.
    public static func summary(since start: ThreadCPU, seconds: Double, top: Int = 6) -> String {
        let now = snapshot()
        var busy: [(String, Double)] = []
        var kinds: [String: Double] = [:]
        for (id, t) in now.threads {
            let used = t.seconds - (start.threads[id]?.seconds ?? 0)
            guard used > 0 else { continue }
            busy.append((t.name, used / seconds))
            let kind = t.name.hasPrefix("NIO-ELT") ? "NIO event loops" : t.name.contains("qos") ? "Swift task pool" : "other"
            kinds[kind, default: 0] += used / seconds
        }
        busy.sort { $0.1 > $1.1 }
        let threads = busy.prefix(top).map { String(format: "%@ %.2f", $0.0, $0.1) }.joined(separator: ", ")
        let byKind = kinds.sorted { $0.value > $1.value }.map { String(format: "%@ %.2f", $0.key, $0.value) }.joined(separator: ", ")
        return "cores busy by thread: \(threads); by kind: \(byKind)"
    }
}
