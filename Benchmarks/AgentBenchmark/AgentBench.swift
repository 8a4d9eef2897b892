import ArgumentParser
import BenchmarkFloor
import Crypto
import DoubleRatchet
import Foundation
import NIOPosix
import SimplexFoundation
import SMPAgent
import SMPServer
import SMPTransport

/// agent-bench: connection set-up time, agent-to-agent throughput with persistence, and the
/// ratchet's cost relative to its bare primitives, all measured in one run (release build).
@main
struct AgentBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "agent-bench",
        abstract: "Benchmarks the SMP agent over an in-process relay on loopback."
    )

    @Option(help: "Connections to establish for the set-up time.")
    var connections = 40

    @Option(help: "Messages Alice sends Bob for the throughput figure.")
    var messages = 5000

    @Option(help: "Connections used at once for the second throughput figure (at most --connections).")
    var parallel = 10

    @Flag(help: "Short run (smoke test).")
    var quick = false

    @Flag(help: "Only the two throughput figures (for profiling).")
    var throughputOnly = false

    mutating func run() async throws {
        if quick {
            connections = 5
            messages = 300
        }
        // The relay and the agents get event loops of their own, as separate processes would (and
        // as smp-bench does): with one shared group, NIO's round robin can put the relay's busiest
        // connection and an agent's on the same thread.
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let relayGroup = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let dir = NSTemporaryDirectory() + "agent-bench-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: dir + "/relay", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var relayConfig = SMPServerConfig()
        relayConfig.port = 0
        relayConfig.bindAddress = "127.0.0.1"
        relayConfig.host = "127.0.0.1"
        relayConfig.queueQuota = 1_000_000
        let creds = try ServerCredentials.generate(commonName: "127.0.0.1")
        let relay = try await SMPRelayServer.start(config: relayConfig, credentials: creds, dataDirectory: dir + "/relay", group: relayGroup)
        let address = try SMPServerAddress(keyHash: creds.keyHash, hosts: ["127.0.0.1"], port: relay.port)
        let config = AgentConfig(servers: [address])
        let alice = try SMPAgent(config: config, databasePath: dir + "/alice.db", group: group)
        let bob = try SMPAgent(config: config, databasePath: dir + "/bob.db", group: group)
        await alice.start()
        await bob.start()
        let aliceEvents = EventBox(alice.events), bobEvents = EventBox(bob.events)

        print("== connection establishment (invitation -> CON on both sides, PQ on, \(connections) connections)")
        var setup: [Double] = []
        var pairs: [(String, String)] = []
        for _ in 0..<connections {
            let start = nowNanos()
            let (a, link) = try await alice.createConnection()
            let b = try await bob.joinConnection(link: link, connInfo: Array("bob".utf8))
            let confId = try await aliceEvents.wait { e -> String? in
                if e.connId == a, case .conf(let id, _) = e.kind { id } else { nil }
            }
            try await alice.allowConnection(connId: a, confirmationId: confId, connInfo: Array("alice".utf8))
            _ = try await aliceEvents.wait { e -> Bool? in if e.connId == a, case .con = e.kind { true } else { nil } }
            _ = try await bobEvents.wait { e -> Bool? in if e.connId == b, case .con = e.kind { true } else { nil } }
            setup.append(Double(nowNanos() - start) / 1e6)
            pairs.append((a, b))
        }
        setup.sort()
        print(String(format: "  p50 %.1f ms, p90 %.1f ms, max %.1f ms (target p50 < 50 ms)",
                     setup[setup.count / 2], setup[setup.count * 9 / 10], setup.last ?? 0))

        guard let (a, b) = pairs.last else { return }
        print("== throughput: \(messages) messages Alice -> Bob, persisted on both sides, Bob acknowledges each")
        let body = Array(repeating: UInt8(ascii: "x"), count: 100)
        let cpu0 = processCPUMicros()
        /// Each side's agent-database write transactions per message since `start`.
        func printCommits(since start: (Int, Int, Int, Int), messages: Int) {
            let n = Double(messages)
            print(String(format: "  (agent database per message: write transactions sender %.2f, recipient %.2f; pages written sender %.1f, recipient %.1f)",
                         Double(alice.databaseWrites - start.0) / n, Double(bob.databaseWrites - start.1) / n,
                         Double(alice.databasePagesWritten - start.2) / n, Double(bob.databasePagesWritten - start.3) / n))
        }
        func writeCounts() -> (Int, Int, Int, Int) {
            (alice.databaseWrites, bob.databaseWrites, alice.databasePagesWritten, bob.databasePagesWritten)
        }
        let writes0 = writeCounts()
        let threads0 = ThreadCPU.snapshot()
        let start = nowNanos()
        let count = messages
        let sender = Task {
            for _ in 0..<count { _ = try await alice.sendMessage(connId: a, body: body) }
            return Double(nowNanos() - start) / 1e9
        }
        var received = 0
        var waitNanos: UInt64 = 0, ackNanos: UInt64 = 0
        while received < messages {
            let t0 = nowNanos()
            let (id, _) = try await bobEvents.wait { e -> (Int64, Int)? in
                if e.connId == b, case .msg(let m, let body) = e.kind { (m.agentMsgId, body.count) } else { nil }
            }
            let t1 = nowNanos()
            try await bob.ackMessage(connId: b, msgId: id)
            waitNanos += t1 - t0
            ackNanos += nowNanos() - t1
            received += 1
        }
        print(String(format: "  (per message: %.0f us waiting for MSG, %.0f us in ackMessage)",
                     Double(waitNanos) / 1e3 / Double(messages), Double(ackNanos) / 1e3 / Double(messages)))
        let seconds = Double(nowNanos() - start) / 1e9
        let enqueueSeconds = try await sender.value
        print(String(format: "  (queueing all %d took %.2f s: %.0f sendMessage/s)", messages, enqueueSeconds, Double(messages) / enqueueSeconds))
        let cpuPerMessage = (processCPUMicros() - cpu0) / Double(messages)
        printCommits(since: writes0, messages: messages)
        print(String(format: "  %.0f messages/s (%.2f s; target >= 2,000/s); CPU of the whole process %.0f us per message (%.2f cores busy)",
                     Double(messages) / seconds, seconds, cpuPerMessage, cpuPerMessage * Double(messages) / 1e6 / seconds))
        print("  (" + ThreadCPU.summary(since: threads0, seconds: seconds) + ")")
        let floor = try AgentFloor.measure(pq: true)
        print("  floor: the work each message must do, timed single-threaded in this run:")
        floor.printItems(nameWidth: 68)
        let ceiling = floor.ceiling(cores: 2)
        print(String(format: "     total %.0f us of CPU per message -> at most %.0f messages/s on 2 cores;", floor.totalMicros, ceiling))
        print(String(format: "     measured %.0f/s = %.3f of that ceiling; the process used %.1fx the floor's CPU per message",
                     Double(messages) / seconds, Double(messages) / seconds / ceiling, cpuPerMessage / floor.totalMicros))

        let parallel = Array(pairs.suffix(self.parallel))
        print("== throughput: \(messages) messages over \(parallel.count) connections at once, persisted, each acknowledged")
        let perConn = messages / parallel.count
        let cpu2 = processCPUMicros()
        let threads2 = ThreadCPU.snapshot()
        let writes2 = writeCounts()
        let start2 = nowNanos()
        let senders = parallel.map { p in
            Task { for _ in 0..<perConn { _ = try await alice.sendMessage(connId: p.0, body: body) } }
        }
        let bobConns = Set(parallel.map(\.1))
        var got = 0
        var acks: [Task<Void, any Error>] = []
        while got < perConn * parallel.count {
            let (conn, id) = try await bobEvents.wait { e -> (String, Int64)? in
                if bobConns.contains(e.connId), case .msg(let m, _) = e.kind { (e.connId, m.agentMsgId) } else { nil }
            }
            // Acknowledged concurrently: each connection's next message waits only for its own ACK.
            acks.append(Task { try await bob.ackMessage(connId: conn, msgId: id) })
            got += 1
        }
        for t in acks { try await t.value }
        for t in senders { try await t.value }
        let seconds2 = Double(nowNanos() - start2) / 1e9
        let cpuPerMessage2 = (processCPUMicros() - cpu2) / Double(got)
        print(String(format: "  %.0f messages/s (%.2f s); CPU of the whole process %.0f us per message (%.2f cores busy) = %.1fx the floor",
                     Double(got) / seconds2, seconds2, cpuPerMessage2, cpuPerMessage2 * Double(got) / 1e6 / seconds2, cpuPerMessage2 / floor.totalMicros))
        print("  (" + ThreadCPU.summary(since: threads2, seconds: seconds2) + ")")
        printCommits(since: writes2, messages: got)
        if throughputOnly { return }

        print("== ratchet encrypt+decrypt vs its bare primitives (single thread)")
        try ratchetRatio()
        await alice.stop()
        await bob.stop()
        await relay.shutdown()
        try await group.shutdownGracefully()
        try await relayGroup.shutdownGracefully()
    }

    /// One ratchet message = header AES-GCM + body AES-GCM (+ KDFs, padding, encoding); every
    /// reply adds a DH ratchet step (X448 DH both ways). The baseline does just those primitives.
    func ratchetRatio() throws {
        let bobParams = try PQRatchet.generateReceiverParams(pqSupport: false)
        let aliceParams = try PQRatchet.generateSenderParams(replyingTo: bobParams.publicParams, pqSupport: false)
        var alice = try PQRatchet.initSend(own: aliceParams, peer: bobParams.publicParams)
        var bob = try PQRatchet.initReceive(own: bobParams, peer: aliceParams.publicParams, pqSupport: false)
        let length = AgentMessageSize.e2eEncAgentMsgLength(pq: false)
        let plain = SecureRandom.bytes(200)
        // Same direction: symmetric ratchet only.
        let same = try rate {
            let c = try alice.encrypt(plain, paddedLength: length)
            _ = try bob.decrypt(c)
        }
        // Alternating: every message a DH ratchet step.
        var turn = false
        let alternating = try rate {
            if turn {
                _ = try alice.decrypt(try bob.encrypt(plain, paddedLength: length))
            } else {
                _ = try bob.decrypt(try alice.encrypt(plain, paddedLength: length))
            }
            turn.toggle()
        }
        let key = SymmetricKey(size: .bits256)
        let padded = SecureRandom.bytes(length), header = SecureRandom.bytes(88)
        let aes = try rate {
            let n = AES.GCM.Nonce()
            let b = try AES.GCM.seal(padded, using: key, nonce: n)
            _ = try AES.GCM.open(b, using: key)
            let h = try AES.GCM.seal(header, using: key, nonce: AES.GCM.Nonce())
            _ = try AES.GCM.open(h, using: key)
        }
        let x1 = X448PrivateKey(), x2 = X448PrivateKey()
        let dh = try rate {
            _ = try x1.sharedSecret(with: x2.publicKey)
            _ = try x2.sharedSecret(with: x1.publicKey)
        }
        let dhStepBaseline = 1 / (1 / aes + 1 / dh)
        // Persisting the state: serialize + deserialize of a PQ ratchet, done per message.
        let pqBob = try PQRatchet.generateReceiverParams(pqSupport: true)
        let pqAlice = try PQRatchet.generateSenderParams(replyingTo: pqBob.publicParams, pqSupport: true)
        var pq = try PQRatchet.initSend(own: pqAlice, peer: pqBob.publicParams)
        _ = try pq.encrypt(plain, paddedLength: length)
        let stateSize = try pq.serialized().count
        let persist = try rate { _ = try PQRatchet(serialized: try pq.serialized()) }
        print(String(format: "  PQ ratchet state (%d B) serialize+deserialize: %.0f/s", stateSize, persist))
        print(String(format: "  bare AES-GCM (header + %d B body, seal+open): %.0f/s; X448 DH x2: %.0f/s", length, aes, dh))
        print(String(format: "  same direction: %.0f msgs/s = %.2f of bare AES-GCM", same, same / aes))
        print(String(format: "  alternating (DH step each): %.0f msgs/s = %.2f of AES-GCM + DH", alternating, alternating / dhStepBaseline))
        // The KEM of a PQ ratchet step (sntrup761) beside one X448 DH, in the same run.
        let kp = try SNTRUP761RatchetKEM.generateKeyPair()
        let (ct, _) = try SNTRUP761RatchetKEM.encapsulate(kp.publicKey)
        let keygen = try rate { _ = try SNTRUP761RatchetKEM.generateKeyPair() }
        let enc = try rate { _ = try SNTRUP761RatchetKEM.encapsulate(kp.publicKey) }
        let dec = try rate { _ = try SNTRUP761RatchetKEM.decapsulate(ct, secretKey: kp.secretKey) }
        let dh1 = try rate { _ = try x1.sharedSecret(with: x2.publicKey) }
        print(String(format: "  sntrup761 keygen %.0f us, encapsulation %.0f us, decapsulation %.0f us; X448 DH %.0f us",
                     1e6 / keygen, 1e6 / enc, 1e6 / dec, 1e6 / dh1))
    }

    /// Operations per second, best of 5 batches of >= 100 ms.
    func rate(_ op: () throws -> Void) rethrows -> Double {
        try op()
        var best = 0.0
        for _ in 0..<5 {
            var n = 0
            let start = nowNanos()
            while nowNanos() - start < 100_000_000 || n < 3 {
                try op()
                n += 1
            }
            best = max(best, Double(n) * 1e9 / Double(nowNanos() - start))
        }
        return best
    }
}

func nowNanos() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// Buffers an agent's events so the benchmark can wait for the next one it needs; a waiter is
/// resumed by the next event, so no polling delay is added to the figures.
final class EventBox: @unchecked Sendable {
    private let lock = NSLock()
    private var buffer: [AgentEvent] = []
    private var generation = 0
    private var waiter: CheckedContinuation<Void, Never>?
    private var task: Task<Void, Never>?

    init(_ stream: AsyncStream<AgentEvent>) {
        task = Task { [weak self] in
            for await e in stream {
                guard let self else { return }
                let w = self.lock.withLock { () -> CheckedContinuation<Void, Never>? in
                    self.buffer.append(e)
                    self.generation += 1
                    defer { self.waiter = nil }
                    return self.waiter
                }
                w?.resume()
            }
        }
    }

    /// Removes and returns the first buffered event `match` accepts, waiting for more as needed.
    func wait<T>(_ match: (AgentEvent) -> T?) async throws -> T {
        while true {
            let (found, seen): (AgentEvent?, Int) = lock.withLock {
                guard let i = buffer.firstIndex(where: { match($0) != nil }) else { return (nil, generation) }
                return (buffer.remove(at: i), generation)
            }
            if let e = found, let t = match(e) { return t }
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let ready = lock.withLock { () -> Bool in
                    if generation != seen { return true }
                    waiter = c
                    return false
                }
                if ready { c.resume() }
            }
        }
    }
}
