import Foundation
import Logging
import NIOCore
import SMPServer
import SMPTransport

/// The relay a fresh client uses when no servers are configured: an SMP relay inside the
/// process on 127.0.0.1, with its identity kept under the data folder so links stay valid across
/// runs. When another local client already serves that port, its relay is used instead.
enum EmbeddedRelay {
    static let defaultPort = 5225

    /// Starts (or finds) the local relay and returns its address; the server is nil when another
    /// process runs it.
    static func start(directory: String, port: Int, group: any EventLoopGroup) async throws -> (SMPRelayServer?, SMPServerAddress) {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let credentials: ServerCredentials
        if FileManager.default.fileExists(atPath: directory + "/ca.crt") {
            credentials = try ServerCredentials.load(from: directory)
        } else {
            credentials = try ServerCredentials.generate(commonName: "127.0.0.1")
            try credentials.save(to: directory, overwrite: false)
        }
        let address = try SMPServerAddress(keyHash: credentials.keyHash, hosts: ["127.0.0.1"], port: port)
        var config = SMPServerConfig()
        config.host = "127.0.0.1"
        config.bindAddress = "127.0.0.1"
        config.port = port
        do {
            // Quiet: the person at the terminal does not need the relay's info logs.
            var logger = Logger(label: "embedded-relay")
            logger.logLevel = .warning
            let server = try await SMPRelayServer.start(config: config, credentials: credentials, dataDirectory: directory, group: group, logger: logger)
            return (server, address)
        } catch {
            // Most likely another client (sharing this data folder) already runs it on this port.
            return (nil, address)
        }
    }
}
