import ArgumentParser
import ChatCore
import Foundation
import NIOCore
import NIOPosix
import SMPClient
import SMPServer
import SMPTransport

/// `simplex-chat`: the terminal client (docs/CLI.md of simplex-chat), on Linux the app itself.
/// Options keep SimpleX's names and meaning (its Options.hs), so scripts, Docker entrypoints and
/// systemd units written for SimpleX's CLI run unchanged.
@main
struct SimplexChatCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simplex-chat",
        abstract: "SimpleX Chat in the terminal: private messaging with no user identifiers.",
        discussion: """
            With no -s option and no servers configured, it runs an SMP relay inside the process on \
            127.0.0.1 (port \(EmbeddedRelay.defaultPort), or uses the one another local client already runs), so two people \
            on one machine can connect with no set-up.
            """,
        version: ChatVersionInfo.versionString
    )

    @Option(name: [.short, .customLong("database")], help: "Database prefix: <prefix>_chat.db and <prefix>_agent.db.")
    var database: String = NSHomeDirectory() + "/.simplex/simplex_v1"

    @Option(name: [.short, .customLong("key")], help: "Database passphrase (empty: unencrypted).")
    var key: String = ""

    @Option(name: [.short, .customLong("server")],
            help: "SMP relay(s) smp://<fingerprint>@host[:port]; repeatable, or several in one quoted, space-separated value.")
    var server: [String] = []

    @Option(name: .customLong("xftp-server"), help: "XFTP server(s) for files xftp://<fingerprint>@host[:port] (repeatable or space-separated).")
    var xftpServer: [String] = []

    @Flag(name: .customShort("x"), help: "Use local SOCKS5 proxy at :9050 (not available yet: refused).")
    var socksDefault = false

    @Option(name: .customLong("socks-proxy"), help: "Use SOCKS5 proxy at ipv4:port or :port (not available yet: refused).")
    var socksProxy: String?

    @Option(name: .customLong("smp-proxy"), help: "Use private message routing: always, unknown (default), unprotected, never.")
    var smpProxy: String?

    @Option(name: .customLong("smp-proxy-fallback"),
            help: "Allow downgrade and connect directly: no, [when IP address is] protected (default), yes.")
    var smpProxyFallback: String?

    @Option(name: [.short, .customLong("execute")], help: "Run one command, print the answer and exit.")
    var execute: String?

    @Option(name: [.short, .customLong("time")], help: "Seconds to wait after an -e command before exiting (so messages are sent).")
    var time: Double = 3

    @Option(name: [.customShort("p"), .customLong("chat-server-port")], help: "Run the WebSocket API on this port.")
    var chatServerPort: Int?

    @Option(name: .customLong("chat-server-host"),
            help: "Address the WebSocket API binds to (default 127.0.0.1); any other address needs --chat-server-token or --chat-server-token-file.")
    var chatServerHost: String = "127.0.0.1"

    @Option(name: .customLong("chat-server-token"), help: "Token WebSocket clients must present (Authorization: Bearer TOKEN, or ?token=TOKEN).")
    var chatServerToken: String?

    @Option(name: .customLong("chat-server-token-file"), help: "File holding the WebSocket API token (first line).")
    var chatServerTokenFile: String?

    @Option(name: .customLong("files-folder"), help: "Folder for sent and received files.")
    var filesFolder: String?

    @Option(name: .customLong("temp-folder"), help: "Folder for temporary files.")
    var tempFolder: String?

    @Flag(name: .customShort("a"), help: "Automatically accept files up to 1MB.")
    var autoAcceptOneMB = false

    @Option(name: .customLong("auto-accept-files"), help: "Automatically accept files up to this size (bytes).")
    var autoAcceptFiles: Int = 0

    @Flag(name: [.customShort("f"), .customLong("allow-instant-files")], help: "Send and receive instant files without acceptance.")
    var allowInstantFiles = false

    @Flag(name: .customLong("mute"), help: "Mute notifications (this client shows none; accepted for SimpleX's scripts).")
    var mute = false

    @Flag(name: [.customShort("r"), .customLong("mark-read")], help: "Mark shown messages as read.")
    var markRead = false

    @Flag(name: .customLong("reactions"), help: "Show message reactions.")
    var reactions = false

    @Flag(name: [.customShort("y"), .customLong("yes-migrate")], help: "Confirm \"up\" database migrations without asking.")
    var yesMigrate = false

    @Flag(name: [.customShort("m"), .customLong("maintenance")], help: "Maintenance mode: the chat waits for /_start.")
    var maintenance = false

    @Flag(name: .customLong("headless"), help: "No terminal input or prompts: run as a service (needs a profile or --user-display-name).")
    var headless = false

    @Option(name: .customLong("create-bot-display-name"), help: "Create a bot profile (peerType bot) with this name on the first start.")
    var createBotDisplayName: String?

    @Flag(name: .customLong("create-bot-allow-files"), help: "Let the created bot accept files (only with --create-bot-display-name).")
    var createBotAllowFiles = false

    @Flag(name: .customLong("create-bot-client-service"), help: "Client service certificate for the created bot (not supported: refused).")
    var createBotClientService = false

    @Option(name: [.customLong("user-display-name"), .customLong("display-name")],
            help: "Display name of the profile created on the first run, instead of asking; must match the active profile later.")
    var userDisplayName: String?

    @Option(name: .customLong("relay-port"), help: "Port of the embedded relay.")
    var relayPort: Int = EmbeddedRelay.defaultPort

    @Option(name: .customLong("relay-dir"), help: "Folder of the embedded relay (default ~/.simplex/embedded-relay).")
    var relayDir: String?

    func validate() throws {
        if socksDefault || socksProxy != nil {
            throw ValidationError("SOCKS5 proxies are not supported yet by this client; run without -x/--socks-proxy.")
        }
        if createBotDisplayName == nil && createBotAllowFiles {
            throw ValidationError("--create-bot-allow-files option requires --create-bot-display-name option")
        }
        if createBotClientService {
            throw ValidationError("--create-bot-client-service: client service certificates are not supported yet.")
        }
        if let m = smpProxy, SMPProxyMode(rawValue: m) == nil { throw ValidationError("--smp-proxy: always, unknown, unprotected or never") }
        if let f = smpProxyFallback, SMPProxyFallback(rawValue: f) == nil { throw ValidationError("--smp-proxy-fallback: no, protected or yes") }
        if autoAcceptFiles < 0 { throw ValidationError("--auto-accept-files takes a size in bytes (0 or more)") }
        if chatServerPort != nil && !WebSocketAccess.isLoopback(chatServerHost) && chatServerToken == nil && chatServerTokenFile == nil {
            throw ValidationError(
                "--chat-server-host \(chatServerHost) exposes full control of this chat profile beyond this machine: "
                    + "give a token with --chat-server-token or --chat-server-token-file.")
        }
    }

    mutating func run() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let dir = (database as NSString).deletingLastPathComponent
        if !dir.isEmpty { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) }
        let interactive = execute == nil && chatServerPort == nil && !headless

        var config = ChatController.Config()
        config.defaultSMPServers = server.flatMap { $0.split(separator: " ").map(String.init) }
        // simplex-chat's terminal client: private routing for unknown relays, direct only when
        // the IP address is protected (Terminal.hs netCfg), unless the options say otherwise.
        config.smpProxyMode = smpProxy.flatMap(SMPProxyMode.init(rawValue:)) ?? .unknown
        config.smpProxyFallback = smpProxyFallback.flatMap(SMPProxyFallback.init(rawValue:)) ?? .allowProtected
        var relay: EmbeddedRelay?
        if config.defaultSMPServers.isEmpty {
            do {
                let r = try await EmbeddedRelay.start(
                    directory: relayDir ?? EmbeddedRelay.defaultDirectory(port: relayPort), port: relayPort, group: group)
                relay = r
                config.defaultSMPServers = [r.address.description]
                if execute == nil {
                    say(r.isOwner ? "Local relay: \(r.address)" : "Using the local relay already running: \(r.address)")
                }
            } catch {
                say("Error: \(error)")
                throw ExitCode(1)
            }
        }

        // Files (issue 15): XFTP servers, where files go, and the auto-accept size.
        config.defaultXFTPServers = xftpServer.flatMap { $0.split(separator: " ").map(String.init) }
        // With the embedded relay and no XFTP server given, files go through the embedded one.
        if config.defaultXFTPServers.isEmpty, let relay { config.defaultXFTPServers = [relay.xftpAddress.description] }
        config.filesFolder = filesFolder
        config.tempFolder = tempFolder
        config.autoAcceptFileSize = Int64(autoAcceptOneMB ? max(autoAcceptFiles, 1_048_576) : autoAcceptFiles)
        let controller = try openController(config: config, group: group, interactive: interactive)
        defer { _ = relay }

        let userId = try await ensureUser(controller)
        try await applyFileOptions(controller)
        if !maintenance {
            try await startChat(controller)
        }

        if let port = chatServerPort {
            let token = try chatToken()
            do {
                try await ChatWebSocketServer.run(
                    controller: controller, port: port, host: chatServerHost, access: WebSocketAccess(token: token), group: group)
            } catch {
                say("Error: cannot run the WebSocket API on \(chatServerHost):\(port): \(error)")
                throw ExitCode(1)
            }
            return
        }

        let console = Console()
        let terminal = ChatTerminal(controller: controller, output: { console.print($0) }, showQR: { QRRendering.terminal($0) })
        await terminal.setUser(userId)
        if let cmd = execute {
            await terminal.handle(cmd)
            if time > 0 { try? await Task.sleep(nanoseconds: UInt64(time * 1_000_000_000)) }
            await controller.close()
            await relay?.shutdown()
            return
        }
        let events = Task {
            while !Task.isCancelled {
                if let e = await controller.nextChatEvent(timeout: 1) { await terminal.show(event: e) }
            }
        }
        if headless {
            // A service: no terminal input; runs until SIGTERM/SIGINT.
            await waitForTermination()
        } else {
            console.print("Type /help for commands.")
            for await line in console.lines() {
                if line == "/q" || line == "/quit" { break }
                await terminal.handle(line)
            }
        }
        events.cancel()
        await controller.close()
        await relay?.shutdown()
    }

    /// Opens both databases; pending upgrades of an existing file need -y or a "y" typed at the prompt.
    func openController(config: ChatController.Config, group: any EventLoopGroup, interactive: Bool) throws -> ChatController {
        var (opened, result) = ChatController.open(
            dbPrefix: database, key: key, confirm: yesMigrate ? .yesUp : .error, config: config, group: group)
        if opened == nil, case .errorMigration(_, .upgrade(let ups)) = result {
            say("Database migrations: \(ups.map(\.upName).joined(separator: ", "))")
            if interactive {
                say("Confirm to apply them (y/N): ", newline: false)
                if readLine()?.lowercased() == "y" {
                    (opened, result) = ChatController.open(dbPrefix: database, key: key, confirm: .yesUp, config: config, group: group)
                }
            } else {
                say("Run with -y (--yes-migrate) to apply them.")
            }
        }
        guard let controller = opened else {
            say("Error opening database: \(ChatView.describe(migrationResult: result))")
            throw ExitCode(1)
        }
        return controller
    }

    /// Starts the chat; a failed start (a damaged database, say) ends the process with its reason.
    func startChat(_ c: ChatController) async throws {
        let answer = await c.execute("/_start")
        if case .failure(let e) = answer {
            say("Error starting chat: \(ChatView.describe(error: e))")
            await c.close()
            throw ExitCode(1)
        }
    }

    /// --files-folder and --temp-folder are created now, as SimpleX's CLI does (the core got them,
    /// with the auto-accept size, in its Config).
    func applyFileOptions(_ c: ChatController) async throws {
        for value in [filesFolder, tempFolder].compactMap({ $0 }) {
            do {
                try FileManager.default.createDirectory(atPath: value, withIntermediateDirectories: true)
            } catch {
                say("Error: cannot create the folder \(value): \(error.localizedDescription)")
                throw ExitCode(1)
            }
        }
    }

    /// First run: creates the profile from --create-bot-display-name, --user-display-name, or by
    /// asking (also when standard input is a pipe, as SimpleX's CLI does).
    func ensureUser(_ c: ChatController) async throws -> Int64 {
        if case .success(let r) = await c.run(.showActiveUser), let u = ChatView.user(of: r) {
            if let name = userDisplayName, u.localDisplayName != name {
                say("Active user display name \"\(u.localDisplayName)\" does not match --user-display-name \"\(name)\"")
                throw ExitCode(1)
            }
            if execute == nil { say("Current user: \(u.localDisplayName)") }
            return u.userId
        }
        if maintenance {
            say("exiting: no active user in maintenance mode")
            throw ExitCode(1)
        }
        let profile: Profile
        if let bot = createBotDisplayName {
            profile = Profile(displayName: bot, preferences: createBotAllowFiles ? nil : Preferences(files: SimplePreference(allow: .no)), peerType: .bot)
        } else if let name = userDisplayName {
            profile = Profile(displayName: name)
        } else if headless {
            say("No user profile found and no --user-display-name provided (required with --headless)")
            throw ExitCode(1)
        } else {
            say("No user profiles found, it will be created now.\nPlease choose your display name.")
            say("It will be sent to your contacts when you connect.")
            say("It is only stored on your device and you can change it later.")
            say("display name: ", newline: false)
            guard let name = readLine()?.trimmingCharacters(in: .whitespaces), !name.isEmpty else {
                say("\nNo display name given.")
                throw ExitCode(1)
            }
            profile = Profile(displayName: name)
        }
        switch await c.run(.createActiveUser(NewUser(profile: profile))) {
        case .success(let r):
            guard let u = ChatView.user(of: r) else { throw ExitCode(1) }
            if execute == nil { say("Current user: \(u.localDisplayName)") }
            return u.userId
        case .failure(let e):
            say("Error creating the profile: \(ChatView.describe(error: e))")
            throw ExitCode(1)
        }
    }

    func chatToken() throws -> String? {
        if let t = chatServerToken { return t }
        guard let f = chatServerTokenFile else { return nil }
        guard let text = try? String(contentsOfFile: f, encoding: .utf8),
            let line = text.split(whereSeparator: \.isNewline).first.map(String.init), !line.isEmpty
        else {
            say("Error: no token in \(f)")
            throw ExitCode(1)
        }
        return line
    }

    func waitForTermination() async {
        await withCheckedContinuation { (cont: CheckedContinuation<Void, Never>) in
            let done = SignalWait(cont)
            for sig in [SIGTERM, SIGINT] {
                signal(sig, SIG_IGN)
                let src = DispatchSource.makeSignalSource(signal: sig, queue: .global())
                src.setEventHandler { done.fire() }
                src.resume()
                done.keep(src)
            }
        }
    }
}

/// Resumes a continuation once, from whichever signal arrives first.
final class SignalWait: @unchecked Sendable {
    private let lock = NSLock()
    private var cont: CheckedContinuation<Void, Never>?
    private var sources: [any DispatchSourceSignal] = []
    init(_ cont: CheckedContinuation<Void, Never>) { self.cont = cont }
    func keep(_ s: any DispatchSourceSignal) { lock.withLock { sources.append(s) } }
    func fire() {
        let c = lock.withLock { () -> CheckedContinuation<Void, Never>? in
            defer { cont = nil }
            return cont
        }
        c?.resume()
    }
}

extension ChatTerminal {
    func setUser(_ id: Int64) { userId = id }
}

/// Writes straight to standard output (unbuffered), so lines appear at once in a pipe or pty.
func say(_ text: String, newline: Bool = true) {
    FileHandle.standardOutput.write(Data((newline ? text + "\n" : text).utf8))
}
