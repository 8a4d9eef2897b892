import DoubleRatchet
import SimplexFoundation
import SMPTransport
import XCTest

@testable import SMPAgent

/// simplexmq 6.5.5.0's ratchet (Crypto/Ratchet.hs) is generic over the DH algorithm, but its agent
/// only ever instantiates it with X448 (`RatchetX448`, `RcvE2ERatchetParams 'C.X448`,
/// `SndE2ERatchetParams 'C.X448` in Agent.hs and AgentStore.hs). Its parsers read any DH key
/// (`AnyE2ERatchetParams`) and then `checkAlgorithm` refuses X25519 ("bad algorithm"), in links
/// and in agent envelopes alike. These tests pin the same refusal: e2e params with X25519 keys,
/// in binary (confirmations, ratchet keys) and in a link's `e2e` parameter, do not parse.
final class X25519RatchetKeyTests: XCTestCase {
    private func x25519() -> [UInt8] { X25519PrivateKey().publicKey.x509Encoded }
    private func x448() -> [UInt8] { X448PrivateKey().publicKey.x509Encoded }

    /// `smpEncode (v, k1, k2[, kem])` with the given key encodings.
    private func params(_ v: UInt16, _ k1: [UInt8], _ k2: [UInt8]) -> [UInt8] {
        var b: [UInt8] = [UInt8(v >> 8), UInt8(v & 0xFF), UInt8(k1.count)] + k1 + [UInt8(k2.count)] + k2
        if v >= E2EVersion.pqRatchet { b.append(UInt8(ascii: "0")) }
        return b
    }

    func testBinaryE2EParamsWithX25519KeysAreRefused() throws {
        // The same bytes with X448 keys parse (the encoding itself is right).
        for v in [UInt16(2), 3] {
            let ok = try E2ERatchetParams(encoded: params(v, x448(), x448()))
            XCTAssertEqual(ok.version, v)
            XCTAssertThrowsError(try E2ERatchetParams(encoded: params(v, x25519(), x25519())), "X25519 params at v\(v)")
            XCTAssertThrowsError(try E2ERatchetParams(encoded: params(v, x448(), x25519())), "mixed algorithms at v\(v)")
        }
        // Inside an AgentConfirmation and an AgentRatchetKey envelope.
        let conf: [UInt8] = [0, 7, UInt8(ascii: "C"), UInt8(ascii: "1")] + params(3, x25519(), x25519()) + [1, 2, 3]
        XCTAssertThrowsError(try AgentMsgEnvelope.decode(conf))
        let confX448: [UInt8] = [0, 7, UInt8(ascii: "C"), UInt8(ascii: "1")] + params(3, x448(), x448()) + [1, 2, 3]
        XCTAssertNoThrow(try AgentMsgEnvelope.decode(confX448))
        let rkey: [UInt8] = [0, 7, UInt8(ascii: "R")] + params(3, x25519(), x25519()) + [4]
        XCTAssertThrowsError(try AgentMsgEnvelope.decode(rkey))
    }

    func testInvitationLinkWithX25519KeysIsRefused() throws {
        let own = try PQRatchet.generateReceiverParams(pqSupport: false)
        let queue = SMPQueueURI(server: try SMPServerAddress(keyHash: [UInt8](repeating: 1, count: 32), hosts: ["example.com"]),
                                senderId: [UInt8](repeating: 2, count: 24), clientVersions: SMPClientVersion.supported,
                                dhPublicKey: X25519PrivateKey().publicKey, senderCanSecure: true)
        let link = try ConnectionRequestURI(mode: .invitation, queues: [queue], e2eParams: E2ERatchetParamsURI(own.publicParams))
        let text = link.uriString
        XCTAssertEqual(try ConnectionRequestURI(parsing: text), link)
        // Swap the two X448 keys of `x3dh` for X25519 ones (both DER forms end in one "=" of
        // padding, which the link percent-encodes: only the part before it is replaced).
        func b64(_ b: [UInt8]) -> String { String(Base64URL.encode(b).prefix { $0 != "=" }) }
        let k1 = b64(own.publicParams.key1.x509Encoded), k2 = b64(own.publicParams.key2.x509Encoded)
        let swapped = text.replacingOccurrences(of: k1, with: b64(x25519())).replacingOccurrences(of: k2, with: b64(x25519()))
        XCTAssertNotEqual(swapped, text, "the keys must appear in the link text as encoded")
        XCTAssertThrowsError(try ConnectionRequestURI(parsing: swapped)) { e in
            guard case LinkError.invalidParameter(name: "e2e", let reason) = e, "\(reason)".contains("x3dh") else { return XCTFail("\(e)") }
        }
    }
}
