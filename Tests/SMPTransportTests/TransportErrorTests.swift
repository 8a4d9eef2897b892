import SMPProtocol
import SimplexFoundation
import XCTest

/// `TransportError` lives in SMPProtocol (it is nested in ERR responses); the transport relies on
/// its spec encodings, so they are pinned here too.
final class TransportErrorTests: XCTestCase {
    func testSpecEncodingsRoundTrip() throws {
        let table: [(TransportError, String)] = [
            (.block, "BLOCK"),
            (.version, "VERSION"),
            (.largeMessage, "LARGE_MSG"),
            (.session, "SESSION"),
            (.noAuth, "NO_AUTH"),
            (.handshake(.parse), "HANDSHAKE PARSE"),
            (.handshake(.identity), "HANDSHAKE IDENTITY"),
            (.handshake(.badAuth), "HANDSHAKE BAD_AUTH"),
        ]
        for (error, text) in table {
            XCTAssertEqual(String(decoding: try error.smpEncoded(), as: UTF8.self), text)
            XCTAssertEqual(try TransportError.smpDecode(Array(text.utf8)), error)
        }
    }

    func testBadEncodingsFail() {
        for text in ["", "BLOCKS", "HANDSHAKE", "HANDSHAKE FOO", "handshake PARSE", "LARGE_MSG "] {
            XCTAssertThrowsError(try TransportError.smpDecode(Array(text.utf8)), text)
        }
    }
}
