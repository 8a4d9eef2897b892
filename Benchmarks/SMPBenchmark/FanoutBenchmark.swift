import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import SMPClient
import SMPProtocol
import SMPServer
import SMPTransport
import SimplexFoundation

/// Group fan-out at the relay level (issue 16): one message to every member of a group, as a
/// SimpleX client sends it, one SEND per member's queue, with the members' queues spread over
/// `relays` relays in this process. Each relay has one sender connection and one recipient
/// connection holding its members' queues (secured with SKEY, so every SEND and ACK is signed and
/// verified). The figure is the time from the first SEND until every member has its MSG.
enum FanoutBenchmark {
    struct Result {
        let members: Int
        let relays: Int
        let seconds: Double
        let errors: Int
        /// The first error seen, to say what the errors were.
        let firstError: String?
    }

    private struct Member: Sendable {
        let relay: Int
        let recipientId: [UInt8]
        let senderId: [UInt8]
        let recipientKey: PrivateAuthKey
        let senderKey: PrivateAuthKey
    }

    static func run(members n: Int, relays: Int, bodySize: Int, serverGroup: any EventLoopGroup,
                    group: any EventLoopGroup) async throws -> Result {
        let dir = try temporaryDirectory("smp-bench-fanout")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let quiet = Logger(label: "smp-bench-fanout", factory: { _ in SwiftLogNoOpLogHandler() })
        var servers: [SMPRelayServer] = []
        var senders: [SMPClient] = []
        var recipients: [SMPClient] = []
        var clientConfig = SMPClientConfig()
        clientConfig.commandTimeout = 120
        clientConfig.pingInterval = 0
        for r in 0..<relays {
            var config = SMPServerConfig()
            config.port = 0
            config.bindAddress = "127.0.0.1"
            config.host = "127.0.0.1"
            try FileManager.default.createDirectory(atPath: dir + "/\(r)", withIntermediateDirectories: true)
            let credentials = try ServerCredentials.generate(commonName: "127.0.0.1")
            let server = try await SMPRelayServer.start(config: config, credentials: credentials, dataDirectory: dir + "/\(r)",
                                                        group: serverGroup, logger: quiet)
            servers.append(server)
            senders.append(SMPClient(server: server.address, config: clientConfig, group: group))
            recipients.append(SMPClient(server: server.address, config: clientConfig, group: group))
        }

        let made = NIOLockedValueBox<[Member?]>(Array(repeating: nil, count: n))
        let sendersNow = senders, recipientsNow = recipients
        let setupFailures = await boundedConcurrency(count: n, width: 64) { i in
            let relay = i % relays
            let rk = try PrivateAuthKey.generate(.ed25519)
            let q = try await recipientsNow[relay].createQueue(recipientKey: rk, dhKey: X25519PrivateKey(), subscribe: true)
            let sk = try PrivateAuthKey.generate(.ed25519)
            try await sendersNow[relay].senderSecure(senderId: q.senderId, key: sk)
            made.withLockedValue { $0[i] = Member(relay: relay, recipientId: q.recipientId, senderId: q.senderId, recipientKey: rk, senderKey: sk) }
        }
        guard setupFailures == 0 else { throw BenchError("\(setupFailures) of \(n) member queues could not be created") }
        let members = made.withLockedValue { $0.map { $0! } }
        var keys: [[UInt8]: PrivateAuthKey] = [:]
        for m in members { keys[m.recipientId] = m.recipientKey }
        let recipientKeys = keys

        let delivered = Counter(), errors = Counter(), acked = Counter()
        let firstError = NIOLockedValueBox<String?>(nil)
        @Sendable func failed(_ what: String) {
            errors.add()
            firstError.withLockedValue { if $0 == nil { $0 = what } }
        }
        let done = AsyncStream<Void>.makeStream()
        var receiving: [Task<Void, Never>] = []
        for r in 0..<relays {
            let client = recipients[r]
            receiving.append(Task {
                for await event in client.events {
                    guard case .message(let m) = event else { continue }
                    if let key = recipientKeys[m.recipientId] {
                        Task {
                            do { try await client.ack(recipientId: m.recipientId, key: key, msgId: m.msgId) } catch { failed("ACK: \(error)") }
                            acked.add()
                        }
                    }
                    delivered.add()
                    if delivered.value == n { done.continuation.yield() }
                }
            })
        }

        let body = [UInt8](repeating: 0x2D, count: bodySize)
        let start = nowNanos()
        let sendFailures = await boundedConcurrency(count: n, width: 256) { i in
            let m = members[i]
            do { try await sendersNow[m.relay].send(senderId: m.senderId, key: m.senderKey, body: body) } catch {
                failed("SEND: \(error)")
                throw error
            }
        }
        if sendFailures == 0 {
            let waiter = Task { for await _ in done.stream { return } }
            let timeout = Task {
                try? await Task.sleep(nanoseconds: 60_000_000_000)
                waiter.cancel()
            }
            await waiter.value
            timeout.cancel()
        }
        let seconds = Double(nowNanos() - start) / 1e9
        let missing = n - delivered.value
        // The figure is taken; let the ACKs in flight finish before the connections close.
        let ackDeadline = nowNanos() + 10_000_000_000
        while acked.value < delivered.value, nowNanos() < ackDeadline { await sleep(seconds: 0.01) }
        for c in senders + recipients { await c.close() }
        for t in receiving { await t.value }
        for s in servers { await s.shutdown() }
        if missing > 0 { failed("\(missing) members without the message") }
        return Result(members: n, relays: relays, seconds: seconds, errors: errors.value, firstError: firstError.withLockedValue { $0 })
    }
}
