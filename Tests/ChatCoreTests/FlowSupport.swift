import Foundation
import NIOPosix
import SMPServer
import SMPTransport
import Testing

@testable import ChatCore

/// Shared by the flow tests: chat clients over a real relay on loopback.
let flowGroup = MultiThreadedEventLoopGroup(numberOfThreads: 2)

/// A chat client under test: a controller, its user, and every event it emitted.
final class Client: @unchecked Sendable {
    let name: String
    let c: ChatController
    private(set) var events: [[String: Any]] = []
    /// The same events, typed (nil when a newer tag is kept raw).
    private var typedEvents: [(obj: [String: Any], event: ChatEvent?)] = []

    /// `create`: make the user (a new database); false opens an existing one as it is.
    init(_ name: String, dir: String, server: String, key: String = "", create: Bool = true, deferredStatusDelay: Double? = nil,
         configure: (inout ChatController.Config) -> Void = { _ in }) async throws {
        self.name = name
        var config = ChatController.Config()
        config.defaultSMPServers = [server]
        if let d = deferredStatusDelay { config.deferredStatusDelay = d }
        configure(&config)
        let (c, r) = ChatController.open(dbPrefix: dir + "/\(name)", key: key, config: config, group: flowGroup)
        #expect(r == .ok)
        self.c = try #require(c)
        if create { _ = try await cmd(#"/_create user {"profile":{"displayName":"\#(name)","fullName":""},"pastTimestamp":false}"#) }
        _ = try await cmd("/_start")
    }

    /// Runs a command that must succeed; returns its result object.
    @discardableResult
    func cmd(_ s: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> [String: Any] {
        let json = await c.send(s)
        let obj = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        guard let r = obj["result"] as? [String: Any] else {
            Issue.record("\(name) \(s): \(json)", sourceLocation: sourceLocation)
            throw CancellationError()
        }
        return r
    }

    /// Runs a command that must fail; returns its error object (`{"type":"error|errorStore|...", ...}`).
    @discardableResult
    func cmdError(_ s: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> [String: Any] {
        let json = await c.send(s)
        let obj = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        guard let e = obj["error"] as? [String: Any] else {
            Issue.record("\(name) \(s) succeeded: \(json)", sourceLocation: sourceLocation)
            throw CancellationError()
        }
        return e
    }

    /// Waits for an event of `type` that `match` accepts.
    @discardableResult
    func event(_ type: String, timeout: Double = 15, sourceLocation: SourceLocation = #_sourceLocation,
               _ match: ([String: Any]) -> Bool = { _ in true }) async throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let i = typedEvents.firstIndex(where: { $0.obj["type"] as? String == type && match($0.obj) }) {
                events = typedEvents.map(\.obj)
                return typedEvents.remove(at: i).obj
            }
            await pull()
        }
        Issue.record("\(name): no \(type) event; got \(typedEvents.compactMap { $0.obj["type"] })", sourceLocation: sourceLocation)
        throw CancellationError()
    }

    /// Waits for the first event, typed, that `match` turns into a value (earlier unmatched
    /// events stay for later waits).
    @discardableResult
    func next<T>(_ what: String, timeout: Double = 15, sourceLocation: SourceLocation = #_sourceLocation,
                 _ match: (ChatEvent) -> T?) async throws -> T {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            for (i, e) in typedEvents.enumerated() {
                if let typed = e.event, let v = match(typed) {
                    typedEvents.remove(at: i)
                    events = typedEvents.map(\.obj)
                    return v
                }
            }
            await pull()
        }
        Issue.record("\(name): no \(what); got \(typedEvents.compactMap { $0.obj["type"] })", sourceLocation: sourceLocation)
        throw CancellationError()
    }

    /// Runs a typed command that must succeed.
    @discardableResult
    func run(_ cmd: ChatCommand, sourceLocation: SourceLocation = #_sourceLocation) async throws -> ChatResponse {
        switch await c.run(cmd) {
        case .success(let r): return r
        case .failure(let e):
            Issue.record("\(name) \(cmd.commandString): \(e)", sourceLocation: sourceLocation)
            throw CancellationError()
        }
    }

    /// Runs a typed command that must fail; returns its error.
    func runError(_ cmd: ChatCommand, sourceLocation: SourceLocation = #_sourceLocation) async throws -> ChatError {
        switch await c.run(cmd) {
        case .failure(let e): return e
        case .success(let r):
            Issue.record("\(name) \(cmd.commandString) succeeded: \(r)", sourceLocation: sourceLocation)
            throw CancellationError()
        }
    }

    /// One more event from the core into both buffers.
    private func pull() async {
        guard let s = await c.nextEvent(timeout: 0.2),
            let obj = try? JSONSerialization.jsonObject(with: Data(s.utf8)) as? [String: Any],
            let r = obj["result"] as? [String: Any]
        else { return }
        let typed = try? ChatJSON.decode(EventEnvelope.self, from: s).result
        typedEvents.append((r, typed))
        events = typedEvents.map(\.obj)
    }
}

func contactId(_ event: [String: Any]) -> Int64? {
    ((event["contact"] as? [String: Any])?["contactId"] as? NSNumber)?.int64Value
}

func displayName(_ event: [String: Any]) -> String? {
    ((event["contact"] as? [String: Any])?["profile"] as? [String: Any])?["displayName"] as? String
}

func itemText(_ e: [String: Any]) -> String? {
    guard let items = e["chatItems"] as? [[String: Any]], let item = items.first?["chatItem"] as? [String: Any] else { return nil }
    return (item["meta"] as? [String: Any])?["itemText"] as? String
}

func itemStatus(_ e: [String: Any]) -> String? {
    guard let items = e["chatItems"] as? [[String: Any]], let item = items.first?["chatItem"] as? [String: Any] else { return nil }
    return ((item["meta"] as? [String: Any])?["itemStatus"] as? [String: Any])?["type"] as? String
}

func itemId(_ e: [String: Any]) -> Int64? {
    guard let items = e["chatItems"] as? [[String: Any]], let item = items.first?["chatItem"] as? [String: Any] else { return nil }
    return ((item["meta"] as? [String: Any])?["itemId"] as? NSNumber)?.int64Value
}

func firstItem(_ e: [String: Any]) -> [String: Any]? {
    (e["chatItems"] as? [[String: Any]])?.first?["chatItem"] as? [String: Any]
}

/// A relay on loopback for one test, and its address.
func startRelay(_ dir: String) async throws -> (SMPRelayServer, String) {
    try FileManager.default.createDirectory(atPath: dir + "/relay", withIntermediateDirectories: true)
    var rc = SMPServerConfig()
    rc.port = 0
    rc.host = "127.0.0.1"
    let creds = try ServerCredentials.generate(commonName: "127.0.0.1")
    let relay = try await SMPRelayServer.start(config: rc, credentials: creds, dataDirectory: dir + "/relay", group: flowGroup)
    return (relay, try SMPServerAddress(keyHash: creds.keyHash, hosts: ["127.0.0.1"], port: relay.port).description)
}

/// Alice invites Bob; returns both clients and each one's contact id of the other.
func connectedPair(_ dir: String, _ server: String, deferredStatusDelay: Double? = nil) async throws -> (Client, Client, Int64, Int64) {
    let alice = try await Client("alice", dir: dir, server: server, deferredStatusDelay: deferredStatusDelay)
    let bob = try await Client("bob", dir: dir, server: server, deferredStatusDelay: deferredStatusDelay)
    let inv = try await alice.cmd("/_connect 1")
    let link = try #require((inv["connLinkInvitation"] as? [String: Any])?["connFullLink"] as? String)
    try await bob.cmd("/connect \(link)")
    let a = try await alice.event("contactConnected"), b = try await bob.event("contactConnected")
    return (alice, bob, try #require(contactId(a)), try #require(contactId(b)))
}


/// A relay and a temporary directory for one test. Every client made through it is closed and
/// the relay shut down however the test ends (`withFlow`).
final class Flow: @unchecked Sendable {
    let dir: String
    let relay: SMPRelayServer
    let server: String
    private var clients: [Client] = []

    fileprivate init(_ name: String) async throws {
        dir = NSTemporaryDirectory() + "\(name)-\(UInt32.random(in: 0...UInt32.max))"
        (relay, server) = try await startRelay(dir)
    }

    func client(_ name: String, deferredStatusDelay: Double? = nil) async throws -> Client {
        let c = try await Client(name, dir: dir, server: server, deferredStatusDelay: deferredStatusDelay)
        clients.append(c)
        return c
    }

    /// Alice invites Bob: both clients and each one's contact id of the other.
    func pair(deferredStatusDelay: Double? = nil) async throws -> (Client, Client, Int64, Int64) {
        let alice = try await client("alice", deferredStatusDelay: deferredStatusDelay)
        let bob = try await client("bob", deferredStatusDelay: deferredStatusDelay)
        let (a, b) = try await connect(alice, bob)
        return (alice, bob, a, b)
    }

    /// `a` invites `b`: each one's contact id of the other.
    func connect(_ a: Client, _ b: Client) async throws -> (Int64, Int64) {
        guard case .invitation(_, let link, _) = try await a.run(.apiAddContact(userId: 1, incognito: false)) else {
            Issue.record("no invitation")
            throw CancellationError()
        }
        try await b.cmd("/connect \(link.connFullLink)")
        let bAtA = try await a.next("\(b.name) connected") { e -> Int64? in
            if case .contactConnected(_, let c, _) = e, c.profile.displayName == b.name { c.contactId } else { nil }
        }
        let aAtB = try await b.next("\(a.name) connected") { e -> Int64? in
            if case .contactConnected(_, let c, _) = e, c.profile.displayName == a.name { c.contactId } else { nil }
        }
        return (bAtA, aAtB)
    }

    fileprivate func finish() async {
        for c in clients { await c.c.close() }
        await relay.shutdown()
        try? FileManager.default.removeItem(atPath: dir)
    }
}

/// Runs `body` over a fresh relay and directory, cleaned up whether it returns or throws.
func withFlow<T>(_ name: String, _ body: (Flow) async throws -> T) async throws -> T {
    let flow = try await Flow(name)
    do {
        let r = try await body(flow)
        await flow.finish()
        return r
    } catch {
        await flow.finish()
        throw error
    }
}

/// `{"result": <ChatEvent>}`, as `nextEvent` gives events.
private struct EventEnvelope: Decodable {
    let result: ChatEvent
}
