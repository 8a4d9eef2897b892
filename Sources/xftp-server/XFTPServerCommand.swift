import ArgumentParser
import Foundation
import NIOConcurrencyHelpers
import NIOPosix
import SMPTransport
import XFTPProtocol
import XFTPServer
import XFTPTransport

/// `xftp-server`: the SimpleX file relay. `init` makes the server identity and file-server.ini
/// in a data folder; `start` opens the chunk store from it.
@main
struct XFTPServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "xftp-server",
        abstract: "SimpleX File Transfer Protocol server: stores encrypted file chunks for their recipients.",
        discussion: "First run `xftp-server init --path FILES --quota 10gb` to create the server identity "
            + "(an offline CA certificate and an online certificate signed by it) and file-server.ini in the data "
            + "folder; it prints the server address that clients use. Then run `xftp-server start`. Chunk records "
            + "are kept in file-server-store.log in the data folder and survive restarts; chunks expire after 48 "
            + "hours unless expire_files_hours says otherwise.",
        subcommands: [Init.self, Start.self]
    )
}

struct DataOption: ParsableArguments {
    @Option(name: .long, help: "Data folder for keys, certificates, config and the store log.")
    var data: String = "./xftp-server-data"

    var configPath: String { (data as NSString).appendingPathComponent(XFTPServerConfig.fileName) }
}

extension XFTPServerCommand {
    struct Init: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create the server identity, certificates and file-server.ini, and print the server address.")

        @OptionGroup var options: DataOption

        @Option(name: [.customShort("p"), .long], help: "Folder where file chunks are stored.")
        var path: String

        @Option(name: [.customShort("q"), .long], help: "Storage quota, e.g. 10gb.")
        var quota: String

        @Option(name: .long, help: "Host name(s) put into the server address, comma-separated.")
        var host: String = "127.0.0.1"

        @Option(name: .long, help: "TCP port.")
        var port: Int = 443

        @Option(name: .long, help: "Password clients must give to upload files (default: anyone can).")
        var password: String?

        @Option(name: .long, help: "Hours after which files are deleted (default 48).")
        var expireHours: Int64?

        @Flag(name: .long, help: "Do not keep a store log (files are forgotten on restart).")
        var disableStoreLog = false

        @Flag(name: .long, help: "Replace existing keys and config (the server address changes!).")
        var force = false

        func run() async throws {
            if FileManager.default.fileExists(atPath: options.configPath), !force {
                throw ValidationError("\(options.configPath) exists; use --force to replace the identity, or run `xftp-server start`")
            }
            var config = XFTPServerConfig()
            config.host = host
            guard (0...65535).contains(port) else { throw ValidationError("port must be 0-65535") }
            config.port = port
            config.filesPath = path
            guard let q = FileSizeText.decode(quota) else { throw ValidationError("--quota must be a size such as 500mb or 10gb") }
            config.fileSizeQuota = q
            if let password {
                guard let a = BasicAuth(password), !password.isEmpty else {
                    throw ValidationError("--password: printable ASCII without spaces, '@', ':' or '/'")
                }
                config.createPassword = a
            }
            if let expireHours {
                guard expireHours > 0 else { throw ValidationError("--expire-hours must be positive") }
                config.fileExpiration = expireHours * 3600
            }
            config.storeLog = !disableStoreLog
            try FileManager.default.createDirectory(atPath: options.data, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            let firstHost = host.split(separator: ",").first.map(String.init) ?? "127.0.0.1"
            let credentials = try ServerCredentials.generate(commonName: firstHost)
            try credentials.save(to: options.data, overwrite: force)
            try config.ini.write(toFile: options.configPath, atomically: true, encoding: .utf8)
            print("Server initialized in \(options.data)")
            print("CA private key: \((options.data as NSString).appendingPathComponent(ServerCredentials.caKeyFile)) - move it offline, the server does not need it to run.")
            print("Server address: \(address(config, keyHash: credentials.keyHash))")
        }
    }

    struct Start: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Open the chunk store of an initialized data folder and serve it (until SIGINT or SIGTERM).")

        @OptionGroup var options: DataOption

        func run() async throws {
            MemoryTuning.limitRetainedBuffers()
            guard FileManager.default.fileExists(atPath: options.configPath) else {
                throw ValidationError("no \(XFTPServerConfig.fileName) in \(options.data); run `xftp-server init --data \(options.data)` first")
            }
            let config = try XFTPServerConfig(ini: String(contentsOfFile: options.configPath, encoding: .utf8))
            let credentials = try ServerCredentials.load(from: options.data)
            let core = try XFTPServerCore.open(config: config, dataDirectory: options.data)
            if core.store.skippedOnLoad > 0 { print("Store log: skipped \(core.store.skippedOnLoad) unreadable line(s)") }
            let expired = core.expireFiles()
            let group = MultiThreadedEventLoopGroup.singleton
            let server = try await XFTPTransportServer.start(core: core, credentials: credentials, host: config.bindAddress,
                                                             port: config.port, group: group)
            print("Server address: \(address(config, keyHash: credentials.keyHash))")
            print("Files: \(core.store.fileCount), used \(core.store.usedStorage) bytes, expired now: \(expired)")
            print(config.fileExpiration.map { "expiring files after \($0 / 3600) hours" } ?? "not expiring files")
            print("Uploading new files " + (config.allowNewFiles ? (config.createPassword == nil ? "allowed." : "requires password.") : "NOT allowed."))
            print("Listening on \(config.bindAddress):\(server.port)")
            fflush(nil)
            await waitForTermination()
            print("Shutting down")
            await server.shutdown()
        }
    }
}

/// Suspends until SIGINT or SIGTERM, so the store log is closed cleanly.
func waitForTermination() async {
    let resumed = NIOLockedValueBox(false)
    var sources: [any DispatchSourceSignal] = []
    await withCheckedContinuation { (cont: CheckedContinuation<Void, Never>) in
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler {
                let first = resumed.withLockedValue { done in
                    defer { done = true }
                    return !done
                }
                if first { cont.resume() }
            }
            source.resume()
            sources.append(source)
        }
    }
    withExtendedLifetime(sources) {}
}

func address(_ config: XFTPServerConfig, keyHash: [UInt8]) -> String {
    let hosts = config.host.split(separator: ",").compactMap { TransportHost(parsing: $0) }
    return XFTPServerAddress(keyHash: keyHash, hosts: hosts.isEmpty ? [.domain("127.0.0.1")] : hosts,
                             port: config.port == 443 ? "" : String(config.port)).description
}
