import Foundation
import Logging
import NIOCore
import NIOPosix
import SMPServer
import SMPTransport

/// The relay a fresh client uses when no servers are configured: an SMP relay inside the
/// process on 127.0.0.1, with its identity kept in one folder per port so every local client
/// agrees on it and links stay valid across runs. Clients started at the same moment race for
/// it, so creation and ownership go through file locks: one identity, one relay.
final class EmbeddedRelay: Sendable {
    static let defaultPort = 5225

    /// The relay when this process runs it; nil when another local client does.
    let server: SMPRelayServer?
    let address: SMPServerAddress
    /// Held open (with its exclusive lock) while this process owns the relay.
    private let ownerLock: Int32

    private init(server: SMPRelayServer?, address: SMPServerAddress, ownerLock: Int32) {
        self.server = server
        self.address = address
        self.ownerLock = ownerLock
    }

    /// The default folder: per user and port, independent of the database prefix, so clients
    /// started with different `-d` folders still share one relay identity.
    static func defaultDirectory(port: Int) -> String {
        let base = NSHomeDirectory() + "/.simplex"
        return port == defaultPort ? base + "/embedded-relay" : base + "/embedded-relay-\(port)"
    }

    /// Starts the local relay, or finds the one another local client runs.
    static func start(directory: String, port: Int, group: any EventLoopGroup) async throws -> EmbeddedRelay {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let credentials = try withFileLock(directory + "/identity.lock") { () throws -> ServerCredentials in
            if FileManager.default.fileExists(atPath: directory + "/ca.crt") {
                return try ServerCredentials.load(from: directory)
            }
            let c = try ServerCredentials.generate(commonName: "127.0.0.1")
            try c.save(to: directory, overwrite: false)
            return c
        }
        let address = try SMPServerAddress(keyHash: credentials.keyHash, hosts: ["127.0.0.1"], port: port)

        // Only the owner of relay.lock opens the relay's store log and binds the port.
        let fd = open(directory + "/relay.lock", O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw EmbeddedRelayError.lockFailed(directory, errno) }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            close(fd)
            try await waitForListener(port: port, group: group)
            return EmbeddedRelay(server: nil, address: address, ownerLock: -1)
        }
        var config = SMPServerConfig()
        config.host = "127.0.0.1"
        config.bindAddress = "127.0.0.1"
        config.port = port
        // Quiet: the person at the terminal does not need the relay's info logs.
        var logger = Logger(label: "embedded-relay")
        logger.logLevel = .warning
        do {
            let server = try await SMPRelayServer.start(
                config: config, credentials: credentials, dataDirectory: directory, group: group, logger: logger)
            return EmbeddedRelay(server: server, address: address, ownerLock: fd)
        } catch {
            close(fd)
            throw EmbeddedRelayError.cannotStart(port, "\(error)")
        }
    }

    func shutdown() async {
        await server?.shutdown()
        if ownerLock >= 0 { close(ownerLock) }
    }

    /// Waits (up to 15 s) until the owner's relay accepts connections on the port.
    private static func waitForListener(port: Int, group: any EventLoopGroup) async throws {
        let deadline = Date().addingTimeInterval(15)
        while true {
            do {
                let ch = try await ClientBootstrap(group: group).connect(host: "127.0.0.1", port: port).get()
                try? await ch.close()
                return
            } catch {
                if Date() > deadline { throw EmbeddedRelayError.notListening(port) }
                try await Task.sleep(nanoseconds: 100_000_000)
            }
        }
    }

    private static func withFileLock<T>(_ path: String, _ body: () throws -> T) throws -> T {
        let fd = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw EmbeddedRelayError.lockFailed(path, errno) }
        defer { close(fd) }
        guard flock(fd, LOCK_EX) == 0 else { throw EmbeddedRelayError.lockFailed(path, errno) }
        return try body()
    }
}

enum EmbeddedRelayError: Error, CustomStringConvertible {
    case lockFailed(String, Int32)
    case cannotStart(Int, String)
    case notListening(Int)

    var description: String {
        switch self {
        case .lockFailed(let p, let e): "cannot lock \(p): \(String(cString: strerror(e)))"
        case .cannotStart(let port, let why):
            "cannot start the local relay on 127.0.0.1:\(port) (\(why)); is another program using the port? Use --relay-port or -s SERVER"
        case .notListening(let port):
            "another local client owns the relay but nothing accepts connections on 127.0.0.1:\(port); stop it or use --relay-port"
        }
    }
}
