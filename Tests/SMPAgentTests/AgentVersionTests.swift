import Foundation
import SimplexFoundation
import SMPTransport
import XCTest

@testable import SMPAgent

/// Agents of older protocol versions (simplexmq's behaviour per negotiated agent version, 2-7):
/// one of our agents is configured with the ranges an older SimpleX client had, and connects
/// with a current one over a real relay, in both roles, by invitation and by contact address.
final class AgentVersionTests: XCTestCase {
    /// An older client: its agent range and the SMP client range that came with it (client
    /// version 3, sender-secured queues, arrived with agent version 6).
    struct Old: CustomStringConvertible {
        let agent: VersionRange
        let client: VersionRange
        var description: String { "agent \(agent) client \(client)" }
    }

    static let olds: [Old] = [
        Old(agent: VersionRange(min: 2, max: 6)!, client: VersionRange(min: 1, max: 3)!),
        Old(agent: VersionRange(min: 2, max: 5)!, client: VersionRange(min: 1, max: 2)!),
        Old(agent: VersionRange(min: 2, max: 4)!, client: VersionRange(min: 1, max: 2)!),
        Old(agent: VersionRange(min: 2, max: 3)!, client: VersionRange(min: 1, max: 2)!),
        Old(agent: VersionRange(2), client: VersionRange(1)),
    ]

    struct Setup {
        let dir: String
        let relay: LocalRelay
        let current: TestAgent
        let old: TestAgent

        func stop() async {
            await current.stop()
            await old.stop()
            await relay.stop()
            try? FileManager.default.removeItem(atPath: dir)
        }
    }

    func setup(_ old: Old, name: String = #function) async throws -> Setup {
        let dir = agentTempDir(name)
        let relay = try LocalRelay(dataDirectory: dir + "/relay")
        try await relay.start()
        let config = testAgentConfig([try relay.address])
        var oldConfig = config
        oldConfig.agentVersions = old.agent
        oldConfig.smpClientVersions = old.client
        let current = try await TestAgent("current", dir: dir, config: config)
        let oldAgent = try await TestAgent("old", dir: dir, config: oldConfig)
        return Setup(dir: dir, relay: relay, current: current, old: oldAgent)
    }

    /// `initiator` creates an invitation, `joiner` joins it; checks what the joiner may do before
    /// CON, and returns both connection ids once connected.
    func connectByInvitation(_ initiator: TestAgent, _ joiner: TestAgent, version: UInt16) async throws -> (String, String) {
        let (i, link) = try await initiator.agent.createConnection()
        let j = try await joiner.agent.joinConnection(link: link.uriString, connInfo: Array("joiner".utf8))
        if version < AgentVersion.ratchetOnConfirmation {
            // The old initiator has no ratchet until it allows the connection.
            do {
                _ = try await joiner.agent.sendMessage(connId: j, body: Array("early".utf8))
                XCTFail("joiner at agent version \(version) must not send before CON")
            } catch {
                if case .connection(.simplex, _) = error {} else { XCTFail("unexpected \(error)") }
            }
        }
        let confId = try await initiator.waitFor("CONF") { e -> String? in
            if e.connId == i, case .conf(let id, _) = e.kind { return id }
            return nil
        }
        try await initiator.agent.allowConnection(connId: i, confirmationId: confId, connInfo: Array("initiator".utf8))
        try await initiator.waitCON(i)
        try await joiner.waitCON(j)
        return (i, j)
    }

    /// `owner` creates a contact address, `requester` sends a request, `owner` accepts it.
    func connectByAddress(_ owner: TestAgent, _ requester: TestAgent) async throws -> (String, String) {
        let (_, address) = try await owner.agent.createConnection(mode: .contact)
        let r = try await requester.agent.joinConnection(link: address.uriString, connInfo: Array("requester".utf8))
        let invId = try await owner.waitFor("REQ") { e -> String? in
            if case .req(let id, let info) = e.kind, info == Array("requester".utf8) { return id }
            return nil
        }
        let o = try await owner.agent.acceptContact(invitationId: invId, connInfo: Array("owner".utf8))
        let confId = try await requester.waitFor("CONF") { e -> String? in
            if e.connId == r, case .conf(let id, _) = e.kind { return id }
            return nil
        }
        try await requester.agent.allowConnection(connId: r, confirmationId: confId, connInfo: Array("requester".utf8))
        try await owner.waitCON(o)
        try await requester.waitCON(r)
        return (o, r)
    }

    /// Messages both ways at the agreed version; receipts only from version 4 (a receipt the
    /// peer would have sent arrives before its next message, so its absence is checked then);
    /// PQ encryption only from version 5; ratchet re-synchronization only from version 3.
    func exchange(_ a: TestAgent, _ ac: String, _ b: TestAgent, _ bc: String, version: UInt16, pq: Bool? = nil, tag: String) async throws {
        for (agent, conn) in [(a, ac), (b, bc)] {
            let stats = try await agent.agent.connectionStats(connId: conn)
            XCTAssertEqual(stats.connAgentVersion, version, "\(agent.name) \(tag)")
            XCTAssertEqual(stats.ratchetSyncSupported, version >= AgentVersion.ratchetSync, "\(agent.name) \(tag)")
        }
        var last: MsgMeta?
        for i in 0..<3 {
            let sent = try await a.agent.sendMessage(connId: ac, body: Array("\(tag) a\(i)".utf8))
            try await receive(b, bc, "\(tag) a\(i)", receipt: Array("r\(i)".utf8))
            _ = try await b.agent.sendMessage(connId: bc, body: Array("\(tag) b\(i)".utf8))
            last = try await receive(a, ac, "\(tag) b\(i)")
            let receipts = a.events.contains { e in
                if e.connId == ac, case .rcvd(let rs) = e.kind { return rs.contains { $0.agentMsgId == sent && $0.ok && $0.rcptInfo == Array("r\(i)".utf8) } }
                return false
            }
            if version >= AgentVersion.deliveryReceipts {
                try await a.waitFor("RCVD \(sent)") { e -> Bool? in
                    if e.connId == ac, case .rcvd(let rs) = e.kind, rs.contains(where: { $0.agentMsgId == sent && $0.ok }) { return true }
                    return nil
                }
            } else {
                XCTAssertFalse(receipts, "no receipts below agent version 4 (\(tag))")
            }
        }
        XCTAssertEqual(last?.integrity, .ok)
        XCTAssertEqual(last?.pqEncryption, pq ?? (version >= AgentVersion.pqDoubleRatchet), "PQ encryption at agent version \(version) (\(tag))")
        if version < AgentVersion.ratchetSync {
            do {
                _ = try await a.agent.synchronizeRatchet(connId: ac)
                XCTFail("ratchet sync must be refused below agent version 3")
            } catch {
                XCTAssertEqual(error, .command(.prohibited, "synchronizeRatchet: not allowed"))
            }
        }
    }

    func testOldJoinsCurrentInvitation() async throws {
        for old in Self.olds {
            let s = try await setup(old)
            let v = old.agent.max
            let (c, o) = try await connectByInvitation(s.current, s.old, version: v)
            try await exchange(s.current, c, s.old, o, version: v, tag: "\(old) joins")
            await s.stop()
        }
    }

    func testCurrentJoinsOldInvitation() async throws {
        for old in Self.olds {
            let s = try await setup(old)
            let v = old.agent.max
            let (o, c) = try await connectByInvitation(s.old, s.current, version: v)
            try await exchange(s.old, o, s.current, c, version: v, tag: "\(old) invites")
            // The connection survives restarts of both sides at its version.
            try await s.old.restart()
            try await s.current.restart()
            try await exchange(s.current, c, s.old, o, version: v, tag: "\(old) restarted")
            await s.stop()
        }
    }

    func testContactAddressesBothWays() async throws {
        for old in [Self.olds[0], Self.olds[2], Self.olds[4]] {
            let s = try await setup(old)
            let v = old.agent.max
            let (c1, o1) = try await connectByAddress(s.current, s.old)
            try await exchange(s.current, c1, s.old, o1, version: v, tag: "\(old) requests")
            let (o2, c2) = try await connectByAddress(s.old, s.current)
            try await exchange(s.old, o2, s.current, c2, version: v, tag: "\(old) owns address")
            await s.stop()
        }
    }

    /// simplexmq `updateConnVersion`: when the old client is upgraded, its messages (whose
    /// envelopes say its new highest version) raise the connection's version on our side, and
    /// ours raise it on its side; receipts then work. PQ stays as the connection was made.
    func testUpgradedPeerRaisesTheVersion() async throws {
        let s = try await setup(Old(agent: VersionRange(min: 2, max: 3)!, client: VersionRange(min: 1, max: 2)!))
        let (c, o) = try await connectByInvitation(s.current, s.old, version: 3)
        try await exchange(s.current, c, s.old, o, version: 3, tag: "before the upgrade")
        await s.old.stop()
        let upgraded = try await TestAgent("old", dir: s.dir, config: s.current.config)
        _ = try await upgraded.agent.sendMessage(connId: o, body: Array("upgraded".utf8))
        try await receive(s.current, c, "upgraded")
        let ours = try await s.current.agent.connectionStats(connId: c).connAgentVersion
        XCTAssertEqual(ours, AgentVersion.current)
        _ = try await s.current.agent.sendMessage(connId: c, body: Array("welcome back".utf8))
        try await receive(upgraded, o, "welcome back")
        try await exchange(s.current, c, upgraded, o, version: AgentVersion.current, pq: false, tag: "after the upgrade")
        await upgraded.stop()
        await s.stop()
    }

    /// Ranges with nothing in common: joining fails with the reference's `A_VERSION`, in both
    /// directions, for invitations and contact addresses.
    func testNoCommonVersionIsRefused() async throws {
        let s = try await setup(Old(agent: VersionRange(min: 2, max: 3)!, client: VersionRange(min: 1, max: 2)!))
        var newer = s.current.config
        newer.agentVersions = VersionRange(min: 5, max: 7)!
        let n = try await TestAgent("newer", dir: s.dir, config: newer)
        for (creator, joiner) in [(n, s.old), (s.old, n)] {
            for mode in [ConnectionMode.invitation, .contact] {
                let (_, link) = try await creator.agent.createConnection(mode: mode)
                do {
                    _ = try await joiner.agent.joinConnection(link: link.uriString, connInfo: [])
                    XCTFail("\(joiner.name) joined a \(mode) of \(creator.name)")
                } catch {
                    XCTAssertEqual(error, .agent(.version))
                }
            }
        }
        // The old client's ranges are what its links advertise.
        let (_, oldLink) = try await s.old.agent.createConnection()
        XCTAssertTrue(oldLink.uriString.contains("v=2-3"), oldLink.uriString)
        XCTAssertEqual(oldLink.queues.first?.clientVersions, VersionRange(min: 1, max: 2))
        await n.stop()
        await s.stop()
    }
}
