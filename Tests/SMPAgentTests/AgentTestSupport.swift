import Foundation
import NIOCore
import NIOPosix
import SimplexFoundation
import SMPClient
import SMPProtocol
import SMPServer
import SMPTransport
import XCTest

@testable import SMPAgent

enum AgentTestGroup {
    static let shared = MultiThreadedEventLoopGroup(numberOfThreads: 2)
}

func agentTempDir(_ name: String = #function) -> String {
    let dir = NSTemporaryDirectory() + "agent-test-\(name.filter { $0.isLetter })-\(UInt32.random(in: 0...UInt32.max))"
    try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    return dir
}

/// An in-process relay with a data folder, restartable on the same port and identity.
final class LocalRelay: @unchecked Sendable {
    let credentials: ServerCredentials
    let dataDirectory: String
    private(set) var server: SMPRelayServer?
    private(set) var port = 0
    /// Loopback address to listen on (any 127.x.y.z on Linux): relays with different hosts.
    let host: String
    /// SMP versions the relay speaks (older ranges: a relay without private routing).
    var versions: SMPVersionRange = SMPVersion.supported
    /// Whether the relay serves as a proxy (`allow_smp_proxy`).
    var allowSMPProxy = true

    init(dataDirectory: String, host: String = "127.0.0.1") throws {
        credentials = try ServerCredentials.generate(commonName: host)
        self.dataDirectory = dataDirectory
        self.host = host
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
    }

    var address: SMPServerAddress { get throws { try SMPServerAddress(keyHash: credentials.keyHash, hosts: [host], port: port) } }

    /// Private routing totals of the relay (forwardedIn: commands it executed for a proxy).
    var proxyStatistics: (forwardedIn: Int, proxySessions: Int, proxyForwards: Int) { server?.proxyStatistics ?? (0, 0, 0) }

    func start() async throws {
        var config = SMPServerConfig()
        config.port = port
        config.bindAddress = host
        config.host = host
        config.versions = versions
        config.allowSMPProxy = allowSMPProxy
        let s = try await SMPRelayServer.start(config: config, credentials: credentials, dataDirectory: dataDirectory, group: AgentTestGroup.shared)
        port = s.port
        server = s
    }

    func stop() async {
        await server?.shutdown()
        server = nil
    }
}

/// Test config: quick retries so restarts and outages resolve within seconds.
func testAgentConfig(_ servers: [SMPServerAddress]) -> AgentConfig {
    var c = AgentConfig(servers: servers)
    c.retryInterval = 0.02
    c.maxRetryInterval = 0.3
    c.smpClient.reconnectDelay = 0.05
    c.smpClient.maxReconnectDelay = 0.3
    c.smpClient.commandTimeout = 5
    c.smpClient.connectTimeout = 3
    return c
}

/// An agent plus everything it emitted, so tests can wait for events.
final class TestAgent: @unchecked Sendable {
    let name: String
    let path: String
    let config: AgentConfig
    private(set) var agent: SMPAgent
    private let lock = NSLock()
    private var log: [AgentEvent] = []
    private var task: Task<Void, Never>?

    init(_ name: String, dir: String, config: AgentConfig) async throws {
        self.name = name
        self.path = dir + "/\(name)_agent.db"
        self.config = config
        agent = try SMPAgent(config: config, databasePath: path, group: AgentTestGroup.shared)
        listen()
        await agent.start()
    }

    private func listen() {
        let a = agent
        task = Task { [weak self] in
            for await e in a.events { self?.append(e) }
        }
    }

    private func append(_ e: AgentEvent) {
        lock.lock()
        log.append(e)
        lock.unlock()
    }

    var events: [AgentEvent] {
        lock.lock()
        defer { lock.unlock() }
        return log
    }

    func clearEvents() {
        lock.lock()
        log.removeAll()
        lock.unlock()
    }

    /// Stops the agent abruptly and opens it again from its database file.
    func restart() async throws {
        await agent.stop()
        agent = try SMPAgent(config: config, databasePath: path, group: AgentTestGroup.shared)
        listen()
        await agent.start()
    }

    func stop() async { await agent.stop() }

    /// Waits for the first event (after `from`) that `match` accepts.
    @discardableResult
    func waitFor<T>(_ what: String, timeout: Double = 10, file: StaticString = #filePath, line: UInt = #line,
                    _ match: (AgentEvent) -> T?) async throws -> T {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            for e in events { if let t = match(e) { return t } }
            try await Task.sleep(nanoseconds: 5_000_000)
        }
        XCTFail("\(name): no \(what) within \(timeout)s; events: \(events.map { "\($0.kind)" }.suffix(10))", file: file, line: line)
        throw CancellationError()
    }

    func waitCON(_ connId: String, timeout: Double = 10) async throws {
        try await waitFor("CON", timeout: timeout) { e -> Bool? in
            if e.connId == connId, case .con = e.kind { return true }
            return nil
        }
    }

    func messages(_ connId: String) -> [(MsgMeta, String)] {
        events.compactMap { e in
            if e.connId == connId, case .msg(let m, let body) = e.kind { return (m, String(decoding: body, as: UTF8.self)) }
            return nil
        }
    }

    func errors(_ connId: String) -> [AgentError] {
        events.compactMap { e in
            if e.connId == connId, case .err(let err) = e.kind { return err }
            return nil
        }
    }
}

/// Alice creates an invitation, Bob joins, Alice allows: returns both connection ids after CON.
func connect(_ alice: TestAgent, _ bob: TestAgent, aliceInfo: String = "alice", bobInfo: String = "bob") async throws -> (String, String) {
    let (aliceConn, link) = try await alice.agent.createConnection()
    let bobConn = try await bob.agent.joinConnection(link: link.uriString, connInfo: Array(bobInfo.utf8))
    let (confId, info) = try await alice.waitFor("CONF") { e -> (String, [UInt8])? in
        if e.connId == aliceConn, case .conf(let id, let info) = e.kind { return (id, info) }
        return nil
    }
    XCTAssertEqual(String(decoding: info, as: UTF8.self), bobInfo)
    try await alice.agent.allowConnection(connId: aliceConn, confirmationId: confId, connInfo: Array(aliceInfo.utf8))
    let bobGot = try await bob.waitFor("INFO") { e -> [UInt8]? in
        if e.connId == bobConn, case .info(let i) = e.kind { return i }
        return nil
    }
    XCTAssertEqual(String(decoding: bobGot, as: UTF8.self), aliceInfo)
    try await alice.waitCON(aliceConn)
    try await bob.waitCON(bobConn)
    return (aliceConn, bobConn)
}

/// Waits until `agent` received a message with `text` on `connId`, acknowledges it, returns its meta.
@discardableResult
func receive(_ agent: TestAgent, _ connId: String, _ text: String, receipt: [UInt8]? = nil, timeout: Double = 10) async throws -> MsgMeta {
    let meta = try await agent.waitFor("MSG \(text)", timeout: timeout) { e -> MsgMeta? in
        if e.connId == connId, case .msg(let m, let body) = e.kind, String(decoding: body, as: UTF8.self) == text { return m }
        return nil
    }
    try await agent.agent.ackMessage(connId: connId, msgId: meta.agentMsgId, receipt: receipt)
    return meta
}

/// The link without the KEM key of its e2e params (what simplexmq returns beside a PQ
/// invitation's short link).
func withoutKEM(_ link: ConnectionRequestURI) -> ConnectionRequestURI {
    guard let p = link.e2eParams else { return link }
    return try! ConnectionRequestURI(mode: link.mode, scheme: link.scheme, agentVersions: link.agentVersions, queues: link.queues,
                                e2eParams: E2ERatchetParamsURI(versions: p.versions, key1: p.key1, key2: p.key2, kem: nil),
                                clientData: link.clientData)
}
