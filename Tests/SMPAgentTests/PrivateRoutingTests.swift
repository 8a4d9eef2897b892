import Foundation
import SimplexFoundation
import SMPClient
import SMPProtocol
import SMPTransport
import XCTest

@testable import SMPAgent

/// Private message routing in the agent (simplexmq `sendOrProxySMPCommand`): two agents, each
/// with its own relay on loopback (TLS), whose sender commands to the other's relay go through
/// their own relay as proxy. The destination sees only the proxy: the sender's agent never opens
/// a connection to it, and the destination counts the commands it ran for a proxy (RFWD).
final class PrivateRoutingTests: XCTestCase {
    private func relays(_ dir: String, bHost: String = "127.0.0.1") async throws -> (LocalRelay, LocalRelay) {
        let a = try LocalRelay(dataDirectory: dir + "/relayA")
        let b = try LocalRelay(dataDirectory: dir + "/relayB", host: bHost)
        try await a.start()
        try await b.start()
        return (a, b)
    }

    private func config(_ server: SMPServerAddress, _ mode: SMPProxyMode, _ fallback: SMPProxyFallback = .allow) -> AgentConfig {
        var c = testAgentConfig([server])
        c.smpProxyMode = mode
        c.smpProxyFallback = fallback
        return c
    }

    private func connectedServers(_ a: TestAgent) async -> Set<String> { Set(await a.agent.clients.keys) }

    /// Mode `always`: the handshake (SKEY, confirmations, HELLO-less fast procedure) and the
    /// messages both ways go through the sender's own relay; neither agent connects to the
    /// other's relay, which ran every one of those commands as RFWD from the proxy.
    func testAlwaysSendsEverythingThroughTheProxy() async throws {
        let dir = agentTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (relayA, relayB) = try await relays(dir)
        let a = try relayA.address.description, b = try relayB.address.description
        let alice = try await TestAgent("alice", dir: dir, config: config(try relayA.address, .always))
        let bob = try await TestAgent("bob", dir: dir, config: config(try relayB.address, .always))

        let (aliceConn, bobConn) = try await connect(alice, bob)
        _ = try await bob.agent.sendMessage(connId: bobConn, body: Array("hello via B".utf8))
        try await receive(alice, aliceConn, "hello via B")
        _ = try await alice.agent.sendMessage(connId: aliceConn, body: Array("hello via A".utf8))
        try await receive(bob, bobConn, "hello via A")

        let aliceServers = await connectedServers(alice), bobServers = await connectedServers(bob)
        XCTAssertEqual(aliceServers, [a], "Alice must reach B only through her proxy A")
        XCTAssertEqual(bobServers, [b], "Bob must reach A only through his proxy B")
        let proxyOfA = await bob.agent.proxyServer(for: a)
        let proxyOfB = await alice.agent.proxyServer(for: b)
        XCTAssertEqual(proxyOfA, b)
        XCTAssertEqual(proxyOfB, a)
        // Bob's SKEY + confirmation + message to A, Alice's confirmation + message (+ receipts) to B.
        XCTAssertGreaterThanOrEqual(relayA.proxyStatistics.forwardedIn, 3)
        XCTAssertGreaterThanOrEqual(relayB.proxyStatistics.forwardedIn, 2)
        XCTAssertGreaterThanOrEqual(relayA.proxyStatistics.proxyForwards, 2)
        XCTAssertGreaterThanOrEqual(relayB.proxyStatistics.proxyForwards, 3)
        XCTAssertEqual(relayA.proxyStatistics.proxySessions, 1, "one PRXY session, kept for every later command")
        XCTAssertEqual(relayB.proxyStatistics.proxySessions, 1)

        // After the proxy's restart its session is gone (NO_SESSION or a new connection): the
        // agent makes a new one and the message still goes through a proxy.
        await relayB.stop()
        try await relayB.start()
        _ = try await bob.agent.sendMessage(connId: bobConn, body: Array("after proxy restart".utf8))
        try await receive(alice, aliceConn, "after proxy restart", timeout: 20)
        let bobServersAfter = await connectedServers(bob)
        XCTAssertEqual(bobServersAfter, [b])
        await alice.stop()
        await bob.stop()
        await relayA.stop()
        await relayB.stop()
    }

    /// Mode `unknown`: only relays that are not among the agent's servers (by host) are reached
    /// through a proxy; `never` sends directly.
    func testUnknownModeProxiesOnlyUnknownRelays() async throws {
        let dir = agentTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (relayA, relayB) = try await relays(dir, bHost: "127.0.0.2")
        let a = try relayA.address.description, b = try relayB.address.description
        let alice = try await TestAgent("alice", dir: dir, config: config(try relayA.address, .never))
        let bob = try await TestAgent("bob", dir: dir, config: config(try relayB.address, .unknown))

        let (aliceConn, bobConn) = try await connect(alice, bob)
        _ = try await bob.agent.sendMessage(connId: bobConn, body: Array("from bob".utf8))
        try await receive(alice, aliceConn, "from bob")
        _ = try await alice.agent.sendMessage(connId: aliceConn, body: Array("from alice".utf8))
        try await receive(bob, bobConn, "from alice")

        let bobServers = await connectedServers(bob), aliceServers = await connectedServers(alice)
        XCTAssertEqual(bobServers, [b], "A is unknown to Bob: proxied")
        XCTAssertEqual(aliceServers, [a, b], "Alice's mode is never: direct")
        XCTAssertEqual(relayB.proxyStatistics.forwardedIn, 0)
        XCTAssertGreaterThanOrEqual(relayA.proxyStatistics.forwardedIn, 3)
        let bobKnowsB = await bob.agent.shouldUseProxy(b)
        XCTAssertFalse(bobKnowsB, "Bob's own relay is known: direct")

        // Switched at run time (as `/_network` does): Alice now proxies too.
        await alice.agent.setProxyRouting(mode: .unknown, fallback: .allow)
        let before = relayB.proxyStatistics.forwardedIn
        _ = try await alice.agent.sendMessage(connId: aliceConn, body: Array("now proxied".utf8))
        try await receive(bob, bobConn, "now proxied")
        XCTAssertGreaterThan(relayB.proxyStatistics.forwardedIn, before)
        await alice.stop()
        await bob.stop()
        await relayA.stop()
        await relayB.stop()
    }

    /// Short links resolve through the proxy: LGET for a contact address, LKEY for an
    /// invitation (which also secures its queue), then joining and messaging, all without a
    /// connection from Bob to Alice's relay.
    func testShortLinksResolveThroughTheProxy() async throws {
        let dir = agentTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (relayA, relayB) = try await relays(dir)
        let a = try relayA.address.description, b = try relayB.address.description
        let alice = try await TestAgent("alice", dir: dir, config: config(try relayA.address, .never))
        let bob = try await TestAgent("bob", dir: dir, config: config(try relayB.address, .always))

        let profile = Array(#"{"displayName":"alice"}"#.utf8)
        let address = try await alice.agent.createConnection(mode: .contact, userLinkData: profile)
        let before = relayA.proxyStatistics.forwardedIn
        let (full, data) = try await bob.agent.getConnShortLink(try ShortLink(parsing: try XCTUnwrap(address.shortLink).uriString))
        XCTAssertEqual(full, address.link)
        XCTAssertEqual(data, profile)
        XCTAssertEqual(relayA.proxyStatistics.forwardedIn, before + 1, "LGET ran as RFWD")
        // The contact request (SEND without a key to the address queue) goes through the proxy too.
        let requester = try await bob.agent.joinConnection(link: full, connInfo: Array("bob".utf8))
        try await alice.waitFor("REQ") { e -> Bool? in
            if e.connId == address.connId, case .req(_, let info) = e.kind, info == Array("bob".utf8) { return true }
            return nil
        }
        XCTAssertFalse(requester.isEmpty)
        XCTAssertEqual(relayA.proxyStatistics.forwardedIn, before + 2, "the contact request ran as RFWD")

        let invitation = try await alice.agent.createConnection(mode: .invitation, userLinkData: Array("inv".utf8))
        let (invFull, invData) = try await bob.agent.getConnShortLink(try ShortLink(parsing: try XCTUnwrap(invitation.shortLink).uriString))
        XCTAssertEqual(withoutKEM(invFull), invitation.link)
        XCTAssertEqual(invData, Array("inv".utf8))
        XCTAssertEqual(relayA.proxyStatistics.forwardedIn, before + 3, "LKEY ran as RFWD")
        // Resolving again repeats LKEY with the same key: the relay answers with the data again.
        let (again, _) = try await bob.agent.getConnShortLink(try ShortLink(parsing: try XCTUnwrap(invitation.shortLink).uriString))
        XCTAssertEqual(again, invFull)

        let bobConn = try await bob.agent.joinConnection(link: invFull, connInfo: Array("bob".utf8))
        let confId = try await alice.waitFor("CONF") { e -> String? in
            if e.connId == invitation.connId, case .conf(let id, _) = e.kind { return id }
            return nil
        }
        try await alice.agent.allowConnection(connId: invitation.connId, confirmationId: confId, connInfo: Array("alice".utf8))
        try await alice.waitCON(invitation.connId)
        try await bob.waitCON(bobConn)
        _ = try await bob.agent.sendMessage(connId: bobConn, body: Array("joined by short link".utf8))
        try await receive(alice, invitation.connId, "joined by short link")
        let bobServers = await connectedServers(bob)
        XCTAssertEqual(bobServers, [b])
        XCTAssertFalse(bobServers.contains(a))
        await alice.stop()
        await bob.stop()
        await relayA.stop()
        await relayB.stop()
    }

    /// A destination without private routing (SMP v7): the proxy reports
    /// `PROXY BROKER TRANSPORT VERSION`, a host error, so with fallback `allow` the agent sends
    /// directly; with `prohibit` the command fails with that error and nothing goes directly.
    func testOldDestinationFallsBackOnlyWhenAllowed() async throws {
        let dir = agentTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let relayA = try LocalRelay(dataDirectory: dir + "/relayA")
        relayA.versions = SMPVersionRange(min: 6, max: 7)!
        try await relayA.start()
        let relayB = try LocalRelay(dataDirectory: dir + "/relayB")
        try await relayB.start()
        let a = try relayA.address.description
        let alice = try await TestAgent("alice", dir: dir, config: config(try relayA.address, .never))
        let strict = try await TestAgent("strict", dir: dir, config: config(try relayB.address, .always, .prohibit))
        let bob = try await TestAgent("bob", dir: dir, config: config(try relayB.address, .always, .allow))

        let (_, link1) = try await alice.agent.createConnection()
        // The relay is v7 (no SKEY): the confirmation is sent by the delivery worker, so the
        // failure is the connection's error event.
        let strictConn = try await strict.agent.joinConnection(link: link1.uriString, connInfo: Array("strict".utf8))
        let e = try await strict.waitFor("ERR") { ev -> AgentError? in
            if ev.connId == strictConn, case .err(let err) = ev.kind { return err }
            return nil
        }
        guard case .smp(_, .proxy(.broker(.transport(.version)))) = e else { return XCTFail("\(e)") }
        XCTAssertTrue(e.isServerHostError)
        let strictServers = await connectedServers(strict)
        XCTAssertFalse(strictServers.contains(a), "nothing went directly")

        let (aliceConn, bobConn) = try await connect(alice, bob)
        _ = try await bob.agent.sendMessage(connId: bobConn, body: Array("direct after fallback".utf8))
        try await receive(alice, aliceConn, "direct after fallback")
        let bobServers = await connectedServers(bob)
        XCTAssertTrue(bobServers.contains(a), "fallback went directly")
        XCTAssertEqual(relayA.proxyStatistics.forwardedIn, 0)
        await alice.stop()
        await strict.stop()
        await bob.stop()
        await relayA.stop()
        await relayB.stop()
    }

    /// A proxy that refuses to proxy (`allow_smp_proxy = false`) answers PRXY with
    /// `PROXY BASIC_AUTH`: not a host error, so there is no fallback even when allowed; a message
    /// fails with the reference's error and the connection stays usable once routing is direct.
    func testRefusingProxyIsAnErrorNotAFallback() async throws {
        let dir = agentTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let relayA = try LocalRelay(dataDirectory: dir + "/relayA")
        try await relayA.start()
        let relayB = try LocalRelay(dataDirectory: dir + "/relayB")
        relayB.allowSMPProxy = false
        try await relayB.start()
        let alice = try await TestAgent("alice", dir: dir, config: config(try relayA.address, .never))
        let bob = try await TestAgent("bob", dir: dir, config: config(try relayB.address, .never))
        let (aliceConn, bobConn) = try await connect(alice, bob)

        await bob.agent.setProxyRouting(mode: .always, fallback: .allow)
        let msgId = try await bob.agent.sendMessage(connId: bobConn, body: Array("refused".utf8))
        let err = try await bob.waitFor("MERR") { e -> AgentError? in
            if e.connId == bobConn, case .merr(let id, let err) = e.kind, id == msgId { return err }
            return nil
        }
        guard case .smp(_, .proxy(.basicAuth)) = err else { return XCTFail("\(err)") }
        XCTAssertFalse(err.isServerHostError)

        await bob.agent.setProxyRouting(mode: .never, fallback: .allow)
        _ = try await bob.agent.sendMessage(connId: bobConn, body: Array("direct again".utf8))
        try await receive(alice, aliceConn, "direct again")
        await alice.stop()
        await bob.stop()
        await relayA.stop()
        await relayB.stop()
    }
}
