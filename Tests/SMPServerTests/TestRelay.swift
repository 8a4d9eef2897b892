import Foundation
import NIOCore
import NIOPosix
import SimplexFoundation
import SMPClient
import SMPProtocol
import SMPServer
import SMPTransport
import XCTest

/// A relay on 127.0.0.1 with a port of its own, and helpers to talk to it, for the tests.
struct TestRelay {
    let server: SMPRelayServer
    let credentials: ServerCredentials
    let dataDirectory: String?

    static func start(config: SMPServerConfig = SMPServerConfig(), credentials: ServerCredentials? = nil,
                      dataDirectory: String? = nil, port: Int = 0) async throws -> TestRelay {
        var config = config
        config.port = port
        config.bindAddress = "127.0.0.1"
        config.host = "127.0.0.1"
        let creds = try credentials ?? ServerCredentials.generate(commonName: "127.0.0.1")
        let server = try await SMPRelayServer.start(config: config, credentials: creds, dataDirectory: dataDirectory, group: TestGroup.shared)
        return TestRelay(server: server, credentials: creds, dataDirectory: dataDirectory)
    }

    /// A relay on an event loop of its own (one thread), which a test can hold to make the relay
    /// read several connections' commands in one turn, or to stop it answering.
    static func startOnOwnLoop() async throws -> (server: SMPRelayServer, loop: MultiThreadedEventLoopGroup) {
        let loop = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        var config = SMPServerConfig()
        config.port = 0
        config.bindAddress = "127.0.0.1"
        config.host = "127.0.0.1"
        let server = try await SMPRelayServer.start(config: config, credentials: try .generate(commonName: "127.0.0.1"),
                                                    dataDirectory: nil, group: loop)
        return (server, loop)
    }

    func client(config: SMPClientConfig = SMPClientConfig()) -> SMPClient {
        SMPClient(server: server.address, config: config, group: TestGroup.shared)
    }

    /// This relay as PRXY names it.
    var protocolServer: ProtocolServer {
        ProtocolServer(hosts: ["127.0.0.1"], port: String(server.port), keyHash: credentials.keyHash)
    }
}

enum TestGroup {
    static let shared = MultiThreadedEventLoopGroup(numberOfThreads: 2)
}

func temporaryDirectory(_ name: String = #function) -> String {
    let dir = NSTemporaryDirectory() + "smp-test-\(name.filter { $0.isLetter })-\(UInt32.random(in: 0...UInt32.max))"
    try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    return dir
}

/// Collects a client's events so a test can wait for the ones it expects.
final class EventCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [SMPClientEvent] = []
    private var task: Task<Void, Never>?

    init(_ client: SMPClient) {
        task = Task { [weak self] in
            for await e in client.events {
                guard let self else { return }
                self.append(e)
            }
        }
    }

    deinit { task?.cancel() }

    private func append(_ e: SMPClientEvent) {
        lock.lock()
        events.append(e)
        lock.unlock()
    }

    var all: [SMPClientEvent] {
        lock.lock()
        defer { lock.unlock() }
        return events
    }

    var messages: [ReceivedMessage] {
        all.compactMap { if case .message(let m) = $0 { m } else { nil } }
    }

    /// Waits until `count` messages arrived (or fails after `timeout` seconds).
    func waitForMessages(_ count: Int, timeout: Double = 10, file: StaticString = #filePath, line: UInt = #line) async -> [ReceivedMessage] {
        await waitFor(timeout: timeout, file: file, line: line) { $0.messages.count >= count }
        return messages
    }

    func waitFor(timeout: Double = 10, file: StaticString = #filePath, line: UInt = #line, _ condition: (EventCollector) -> Bool) async {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition(self) {
            if Date() > deadline {
                XCTFail("timed out waiting; events: \(all.count)", file: file, line: line)
                return
            }
            try? await Task.sleep(nanoseconds: 5_000_000)
        }
    }
}

/// A recipient's queue with the keys needed to use it.
struct TestQueue {
    let recipientKey: PrivateAuthKey
    let queue: CreatedQueue

    static func create(_ client: SMPClient, key: PrivateAuthKey? = nil, subscribe: Bool = true) async throws -> TestQueue {
        let k = try key ?? PrivateAuthKey.generate(.ed25519)
        let q = try await client.createQueue(recipientKey: k, dhKey: X25519PrivateKey(), subscribe: subscribe)
        return TestQueue(recipientKey: k, queue: q)
    }
}

func assertServerError<T>(_ expected: ErrorType, file: StaticString = #filePath, line: UInt = #line,
                          _ body: () async throws -> T) async {
    do {
        _ = try await body()
        XCTFail("expected ERR \(expected)", file: file, line: line)
    } catch let e as SMPClientError {
        XCTAssertEqual(e, .server(expected), file: file, line: line)
    } catch {
        XCTFail("unexpected error \(error)", file: file, line: line)
    }
}
