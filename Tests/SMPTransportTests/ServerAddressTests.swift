import SimplexFoundation
import XCTest

@testable import SMPTransport

final class ServerAddressTests: XCTestCase {
    let hash = [UInt8](0..<32)
    var b64: String { Base64URL.encode(hash) }
    var b64Unpadded: String { Base64URL.encode(hash, padded: false) }

    func testGoodAddressesParse() throws {
        let table: [(String, [String], Int?)] = [
            ("smp://\(b64)@smp.example.com", ["smp.example.com"], nil),
            ("smp://\(b64Unpadded)@smp.example.com", ["smp.example.com"], nil),
            ("smp://\(b64)@smp.example.com:5224", ["smp.example.com"], 5224),
            ("smp://\(b64)@a.example.com,b2vj3d.onion", ["a.example.com", "b2vj3d.onion"], nil),
            ("smp://\(b64)@a.example.com,b2vj3d.onion:443", ["a.example.com", "b2vj3d.onion"], 443),
            ("smp://\(b64)@127.0.0.1:5223", ["127.0.0.1"], 5223),
            ("smp://\(b64)@[::1]", ["[::1]"], nil),
            ("smp://\(b64)@[::1]:7000", ["[::1]"], 7000),
            ("smp://\(b64)@[fe80::1],host-1.example:1", ["[fe80::1]", "host-1.example"], 1),
        ]
        for (string, hosts, port) in table {
            let a = try SMPServerAddress(parsing: string)
            XCTAssertEqual(a.keyHash, hash, string)
            XCTAssertEqual(a.hosts, hosts, string)
            XCTAssertEqual(a.port, port, string)
            XCTAssertEqual(a.effectivePort, port ?? 5223, string)
            // Rendering is canonical (padded key hash) and parses back to the same value.
            XCTAssertEqual(try SMPServerAddress(parsing: a.description), a, string)
        }
    }

    func testRenderingMatchesSimplexmqForm() throws {
        let a = try SMPServerAddress(keyHash: hash, hosts: ["smp.example.com", "x.onion"], port: 5224)
        XCTAssertEqual(a.description, "smp://\(b64)@smp.example.com,x.onion:5224")
        XCTAssertTrue(b64.hasSuffix("="))
        let d = try SMPServerAddress(keyHash: hash, hosts: ["h"])
        XCTAssertEqual(d.description, "smp://\(b64)@h")
    }

    func testBadAddressesAreTypedErrors() {
        let table: [(String, SMPServerAddressError)] = [
            ("", .badScheme),
            ("smp:/\(b64)@h", .badScheme),
            ("xftp://\(b64)@h", .badScheme),
            ("SMP://\(b64)@h", .badScheme),
            ("smp://\(b64)", .missingHost),
            ("smp://\(b64)@", .missingHost),
            ("smp://\(b64)@a,,b", .missingHost),
            ("smp://\(b64)@a,", .missingHost),
            ("smp://@h", .badKeyHash),
            ("smp://abc!@h", .badKeyHash),
            ("smp://a@h", .badKeyHash),
            ("smp://\(b64):pass@h", .badKeyHash),
            ("smp://\(b64)@h:", .badPort),
            ("smp://\(b64)@h:0", .badPort),
            ("smp://\(b64)@h:65536", .badPort),
            ("smp://\(b64)@h:99999999999999999999", .badPort),
            ("smp://\(b64)@h:80x", .badPort),
            ("smp://\(b64)@h:-1", .badPort),
            ("smp://\(b64)@h/queue", .badHost("h/queue")),
            ("smp://\(b64)@h os", .badHost("h os")),
            ("smp://\(b64)@256.1.1.1", .badHost("256.1.1.1")),
            ("smp://\(b64)@1.2.3", .badHost("1.2.3")),
            ("smp://\(b64)@[::1", .badHost("[::1")),
            ("smp://\(b64)@[zz]", .badHost("[zz]")),
            ("smp://\(b64)@h@g", .badHost("h@g")),
            ("smp://\(b64)@.h", .badHost(".h")),
            ("smp://\(b64)@h\u{0}", .badHost("h\u{0}")),
            ("smp://\(b64)@hé", .badHost("hé")),
        ]
        for (string, expected) in table {
            XCTAssertThrowsError(try SMPServerAddress(parsing: string), string) { error in
                XCTAssertEqual(error as? SMPServerAddressError, expected, string)
            }
        }
    }

    func testInitValidates() {
        // simplexmq's KeyHash holds any bytes (short links use an empty one); only the binary
        // form's 255-byte limit applies.
        XCTAssertNoThrow(try SMPServerAddress(keyHash: [1, 2], hosts: ["h"]))
        XCTAssertThrowsError(try SMPServerAddress(keyHash: [UInt8](repeating: 1, count: 256), hosts: ["h"]))
        XCTAssertThrowsError(try SMPServerAddress(keyHash: hash, hosts: []))
        XCTAssertThrowsError(try SMPServerAddress(keyHash: hash, hosts: ["h"], port: 70000))
    }
}
