import Crypto
import Foundation
import NIOPosix
import SMPTransport
import SimplexFoundation
import XCTest
import XFTPClient
import XFTPProtocol
import XFTPServer

/// A real XFTP server in-process on loopback (TLS + HTTP/2) over chunk files in a temporary folder.
final class XFTPTestServer: @unchecked Sendable {
    let dir: String
    let credentials: ServerCredentials
    let core: XFTPServerCore
    private(set) var server: XFTPTransportServer
    private(set) var port = 0
    let group: MultiThreadedEventLoopGroup

    let transport: XFTPTransportServer.Configuration

    init(dir: String, streamWindow: Int? = nil, configure: (inout XFTPServerConfig) -> Void = { _ in },
         now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }) async throws {
        self.dir = dir
        var transport = XFTPTransportServer.Configuration()
        if let streamWindow { transport.streamWindow = streamWindow }
        self.transport = transport
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        var config = XFTPServerConfig()
        config.filesPath = dir + "/files"
        configure(&config)
        credentials = try ServerCredentials.generate(commonName: "127.0.0.1")
        core = try XFTPServerCore(config: config, store: try FileStore(logPath: dir + "/store.log", fsync: false), now: now)
        group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        server = try await XFTPTransportServer.start(core: core, credentials: credentials, host: "127.0.0.1", port: 0,
                                                     configuration: transport, group: group)
        port = server.port
    }

    /// Stops listening (and drops connections); the store stays.
    func pause() async { await server.shutdown() }

    /// Listens again on the same port with the same store and identity.
    func resume() async throws {
        server = try await XFTPTransportServer.start(core: core, credentials: credentials, host: "127.0.0.1", port: port,
                                                     configuration: transport, group: group)
    }

    var address: XFTPServerAddress {
        XFTPServerAddress(keyHash: credentials.keyHash, hosts: [.ipv4(127, 0, 0, 1)], port: String(port))
    }

    func connect(config: XFTPClientConfig = XFTPClientConfig()) async throws -> XFTPClientSession {
        try await XFTPClientSession.connect(to: address, config: config, group: group)
    }

    func stop() async {
        await server.shutdown()
        try? await group.shutdownGracefully()
    }
}

/// A temporary folder per test.
func makeTempDir(_ prefix: String) -> String {
    let d = NSTemporaryDirectory() + prefix + "-" + UUID().uuidString
    try? FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
    return d
}

/// Writes `n` random bytes to `path` and returns them.
@discardableResult
func writeRandom(_ path: String, _ n: Int) throws -> [UInt8] {
    let bytes = SecureRandom.bytes(n)
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    return bytes
}

/// A chunk registered on a test server (FNEW): its keys, its IDs and its bytes, kept at `path`.
struct RegisteredChunk {
    let sKey: AnyPrivateKey
    let rKey: AnyPrivateKey
    let sid: [UInt8]
    let rid: [UInt8]
    let path: String
    let bytes: [UInt8]
    var spec: XFTPChunkSpec { XFTPChunkSpec(path: path, offset: 0, size: UInt32(bytes.count)) }
    var digest: [UInt8] { Array(SHA256.hash(data: bytes)) }
}
