import XCTest
import Foundation
@testable import SimplexFoundation

// TEMPORARY local cross-check against libsodium output; not to be committed.
final class CryptoSodiumCrossCheckTests: XCTestCase {
    func testAgainstLibsodium() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: "/tmp/sodium_vectors.json"))
        let vs = try JSONSerialization.jsonObject(with: data) as! [[String: String]]
        var n = 0
        for v in vs {
            if !v["key"]!.isEmpty {
                let c = try SecretBox.seal(key: cryptoHex(v["key"]!), nonce: cryptoHex(v["nonce"]!), plaintext: cryptoHex(v["m"]!))
                XCTAssertEqual(c, cryptoHex(v["c"]!), "secretbox len \(v["m"]!.count / 2)")
                let m = try SecretBox.open(key: cryptoHex(v["key"]!), nonce: cryptoHex(v["nonce"]!), box: c)
                XCTAssertEqual(m, cryptoHex(v["m"]!))
            }
            let t = try Poly1305.authenticate(key: cryptoHex(v["pk"]!), message: cryptoHex(v["pm"]!))
            XCTAssertEqual(t, cryptoHex(v["tag"]!), "poly1305 len \(v["pm"]!.count / 2) key \(v["pk"]!)")
            n += 1
        }
        print("cross-checked \(n) vectors")
    }
}
