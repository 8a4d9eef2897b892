import Foundation
import SimplexFoundation
import SMPClient
import SMPProtocol
import SMPServer
import SMPTransport
import XCTest

/// Queues and undelivered messages outlive the relay process: clean restarts, kill -9, and a
/// client that reconnects by itself.
final class PersistenceTests: XCTestCase {
    func testRestartKeepsQueuesAndUndeliveredMessages() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var relay = try await TestRelay.start(dataDirectory: dir)
        let creds = relay.credentials
        var alice = relay.client(), bob = relay.client()
        let q = try await TestQueue.create(alice, subscribe: false)
        let bobKey = try PrivateAuthKey.generate()
        try await bob.senderSecure(senderId: q.queue.senderId, key: bobKey)
        for i in 0..<3 { try await bob.send(senderId: q.queue.senderId, key: bobKey, body: Array("m\(i)".utf8)) }
        let first = try await alice.get(recipientId: q.queue.recipientId, key: q.recipientKey, rcvDhSecret: q.queue.rcvDhSecret)
        try await alice.ack(recipientId: q.queue.recipientId, key: q.recipientKey, msgId: first!.msgId)
        await alice.close()
        await bob.close()
        await relay.server.shutdown()

        relay = try await TestRelay.start(credentials: creds, dataDirectory: dir)
        XCTAssertEqual(relay.server.queueCount, 1)
        XCTAssertEqual(relay.server.messageCount, 2)
        alice = relay.client()
        bob = relay.client()
        var bodies: [String] = []
        while let m = try await alice.get(recipientId: q.queue.recipientId, key: q.recipientKey, rcvDhSecret: q.queue.rcvDhSecret) {
            bodies.append(String(decoding: m.body ?? [], as: UTF8.self))
            try await alice.ack(recipientId: q.queue.recipientId, key: q.recipientKey, msgId: m.msgId)
        }
        XCTAssertEqual(bodies, ["m1", "m2"])
        // The sender key survived too: unsigned SEND is still refused, signed is accepted.
        await assertServerError(.auth) { try await bob.send(senderId: q.queue.senderId, key: nil, body: [1]) }
        try await bob.send(senderId: q.queue.senderId, key: bobKey, body: [2])
        // Deleted queues stay deleted after a restart.
        try await alice.delete(recipientId: q.queue.recipientId, key: q.recipientKey)
        await alice.close()
        await bob.close()
        await relay.server.shutdown()
        relay = try await TestRelay.start(credentials: creds, dataDirectory: dir)
        XCTAssertEqual(relay.server.queueCount, 0)
        await relay.server.shutdown()
    }

    func testTornStoreLogTailIsDroppedNotFatal() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var relay = try await TestRelay.start(dataDirectory: dir)
        let creds = relay.credentials
        let alice = relay.client()
        _ = try await TestQueue.create(alice, subscribe: false)
        _ = try await TestQueue.create(alice, subscribe: false)
        await alice.close()
        await relay.server.shutdown()
        // A crash in the middle of a write leaves half a record at the end.
        let path = (dir as NSString).appendingPathComponent(SMPRelayServer.storeLogFile)
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: path))
        handle.seekToEndOfFile()
        handle.write(Data([0, 0, 1, 0, 0xAB, 0xCD, 0xEF, 0x01, 0x4E, 0x01]))
        handle.closeFile()
        relay = try await TestRelay.start(credentials: creds, dataDirectory: dir)
        XCTAssertEqual(relay.server.queueCount, 2)
        await relay.server.shutdown()
        // Not an SMP store log at all: a clear error, not a crash or an empty relay.
        try Data("not a log".utf8).write(to: URL(fileURLWithPath: path))
        do {
            _ = try await TestRelay.start(credentials: creds, dataDirectory: dir)
            XCTFail("started on a foreign file")
        } catch {
            XCTAssertTrue("\(error)".contains("not an SMP store log"), "\(error)")
        }
    }

    func testClientReconnectsAndResubscribesAfterRelayRestart() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var relay = try await TestRelay.start(dataDirectory: dir)
        let port = relay.server.port, creds = relay.credentials
        var config = SMPClientConfig()
        config.reconnectDelay = 0.05
        config.maxReconnectDelay = 0.5
        let alice = relay.client(config: config)
        let events = EventCollector(alice)
        let q = try await TestQueue.create(alice)
        await relay.server.shutdown()
        await events.waitFor { $0.all.contains { if case .disconnected = $0 { true } else { false } } }

        relay = try await TestRelay.start(credentials: creds, dataDirectory: dir, port: port)
        await events.waitFor { $0.all.contains { if case .connected(true, let failures) = $0 { failures.isEmpty } else { false } } }
        let bob = relay.client()
        try await bob.send(senderId: q.queue.senderId, key: nil, body: Array("after restart".utf8))
        let m = await events.waitForMessages(1)
        XCTAssertEqual(m[0].body, Array("after restart".utf8))
        await alice.close()
        await bob.close()
        await relay.server.shutdown()
    }

    func testCommandsFailWithTypedErrorsWhenRelayIsDown() async throws {
        let relay = try await TestRelay.start()
        let address = relay.server.address
        await relay.server.shutdown()
        var config = SMPClientConfig()
        config.connectTimeout = 2
        let client = SMPClient(server: address, config: config, group: TestGroup.shared)
        do {
            try await client.ping()
            XCTFail("ping succeeded with no relay")
        } catch {
            XCTAssertTrue(error.isTemporary, "\(error)")
        }
        await client.close()
        do {
            try await client.ping()
            XCTFail("ping succeeded on a closed client")
        } catch {
            XCTAssertEqual(error, .closed)
        }
    }

    func testWrongServerIdentityIsATransportError() async throws {
        let relay = try await TestRelay.start()
        let other = try ServerCredentials.generate(commonName: "other")
        let address = try SMPServerAddress(keyHash: other.keyHash, hosts: ["127.0.0.1"], port: relay.server.port)
        let client = SMPClient(server: address, group: TestGroup.shared)
        do {
            try await client.ping()
            XCTFail("connected to a relay with another identity")
        } catch {
            XCTAssertEqual(error, .transport(.handshake(.identity)))
        }
        await client.close()
        await relay.server.shutdown()
    }

    /// The relay as a real process killed with SIGKILL after acknowledging SENDs: every
    /// acknowledged message is there after a restart.
    func testKill9LosesNoAcknowledgedSend() async throws {
        let binary = try smpServerBinary()
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let port = Int.random(in: 20000...40000)
        let initOut = try runProcess(binary, ["init", "--data", dir, "--port", "\(port)"])
        XCTAssertTrue(initOut.contains("Server address: smp://"), initOut)

        var server = try startServerProcess(binary, dir: dir)
        let address = try SMPServerAddress(parsing: try await readAddress(server))
        let alice = SMPClient(server: address, group: TestGroup.shared)
        let bob = SMPClient(server: address, group: TestGroup.shared)
        let q = try await TestQueue.create(alice, subscribe: false)
        let count = 100 // under the default quota of 128
        // Pipelined SENDs; each OK means the relay has the message.
        let results = await bob.sendMany((0..<count).map { (senderId: q.queue.senderId, key: nil, body: Array("msg \($0)".utf8)) })
        XCTAssertTrue(results.allSatisfy { if case .success = $0 { true } else { false } })
        kill(server.processIdentifier, SIGKILL)
        server.waitUntilExit()
        await alice.close()
        await bob.close()

        server = try startServerProcess(binary, dir: dir)
        _ = try await readAddress(server)
        let alice2 = SMPClient(server: address, group: TestGroup.shared)
        var bodies: [String] = []
        while let m = try await alice2.get(recipientId: q.queue.recipientId, key: q.recipientKey, rcvDhSecret: q.queue.rcvDhSecret) {
            bodies.append(String(decoding: m.body ?? [], as: UTF8.self))
            try await alice2.ack(recipientId: q.queue.recipientId, key: q.recipientKey, msgId: m.msgId)
        }
        XCTAssertEqual(bodies, (0..<count).map { "msg \($0)" })
        await alice2.close()
        server.terminate()
        server.waitUntilExit()
    }
}

/// The smp-server executable built next to the test bundle.
func smpServerBinary() throws -> String {
    let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    var dir = URL(fileURLWithPath: exe).deletingLastPathComponent()
    // The test binary lives inside X.xctest/ on some layouts.
    for _ in 0..<3 {
        let candidate = dir.appendingPathComponent("smp-server").path
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        dir = dir.deletingLastPathComponent()
    }
    throw XCTSkip("smp-server binary not found next to \(exe); run `swift build` first")
}

func runProcess(_ path: String, _ args: [String]) throws -> String {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: path)
    p.arguments = args
    let pipe = Pipe()
    p.standardOutput = pipe
    p.standardError = pipe
    try p.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
}

func startServerProcess(_ path: String, dir: String) throws -> Process {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: path)
    p.arguments = ["start", "--data", dir]
    p.standardOutput = Pipe()
    p.standardError = FileHandle.nullDevice
    try p.run()
    return p
}

/// Reads stdout of a starting relay until it prints its address.
func readAddress(_ p: Process) async throws -> String {
    guard let pipe = p.standardOutput as? Pipe else { throw XCTSkip("no pipe") }
    let handle = pipe.fileHandleForReading
    return try await withCheckedThrowingContinuation { cont in
        DispatchQueue.global().async {
            var text = ""
            while true {
                let data = handle.availableData
                if data.isEmpty {
                    cont.resume(throwing: NSError(domain: "smp-server", code: 1, userInfo: [NSLocalizedDescriptionKey: "exited: \(text)"]))
                    return
                }
                text += String(decoding: data, as: UTF8.self)
                if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Server address: ") }) {
                    cont.resume(returning: String(line.dropFirst("Server address: ".count)))
                    return
                }
            }
        }
    }
}
