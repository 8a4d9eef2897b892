import CSimplexTLS
import XCTest

@testable import SMPTransport

/// The server's own TLS 1.3 record layer (sxtls_conn_offload) against OpenSSL's client, with the
/// two connections joined in memory: every byte one writes is fed to the other.
final class RecordLayerTests: XCTestCase {
    final class Pair {
        let memory: TLSMemoryPair
        var server: OpaquePointer { memory.server }
        var client: OpaquePointer { memory.client }

        init(configure: (inout TLSConfiguration) -> Void = { _ in }) throws {
            var config = TLSConfiguration.smp
            configure(&config)
            memory = try TLSMemoryPair(credentials: sharedCredentials, clientConfiguration: config)
        }

        /// Moves what `from` has to send into `to`; returns the bytes moved.
        @discardableResult
        func pump(_ from: OpaquePointer, _ to: OpaquePointer, tamper: ((inout [UInt8]) -> Void)? = nil) -> Int {
            memory.pump(from, to, tamper: tamper)
        }

        func handshake() {
            XCTAssertNoThrow(try memory.handshake())
        }

        /// All plaintext `conn` can read now, and the last read's result (0: needs more input).
        func readAll(_ conn: OpaquePointer) -> ([UInt8], Int32) {
            var out: [UInt8] = []
            var buf = [UInt8](repeating: 0, count: 16 * 1024 + 512)
            while true {
                let r = sxtls_conn_read(conn, &buf, buf.count)
                if r <= 0 { return (out, r) }
                out += buf[0..<Int(r)]
            }
        }

        func send(_ from: OpaquePointer, _ to: OpaquePointer, _ bytes: [UInt8]) -> [UInt8] {
            XCTAssertEqual(sxtls_conn_write(from, bytes, bytes.count), Int32(bytes.count))
            pump(from, to)
            let (got, last) = readAll(to)
            XCTAssertEqual(last, 0)
            return got
        }
    }

    static func bytes(_ n: Int, seed: UInt8) -> [UInt8] { (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 31) &+ seed } }

    func testServerRecordsAfterOffloadAreReadByOpenSSLBothWays() throws {
        let p = try Pair()
        p.handshake()
        XCTAssertEqual(sxtls_conn_offload(p.server), 1)
        XCTAssertEqual(sxtls_conn_offloaded(p.server), 1)
        XCTAssertEqual(sxtls_conn_offloaded(p.client), 0)
        // One SMP block, several blocks (records of at most 16 KiB) and a short message, each way.
        for size in [16384, 3 * 16384 + 100, 1, 7000] {
            let a = Self.bytes(size, seed: 1), b = Self.bytes(size, seed: 2)
            XCTAssertEqual(p.send(p.client, p.server, a), a, "client -> server, \(size) bytes")
            XCTAssertEqual(p.send(p.server, p.client, b), b, "server -> client, \(size) bytes")
        }
        // Two writes before one feed: both records arrive in one read loop, cut anywhere.
        let a = Self.bytes(20000, seed: 3)
        XCTAssertEqual(sxtls_conn_write(p.client, a, a.count), Int32(a.count))
        var wire = [UInt8](repeating: 0, count: sxtls_conn_pending(p.client))
        _ = sxtls_conn_drain(p.client, &wire, wire.count)
        var received: [UInt8] = []
        for chunk in stride(from: 0, to: wire.count, by: 777) {
            let piece = Array(wire[chunk..<min(chunk + 777, wire.count)])
            XCTAssertEqual(Int(sxtls_conn_feed(p.server, piece, piece.count)), piece.count)
            let (got, last) = p.readAll(p.server)
            XCTAssertEqual(last, 0)
            received += got
        }
        XCTAssertEqual(received, a)
        sxtls_conn_compact(p.server)
        XCTAssertEqual(sxtls_conn_pending(p.server), 0)
    }

    func testKeyUpdatesFromTheClientAreFollowed() throws {
        let p = try Pair()
        p.handshake()
        XCTAssertEqual(sxtls_conn_offload(p.server), 1)
        // Not requested: only the client's sending keys change.
        XCTAssertEqual(sxtls_conn_key_update(p.client, 0), 1)
        let a = Self.bytes(5000, seed: 4)
        XCTAssertEqual(p.send(p.client, p.server, a), a)
        XCTAssertEqual(p.send(p.server, p.client, a), a)
        // Requested: the server answers with its own KeyUpdate and switches its keys too.
        XCTAssertEqual(sxtls_conn_key_update(p.client, 1), 1)
        let b = Self.bytes(300, seed: 5)
        XCTAssertEqual(p.send(p.client, p.server, b), b)
        XCTAssertGreaterThan(sxtls_conn_pending(p.server), 0, "the server's KeyUpdate")
        XCTAssertEqual(p.send(p.server, p.client, b), b)
        XCTAssertEqual(p.send(p.client, p.server, b), b)
        // And again, both ways, several generations on.
        for i in 0..<3 {
            XCTAssertEqual(sxtls_conn_key_update(p.client, 1), 1)
            let c = Self.bytes(100 + i, seed: UInt8(6 + i))
            XCTAssertEqual(p.send(p.client, p.server, c), c)
            XCTAssertEqual(p.send(p.server, p.client, c), c)
        }
    }

    func testCloseNotifyBothWays() throws {
        let p = try Pair()
        p.handshake()
        XCTAssertEqual(sxtls_conn_offload(p.server), 1)
        sxtls_conn_shutdown(p.client)
        p.pump(p.client, p.server)
        XCTAssertEqual(p.readAll(p.server).1, -2)

        let q = try Pair()
        q.handshake()
        XCTAssertEqual(sxtls_conn_offload(q.server), 1)
        sxtls_conn_shutdown(q.server)
        q.pump(q.server, q.client)
        XCTAssertEqual(q.readAll(q.client).1, -2)
    }

    func testTamperedOrMalformedRecordsAreErrorsNotCrashes() throws {
        // A flipped ciphertext bit, a flipped tag bit, a wrong record type, an oversized length,
        // a record too short for its tag: each read fails with an error, never more.
        let tampers: [(String, (inout [UInt8]) -> Void)] = [
            ("ciphertext", { $0[10] ^= 1 }),
            ("tag", { $0[$0.count - 1] ^= 0x80 }),
            ("type", { $0[0] = 22 }),
            ("length", { $0[3] = 0x50 }),
            ("short", { $0 = [23, 3, 3, 0, 5, 1, 2, 3, 4, 5] }),
        ]
        for (name, tamper) in tampers {
            let p = try Pair()
            p.handshake()
            XCTAssertEqual(sxtls_conn_offload(p.server), 1)
            let a = Self.bytes(1000, seed: 9)
            XCTAssertEqual(sxtls_conn_write(p.client, a, a.count), Int32(a.count))
            p.pump(p.client, p.server, tamper: tamper)
            let (got, last) = p.readAll(p.server)
            XCTAssertEqual(got, [], name)
            XCTAssertEqual(last, -1, name)
            XCTAssertFalse(String(cString: sxtls_conn_error(p.server)).isEmpty, name)
        }
    }

    func testClientRecordLayerAgainstOpenSSLServerAndBothOffloaded() throws {
        // The client's own record layer with OpenSSL's server: data, and KeyUpdates the server sends.
        let p = try Pair()
        p.handshake()
        XCTAssertEqual(sxtls_conn_offload(p.client), 1)
        for size in [16384, 40000, 1] {
            let a = Self.bytes(size, seed: 11)
            XCTAssertEqual(p.send(p.client, p.server, a), a)
            XCTAssertEqual(p.send(p.server, p.client, a), a)
        }
        XCTAssertEqual(sxtls_conn_key_update(p.server, 1), 1)
        let b = Self.bytes(500, seed: 12)
        XCTAssertEqual(p.send(p.server, p.client, b), b)
        XCTAssertEqual(p.send(p.client, p.server, b), b)
        XCTAssertEqual(p.send(p.server, p.client, b), b)
        XCTAssertEqual(sxtls_conn_has_ticket(p.client), 0)

        // Both sides offloaded: neither uses OpenSSL after the handshake.
        let q = try Pair()
        q.handshake()
        XCTAssertEqual(sxtls_conn_offload(q.server), 1)
        XCTAssertEqual(sxtls_conn_offload(q.client), 1)
        for size in [16384, 3 * 16384, 2] {
            let a = Self.bytes(size, seed: 13)
            XCTAssertEqual(q.send(q.client, q.server, a), a)
            XCTAssertEqual(q.send(q.server, q.client, a), a)
        }
        sxtls_conn_shutdown(q.client)
        q.pump(q.client, q.server)
        XCTAssertEqual(q.readAll(q.server).1, -2)
    }

    func testTLS12StaysWithOpenSSL() throws {
        let p = try Pair { $0.maximumVersion = .tls12 }
        p.handshake()
        XCTAssertEqual(sxtls_conn_offload(p.server), 0)
        XCTAssertEqual(sxtls_conn_offload(p.client), 0)
        let a = Self.bytes(2000, seed: 7)
        XCTAssertEqual(p.send(p.client, p.server, a), a)
        XCTAssertEqual(p.send(p.server, p.client, a), a)
    }
}
