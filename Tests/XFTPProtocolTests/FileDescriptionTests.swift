import SimplexFoundation
import XCTest
@testable import XFTPProtocol

/// File descriptions: the reference's YAML byte for byte, parsing with the reference's checks,
/// and description links.
final class FileDescriptionTests: XCTestCase {
    /// simplexmq tests/fixtures/file_description.yaml (the upstream FileDescriptionTests value).
    static let fixture = """
    chunkSize: 8mb
    digest: YWJj
    key: 00n8p1tJq5E-SGnHcYTOrS4A9I07gTA_WFD6MTFFFOY=
    nonce: dPSF-wrQpDiK_K6sYv0BDBZ9S4dg-jmu
    party: recipient
    replicas:
    - chunks:
      - 1:YWJj:MC4CAQAwBQYDK2VwBCIEIDfEfevydXXfKajz3sRkcQ7RPvfWUPoq6pu1TYHV1DEe:Z2hp
      - 3:YWJj:MC4CAQAwBQYDK2VwBCIEIDfEfevydXXfKajz3sRkcQ7RPvfWUPoq6pu1TYHV1DEe:Z2hp
      server: xftp://abc=@example1.com
    - chunks:
      - 2:YWJj:MC4CAQAwBQYDK2VwBCIEIDfEfevydXXfKajz3sRkcQ7RPvfWUPoq6pu1TYHV1DEe:Z2hp
      - 4:YWJj:MC4CAQAwBQYDK2VwBCIEIDfEfevydXXfKajz3sRkcQ7RPvfWUPoq6pu1TYHV1DEe:Z2hp:2mb
      server: xftp://abc=@example2.com
    - chunks:
      - 1:YWJj:MC4CAQAwBQYDK2VwBCIEIDfEfevydXXfKajz3sRkcQ7RPvfWUPoq6pu1TYHV1DEe
      - 4:YWJj:MC4CAQAwBQYDK2VwBCIEIDfEfevydXXfKajz3sRkcQ7RPvfWUPoq6pu1TYHV1DEe
      server: xftp://abc=@example3.com
    - chunks:
      - 2:YWJj:MC4CAQAwBQYDK2VwBCIEIDfEfevydXXfKajz3sRkcQ7RPvfWUPoq6pu1TYHV1DEe
      - 3:YWJj:MC4CAQAwBQYDK2VwBCIEIDfEfevydXXfKajz3sRkcQ7RPvfWUPoq6pu1TYHV1DEe
      server: xftp://abc=@example4.com
    size: 26mb

    """

    func testFixtureRoundTrip() throws {
        let fd = try FileDescription(yaml: Self.fixture)
        try fd.validate()
        XCTAssertEqual(fd.party, .recipient)
        XCTAssertEqual(fd.size, 26 * 1024 * 1024)
        XCTAssertEqual(fd.chunks.count, 4)
        XCTAssertEqual(fd.chunks[3].chunkSize, 2 * 1024 * 1024)
        XCTAssertEqual(fd.chunks[0].replicas.map(\.server.description), ["xftp://abc=@example1.com", "xftp://abc=@example3.com"])
        XCTAssertEqual(fd.yaml, Self.fixture)
    }

    func testServersAreGroupedInSortedOrder() throws {
        let key = AnyPrivateKey.ed25519(Ed25519PrivateKey())
        let s = ["xftp://AAAA@b.example.com", "xftp://AAAA@a.example.com", "xftp://AAAA@10.0.0.1:5443"].map { XFTPServerAddress(parsing: $0)! }
        let chunks = (1...3).map { n in
            FileChunk(chunkNo: n, chunkSize: n == 3 ? 1000 : 65536, digest: CryptoHash.sha256([UInt8(n)]),
                      replicas: [FileChunkReplica(server: s[n - 1], replicaId: [UInt8(n)], replicaKey: key)])
        }
        let fd = FileDescription(party: .sender, size: 2 * 65536 + 1000, digest: SecureRandom.bytes(64), key: SecureRandom.bytes(32),
                                 nonce: SecureRandom.bytes(24), chunkSize: 65536, chunks: chunks)
        let y = fd.yaml
        // IPv4 hosts sort before domain names, domains by name.
        let order = ["10.0.0.1", "a.example.com", "b.example.com"].map { y.range(of: $0)!.lowerBound }
        XCTAssertEqual(order, order.sorted())
        XCTAssertTrue(y.contains(":1000\n"), "odd chunk size in bytes")
        XCTAssertTrue(y.hasSuffix("size: '132072'\n"), "a byte count looks like a number, so Data.Yaml quotes it")
        let back = try FileDescription(yaml: y)
        XCTAssertEqual(back, fd)
        XCTAssertEqual(back.yaml, y)
    }

    func testScalarQuotingFollowsDataYaml() {
        XCTAssertEqual(YAMLWriter.scalar("300"), "'300'")
        XCTAssertEqual(YAMLWriter.scalar("1e5"), "'1e5'")
        XCTAssertEqual(YAMLWriter.scalar("-12"), "'-12'")
        XCTAssertEqual(YAMLWriter.scalar("8mb"), "8mb")
        XCTAssertEqual(YAMLWriter.scalar("yes"), "'yes'")
        XCTAssertEqual(YAMLWriter.scalar("-abc_="), "-abc_=")
        XCTAssertEqual(YAMLWriter.scalar(""), "''")
        XCTAssertEqual(YAMLWriter.scalar("a: b"), "'a: b'")
        XCTAssertEqual(YAMLWriter.scalar("@x"), "'@x'")
        XCTAssertEqual(YAMLWriter.scalar("it's #1"), "'it''s #1'")
        XCTAssertEqual(try YAMLReader.parse("a: 'it''s #1' # c\nb: \"x\\ty\"\n"),
                       .mapping([("a", .scalar("it's #1", quoted: true)), ("b", .scalar("x\ty", quoted: true))]))
    }

    func testBadDescriptionsAreRejected() throws {
        let bad: [String] = [
            "", "party: recipient\n", "::::\n", "- a\n- b\n",
            Self.fixture.replacingOccurrences(of: "party: recipient", with: "party: nobody"),
            Self.fixture.replacingOccurrences(of: ":Z2hp:2mb", with: ":Z2hp:2zb"),
            Self.fixture.replacingOccurrences(of: "1:YWJj:MC4CAQ", with: "x:YWJj:MC4CAQ"),
            Self.fixture.replacingOccurrences(of: "xftp://abc=@example1.com", with: "smp://abc=@example1.com"),
            Self.fixture.replacingOccurrences(of: "xftp://abc=@example1.com", with: "xftp://abc=:pass@example1.com"),
            Self.fixture.replacingOccurrences(of: "key: 00n8p1tJq5E-SGnHcYTOrS4A9I07gTA_WFD6MTFFFOY=", with: "key: YWJj"),
            // Two replicas of chunk 1 with different digests.
            Self.fixture.replacingOccurrences(of: "  - 1:YWJj:MC4CAQAwBQYDK2VwBCIEIDfEfevydXXfKajz3sRkcQ7RPvfWUPoq6pu1TYHV1DEe\n",
                                              with: "  - 1:YWJj:MC4CAQAwBQYDK2VwBCIEIDfEfevydXXfKajz3sRkcQ7RPvfWUPoq6pu1TYHV1DEe:YWJj\n"),
        ]
        for b in bad { XCTAssertThrowsError(try FileDescription(yaml: b), b) }
        // Parses, but does not validate: a chunk missing.
        let gap = try FileDescription(yaml: Self.fixture.replacingOccurrences(of: "size: 26mb", with: "size: 27mb"))
        XCTAssertThrowsError(try gap.validate())
        // Random text never traps.
        for _ in 0..<300 {
            var t = Array(Self.fixture.utf8)
            for _ in 0..<5 { t[Int.random(in: 0..<t.count)] = UInt8.random(in: 0x20...0x7E) }
            _ = try? FileDescription(yaml: String(decoding: t, as: UTF8.self))
        }
    }

    func testDescriptionURI() throws {
        let fd = try FileDescription(yaml: Self.fixture)
        let uri = FileDescriptionURI(description: fd, clientData: "{\"a\":1}")
        let s = uri.uri
        XCTAssertTrue(s.hasPrefix("simplex:/file#/?desc=chunkSize%3A%208mb%0Adigest%3A%20YWJj%0A"))
        XCTAssertTrue(s.hasSuffix("&data=%7B%22a%22%3A1%7D"))
        XCTAssertEqual(try FileDescriptionURI(parsing: s), uri)
        let https = FileDescriptionURI(scheme: .appServer(host: "simplex.chat", port: ""), description: fd)
        XCTAssertEqual(try FileDescriptionURI(parsing: https.uri), https)
        // A sender description is not a link.
        var sender = fd
        sender.party = .sender
        XCTAssertThrowsError(try FileDescriptionURI(parsing: FileDescriptionURI(description: sender).uri))
        XCTAssertThrowsError(try FileDescriptionURI(parsing: "simplex:/file#/?data=x"))
    }

    func testServerAddresses() {
        for s in ["xftp://abc=@example1.com", "xftp://AAAA@a.example.com,b.onion:5443", "xftp://AAAA:pw@1.2.3.4"] {
            XCTAssertEqual(XFTPServerAddress(parsing: s)?.description, s)
        }
        XCTAssertNil(XFTPServerAddress(parsing: "xftp://AAAA:pw@1.2.3.4", allowAuth: false))
        XCTAssertNil(XFTPServerAddress(parsing: "xftp://AAAA@"))
        XCTAssertNil(XFTPServerAddress(parsing: "xftp://AAAA@a/b"))
        XCTAssertNil(XFTPServerAddress(parsing: "xftp://A*A@a"))
    }
}
