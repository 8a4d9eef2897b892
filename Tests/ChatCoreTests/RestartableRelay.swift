import Foundation
import SMPServer
import SMPTransport

/// A relay on loopback that a test stops and starts again at the same address with its queues
/// (what clients see when the relay is away for a while).
final class RestartableRelay: @unchecked Sendable {
    private(set) var relay: SMPRelayServer
    /// Its address for the clients' config.
    let server: String
    private var config = SMPServerConfig()
    private let credentials: ServerCredentials
    private let dataDirectory: String

    init(dir: String) async throws {
        dataDirectory = dir + "/relay"
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        config.port = 0
        config.host = "127.0.0.1"
        credentials = try ServerCredentials.generate(commonName: "127.0.0.1")
        relay = try await SMPRelayServer.start(config: config, credentials: credentials, dataDirectory: dataDirectory, group: flowGroup)
        config.port = relay.port
        server = try SMPServerAddress(keyHash: credentials.keyHash, hosts: ["127.0.0.1"], port: relay.port).description
    }

    func stop() async { await relay.shutdown() }

    func start() async throws {
        relay = try await SMPRelayServer.start(config: config, credentials: credentials, dataDirectory: dataDirectory, group: flowGroup)
    }
}
