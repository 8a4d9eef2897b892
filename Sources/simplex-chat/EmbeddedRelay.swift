import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import SMPServer
import SMPTransport
import XFTPProtocol
import XFTPServer

/// The relay a fresh client uses when no servers are configured: an SMP relay inside the
/// process on 127.0.0.1, and an XFTP server for files on the next port (so two people on a fresh
/// machine send files with no set-up), with their identity kept in one folder per port so every local client
/// agrees on it and links stay valid across runs. Clients started at the same moment race for
/// it, so creation and ownership go through file locks: one identity, one relay. A client that
/// does not own the relay waits for the owner's lock, and takes the relay over (same identity,
/// same store log) when the owner exits, so the other local clients keep a relay.
final class EmbeddedRelay: Sendable {
    static let defaultPort = 5225

    private enum State {
        /// Another local client runs the relay; this one waits on relay.lock to take over.
        case waiting
        case running(SMPRelayServer, XFTPTransportServer)
        case closed
    }

    let address: SMPServerAddress
    /// The XFTP server's address: the same identity, on `port + 1`.
    let xftpAddress: XFTPServerAddress
    private let directory: String
    private let port: Int
    private let credentials: ServerCredentials
    private let group: any EventLoopGroup
    /// relay.lock, held open (and locked once owned) for the life of the process.
    private let lockFD: Int32
    private let state: NIOLockedValueBox<State>

    private init(address: SMPServerAddress, directory: String, port: Int, credentials: ServerCredentials,
                 group: any EventLoopGroup, lockFD: Int32, state: State) {
        self.address = address
        xftpAddress = XFTPServerAddress(keyHash: credentials.keyHash, hosts: [.domain("127.0.0.1")], port: String(port + 1))
        self.directory = directory
        self.port = port
        self.credentials = credentials
        self.group = group
        self.lockFD = lockFD
        self.state = NIOLockedValueBox(state)
    }

    /// True while this process runs the relay (from the start, or after taking it over).
    var isOwner: Bool {
        state.withLockedValue { if case .running = $0 { true } else { false } }
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
            do {
                try await waitForListener(port: port, group: group)
            } catch {
                close(fd)
                throw error
            }
            let relay = EmbeddedRelay(address: address, directory: directory, port: port, credentials: credentials,
                                      group: group, lockFD: fd, state: .waiting)
            relay.awaitTakeover()
            return relay
        }
        do {
            let (server, files) = try await startServer(directory: directory, port: port, credentials: credentials, group: group)
            return EmbeddedRelay(address: address, directory: directory, port: port, credentials: credentials,
                                 group: group, lockFD: fd, state: .running(server, files))
        } catch {
            close(fd)
            throw EmbeddedRelayError.cannotStart(port, "\(error)")
        }
    }

    private static func startServer(directory: String, port: Int, credentials: ServerCredentials,
                                    group: any EventLoopGroup) async throws -> (SMPRelayServer, XFTPTransportServer) {
        var config = SMPServerConfig()
        config.host = "127.0.0.1"
        config.bindAddress = "127.0.0.1"
        config.port = port
        // Quiet: the person at the terminal does not need the relay's info logs.
        var logger = Logger(label: "embedded-relay")
        logger.logLevel = .warning
        let relay = try await SMPRelayServer.start(
            config: config, credentials: credentials, dataDirectory: directory, group: group, logger: logger)
        do {
            return (relay, try await startFileServer(directory: directory, port: port + 1, credentials: credentials, group: group))
        } catch {
            await relay.shutdown()
            throw error
        }
    }

    /// The XFTP server: chunks and its store log under `<directory>/xftp`, the reference's
    /// defaults otherwise (48-hour expiry, no quota: it is the user's own disk).
    private static func startFileServer(directory: String, port: Int, credentials: ServerCredentials,
                                        group: any EventLoopGroup) async throws -> XFTPTransportServer {
        var config = XFTPServerConfig()
        config.host = "127.0.0.1"
        config.bindAddress = "127.0.0.1"
        config.port = port
        config.filesPath = directory + "/xftp/files"
        try FileManager.default.createDirectory(atPath: config.filesPath, withIntermediateDirectories: true)
        let core = try XFTPServerCore.open(config: config, dataDirectory: directory + "/xftp")
        core.expireFiles()
        return try await XFTPTransportServer.start(core: core, credentials: credentials, host: config.bindAddress, port: port, group: group)
    }

    /// Blocks a thread of its own on relay.lock (flock has no async form); once the owner has
    /// exited the lock is ours and the relay starts here, retrying while the port is still bound.
    private func awaitTakeover() {
        let fd = lockFD
        let thread = Thread { [self] in
            while flock(fd, LOCK_EX) != 0 {
                if errno != EINTR { return }
            }
            Task { await self.takeOver() }
        }
        thread.name = "embedded-relay-takeover"
        thread.start()
    }

    private func takeOver() async {
        for _ in 0..<50 {
            guard case .waiting = state.withLockedValue({ $0 }) else { return }
            do {
                let (server, files) = try await Self.startServer(directory: directory, port: port, credentials: credentials, group: group)
                let kept = state.withLockedValue { s -> Bool in
                    guard case .waiting = s else { return false }
                    s = .running(server, files)
                    return true
                }
                if !kept {
                    await server.shutdown()
                    await files.shutdown()
                }
                return
            } catch {
                try? await Task.sleep(nanoseconds: 200_000_000)
            }
        }
    }

    func shutdown() async {
        let previous = state.withLockedValue { s -> State in
            let p = s
            s = .closed
            return p
        }
        if case .running(let server, let files) = previous {
            await server.shutdown()
            await files.shutdown()
        }
        // Closing the descriptor releases the lock for the next waiting client (or, while this
        // one still waits, is harmless: the process is ending).
        if case .waiting = previous { return }
        close(lockFD)
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
            "cannot start the local relay on 127.0.0.1:\(port) and its file server on port \(port + 1) (\(why)); is another program using the ports? Use --relay-port or -s SERVER"
        case .notListening(let port):
            "another local client owns the relay but nothing accepts connections on 127.0.0.1:\(port); stop it or use --relay-port"
        }
    }
}
