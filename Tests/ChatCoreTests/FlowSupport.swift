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
            if let i = events.firstIndex(where: { $0["type"] as? String == type && match($0) }) { return events.remove(at: i) }
            guard let s = await c.nextEvent(timeout: 0.2),
                let obj = try? JSONSerialization.jsonObject(with: Data(s.utf8)) as? [String: Any],
                let r = obj["result"] as? [String: Any]
            else { continue }
            events.append(r)
        }
        Issue.record("\(name): no \(type) event; got \(events.compactMap { $0["type"] })", sourceLocation: sourceLocation)
        throw CancellationError()
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

