import Foundation
import SMPClient
import SMPServer
import SMPTransport
import Testing

@testable import ChatCore
import SMPAgent
import SMPProtocol

/// `/_network` and `/network` (simplex-chat APISetNetworkConfig / APIGetNetworkConfig): the
/// NetworkConfig JSON is kept and given back, and its private routing fields drive the agent.
/// Alice and Bob use different relays (different hosts on loopback); with `smpProxyMode`
/// "always", Bob's messages to Alice's relay go through his own relay, which Alice's relay
/// counts as forwarded commands.
@Suite struct NetworkConfigFlowTests {
    private func relay(_ dir: String, host: String) async throws -> (SMPRelayServer, String) {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        var rc = SMPServerConfig()
        rc.port = 0
        rc.host = host
        rc.bindAddress = host
        let creds = try ServerCredentials.generate(commonName: host)
        let r = try await SMPRelayServer.start(config: rc, credentials: creds, dataDirectory: dir, group: flowGroup)
        return (r, try SMPServerAddress(keyHash: creds.keyHash, hosts: [host], port: r.port).description)
    }

    @Test func networkConfigSetsPrivateRouting() async throws {
        let dir = NSTemporaryDirectory() + "netcfg-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (relayA, a) = try await relay(dir + "/relayA", host: "127.0.0.1")
        let (relayB, b) = try await relay(dir + "/relayB", host: "127.0.0.2")
        let alice = try await Client("alice", dir: dir, server: a)
        let bob = try await Client("bob", dir: dir, server: b)

        // The defaults: simplexmq's defaultNetworkConfig.
        let initial = try await bob.cmd("/network")
        #expect(initial["type"] as? String == "networkConfig")
        var cfg = try #require(initial["networkConfig"] as? [String: Any])
        #expect(cfg["smpProxyMode"] as? String == "never")
        #expect(cfg["smpProxyFallback"] as? String == "allow")
        #expect((cfg["tcpTimeout"] as? [String: Any])?["interactiveTimeout"] as? Int == 10_000_000)

        // A value that is not the reference's is refused; nothing changes.
        cfg["smpProxyMode"] = "sometimes"
        let bad = String(decoding: try JSONSerialization.data(withJSONObject: cfg), as: UTF8.self)
        try await bob.cmdError("/_network \(bad)")
        #expect((try await bob.cmd("/network")["networkConfig"] as? [String: Any])?["smpProxyMode"] as? String == "never")

        cfg["smpProxyMode"] = "always"
        cfg["smpProxyFallback"] = "prohibit"
        let good = String(decoding: try JSONSerialization.data(withJSONObject: cfg), as: UTF8.self)
        #expect(try await bob.cmd("/_network \(good)")["type"] as? String == "cmdOk")
        let after = try #require(try await bob.cmd("/network")["networkConfig"] as? [String: Any])
        #expect(after["smpProxyMode"] as? String == "always")
        #expect(after["smpProxyFallback"] as? String == "prohibit")
        #expect(after["rcvConcurrency"] as? Int == 8, "other fields are kept")
        let routing = try #require(await bob.c.agent?.proxyRoutingConfig)
        #expect(routing.mode == .always && routing.fallback == .prohibit)

        // Connect and message both ways: Bob's commands to A went through B.
        let inv = try await alice.cmd("/_connect 1")
        let link = try #require((inv["connLinkInvitation"] as? [String: Any])?["connFullLink"] as? String)
        try await bob.cmd("/connect \(link)")
        let aliceSide = try await alice.event("contactConnected"), bobSide = try await bob.event("contactConnected")
        let bobId = try #require(contactId(aliceSide)), aliceId = try #require(contactId(bobSide))
        try await bob.cmd(#"/_send @\#(aliceId) json [{"msgContent":{"type":"text","text":"routed privately"}}]"#)
        try await alice.event("newChatItems") { itemText($0) == "routed privately" }
        try await alice.cmd(#"/_send @\#(bobId) json [{"msgContent":{"type":"text","text":"direct"}}]"#)
        try await bob.event("newChatItems") { itemText($0) == "direct" }
        #expect(relayA.proxyStatistics.forwardedIn >= 3, "SKEY, confirmation and message from Bob arrived as RFWD")
        #expect(relayB.proxyStatistics.forwardedIn == 0, "Alice sends directly")

        // The terminal's short form (SetNetworkConfig): routing and timeout over the settings
        // in force, the answer is the result. A SOCKS proxy is refused.
        let simple = try await bob.cmd("/network socks=off smp-proxy=unknown smp-proxy-fallback=no timeout=20")
        let sc = try #require(simple["networkConfig"] as? [String: Any])
        #expect(sc["smpProxyMode"] as? String == "unknown")
        #expect(sc["smpProxyFallback"] as? String == "prohibit")
        #expect(sc["hostMode"] as? String == "public")
        #expect((sc["tcpTimeout"] as? [String: Any])?["interactiveTimeout"] as? Int == 20_000_000)
        #expect((sc["tcpConnectTimeout"] as? [String: Any])?["backgroundTimeout"] as? Int == 90_000_000)
        let simpleRouting = try #require(await bob.c.agent?.proxyRoutingConfig)
        #expect(simpleRouting.mode == .unknown && simpleRouting.fallback == .prohibit)
        try await bob.cmdError("/network socks=on")
        try await bob.cmdError("/network smp-proxy=always")
        #expect(try await bob.cmd("/_network {\"smpProxyMode\":\"always\"}")["type"] as? String == "cmdOk")

        // The setting outlives a stop and start of the chat.
        try await bob.cmd("/_stop")
        try await bob.cmd("/_start")
        let restarted = try #require(await bob.c.agent?.proxyRoutingConfig)
        #expect(restarted.mode == .always)

        await alice.c.close()
        await bob.c.close()
        await relayA.shutdown()
        await relayB.shutdown()
    }

    /// Private routing errors as the chat API writes them (simplexmq `AgentErrorType` PROXY with
    /// `ProxyClientError`, and SMP errors carrying the proxy's `ProxyError`).
    @Test func proxyErrorsAsTheAPIWritesThem() throws {
        func json(_ e: AgentError) throws -> [String: Any] {
            let data = try JSONEncoder().encode(ChatController.apiAgentError(e))
            return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        }
        let p = try json(.proxy(proxyServer: "smp://p@proxy", relayServer: "smp://d@dest", .protocolError(.proxy(.basicAuth))))
        #expect(p["type"] as? String == "PROXY")
        #expect(p["proxyServer"] as? String == "smp://p@proxy")
        #expect(p["relayServer"] as? String == "smp://d@dest")
        let pe = try #require(p["proxyErr"] as? [String: Any])
        #expect(pe["type"] as? String == "protocolError")
        let inner = try #require(pe["protocolErr"] as? [String: Any])
        #expect(inner["type"] as? String == "PROXY")
        #expect((inner["proxyErr"] as? [String: Any])?["type"] as? String == "BASIC_AUTH")

        let u = try json(.proxy(proxyServer: "smp://p@proxy", relayServer: "smp://d@dest", .unexpectedResponse("OK")))
        #expect((u["proxyErr"] as? [String: Any])?["responseStr"] as? String == "OK")

        // The proxy's report that the destination has no proxied versions (a fallback case).
        let v = try json(.smp(server: "smp://p@proxy", .proxy(.broker(.transport(.version)))))
        #expect(v["type"] as? String == "SMP")
        let smpErr = try #require(v["smpErr"] as? [String: Any])
        #expect(smpErr["type"] as? String == "PROXY")
        let broker = try #require((smpErr["proxyErr"] as? [String: Any]))
        #expect(broker["type"] as? String == "BROKER")
        let b = try #require(broker["brokerErr"] as? [String: Any])
        #expect(b["type"] as? String == "TRANSPORT")
        #expect((b["transportErr"] as? [String: Any])?["type"] as? String == "version")
    }
}
