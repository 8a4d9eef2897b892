import Foundation
import NIOConcurrencyHelpers

/// Monotonic nanoseconds (CLOCK_MONOTONIC), comparable across the tasks of this process.
func nowNanos() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

func sleep(seconds: Double) async {
    try? await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
}

/// A thread-safe counter.
final class Counter: Sendable {
    private let box = NIOLockedValueBox(0)
    func add(_ n: Int = 1) { box.withLockedValue { $0 += n } }
    var value: Int { box.withLockedValue { $0 } }
}

/// A thread-safe flag.
final class StopFlag: Sendable {
    private let box = NIOLockedValueBox(false)
    func set(_ v: Bool = true) { box.withLockedValue { $0 = v } }
    var isSet: Bool { box.withLockedValue { $0 } }
}

/// Latency samples in nanoseconds, recorded only while `recording` is on.
final class LatencyRecorder: Sendable {
    private struct State {
        var recording = false
        var samples: [UInt64] = []
    }
    private let box = NIOLockedValueBox(State())

    func setRecording(_ on: Bool) { box.withLockedValue { $0.recording = on } }

    func record(_ ns: UInt64) {
        box.withLockedValue { s in if s.recording { s.samples.append(ns) } }
    }

    /// (p50, p99) in milliseconds, or nil without samples.
    func percentiles() -> (p50: Double, p99: Double, count: Int)? {
        let sorted = box.withLockedValue { $0.samples }.sorted()
        guard !sorted.isEmpty else { return nil }
        func p(_ q: Double) -> Double {
            let i = min(sorted.count - 1, Int((Double(sorted.count) * q).rounded(.down)))
            return Double(sorted[i]) / 1e6
        }
        return (p(0.50), p(0.99), sorted.count)
    }
}

/// Runs `count` jobs with at most `width` in flight; returns how many threw.
func boundedConcurrency(count: Int, width: Int, _ job: @escaping @Sendable (Int) async throws -> Void) async -> Int {
    await withTaskGroup(of: Bool.self) { group in
        var next = 0, failures = 0
        while next < min(width, count) {
            let i = next
            group.addTask { (try? await job(i)) != nil }
            next += 1
        }
        while let ok = await group.next() {
            if !ok { failures += 1 }
            if next < count {
                let i = next
                group.addTask { (try? await job(i)) != nil }
                next += 1
            }
        }
        return failures
    }
}

func temporaryDirectory(_ prefix: String) throws -> String {
    let dir = NSTemporaryDirectory() + "\(prefix)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    return dir
}

func format(_ v: Double, _ digits: Int = 0) -> String { String(format: "%.\(digits)f", v) }

func pad(_ s: String, _ width: Int) -> String {
    s.count >= width ? s : s + String(repeating: " ", count: width - s.count)
}
