import XCTest
@testable import DoubleRatchet

/// Turning PQ encryption on and off mid-conversation, as Ratchet.hs negotiates it: a side that
/// enables PQ proposes a KEM key on its next step; the peer answers only if it has PQ enabled
/// too; a side that disables it stops answering, and both drop the KEM. Ported from
/// simplexmq's DoubleRatchetTests (their "bob" is our Alice, the joining party).
final class RatchetPQSwitchTests: XCTestCase {
    /// One message: sender, text, the sender's `pqEnable` argument, and whether the message's
    /// chain is PQ (sender's sending chain and receiver's receiving chain after it).
    private struct Step {
        let fromAlice: Bool
        let text: String
        let pq: Bool?
        let kem: Bool
    }

    private func A(_ t: String, _ pq: Bool?, kem: Bool) -> Step { Step(fromAlice: true, text: t, pq: pq, kem: kem) }
    private func B(_ t: String, _ pq: Bool?, kem: Bool) -> Step { Step(fromAlice: false, text: t, pq: pq, kem: kem) }

    private func run(_ setup: KEMSetup, _ steps: [Step], file: StaticString = #filePath, line: UInt = #line) throws {
        var p = try makePair(setup)
        for s in steps {
            if s.fromAlice {
                try exchange(&p.alice, &p.bob, s.text, pq: s.pq, kem: s.kem, file: file, line: line)
            } else {
                try exchange(&p.bob, &p.alice, s.text, pq: s.pq, kem: s.kem, file: file, line: line)
            }
        }
    }

    func testPQOnBothSides() throws {
        try run(.accepted, (0..<10).map { i in i % 2 == 0 ? A("a\(i)", nil, kem: true) : B("b\(i)", nil, kem: true) })
    }

    func testPQOffBothSides() throws {
        try run(.none, (0..<10).map { i in i % 2 == 0 ? A("a\(i)", nil, kem: false) : B("b\(i)", nil, kem: false) })
        // Off on both sides means small headers throughout.
        var p = try makePair(.none)
        XCTAssertEqual(try encrypt(&p.alice, "x").count, 2 + 124 + 16 + testPaddedLength)
    }

    /// simplexmq `testDisableEnableKEM`.
    func testDisableAndReenable() throws {
        try run(.accepted, [
            A("hello bob", nil, kem: true),
            B("hello alice", nil, kem: true),
            A("disabling KEM", false, kem: true),
            B("still disabling KEM", nil, kem: true),
            A("now KEM is disabled", nil, kem: false),
            B("KEM is disabled for both sides", nil, kem: false),
            A("trying to enable KEM", true, kem: false),
            B("but unless bob enables it too it won't enable", nil, kem: false),
            A("KEM is disabled", nil, kem: false),
            B("KEM is disabled for both sides", nil, kem: false),
            A("enabling KEM again", true, kem: false),
            B("and bob accepts it this time", true, kem: false),
            A("still enabling KEM", true, kem: false),
            B("now KEM is enabled", nil, kem: true),
            A("KEM is enabled for both sides", nil, kem: true),
        ])
    }

    /// simplexmq `testDisableEnableKEMStrict` (the preference passed with every message).
    func testDisableAndReenableStrict() throws {
        try run(.accepted, [
            A("hello bob", true, kem: true),
            B("hello alice", true, kem: true),
            A("disabling KEM", false, kem: true),
            B("still disabling KEM", true, kem: true),
            A("now KEM is disabled", false, kem: false),
            B("KEM is disabled for both sides", false, kem: false),
            A("trying to enable KEM", true, kem: false),
            B("but unless bob enables it too it won't enable", false, kem: false),
            A("KEM is disabled", true, kem: false),
            B("KEM is disabled for both sides", false, kem: false),
            A("enabling KEM again", true, kem: false),
            B("and bob accepts it this time", true, kem: false),
            A("still enabling KEM", true, kem: false),
            B("now KEM is enabled", true, kem: true),
            A("KEM is enabled for both sides", true, kem: true),
        ])
    }

    /// simplexmq `testEnableKEM`: PQ off in the handshake, enabled later, then disabled.
    func testEnableAfterHandshakeThenDisable() throws {
        try run(.none, [
            A("hello bob", nil, kem: false),
            B("hello alice", nil, kem: false),
            A("enabling KEM", true, kem: false),
            A("KEM not enabled yet", true, kem: false),
            B("accepting KEM", true, kem: false),
            B("KEM not enabled yet here too", true, kem: false),
            A("KEM is still not enabled", true, kem: false),
            B("now KEM is enabled", true, kem: true),
            A("now KEM is enabled for both sides", nil, kem: true),
            B("still enabled for both sides", nil, kem: true),
            A("still enabled for both sides 2", nil, kem: true),
            B("disabling KEM", false, kem: true),
            A("KEM not disabled yet", nil, kem: true),
            B("KEM disabled", nil, kem: false),
            A("KEM disabled on both sides", nil, kem: false),
        ])
    }

    /// simplexmq `testEnableKEMStrict`.
    func testEnableAfterHandshakeStrict() throws {
        try run(.none, [
            A("hello bob", false, kem: false),
            B("hello alice", false, kem: false),
            A("enabling KEM", true, kem: false),
            A("KEM not enabled yet", true, kem: false),
            B("accepting KEM", true, kem: false),
            B("KEM not enabled yet here too", true, kem: false),
            A("KEM is still not enabled", true, kem: false),
            B("now KEM is enabled", true, kem: true),
            A("now KEM is enabled for both sides", true, kem: true),
            B("still enabled for both sides", true, kem: true),
            A("still enabled for both sides 2", true, kem: true),
            B("disabling KEM", false, kem: true),
            A("KEM not disabled yet", true, kem: true),
            B("KEM disabled", false, kem: false),
            A("KEM disabled on both sides", true, kem: false),
            B("KEM still disabled 1", false, kem: false),
            A("KEM still disabled 2", true, kem: false),
            B("KEM still disabled 3", false, kem: false),
            A("KEM still disabled 4", true, kem: false),
        ])
    }

    /// PQ support (large headers) can be turned on but never off; PQ encryption follows the flag.
    func testSupportIsSticky() throws {
        var p = try makePair(.accepted)
        let small = 2 + 124 + 16 + testPaddedLength
        try exchange(&p.alice, &p.bob, "x", pq: false)
        XCTAssertTrue(p.alice.pqSupport)
        XCTAssertFalse(p.alice.pqEncryption)
        XCTAssertGreaterThan(try encrypt(&p.alice, "still large").count, small)
    }
}
