import XCTest
@testable import DoubleRatchet
import SimplexFoundation

/// How the handshake used the KEM (the four set-ups of simplexmq's DoubleRatchetTests).
enum KEMSetup: CaseIterable {
    /// Neither side proposes.
    case none
    /// Bob (creator) does not propose, Alice proposes in her reply.
    case proposedInReply
    /// Bob proposes, Alice accepts: the first ratchet step is already PQ.
    case accepted
    /// Bob proposes, Alice proposes again instead of accepting.
    case proposedAgain
}

/// A conversation: Alice joined (sender-initialised ratchet), Bob created the connection.
struct Pair {
    var alice: PQRatchet
    var bob: PQRatchet
}

let testPaddedLength = 100

func hex(_ s: String) -> [UInt8] {
    var out: [UInt8] = []
    var it = s.makeIterator()
    while let a = it.next(), let b = it.next() { out.append(UInt8(String([a, b]), radix: 16)!) }
    return out
}

func toHex(_ b: [UInt8]) -> String { b.map { String(format: "%02x", $0) }.joined() }

/// Runs the handshake as the agent does: Bob's invitation params, Alice's reply, both ratchets.
func makePair(_ setup: KEMSetup, versions: RatchetVersions = .latest) throws -> Pair {
    let bobPQ = setup == .accepted || setup == .proposedAgain
    let bobOwn = try PQRatchet.generateReceiverParams(version: versions.current, pqSupport: bobPQ)
    let bobParams = try E2ERatchetParams(encoded: bobOwn.publicParams.encoded())
    let useKEM: UseKEM? = switch setup {
    case .none: nil
    case .proposedInReply, .proposedAgain: .propose
    case .accepted: UseKEM.reply(version: bobParams.version, peerKEM: bobParams.kem, pqSupport: true)
    }
    let aliceOwn = try PQRatchet.generateParams(version: bobParams.version, useKEM: useKEM)
    let alice = try PQRatchet.initSend(versions: versions, own: aliceOwn, peer: bobParams)
    let aliceParams = try E2ERatchetParams(encoded: aliceOwn.publicParams.encoded())
    let bob = try PQRatchet.initReceive(versions: versions, own: bobOwn, peer: aliceParams, pqSupport: setup != .none)
    return Pair(alice: alice, bob: bob)
}

/// Encrypts with `sender`, checks the size, round-trips both states through `serialized()`, and
/// decrypts with `receiver`; `kem` (when given) is the expected PQ state of this message's chain.
func exchange(
    _ sender: inout PQRatchet, _ receiver: inout PQRatchet, _ text: String, pq: Bool? = nil, kem: Bool? = nil,
    file: StaticString = #filePath, line: UInt = #line
) throws {
    XCTAssertEqual(try PQRatchet(serialized: sender.serialized()), sender, "sender state round trip", file: file, line: line)
    XCTAssertEqual(try PQRatchet(serialized: receiver.serialized()), receiver, "receiver state round trip", file: file, line: line)
    let msg = try sender.encrypt(Array(text.utf8), paddedLength: testPaddedLength, pqEnable: pq)
    XCTAssertEqual(msg.count, sender.encryptedLength(paddedLength: testPaddedLength), "message size", file: file, line: line)
    let plain = try receiver.decrypt(msg)
    XCTAssertEqual(String(decoding: plain, as: UTF8.self), text, file: file, line: line)
    if let kem {
        XCTAssertEqual(sender.sendingPQ, kem, "sender's chain PQ for \"\(text)\"", file: file, line: line)
        XCTAssertEqual(receiver.receivingPQ, kem, "receiver's chain PQ for \"\(text)\"", file: file, line: line)
    }
}

func encrypt(_ r: inout PQRatchet, _ text: String, pq: Bool? = nil) throws -> [UInt8] {
    try r.encrypt(Array(text.utf8), paddedLength: testPaddedLength, pqEnable: pq)
}

func decryptText(_ r: inout PQRatchet, _ msg: [UInt8]) throws -> String {
    String(decoding: try r.decrypt(msg), as: UTF8.self)
}

/// Asserts that decrypting fails with `expected` (any error when nil) and leaves the state as it was.
func assertRejects(
    _ r: inout PQRatchet, _ msg: [UInt8], _ expected: RatchetError? = nil, _ what: @autoclosure () -> String = "",
    file: StaticString = #filePath, line: UInt = #line
) {
    let before = r
    do {
        _ = try r.decrypt(msg)
        XCTFail("accepted \(what())", file: file, line: line)
    } catch {
        if let expected { XCTAssertEqual(error, expected, what(), file: file, line: line) }
    }
    XCTAssertTrue(r == before, "state changed by a rejected message \(what())", file: file, line: line)
}

extension [UInt8] {
    func contains(subsequence s: [UInt8]) -> Bool {
        guard !s.isEmpty, s.count <= count else { return s.isEmpty }
        let first = s[0]
        var i = 0
        while i + s.count <= count {
            if self[i] == first, self[i..<(i + s.count)].elementsEqual(s) { return true }
            i += 1
        }
        return false
    }
}
