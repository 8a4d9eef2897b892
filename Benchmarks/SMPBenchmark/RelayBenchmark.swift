import BenchmarkFloor
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import SMPClient
import SMPProtocol
import SMPServer
import SMPTransport
import SimplexFoundation

/// SEND -> MSG throughput and latency through one in-process relay (store log on): one sender
/// connection SENDs to `queues` queues, one recipient connection is subscribed to all of them and
/// ACKs every message as it arrives. At most `window` messages are in flight (sent, not yet
/// received) and at most one per queue, so no queue ever holds a backlog and the latency is that
/// of the relay path, not of waiting behind other messages of the same queue.
enum RelayBenchmark {
    struct Result {
        let queues: Int
        let deliveries: Int
        let seconds: Double
        let p50: Double
        let p99: Double
        let samples: Int
        let errors: Int
        let firstError: String?
        let setupSeconds: Double
        /// Process CPU (relay and both clients, all threads) per delivery in the measured window.
        let cpuMicrosPerDelivery: Double
        /// Transport blocks the relay read and wrote per delivery in the measured window (the
        /// reference's framing makes 5: SEND, its OK, MSG, ACK, its OK).
        let blocksPerDelivery: Double
        /// Which threads the measured window's CPU went to (ThreadCPU.summary).
        let threads: String
        var deliveriesPerSecond: Double { Double(deliveries) / seconds }
    }

    struct Queue: Sendable {
        let recipientId: [UInt8]
        let senderId: [UInt8]
        let recipientKey: PrivateAuthKey
        let senderKey: PrivateAuthKey
    }

    static func run(queues n: Int, window: Int, bodySize: Int, storeLog: Bool, warmup: Double, duration: Double,
                    serverGroup: any EventLoopGroup, group: any EventLoopGroup) async throws -> Result {
        let dir = try temporaryDirectory("smp-bench-relay")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var config = SMPServerConfig()
        config.port = 0
        config.bindAddress = "127.0.0.1"
        config.host = "127.0.0.1"
        config.storeLog = storeLog
        let credentials = try ServerCredentials.generate(commonName: "127.0.0.1")
        let quiet = Logger(label: "smp-bench-relay", factory: { _ in SwiftLogNoOpLogHandler() })
        let server = try await SMPRelayServer.start(config: config, credentials: credentials, dataDirectory: dir, group: serverGroup, logger: quiet)

        var clientConfig = SMPClientConfig()
        clientConfig.commandTimeout = 120
        clientConfig.pingInterval = 0
        let recipient = SMPClient(server: server.address, config: clientConfig, group: group)
        let sender = SMPClient(server: server.address, config: clientConfig, group: group)

        // Queues: NEW (subscribed) by the recipient, SKEY by the sender, so every SEND and ACK
        // is signed and verified (Ed25519) as in real use.
        let setupStart = nowNanos()
        let made = NIOLockedValueBox<[Queue?]>(Array(repeating: nil, count: n))
        let setupFailures = await boundedConcurrency(count: n, width: 64) { i in
            let rk = try PrivateAuthKey.generate(.ed25519)
            let q = try await recipient.createQueue(recipientKey: rk, dhKey: X25519PrivateKey(), subscribe: true)
            let sk = try PrivateAuthKey.generate(.ed25519)
            try await sender.senderSecure(senderId: q.senderId, key: sk)
            made.withLockedValue { $0[i] = Queue(recipientId: q.recipientId, senderId: q.senderId, recipientKey: rk, senderKey: sk) }
        }
        guard setupFailures == 0 else { throw BenchError("\(setupFailures) of \(n) queues could not be created") }
        let queues = made.withLockedValue { $0.map { $0! } }
        let setupSeconds = Double(nowNanos() - setupStart) / 1e9
        var indexById: [[UInt8]: Int] = [:]
        for (i, q) in queues.enumerated() { indexById[q.recipientId] = i }
        let index = indexById

        let scheduler = Scheduler(queues: n, window: min(window, n))
        let delivered = Counter(), sent = Counter(), errors = Counter()
        // ACKs sent and not yet answered: the connections close only when none is left, or the
        // last ACKs fail with "client closed" and count as errors the relay did not make.
        let acksInFlight = Counter()
        let firstError = NIOLockedValueBox<String?>(nil)
        @Sendable func failed(_ what: String) {
            errors.add()
            firstError.withLockedValue { if $0 == nil { $0 = what } }
        }
        let latencies = LatencyRecorder()
        let stop = StopFlag()

        let receiving = Task {
            for await event in recipient.events {
                switch event {
                case .message(let m):
                    let t = nowNanos()
                    if let body = m.body, body.count >= 8 {
                        let ts = body.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                        if t >= ts { latencies.record(t - ts) }
                    }
                    delivered.add()
                    guard let i = index[m.recipientId] else { continue }
                    let key = queues[i].recipientKey
                    acksInFlight.add()
                    Task {
                        do { try await recipient.ack(recipientId: m.recipientId, key: key, msgId: m.msgId) } catch { failed("ACK: \(error)") }
                        acksInFlight.add(-1)
                    }
                    scheduler.release(i)
                case .undecryptable:
                    failed("undecryptable message")
                default:
                    break
                }
            }
        }

        let template = [UInt8](repeating: 0x2D, count: max(8, bodySize))
        let sending = Task {
            for await _ in scheduler.permits {
                if stop.isSet { break }
                guard let i = scheduler.next() else { continue }
                let q = queues[i]
                var body = template
                let ts = nowNanos()
                for k in 0..<8 { body[k] = UInt8(truncatingIfNeeded: ts >> UInt64(56 - 8 * k)) }
                sent.add()
                Task {
                    do {
                        try await sender.send(senderId: q.senderId, key: q.senderKey, body: body)
                    } catch {
                        failed("SEND: \(error)")
                        scheduler.release(i)
                    }
                }
            }
        }

        await sleep(seconds: warmup)
        latencies.setRecording(true)
        let c0 = delivered.value, t0 = nowNanos(), cpu0 = processCPUMicros(), b0 = server.blockStatistics, threads0 = ThreadCPU.snapshot()
        await sleep(seconds: duration)
        let c1 = delivered.value, t1 = nowNanos(), cpu1 = processCPUMicros(), b1 = server.blockStatistics
        let threads = ThreadCPU.summary(since: threads0, seconds: Double(t1 - t0) / 1e9)
        latencies.setRecording(false)

        // Stop sending and let what is in flight arrive, then tear down.
        stop.set()
        scheduler.finish()
        await sending.value
        let drainDeadline = nowNanos() + 10_000_000_000
        while delivered.value + errors.value < sent.value || acksInFlight.value > 0, nowNanos() < drainDeadline { await sleep(seconds: 0.01) }
        await sleep(seconds: 0.1)
        await sender.close()
        await recipient.close()
        await receiving.value
        await server.shutdown()

        let p = latencies.percentiles()
        return Result(queues: n, deliveries: c1 - c0, seconds: Double(t1 - t0) / 1e9, p50: p?.p50 ?? .nan, p99: p?.p99 ?? .nan,
                      samples: p?.count ?? 0, errors: errors.value, firstError: firstError.withLockedValue { $0 }, setupSeconds: setupSeconds,
                      cpuMicrosPerDelivery: (cpu1 - cpu0) / Double(max(1, c1 - c0)),
                      blocksPerDelivery: Double(b1.received - b0.received + b1.sent - b0.sent) / Double(max(1, c1 - c0)), threads: threads)
    }
}

/// Hands out queues to send to: a permit for every free slot of the window, and the queue that
/// has been idle longest (each queue has at most one message in flight).
final class Scheduler: Sendable {
    private struct State {
        var idle: [Int]
        var head = 0
    }
    private let state: NIOLockedValueBox<State>
    let permits: AsyncStream<Void>
    private let permitSink: AsyncStream<Void>.Continuation

    init(queues: Int, window: Int) {
        state = NIOLockedValueBox(State(idle: Array(0..<queues)))
        (permits, permitSink) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .unbounded)
        for _ in 0..<window { permitSink.yield() }
    }

    func next() -> Int? {
        state.withLockedValue { s in
            guard s.head < s.idle.count else { return nil }
            defer {
                s.head += 1
                if s.head > 4096, s.head * 2 > s.idle.count {
                    s.idle.removeFirst(s.head)
                    s.head = 0
                }
            }
            return s.idle[s.head]
        }
    }

    func release(_ i: Int) {
        state.withLockedValue { $0.idle.append(i) }
        permitSink.yield()
    }

    func finish() { permitSink.finish() }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}
