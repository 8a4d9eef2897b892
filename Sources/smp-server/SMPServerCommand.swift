import ArgumentParser
import Foundation
import Logging
import SMPServer
import SMPTransport

/// `smp-server`: the SimpleX messaging relay. `init` makes keys, certificates and a config in a
/// data folder; `start` serves queues from it.
@main
struct SMPServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "smp-server",
        abstract: "SimpleX Messaging Protocol relay: stores and forwards messages between one-way queues.",
        discussion: """
        First run `smp-server init` to create the server identity (an offline CA certificate and an
        online certificate signed by it) and smp-server.ini in the data folder; it prints the server
        address that clients use. Then run `smp-server start`. Queues and undelivered messages are
        kept in smp-server-store.log in the same folder and survive restarts. `smp-server cert`
        issues a new online certificate from the CA key, keeping the server address.
        """,
        subcommands: [Init.self, Cert.self, Start.self]
    )
}

struct CommonOptions: ParsableArguments {
    @Option(name: .long, help: "Data folder for keys, certificates, config and the store log.")
    var data: String = "./smp-server-data"

    @Option(name: .long, help: "Host name(s) put into the server address, comma-separated (default: from config, or 127.0.0.1).")
    var host: String?

    @Option(name: .long, help: "TCP port (default: from config, or 5223).")
    var port: Int?

    @Option(name: .long, help: "Address to listen on (default: from config, or 127.0.0.1).")
    var bind: String?

    func apply(to config: inout SMPServerConfig) throws {
        if let host { config.host = host }
        if let port {
            guard (0...65535).contains(port) else { throw ValidationError("port must be 0-65535") }
            config.port = port
        }
        if let bind { config.bindAddress = bind }
    }

    var configPath: String { (data as NSString).appendingPathComponent(SMPServerConfig.fileName) }
}

extension SMPServerCommand {
    struct Init: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create the server identity, certificates and smp-server.ini, and print the server address.")

        @OptionGroup var options: CommonOptions

        @Option(name: .long, help: "Password clients must give to create queues (empty: anyone can).")
        var password: String?

        @Option(name: .long, help: "Days an undelivered message is kept (default 21).")
        var messageDays: Int?

        @Flag(name: .long, help: "Replace existing keys and config (the server address changes!).")
        var force = false

        @Option(name: [.customShort("a"), .customLong("sign-algorithm")], help: "Signature algorithm of the TLS certificates: ED25519 or ED448.")
        var signAlgorithm: SignAlgorithmArgument = .init(.ed25519)

        func run() async throws {
            let fm = FileManager.default
            if fm.fileExists(atPath: options.configPath), !force {
                throw ValidationError("\(options.configPath) exists; use --force to replace the identity, or run `smp-server start`")
            }
            var config = SMPServerConfig()
            try options.apply(to: &config)
            if let password { config.createPassword = password.isEmpty ? nil : password }
            if let messageDays {
                guard messageDays > 0 else { throw ValidationError("--message-days must be positive") }
                config.messageTTL = Int64(messageDays) * 24 * 3600
            }
            let firstHost = config.host.split(separator: ",").first.map(String.init) ?? "127.0.0.1"
            let credentials = try ServerCredentials.generate(commonName: firstHost, algorithm: signAlgorithm.value)
            try credentials.save(to: options.data, overwrite: force)
            try config.ini.write(toFile: options.configPath, atomically: true, encoding: .utf8)
            let hosts = config.host.split(separator: ",").map(String.init)
            let address = try SMPServerAddress(keyHash: credentials.keyHash, hosts: hosts, port: config.port == 5223 ? nil : config.port)
            print("Server initialized in \(options.data)")
            print("CA private key: \((options.data as NSString).appendingPathComponent(ServerCredentials.caKeyFile)) - move it offline, the server does not need it to run.")
            print("Server address: \(address)")
        }
    }

    /// `smp-server cert`: a new online key and certificate signed by the CA (the reference's
    /// `genOnline`); the identity, and so the server address, stay the same.
    struct Cert: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Generate new online TLS server credentials (needs ca.key); the server address does not change.")

        @OptionGroup var options: CommonOptions

        @Option(name: [.customShort("a"), .customLong("sign-algorithm")], help: "New signature algorithm: ED25519 or ED448 (default: the current one).")
        var signAlgorithm: SignAlgorithmArgument?

        @Option(name: .customLong("cn"), help: "New common name of the online certificate (default: the current one).")
        var commonName: String?

        func run() async throws {
            let current = try ServerCredentials.load(from: options.data)
            guard current.caPrivateKey != nil else {
                throw ValidationError("no \(ServerCredentials.caKeyFile) in \(options.data): the CA key is needed to sign a new certificate")
            }
            let rotated = try current.rotatingOnlineCertificate(commonName: commonName, algorithm: signAlgorithm?.value)
            try rotated.save(to: options.data, overwrite: true)
            print("Generated new server credentials")
            print("----------")
            print("You should store CA private key securely and delete it from the server.")
            print("If server TLS credential is compromised this key can be used to sign a new one, keeping the same server identity and established connections.")
            print("CA private key location:")
            print((options.data as NSString).appendingPathComponent(ServerCredentials.caKeyFile))
            print("----------")
        }
    }

    struct Start: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run the relay from an initialized data folder (prints the server address on start).")

        @OptionGroup var options: CommonOptions

        @Option(name: .long, help: "fsync the store log every N records (0: leave it to the OS).")
        var fsyncEvery: Int?

        func run() async throws {
            guard FileManager.default.fileExists(atPath: options.configPath) else {
                throw ValidationError("no \(SMPServerConfig.fileName) in \(options.data); run `smp-server init --data \(options.data)` first")
            }
            var config = try SMPServerConfig(ini: String(contentsOfFile: options.configPath, encoding: .utf8))
            try options.apply(to: &config)
            if let fsyncEvery { config.fsyncEvery = max(0, fsyncEvery) }
            let credentials = try ServerCredentials.load(from: options.data)
            LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
            let server = try await SMPRelayServer.start(config: config, credentials: credentials, dataDirectory: options.data)
            print("Server address: \(server.address)")
            print("Listening on \(config.bindAddress):\(server.port)")
            fflush(nil)
            await waitForTermination()
            print("Shutting down")
            await server.shutdown()
        }
    }
}

/// Suspends until SIGINT or SIGTERM, so the relay can close its store log cleanly.
func waitForTermination() async {
    let resumed = OnceFlag()
    var sources: [any DispatchSourceSignal] = []
    await withCheckedContinuation { (cont: CheckedContinuation<Void, Never>) in
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler {
                if resumed.setOnce() { cont.resume() }
            }
            source.resume()
            sources.append(source)
        }
    }
    withExtendedLifetime(sources) {}
}

/// True the first time only, from any thread.
final class OnceFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var done = false

    func setOnce() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if done { return false }
        done = true
        return true
    }
}

/// `-a ED25519|ED448`, parsed as the reference's `SignAlgorithm` (`read`).
struct SignAlgorithmArgument: ExpressibleByArgument {
    let value: SignAlgorithm

    init(_ value: SignAlgorithm) { self.value = value }

    init?(argument: String) {
        guard let v = SignAlgorithm(rawValue: argument) else { return nil }
        value = v
    }

    var defaultValueDescription: String { value.rawValue }
    static var allValueStrings: [String] { SignAlgorithm.allCases.map(\.rawValue) }
}
