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
/// process on 127.0.0.1, with its identity kept in one folder per port so every local client
/// agrees on it and links stay valid across runs. Clients started at the same moment race for
/// it, so creation and ownership go through file locks: one identity, one relay. A client that
/// does not own the relay waits for the owner's lock, and takes the relay over (same identity,
/// same store log) when the owner exits, so the other local clients keep a relay.
final class EmbeddedRelay: Sendable {
    static let defaultPort = 5225

    private enum State {
        /// Another local client runs the relay; this one waits on relay.lock to take over.
        case waiting
        case running(Servers)
        case closed
    }

    /// The SMP relay and, beside it, the XFTP server for files (nil when its port was taken).
    private struct Servers: Sendable {
        var smp: SMPRelayServer
        var xftp: XFTPTransportServer?

        func shutdown() async {
            await smp.shutdown()
            await xftp?.shutdown()
        }
    }

    let address: SMPServerAddress
    /// The local XFTP server (issue 15): same identity as the relay, on `xftpPort(port)`, its
    /// chunks in `<directory>/xftp-files`; owned and taken over with the relay.
    let xftpAddress: XFTPServerAddress

    /// The embedded XFTP server's port for a relay port: fixed, so every local client and every
    /// description already sent agree on it.
    static func xftpPort(_ relayPort: Int) -> Int { relayPort + 1000 <= 65535 ? relayPort + 1000 : relayPort - 1000 }
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
        self.xftpAddress = XFTPServerAddress(keyHash: credentials.keyHash, hosts: [.ipv4(127, 0, 0, 1)], port: String(Self.xftpPort(port)))
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
            let server = try await startServer(directory: directory, port: port, credentials: credentials, group: group)
            return EmbeddedRelay(address: address, directory: directory, port: port, credentials: credentials,
                                 group: group, lockFD: fd, state: .running(server))
        } catch {
            close(fd)
            throw EmbeddedRelayError.cannotStart(port, "\(error)")
        }
    }

    private static func startServer(directory: String, port: Int, credentials: ServerCredentials,
                                    group: any EventLoopGroup) async throws -> Servers {
        var config = SMPServerConfig()
        config.host = "127.0.0.1"
        config.bindAddress = "127.0.0.1"
        config.port = port
        // Quiet: the person at the terminal does not need the relay's info logs.
        var logger = Logger(label: "embedded-relay")
        logger.logLevel = .warning
        let smp = try await SMPRelayServer.start(
            config: config, credentials: credentials, dataDirectory: directory, group: group, logger: logger)
        // Files: an XFTP server beside the relay. Its port being taken only costs files, not chat.
        var xftp: XFTPTransportServer?
        do {
            var xc = XFTPServerConfig()
            xc.port = xftpPort(port)
            xc.filesPath = directory + "/xftp-files"
            try FileManager.default.createDirectory(atPath: xc.filesPath, withIntermediateDirectories: true)
            let core = try XFTPServerCore(config: xc, store: try FileStore(logPath: directory + "/xftp-store.log", fsync: false))
            xftp = try await XFTPTransportServer.start(core: core, credentials: credentials, host: "127.0.0.1", port: xc.port, group: group)
        } catch {
            logger.warning("local XFTP server not started on 127.0.0.1:\(xftpPort(port)): \(error)")
        }
        return Servers(smp: smp, xftp: xftp)
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
                let server = try await Self.startServer(directory: directory, port: port, credentials: credentials, group: group)
                let kept = state.withLockedValue { s -> Bool in
                    guard case .waiting = s else { return false }
                    s = .running(server)
                    return true
                }
                if !kept { await server.shutdown() }
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
        if case .running(let server) = previous { await server.shutdown() }
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
            "cannot start the local relay on 127.0.0.1:\(port) (\(why)); is another program using the port? Use --relay-port or -s SERVER"
        case .notListening(let port):
            "another local client owns the relay but nothing accepts connections on 127.0.0.1:\(port); stop it or use --relay-port"
        }
    }
}
