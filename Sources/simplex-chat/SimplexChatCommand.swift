import ArgumentParser
import ChatCore
import Foundation
import NIOCore
import NIOPosix
import SMPServer
import SMPTransport

/// `simplex-chat`: the terminal client (docs/CLI.md of simplex-chat), on Linux the app itself.
@main
struct SimplexChatCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simplex-chat",
        abstract: "SimpleX Chat in the terminal: private messaging with no user identifiers.",
        discussion: """
            With no -s option and no servers configured, it runs an SMP relay inside the process on \
            127.0.0.1 (port \(EmbeddedRelay.defaultPort), or uses the one another local client already runs), so two people \
            on one machine can connect with no set-up.
            """
    )

    @Option(name: [.short, .customLong("database")], help: "Database prefix: <prefix>_chat.db and <prefix>_agent.db.")
    var database: String = NSHomeDirectory() + "/.simplex/simplex_v1"

    @Option(name: [.short, .customLong("key")], help: "Database passphrase (empty: unencrypted).")
    var key: String = ""

    @Option(name: [.short, .customLong("server")], help: "SMP relay address smp://<fingerprint>@host[:port] (repeatable).")
    var server: [String] = []

    @Option(name: .customLong("xftp-server"), help: "XFTP server address (repeatable; file transfer is not available yet).")
    var xftpServer: [String] = []

    @Option(name: [.short, .customLong("execute")], help: "Run one command, print the answer and exit.")
    var execute: String?

    @Option(name: [.customShort("p"), .customLong("chat-server-port")], help: "Run the WebSocket API on this port (127.0.0.1).")
    var chatServerPort: Int?

    @Option(name: .customLong("relay-port"), help: "Port of the embedded relay.")
    var relayPort: Int = EmbeddedRelay.defaultPort

    @Option(name: .customLong("display-name"), help: "Display name for the first run, instead of asking.")
    var displayName: String?

    mutating func run() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let dir = (database as NSString).deletingLastPathComponent
        if !dir.isEmpty { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) }

        var config = ChatController.Config()
        config.defaultSMPServers = server
        var relay: SMPRelayServer?
        if server.isEmpty {
            let relayDir = (dir.isEmpty ? "." : dir) + "/embedded-relay"
            let (r, address) = try await EmbeddedRelay.start(directory: relayDir, port: relayPort, group: group)
            relay = r
            config.defaultSMPServers = [address.description]
            if execute == nil {
                say(r == nil ? "Using the local relay already running: \(address)" : "Local relay: \(address)")
            }
        }

        let (opened, result) = ChatController.open(dbPrefix: database, key: key, config: config, group: group)
        guard let controller = opened else {
            say(result.jsonString())
            throw ExitCode(1)
        }
        defer { _ = relay }

        try await ensureUser(controller)
        _ = await controller.send("/_start")
        let userId = try await activeUserId(controller)

        if let port = chatServerPort {
            try await ChatWebSocketServer.run(controller: controller, port: port, group: group)
            return
        }

        let console = Console()
        let terminal = ChatTerminal(controller: controller, output: { console.print($0) }, showQR: { QRRendering.terminal($0) })
        await terminal.setUser(userId)
        if let cmd = execute {
            await terminal.handle(cmd)
            await controller.close()
            await relay?.shutdown()
            return
        }
        console.print("Type /help for commands.")
        let events = Task {
            while !Task.isCancelled {
                if let e = await controller.nextEvent(timeout: 1) { await terminal.show(event: e) }
            }
        }
        for await line in console.lines() {
            if line == "/q" || line == "/quit" { break }
            await terminal.handle(line)
        }
        events.cancel()
        await controller.close()
        await relay?.shutdown()
    }

    /// First run: asks for a display name (or takes --display-name) and creates the profile.
    func ensureUser(_ c: ChatController) async throws {
        if (try? ChatTerminal.parse(await c.send("/user")))?.result != nil { return }
        var name = displayName
        var fullName = ""
        if name == nil {
            guard execute == nil, chatServerPort == nil else {
                say("No user profile yet: run interactively once, or pass --display-name.")
                throw ExitCode(1)
            }
            say("No user profiles found, it will be created now.\nPlease choose your display name.")
            say("It will be sent to your contacts when you connect.")
            say("It is only stored on your device and you can change it later.")
            say("display name: ", newline: false)
            name = readLine()?.trimmingCharacters(in: .whitespaces)
            say("full name (optional): ", newline: false)
            fullName = readLine()?.trimmingCharacters(in: .whitespaces) ?? ""
        }
        guard let name, !name.isEmpty else { throw ExitCode(1) }
        let profile = ["displayName": name, "fullName": fullName]
        let json = String(decoding: try JSONSerialization.data(withJSONObject: ["profile": profile, "pastTimestamp": false]), as: UTF8.self)
        let answer = await c.send("/_create user \(json)")
        guard (try? ChatTerminal.parse(answer))?.result != nil else {
            say(ChatTerminal.errorLine(answer))
            throw ExitCode(1)
        }
        if execute == nil { say("Current user: \(name)") }
    }

    func activeUserId(_ c: ChatController) async throws -> Int64 {
        guard let r = (try? ChatTerminal.parse(await c.send("/user")))?.result,
            let id = ((r["user"] as? [String: Any])?["userId"] as? NSNumber)?.int64Value
        else { throw ExitCode(1) }
        return id
    }
}

extension ChatTerminal {
    func setUser(_ id: Int64) { userId = id }
}

/// Writes straight to standard output (unbuffered), so lines appear at once in a pipe or pty.
func say(_ text: String, newline: Bool = true) {
    FileHandle.standardOutput.write(Data((newline ? text + "\n" : text).utf8))
}
