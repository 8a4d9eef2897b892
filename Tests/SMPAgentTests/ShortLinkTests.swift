import Foundation
import SimplexFoundation
import SMPClient
import SMPProtocol
import SMPTransport
import XCTest

@testable import SMPAgent

/// Short links between agents over a real relay on loopback (TLS): create with link data,
/// resolve, join, update, delete; invitations resolve once; bad links fail clearly.
final class ShortLinkTests: XCTestCase {
    /// Alice creates her address with a short link; Bob resolves it (same full link, Alice's
    /// data), joins via the full link, Alice accepts, both connect. Alice updates the data and a
    /// new resolution shows it; the short link itself stays the same.
    func testContactAddressShortLinkResolveJoinAndUpdate() async throws {
        let dir = agentTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let relay = try LocalRelay(dataDirectory: dir + "/relay")
        try await relay.start()
        let config = testAgentConfig([try relay.address])
        let alice = try await TestAgent("alice", dir: dir, config: config)
        let bob = try await TestAgent("bob", dir: dir, config: config)

        let profile = Array(#"{"displayName":"alice"}"#.utf8)
        let created = try await alice.agent.createConnection(mode: .contact, userLinkData: profile)
        let shortLink = try XCTUnwrap(created.shortLink)
        XCTAssertEqual(shortLink.mode, .contact)
        XCTAssertTrue(shortLink.uriString.hasPrefix("https://127.0.0.1/a#"), shortLink.uriString)
        let stored = try await alice.agent.connShortLink(connId: created.connId)
        XCTAssertEqual(stored, shortLink)

        // Bob has only the short link's text.
        let parsed = try ShortLink(parsing: shortLink.uriString)
        let (full, data) = try await bob.agent.getConnShortLink(parsed)
        XCTAssertEqual(full, created.link)
        XCTAssertEqual(full.uriString, created.link.uriString)
        XCTAssertEqual(data, profile)
        let contents = try await bob.agent.getConnShortLinkContents(parsed)
        guard case .contact(_, let ucd) = contents.linkData else { return XCTFail("contact data expected") }
        XCTAssertTrue(ucd.direct)
        XCTAssertEqual(contents.fixedData.connReq, created.link)

        let bobConn = try await bob.agent.joinConnection(link: full, connInfo: Array("bob".utf8))
        let invId = try await alice.waitFor("REQ") { e -> String? in
            if e.connId == created.connId, case .req(let id, let info) = e.kind, info == Array("bob".utf8) { return id }
            return nil
        }
        let aliceConn = try await alice.agent.acceptContact(invitationId: invId, connInfo: Array("alice".utf8))
        let confId = try await bob.waitFor("CONF") { e -> String? in
            if e.connId == bobConn, case .conf(let id, _) = e.kind { return id }
            return nil
        }
        try await bob.agent.allowConnection(connId: bobConn, confirmationId: confId, connInfo: Array("bob".utf8))
        try await alice.waitCON(aliceConn)
        try await bob.waitCON(bobConn)
        _ = try await bob.agent.sendMessage(connId: bobConn, body: Array("hi via short link".utf8))
        try await receive(alice, aliceConn, "hi via short link")

        // Update the user data: the short link stays, resolving shows the new data.
        let newProfile = Array(#"{"displayName":"alice","fullName":"Alice A."}"#.utf8) + [UInt8](repeating: 0x41, count: 600)
        let same = try await alice.agent.setConnShortLink(connId: created.connId, userData: newProfile)
        XCTAssertEqual(same, shortLink)
        let (full2, data2) = try await bob.agent.getConnShortLink(parsed)
        XCTAssertEqual(full2, created.link)
        XCTAssertEqual(data2, newProfile)

        // Deleting the link data: the link no longer resolves, the address still works by full link.
        try await alice.agent.deleteConnShortLink(connId: created.connId)
        do {
            _ = try await bob.agent.getConnShortLink(parsed)
            XCTFail("a deleted short link must not resolve")
        } catch let e {
            guard case .connection(.notFound, _) = e else { return XCTFail("\(e)") }
        }
        await alice.stop()
        await bob.stop()
        await relay.stop()
    }

    /// An invitation with a short link: Bob resolves it (LKEY secures the queue with his key),
    /// joins with the full link and they connect; Eve, resolving the same short link, is refused.
    /// Bob resolving twice (a retry) works.
    func testInvitationShortLinkResolvesOnceAndConnects() async throws {
        let dir = agentTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let relay = try LocalRelay(dataDirectory: dir + "/relay")
        try await relay.start()
        let config = testAgentConfig([try relay.address])
        let alice = try await TestAgent("alice", dir: dir, config: config)
        let bob = try await TestAgent("bob", dir: dir, config: config)
        let eve = try await TestAgent("eve", dir: dir, config: config)

        let created = try await alice.agent.createConnection(mode: .invitation, userLinkData: Array("inv data".utf8))
        let shortLink = try XCTUnwrap(created.shortLink)
        XCTAssertEqual(shortLink.mode, .invitation)
        XCTAssertNotNil(shortLink.linkId)
        let parsed = try ShortLink(parsing: shortLink.uriString)

        let (full, data) = try await bob.agent.getConnShortLink(parsed)
        // PQ is on: the link data has the KEM key, the full link returned to Alice does not.
        XCTAssertNotNil(full.e2eParams?.kem)
        XCTAssertNil(created.link.e2eParams?.kem)
        XCTAssertEqual(withoutKEM(full), created.link)
        XCTAssertEqual(data, Array("inv data".utf8))
        let (fullAgain, _) = try await bob.agent.getConnShortLink(parsed)
        XCTAssertEqual(fullAgain, full)

        do {
            _ = try await eve.agent.getConnShortLink(parsed)
            XCTFail("a used invitation short link must not resolve")
        } catch let e {
            guard case .connection(.notAvailable, _) = e else { return XCTFail("\(e)") }
        }

        let bobConn = try await bob.agent.joinConnection(link: full, connInfo: Array("bob".utf8))
        let confId = try await alice.waitFor("CONF") { e -> String? in
            if e.connId == created.connId, case .conf(let id, _) = e.kind { return id }
            return nil
        }
        try await alice.agent.allowConnection(connId: created.connId, confirmationId: confId, connInfo: Array("alice".utf8))
        try await alice.waitCON(created.connId)
        try await bob.waitCON(bobConn)
        _ = try await alice.agent.sendMessage(connId: created.connId, body: Array("hello bob".utf8))
        try await receive(bob, bobConn, "hello bob")
        // Eve cannot join with the full link either: the queue is Bob's.
        do {
            _ = try await eve.agent.joinConnection(link: full, connInfo: [])
            XCTFail("eve must not join")
        } catch let e {
            XCTAssertEqual(e, .connection(.notAvailable, "the invitation was already used"))
        }
        for x in [alice, bob, eve] { await x.stop() }
        await relay.stop()
    }

    /// simplexmq `newRcvConnSrv`/`connReqWithShortLink`: a PQ invitation with a short link puts
    /// the KEM key in the link data and leaves it out of the full link it returns (IKPQOn); with
    /// PQ off neither has it; with the key asked for in links (IKUsePQ) both have it. Joining by
    /// the short link (KEM accepted in the confirmation) and by the full link (KEM proposed in
    /// the confirmation) both end with PQ encryption.
    func testPQInvitationShortLinkLeavesKEMOutOfTheFullLink() async throws {
        let dir = agentTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let relay = try LocalRelay(dataDirectory: dir + "/relay")
        try await relay.start()
        let config = testAgentConfig([try relay.address])
        var kemConfig = config
        kemConfig.pqInInvitation = true
        let alice = try await TestAgent("alice", dir: dir, config: config)
        let carol = try await TestAgent("carol", dir: dir, config: kemConfig)
        let bob = try await TestAgent("bob", dir: dir, config: config)

        func joinAndConnect(_ owner: TestAgent, _ connId: String, _ link: ConnectionRequestURI) async throws -> (Bool, Bool) {
            let bobConn = try await bob.agent.joinConnection(link: link, connInfo: Array("bob".utf8))
            let confId = try await owner.waitFor("CONF") { e -> String? in
                if e.connId == connId, case .conf(let id, _) = e.kind { return id }
                return nil
            }
            try await owner.agent.allowConnection(connId: connId, confirmationId: confId, connInfo: Array("owner".utf8))
            try await owner.waitCON(connId)
            try await bob.waitCON(bobConn)
            _ = try await owner.agent.sendMessage(connId: connId, body: Array("pq?".utf8))
            try await receive(bob, bobConn, "pq?")
            return (try await owner.agent.connection(connId).pqEncryption, try await bob.agent.connection(bobConn).pqEncryption)
        }

        // PQ on (the default): KEM only in the link data.
        let pqInv = try await alice.agent.createConnection(mode: .invitation, userLinkData: Array("a".utf8))
        XCTAssertNil(pqInv.link.e2eParams?.kem, "the returned full link leaves the KEM key out")
        let (resolved, _) = try await bob.agent.getConnShortLink(try XCTUnwrap(pqInv.shortLink))
        XCTAssertNotNil(resolved.e2eParams?.kem, "the link data carries it")
        XCTAssertEqual(withoutKEM(resolved), pqInv.link)
        let storedLink = try await alice.agent.connection(pqInv.connId)
        XCTAssertEqual(storedLink.mode, .invitation)
        var (ownerPQ, bobPQ) = try await joinAndConnect(alice, pqInv.connId, resolved)
        XCTAssertTrue(ownerPQ && bobPQ, "joined by the short link with the KEM accepted")

        // The full link without the KEM key also connects with PQ (proposed by the joiner).
        let pqInv2 = try await alice.agent.createConnection(mode: .invitation, userLinkData: Array("a2".utf8))
        (ownerPQ, bobPQ) = try await joinAndConnect(alice, pqInv2.connId, pqInv2.link)
        XCTAssertTrue(ownerPQ && bobPQ, "joined by the full link, PQ proposed in the confirmation")

        // PQ off: no KEM key anywhere.
        let classic = try await alice.agent.createConnection(mode: .invitation, userLinkData: Array("c".utf8), pqSupport: false)
        XCTAssertNil(classic.link.e2eParams?.kem)
        let (classicResolved, _) = try await bob.agent.getConnShortLink(try XCTUnwrap(classic.shortLink))
        XCTAssertNil(classicResolved.e2eParams?.kem)
        XCTAssertEqual(classicResolved, classic.link)

        // KEM asked for in links (IKUsePQ): in both.
        let kemInv = try await carol.agent.createConnection(mode: .invitation, userLinkData: Array("k".utf8))
        XCTAssertNotNil(kemInv.link.e2eParams?.kem)
        let (kemResolved, _) = try await bob.agent.getConnShortLink(try XCTUnwrap(kemInv.shortLink))
        XCTAssertEqual(kemResolved, kemInv.link)
        for x in [alice, carol, bob] { await x.stop() }
        await relay.stop()
    }

    /// simplexmq `prepareConnectionLink`/`createConnectionForLink` and `setConnShortLink` with
    /// `UserContactData`: the caller's root key and `linkEntityId` go into the signed fixed data,
    /// owners (authorized by the root key, then by an owner) and relays into the user data; a
    /// resolver verifies the chain and sees them. An owner chain that does not verify makes the
    /// link unusable (`LINK linkData`), as the reference's `validateLinkOwners`.
    func testContactLinkWithEntityIdOwnersAndRelays() async throws {
        let dir = agentTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let relay = try LocalRelay(dataDirectory: dir + "/relay")
        try await relay.start()
        let config = testAgentConfig([try relay.address])
        let alice = try await TestAgent("alice", dir: dir, config: config)
        let bob = try await TestAgent("bob", dir: dir, config: config)

        let root = Ed25519PrivateKey()
        let entityId = CryptoHash.sha256(root.publicKey.x509Encoded)
        let owner1 = Ed25519PrivateKey(), owner2 = Ed25519PrivateKey()
        let o1 = try LinkOwnerAuth(ownerId: Array("owner-1".utf8), ownerKey: owner1.publicKey, signedBy: root)
        let o2 = try LinkOwnerAuth(ownerId: Array("owner-2".utf8), ownerKey: owner2.publicKey, signedBy: owner1)
        let relayLink = ShortLink(contact: try relay.address, type: .relay, linkKey: [UInt8](repeating: 7, count: 32))
        let data = UserContactData(direct: false, owners: [o1, o2], relays: [relayLink], userData: Array("channel".utf8))
        let created = try await alice.agent.createContactLink(contactData: data, rootKey: root, linkEntityId: entityId)
        let sl = try XCTUnwrap(created.shortLink)

        let contents = try await bob.agent.getConnShortLinkContents(sl)
        XCTAssertEqual(contents.fixedData.rootKey, root.publicKey)
        XCTAssertEqual(contents.fixedData.linkEntityId, entityId)
        XCTAssertEqual(contents.fixedData.connReq, created.link)
        guard case .contact(_, let ucd) = contents.linkData else { return XCTFail("contact data expected") }
        XCTAssertEqual(ucd, data)

        // Updated with one owner less and the relay gone; the link and its fixed data stay.
        let data2 = UserContactData(direct: true, owners: [o1], relays: [], userData: Array("channel v2".utf8))
        let same = try await alice.agent.setConnShortLink(connId: created.connId, contactData: data2)
        XCTAssertEqual(same, sl)
        let contents2 = try await bob.agent.getConnShortLinkContents(sl)
        XCTAssertEqual(contents2.fixedData.linkEntityId, entityId)
        guard case .contact(_, let ucd2) = contents2.linkData else { return XCTFail("contact data expected") }
        XCTAssertEqual(ucd2, data2)

        // An owner not authorized by the root key or an earlier owner: the link does not verify.
        let stranger = Ed25519PrivateKey()
        let forged = try LinkOwnerAuth(ownerId: Array("forged".utf8), ownerKey: Ed25519PrivateKey().publicKey, signedBy: stranger)
        _ = try await alice.agent.setConnShortLink(connId: created.connId, contactData: UserContactData(owners: [forged], userData: []))
        do {
            _ = try await bob.agent.getConnShortLinkContents(sl)
            XCTFail("a forged owner must not verify")
        } catch let e {
            guard case .link(.linkData(let why)) = e else { return XCTFail("\(e)") }
            XCTAssertTrue(why.contains("invalid authorization"), why)
        }
        // Contact data cannot be given to an invitation.
        let inv = try await alice.agent.createConnection(mode: .invitation, userLinkData: [])
        do {
            _ = try await alice.agent.setConnShortLink(connId: inv.connId, contactData: data)
            XCTFail("contact data for an invitation must be refused")
        } catch let e {
            guard case .command(.prohibited, _) = e else { return XCTFail("\(e)") }
        }
        for x in [alice, bob] { await x.stop() }
        await relay.stop()
    }

    /// Unknown or tampered links fail with a clear error, not a crash or a hang.
    func testUnknownAndWrongShortLinks() async throws {
        let dir = agentTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let relay = try LocalRelay(dataDirectory: dir + "/relay")
        try await relay.start()
        let config = testAgentConfig([try relay.address])
        let alice = try await TestAgent("alice", dir: dir, config: config)
        let bob = try await TestAgent("bob", dir: dir, config: config)
        let server = try relay.address

        // A contact link with a random key: no such link.
        let unknown = ShortLink(contact: server, linkKey: SecureRandom.bytes(32))
        do {
            _ = try await bob.agent.getConnShortLink(unknown)
            XCTFail("unknown link")
        } catch let e {
            guard case .connection(.notFound, _) = e else { return XCTFail("\(e)") }
        }
        // An invitation link with a random ID.
        let unknownInv = ShortLink(invitation: server, linkId: SecureRandom.bytes(24), linkKey: SecureRandom.bytes(32))
        do {
            _ = try await bob.agent.getConnShortLink(unknownInv)
            XCTFail("unknown invitation link")
        } catch let e {
            guard case .connection(.notAvailable, _) = e else { return XCTFail("\(e)") }
        }
        // A real invitation's link ID with another key: decryption fails (AGENT CRYPTO), and
        // since LKEY already secured the queue, the right key from another agent is refused too.
        let created = try await alice.agent.createConnection(mode: .invitation, userLinkData: [1, 2, 3])
        let real = try XCTUnwrap(created.shortLink)
        let wrongKey = ShortLink(invitation: server, linkId: try XCTUnwrap(real.linkId), linkKey: SecureRandom.bytes(32))
        do {
            _ = try await bob.agent.getConnShortLink(wrongKey)
            XCTFail("wrong key")
        } catch let e {
            guard case .agent(.crypto) = e else { return XCTFail("\(e)") }
        }
        // A link without the server identity, for a server this agent does not know.
        let noIdentity = try ShortLink(parsing: "https://example.invalid/a#" + Base64URL.encode(SecureRandom.bytes(32), padded: false))
        do {
            _ = try await bob.agent.getConnShortLink(noIdentity)
            XCTFail("no identity")
        } catch let e {
            XCTAssertEqual(e, .link(.missingParameter("c")))
        }
        await alice.stop()
        await bob.stop()
        await relay.stop()
    }

    /// An address created without a short link gets one later (LSET on the existing queue), and
    /// too large user data is refused before anything is sent.
    func testShortLinkAddedToExistingAddressAndSizeLimit() async throws {
        let dir = agentTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let relay = try LocalRelay(dataDirectory: dir + "/relay")
        try await relay.start()
        let config = testAgentConfig([try relay.address])
        let alice = try await TestAgent("alice", dir: dir, config: config)
        let bob = try await TestAgent("bob", dir: dir, config: config)
        let (addr, link) = try await alice.agent.createConnection(mode: .contact)
        let sl = try await alice.agent.setConnShortLink(connId: addr, userData: Array("later".utf8))
        let (full, data) = try await bob.agent.getConnShortLink(sl)
        XCTAssertEqual(full.queues, link.queues)
        XCTAssertEqual(data, Array("later".utf8))

        do {
            _ = try await alice.agent.createConnection(mode: .contact, userLinkData: [UInt8](repeating: 1, count: 14000))
            XCTFail("too large")
        } catch let e {
            guard case .command(.size, _) = e else { return XCTFail("\(e)") }
        }
        // The largest user data that fits works.
        let big = [UInt8](repeating: 7, count: 13000)
        let created = try await alice.agent.createConnection(mode: .contact, userLinkData: big)
        let (_, got) = try await bob.agent.getConnShortLink(try XCTUnwrap(created.shortLink))
        XCTAssertEqual(got, big)
        await alice.stop()
        await bob.stop()
        await relay.stop()
    }

    /// The owner's link credentials and the relay's link data survive restarts of both: after
    /// them Alice updates her data and Bob resolves the new data under the same short link.
    func testShortLinkSurvivesAgentAndRelayRestarts() async throws {
        let dir = agentTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let relay = try LocalRelay(dataDirectory: dir + "/relay")
        try await relay.start()
        let config = testAgentConfig([try relay.address])
        let alice = try await TestAgent("alice", dir: dir, config: config)
        let bob = try await TestAgent("bob", dir: dir, config: config)
        let created = try await alice.agent.createConnection(mode: .contact, userLinkData: Array("v1".utf8))
        let sl = try XCTUnwrap(created.shortLink)
        await relay.stop()
        try await relay.start()
        try await alice.restart()
        let (_, d1) = try await bob.agent.getConnShortLink(sl)
        XCTAssertEqual(d1, Array("v1".utf8))
        let same = try await alice.agent.setConnShortLink(connId: created.connId, userData: Array("v2".utf8))
        XCTAssertEqual(same, sl)
        let (full, d2) = try await bob.agent.getConnShortLink(sl)
        XCTAssertEqual(d2, Array("v2".utf8))
        XCTAssertEqual(full, created.link)
        // Deleting the connection deletes the queue and with it the link data.
        try await alice.agent.deleteConnection(connId: created.connId)
        do {
            _ = try await bob.agent.getConnShortLink(sl)
            XCTFail("the link of a deleted address must not resolve")
        } catch let e {
            guard case .connection(.notFound, _) = e else { return XCTFail("\(e)") }
        }
        await alice.stop()
        await bob.stop()
        await relay.stop()
    }

    /// Link data encodings: round trips and simplexmq's byte layout of the small pieces.
    func testLinkDataEncodings() throws {
        XCTAssertEqual(try ConnLinkData.invitation(agentVersions: VersionRange(7), userData: [1]).encoded(),
                       Array("I".utf8) + [0, 7, 0, 7, 1, 1])
        let contact = ConnLinkData.contact(agentVersions: VersionRange(7), UserContactData(userData: [UInt8](repeating: 2, count: 300)))
        let enc = try contact.encoded()
        XCTAssertEqual(Array(enc.prefix(8)), Array("C".utf8) + [0, 7, 0, 7] + Array("T".utf8) + [0, 0])
        XCTAssertEqual(Array(enc[8..<11]), [255, 1, 44])
        XCTAssertEqual(try ConnLinkData(decoding: enc), contact)
        // Extra bytes after the data are ignored (forward compatibility).
        XCTAssertEqual(try ConnLinkData(decoding: enc + [9, 9]), contact)
        let (lid, key) = ShortLinkCrypto.contactKeys(linkKey: [UInt8](repeating: 0, count: 32))
        XCTAssertEqual(lid.count, 24)
        XCTAssertEqual(key.count, 32)
        XCTAssertNotEqual(ShortLinkCrypto.invitationKey(linkKey: [UInt8](repeating: 0, count: 32)), key)
        // Links we make always parse back, also for an IPv6 server (simplex: form with h=).
        let v6 = try SMPServerAddress(keyHash: [UInt8](repeating: 3, count: 32), hosts: ["[::1]"], port: 5223)
        let l6 = ShortLink(contact: v6, linkKey: [UInt8](repeating: 4, count: 32))
        XCTAssertEqual(try ShortLink(parsing: l6.uriString).server, v6, l6.uriString)
        let v4 = try SMPServerAddress(keyHash: [UInt8](repeating: 3, count: 32), hosts: ["smp.example.com", "b.onion"])
        let inv = ShortLink(invitation: v4, linkId: [UInt8](repeating: 5, count: 24), linkKey: [UInt8](repeating: 4, count: 32))
        XCTAssertEqual(try ShortLink(parsing: inv.uriString), inv)
        var e = SMPEncoder()
        try inv.encodeBinary(into: &e)
        var d = SMPDecoder(e.bytes)
        XCTAssertEqual(try ShortLink(decodingBinary: &d), inv)
    }
}
