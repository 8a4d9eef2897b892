import Foundation
import SMPTransport
import XCTest

@testable import SMPAgent

/// The smp-server executable built next to the test bundle.
func agentTestServerBinary() throws -> String {
    let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    var dir = URL(fileURLWithPath: exe).deletingLastPathComponent()
    for _ in 0..<3 {
        let candidate = dir.appendingPathComponent("smp-server").path
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        dir = dir.deletingLastPathComponent()
    }
    throw XCTSkip("smp-server binary not found next to \(exe); run `swift build` first")
}

/// A relay as a real process that the test can kill -9 and start again on the same data.
final class RelayProcess: @unchecked Sendable {
    let binary: String
    let dir: String
    let port: Int
    private(set) var process: Process?
    private(set) var address: SMPServerAddress?

    init(dir: String) throws {
        binary = try agentTestServerBinary()
        self.dir = dir
        port = Int.random(in: 20000...40000)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = ["init", "--data", dir, "--port", "\(port)", "--host", "127.0.0.1"]
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
    }

    func start() async throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = ["start", "--data", dir]
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = FileHandle.nullDevice
        try p.run()
        process = p
        let line: String = try await withCheckedThrowingContinuation { cont in
            DispatchQueue.global().async {
                var text = ""
                while true {
                    let data = pipe.fileHandleForReading.availableData
                    if data.isEmpty { return cont.resume(throwing: AgentError.internalError("relay exited: \(text)")) }
                    text += String(decoding: data, as: UTF8.self)
                    if let l = text.split(separator: "\n").first(where: { $0.hasPrefix("Server address: ") }) {
                        return cont.resume(returning: String(l.dropFirst("Server address: ".count)))
                    }
                }
            }
        }
        address = try SMPServerAddress(parsing: line)
    }

    func kill9() {
        guard let p = process else { return }
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        process = nil
    }
}

final class AgentReliabilityTests: XCTestCase {
    /// 1,000 messages each way while both agents and the relay (a real process, kill -9) are
    /// killed and restarted at random points: every message arrives once, in order; none is
    /// delivered again after the layer above acknowledged it.
    func testThousandMessagesEachWayThroughKillsAndRestarts() async throws {
        let dir = agentTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let relay = try RelayProcess(dir: dir + "/relay")
        try await relay.start()
        let config = testAgentConfig([try XCTUnwrap(relay.address)])
        let alice = try await TestAgent("alice", dir: dir, config: config)
        let bob = try await TestAgent("bob", dir: dir, config: config)
        let (a, b) = try await connect(alice, bob)
        let n = Int(ProcessInfo.processInfo.environment["AGENT_CHAOS_MESSAGES"] ?? "") ?? 1000

        let aliceSends = Task { try await sendAll(alice, a, prefix: "a", n) }
        let bobSends = Task { try await sendAll(bob, b, prefix: "b", n) }
        let bobReceives = Task { try await receiveAll(bob, b, n) }
        let aliceReceives = Task { try await receiveAll(alice, a, n) }

        let chaos = Task { () -> (relay: Int, alice: Int, bob: Int) in
            var kills = (relay: 0, alice: 0, bob: 0)
            while !Task.isCancelled {
                do { try await Task.sleep(nanoseconds: UInt64.random(in: 150_000_000...600_000_000)) } catch { break }
                switch Int.random(in: 0..<3) {
                case 0:
                    relay.kill9()
                    try await Task.sleep(nanoseconds: UInt64.random(in: 0...200_000_000))
                    try await relay.start()
                    kills.relay += 1
                case 1:
                    try await alice.restart()
                    kills.alice += 1
                default:
                    try await bob.restart()
                    kills.bob += 1
                }
            }
            return kills
        }
        let started = Date()
        let gotByBob = try await bobReceives.value
        let gotByAlice = try await aliceReceives.value
        chaos.cancel()
        let k = try await chaos.value
        try await aliceSends.value
        try await bobSends.value
        print("chaos: \(n) messages each way in \(Int(Date().timeIntervalSince(started))) s; relay killed \(k.relay)x, alice restarted \(k.alice)x, bob restarted \(k.bob)x")
        XCTAssertEqual(gotByBob, (1...n).map { "a\($0)" })
        XCTAssertEqual(gotByAlice, (1...n).map { "b\($0)" })
        XCTAssertGreaterThan(k.relay + k.alice + k.bob, 0)
        await alice.stop()
        await bob.stop()
        relay.kill9()
    }
}

/// Sends "<prefix>1"..."<prefix>n" in order, retrying a call that failed because the agent was
/// being restarted (sendMessage either stores the message or fails without storing it).
private func sendAll(_ t: TestAgent, _ connId: String, prefix: String, _ n: Int) async throws {
    var i = 1
    while i <= n {
        do {
            _ = try await t.agent.sendMessage(connId: connId, body: Array("\(prefix)\(i)".utf8))
            i += 1
        } catch {
            try await Task.sleep(nanoseconds: 20_000_000)
        }
    }
}

/// Plays the layer above: records each message id once, acknowledges it, and fails if a
/// message comes back after its acknowledgement succeeded.
private func receiveAll(_ t: TestAgent, _ connId: String, _ n: Int, timeout: Double = 300) async throws -> [String] {
    var recorded: [String] = []
    var recordedIds = Set<Int64>()
    var acked: [Int64: Int] = [:]
    var unacked = Set<Int64>()
    var seen = 0
    let deadline = Date().addingTimeInterval(timeout)
    while recorded.count < n || !unacked.isEmpty {
        guard Date() < deadline else {
            XCTFail("\(t.name): got \(recorded.count) of \(n) messages")
            return recorded
        }
        let events = t.events
        if events.count == seen && unacked.isEmpty {
            try await Task.sleep(nanoseconds: 2_000_000)
            continue
        }
        for (index, e) in events.enumerated().dropFirst(seen) where e.connId == connId {
            guard case .msg(let meta, let body) = e.kind else { continue }
            // An event logged after the ack call returned is a delivery after the ack.
            if let at = acked[meta.agentMsgId] {
                XCTAssertLessThan(index, at, "\(t.name): message \(meta.agentMsgId) delivered after its ack")
                continue
            }
            if recordedIds.insert(meta.agentMsgId).inserted {
                recorded.append(String(decoding: body, as: UTF8.self))
            }
            unacked.insert(meta.agentMsgId)
        }
        seen = events.count
        // Acknowledge (again, if a restart interrupted the last attempt) until it succeeds.
        for id in unacked.sorted() {
            if (try? await t.agent.ackMessage(connId: connId, msgId: id)) != nil {
                acked[id] = t.events.count
                unacked.remove(id)
            }
        }
    }
    return recorded
}
