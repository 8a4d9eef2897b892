import ArgumentParser
import BenchmarkFloor
import ChatCore
import Foundation
import GRDB
import NIOCore
import NIOPosix
import SMPServer
import SMPTransport

/// chat-bench: messages per second core to core (both chat and agent databases persisting), and
/// `/_get chats` latency on a database with many contacts and chat items.
@main
struct ChatBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "chat-bench", abstract: "Benchmarks the chat core (release build).")

    @Option(help: "Messages Alice sends Bob.")
    var messages = 2000
    @Option(help: "Contacts in the /_get chats database.")
    var contacts = 10_000
    @Option(help: "Chat items in the /_get chats database.")
    var items = 1_000_000
    @Flag(help: "Short run (smoke test).")
    var quick = false
    @Flag(help: "Only the plain-database throughput figure (for profiling).")
    var throughputOnly = false
    @Flag(help: "Only the JSON encoding micro-benchmark (ChatJSON against Foundation's JSONEncoder).")
    var jsonOnly = false
    @Option(help: "Events encoded per figure of --json-only.")
    var jsonIterations = 20_000
    @Option(help: "Contacts between Alice and Bob for the second throughput figure (messages round-robin over them).")
    var spread = 10
    @Option(help: "Sender tasks per contact (each waits for its /_send answer before the next): 1 measures a client sending in turn, more show what the receiving side sustains.")
    var sendersPerContact = 1
    @Option(help: "Seconds a \"sent\" status may wait for another write to carry it (0: written as it arrives in a transaction of its own, as before issue 14).")
    var statusDelay = ChatController.Config().deferredStatusDelay

    mutating func run() async throws {
        if jsonOnly {
            try JSONEncodeBench.run(iterations: jsonIterations)
            return
        }
        if quick {
            messages = 200
            contacts = 1000
            items = 20_000
            spread = min(spread, 3)
        }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let dir = NSTemporaryDirectory() + "chat-bench-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: dir + "/relay", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }

        var rc = SMPServerConfig()
        rc.port = 0
        rc.host = "127.0.0.1"
        rc.queueQuota = 1_000_000
        let creds = try ServerCredentials.generate(commonName: "127.0.0.1")
        let relay = try await SMPRelayServer.start(config: rc, credentials: creds, dataDirectory: dir + "/relay", group: group)
        let server = try SMPServerAddress(keyHash: creds.keyHash, hosts: ["127.0.0.1"], port: relay.port).description
        var config = ChatController.Config()
        config.defaultSMPServers = [server]
        config.deferredStatusDelay = statusDelay

        print("== core to core: \(messages) messages, chat + agent databases persisting on both sides (status delay \(statusDelay) s)")
        let plain = try await throughput(dir + "/plain", key: "", config, group)
        print(String(format: "  plain databases:     %.0f messages/s (target >= 1,000/s); CPU of the whole process (both cores, relay included) %.0f us per message",
                     plain.rate, plain.cpuMicrosPerMessage))
        print(String(format: "  chat-database write transactions: %.2f per sent message (sender), %.2f per received message (receiver) (targets <= 2, <= 1)",
                     plain.writesPerSent, plain.writesPerReceived))
        print(String(format: "  chat-database pages written per message: sender %.1f, receiver %.1f", plain.pagesPerSent, plain.pagesPerReceived))
        let floor = try ChatFloor.measure()
        print("  floor: the work each message must do, timed single-threaded in this run:")
        floor.printItems(nameWidth: 68)
        let ceiling = floor.ceiling(cores: 2)
        print(String(format: "     total %.0f us of CPU per message -> at most %.0f messages/s on 2 cores; measured %.0f/s = %.3f of that ceiling,",
                     floor.totalMicros, ceiling, plain.rate, plain.rate / ceiling))
        print(String(format: "     the process used %.1fx the floor's CPU per message", plain.cpuMicrosPerMessage / floor.totalMicros))
        if spread > 1 {
            let wide = try await throughput(dir + "/spread", key: "", config, group, contacts: spread)
            print(String(format: "  over %d contacts:     %.0f messages/s = %.3f of the ceiling; CPU %.0f us per message (%.1fx the floor)",
                         spread, wide.rate, wide.rate / ceiling, wide.cpuMicrosPerMessage, wide.cpuMicrosPerMessage / floor.totalMicros))
        }
        if throughputOnly { return }
        let sealed = try await throughput(dir + "/sealed", key: "bench passphrase", config, group)
        print(String(format: "  encrypted databases: %.0f messages/s, %.2f of plain (same run)", sealed.rate, sealed.rate / plain.rate))

        print("== /_get chats with \(contacts) contacts and \(items) chat items")
        let prefix = dir + "/big"
        let seed = try await open(prefix, "owner", config, group)
        await seed.close()
        let t0 = DispatchTime.now().uptimeNanoseconds
        try populate(ChatController.chatDatabasePath(prefix), contacts: contacts, items: items)
        print(String(format: "  (populated in %.1f s)", Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9))
        let (c, r) = ChatController.open(dbPrefix: prefix, config: config, group: group)
        guard let big = c else { throw ValidationError("open: \(r)") }
        for cmd in ["/_get chats 1 pcc=on count=20", "/_get chats 1 pcc=on count=100"] {
            var times: [Double] = []
            for _ in 0..<15 {
                let s = DispatchTime.now().uptimeNanoseconds
                let json = await big.send(cmd)
                times.append(Double(DispatchTime.now().uptimeNanoseconds - s) / 1e6)
                guard json.hasPrefix(#"{"result""#) else { throw ValidationError(String(json.prefix(300))) }
            }
            times.sort()
            print(String(format: "  %@: p50 %.1f ms, max %.1f ms (target < 50 ms)", cmd, times[times.count / 2], times.last ?? 0))
        }
        let s = DispatchTime.now().uptimeNanoseconds
        let all = await big.send("/_get chats 1 pcc=on")
        print(String(format: "  /_get chats 1 pcc=on (default page of 5,000 chats, %d KB of JSON): %.0f ms",
                     all.utf8.count / 1024, Double(DispatchTime.now().uptimeNanoseconds - s) / 1e6))
        await big.close()
        await relay.shutdown()
        try await group.shutdownGracefully()
    }

    /// Alice sends Bob `messages` messages; messages/s until Bob's core has reported them all,
    /// and each side's chat-database write transactions per message in that time (the sender's
    /// include the delivery statuses that arrive while it runs).
    /// With `contacts` > 1, Alice and Bob are connected that many times and the messages go
    /// round-robin over those contacts, one sender task each (a bot's core serving many users):
    /// one contact is bound by SMP's one-unacknowledged-message-per-queue round trip, several
    /// show what the cores' CPU allows.
    func throughput(_ dir: String, key: String, _ config: ChatController.Config, _ group: any EventLoopGroup, contacts: Int = 1) async throws
        -> (rate: Double, writesPerSent: Double, writesPerReceived: Double, cpuMicrosPerMessage: Double, pagesPerSent: Double, pagesPerReceived: Double) {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let alice = try await open(dir + "/alice", "alice", config, group, key: key)
        let bob = try await open(dir + "/bob", "bob", config, group, key: key)
        var bobIds: [Int64] = []
        for _ in 0..<max(1, contacts) {
            let inv = try result(await alice.send("/_connect 1"))
            let link = try value((inv["connLinkInvitation"] as? [String: Any])?["connFullLink"] as? String)
            _ = try result(await bob.send("/connect \(link)"))
            bobIds.append(try value(contactId(try await waitEvent(alice, "contactConnected"))))
            _ = try await waitEvent(bob, "contactConnected")
        }
        let count = messages, ids = bobIds, senders = sendersPerContact
        // Let the connection settle (its handshake writes are not per-message costs).
        try await Task.sleep(nanoseconds: 500_000_000)
        let aliceWrites0 = await alice.chatDatabaseWrites, bobWrites0 = await bob.chatDatabaseWrites
        let alicePages0 = await alice.chatDatabasePagesWritten, bobPages0 = await bob.chatDatabasePagesWritten
        let cpu0 = processCPUMicros()
        let start = DispatchTime.now().uptimeNanoseconds
        let sender = Task {
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                let lanes = ids.count * max(1, senders)
                for lane in 0..<lanes {
                    let bobId = ids[lane % ids.count]
                    tasks.addTask {
                        for i in stride(from: lane, to: count, by: lanes) {
                            // A success is `{"result":..}`, a failure `{"error":..}`: the prefix tells
                            // them apart without parsing each answer (this harness only needs to know the
                            // send succeeded, and its CPU counts in the figure).
                            let answer = await alice.send(#"/_send @\#(bobId) json [{"msgContent":{"type":"text","text":"message \#(i)"}}]"#)
                            guard answer.utf8.starts(with: #"{"result":{"#.utf8) else {
                                throw ValidationError("send failed: \(answer.prefix(300))")
                            }
                        }
                    }
                }
                try await tasks.waitForAll()
            }
        }
        var received = 0
        while received < count {
            guard let e = await bob.nextEvent(timeout: 30) else { throw ValidationError("timed out after \(received) messages") }
            // Only the messages sent here (a new chat's own items, the banner and features, are not).
            if containsBytes(e, #""type":"newChatItems""#) && containsBytes(e, #""type":"rcvMsgContent""#) { received += 1 }
        }
        try await sender.value
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let cpu = (processCPUMicros() - cpu0) / Double(count)
        // Statuses still arriving for the last messages belong to them.
        try await Task.sleep(nanoseconds: 1_000_000_000)
        let aliceWrites = await alice.chatDatabaseWrites - aliceWrites0, bobWrites = await bob.chatDatabaseWrites - bobWrites0
        let alicePages = await alice.chatDatabasePagesWritten - alicePages0, bobPages = await bob.chatDatabasePagesWritten - bobPages0
        await alice.close()
        await bob.close()
        let n = Double(count)
        return (n / seconds, Double(aliceWrites) / n, Double(bobWrites) / n, cpu, Double(alicePages) / n, Double(bobPages) / n)
    }

    func open(_ prefix: String, _ name: String, _ config: ChatController.Config, _ group: any EventLoopGroup, key: String = "") async throws -> ChatController {
        let (c, r) = ChatController.open(dbPrefix: prefix, key: key, config: config, group: group)
        guard let c else { throw ValidationError("open \(prefix): \(r)") }
        _ = try result(await c.send(#"/_create user {"profile":{"displayName":"\#(name)","fullName":""},"pastTimestamp":false}"#))
        _ = try result(await c.send("/_start"))
        return c
    }

    /// Fills the chat database directly: contacts with profiles and connections, and items
    /// spread over them (a realistic shape for the list query, without running the protocol).
    func populate(_ path: String, contacts: Int, items: Int) throws {
        let db = try DatabaseQueue(path: path)
        try db.write { db in
            let now = Date().timeIntervalSince1970
            let profile = try db.makeStatement(sql: "INSERT INTO contact_profiles (user_id, display_name, full_name, created_at) VALUES (1, ?, '', ?)")
            let contact = try db.makeStatement(sql: "INSERT INTO contacts (user_id, local_display_name, profile_id, created_at, updated_at, chat_ts) VALUES (1, ?, ?, ?, ?, ?)")
            let conn = try db.makeStatement(sql: """
                INSERT INTO connections (user_id, agent_conn_id, conn_type, conn_status, contact_id, created_at, updated_at)
                VALUES (1, ?, 'contact', 'ready', ?, ?, ?)
                """)
            for i in 0..<contacts {
                try profile.execute(arguments: ["contact\(i)", now])
                try contact.execute(arguments: ["contact\(i)", db.lastInsertedRowID, now, now, now - Double(contacts - i)])
                try conn.execute(arguments: ["bench-\(i)", db.lastInsertedRowID, now, now])
            }
            let item = try db.makeStatement(sql: """
                INSERT INTO chat_items (user_id, contact_id, item_sent, item_ts, item_text, item_content, item_status, created_at, updated_at)
                VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            for i in 0..<items {
                let sent = i % 2 == 0
                let text = "message number \(i) with some words in it"
                let content = #"{"type":"\#(sent ? "sndMsgContent" : "rcvMsgContent")","msgContent":{"type":"text","text":"\#(text)"}}"#
                try item.execute(arguments: [Int64(i % contacts + 1), sent, now, text, content, sent ? #"{"type":"sndNew"}"# : #"{"type":"rcvRead"}"#, now, now])
            }
        }
        try db.close()
    }
}

func result(_ json: String) throws -> [String: Any] {
    guard let obj = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any], let r = obj["result"] as? [String: Any] else {
        throw ValidationError("command failed: \(json.prefix(300))")
    }
    return r
}

/// Whether `needle` occurs in the UTF-8 of `text`, by memchr and memcmp over the bytes
/// (Foundation's `contains` goes through CFString and was 3 % of the run's CPU).
func containsBytes(_ text: String, _ needle: String) -> Bool {
    var text = text, needle = needle
    return text.withUTF8 { t in
        needle.withUTF8 { n in
            guard let tb = t.baseAddress, let nb = n.baseAddress, n.count <= t.count else { return n.isEmpty }
            var at = 0
            let last = t.count - n.count
            while at <= last {
                guard let hit = memchr(tb + at, Int32(nb.pointee), last - at + 1) else { return false }
                let i = tb.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                if memcmp(tb + i, nb, n.count) == 0 { return true }
                at = i + 1
            }
            return false
        }
    }
}

func value<T>(_ v: T?) throws -> T {
    guard let v else { throw ValidationError("missing value") }
    return v
}

func contactId(_ e: [String: Any]) -> Int64? {
    ((e["contact"] as? [String: Any])?["contactId"] as? NSNumber)?.int64Value
}

func waitEvent(_ c: ChatController, _ type: String) async throws -> [String: Any] {
    for _ in 0..<200 {
        guard let s = await c.nextEvent(timeout: 0.1) else { continue }
        if let r = try? result(s), r["type"] as? String == type { return r }
    }
    throw ValidationError("no \(type) event")
}
