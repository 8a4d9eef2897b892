import Foundation
import NIOCore
import SMPClient
import SMPProtocol
import SMPTransport
import SimplexFoundation

/// Memory of idle queues: the `smp-server` executable runs as a child process (so the
/// benchmark's own allocations do not count), queues are created through ordinary client
/// connections, and the child's resident set is read from /proc before and after.
enum MemoryBenchmark {
    struct Result {
        let queues: Int
        let failures: Int
        let rssStart: Int
        let rssConnected: Int
        let rssCreated: Int
        let rssClosed: Int
        let anonConnected: Int
        let anonCreated: Int
        let createSeconds: Double
        let storeLogBytes: Int
        var bytesPerQueue: Double { Double(rssCreated - rssConnected) / Double(max(1, queues - failures)) }
        var anonBytesPerQueue: Double { Double(anonCreated - anonConnected) / Double(max(1, queues - failures)) }
    }

    /// `smp-server` next to this executable (both are products of the same build).
    static func defaultServerBinary() -> String {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return ((exe as NSString).deletingLastPathComponent as NSString).appendingPathComponent("smp-server")
    }

    static func run(queues n: Int, connections: Int, inFlight: Int, serverBinary: String,
                    group: any EventLoopGroup) async throws -> Result {
        guard FileManager.default.isExecutableFile(atPath: serverBinary) else {
            throw BenchError("no smp-server at \(serverBinary); build it first: swift build -c release --scratch-path .build-release --product smp-server")
        }
        let dir = try temporaryDirectory("smp-bench-memory")
        defer { try? FileManager.default.removeItem(atPath: dir) }

        let initProcess = Process()
        initProcess.executableURL = URL(fileURLWithPath: serverBinary)
        initProcess.arguments = ["init", "--data", dir, "--host", "127.0.0.1"]
        initProcess.standardOutput = FileHandle.nullDevice
        try initProcess.run()
        initProcess.waitUntilExit()
        guard initProcess.terminationStatus == 0 else { throw BenchError("smp-server init failed (\(initProcess.terminationStatus))") }

        let relay = Process()
        relay.executableURL = URL(fileURLWithPath: serverBinary)
        relay.arguments = ["start", "--data", dir, "--port", "0"]
        let stdout = Pipe()
        relay.standardOutput = stdout
        _ = FileManager.default.createFile(atPath: dir + "/stderr.log", contents: nil)
        relay.standardError = FileHandle(forWritingAtPath: dir + "/stderr.log")
        try relay.run()
        defer {
            if relay.isRunning {
                relay.terminate()
                relay.waitUntilExit()
            }
        }
        let address = try await readServerAddress(stdout.fileHandleForReading)
        let pid = relay.processIdentifier
        await sleep(seconds: 0.5)
        let rssStart = try residentBytes(pid: pid, field: "VmRSS")

        var clientConfig = SMPClientConfig()
        clientConfig.commandTimeout = 120
        clientConfig.pingInterval = 0
        let clients = (0..<connections).map { _ in SMPClient(server: address, config: clientConfig, group: group) }
        for c in clients { try await c.ping() }
        await sleep(seconds: 0.5)
        let rssConnected = try residentBytes(pid: pid, field: "VmRSS")
        let anonConnected = try residentBytes(pid: pid, field: "RssAnon")

        let t0 = nowNanos()
        let failures = await boundedConcurrency(count: n, width: inFlight) { i in
            let key = try PrivateAuthKey.generate(.ed25519)
            _ = try await clients[i % clients.count].createQueue(recipientKey: key, dhKey: X25519PrivateKey(), subscribe: false)
        }
        let createSeconds = Double(nowNanos() - t0) / 1e9
        await sleep(seconds: 1)
        let rssCreated = try residentBytes(pid: pid, field: "VmRSS")
        let anonCreated = try residentBytes(pid: pid, field: "RssAnon")
        for c in clients { await c.close() }
        await sleep(seconds: 1)
        let rssClosed = try residentBytes(pid: pid, field: "VmRSS")
        let logSize = (try? FileManager.default.attributesOfItem(atPath: dir + "/smp-server-store.log")[.size] as? Int) ?? 0

        relay.terminate()
        relay.waitUntilExit()
        return Result(queues: n, failures: failures, rssStart: rssStart, rssConnected: rssConnected, rssCreated: rssCreated,
                      rssClosed: rssClosed, anonConnected: anonConnected, anonCreated: anonCreated,
                      createSeconds: createSeconds, storeLogBytes: logSize)
    }

    struct ClientsResult {
        let clients: Int
        let failures: Int
        let rssStart: Int
        let rssConnected: Int
        let connectSeconds: Double
        var bytesPerClient: Double { Double(rssConnected - rssStart) / Double(max(1, clients - failures)) }
    }

    /// Memory per connected client: `clients` separate TLS connections, each creating one queue
    /// with SUB (the state a subscribed client keeps on the relay), the child's RSS read before
    /// and after.
    static func runClients(clients n: Int, inFlight: Int, serverBinary: String, group: any EventLoopGroup) async throws -> ClientsResult {
        guard FileManager.default.isExecutableFile(atPath: serverBinary) else {
            throw BenchError("no smp-server at \(serverBinary); build it first: swift build -c release --scratch-path .build-release --product smp-server")
        }
        let dir = try temporaryDirectory("smp-bench-clients")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let initProcess = Process()
        initProcess.executableURL = URL(fileURLWithPath: serverBinary)
        initProcess.arguments = ["init", "--data", dir, "--host", "127.0.0.1"]
        initProcess.standardOutput = FileHandle.nullDevice
        try initProcess.run()
        initProcess.waitUntilExit()
        guard initProcess.terminationStatus == 0 else { throw BenchError("smp-server init failed (\(initProcess.terminationStatus))") }
        let relay = Process()
        relay.executableURL = URL(fileURLWithPath: serverBinary)
        relay.arguments = ["start", "--data", dir, "--port", "0"]
        let stdout = Pipe()
        relay.standardOutput = stdout
        relay.standardError = FileHandle.nullDevice
        try relay.run()
        defer {
            if relay.isRunning {
                relay.terminate()
                relay.waitUntilExit()
            }
        }
        let address = try await readServerAddress(stdout.fileHandleForReading)
        let pid = relay.processIdentifier
        await sleep(seconds: 0.5)
        let rssStart = try residentBytes(pid: pid, field: "VmRSS")
        var clientConfig = SMPClientConfig()
        clientConfig.commandTimeout = 120
        clientConfig.pingInterval = 0
        let config = clientConfig
        let connected = ClientList()
        let t0 = nowNanos()
        let failures = await boundedConcurrency(count: n, width: inFlight) { _ in
            let c = SMPClient(server: address, config: config, group: group)
            _ = try await c.createQueue(recipientKey: try PrivateAuthKey.generate(.ed25519), dhKey: X25519PrivateKey(), subscribe: true)
            connected.append(c)
        }
        let connectSeconds = Double(nowNanos() - t0) / 1e9
        await sleep(seconds: 1)
        let rssConnected = try residentBytes(pid: pid, field: "VmRSS")
        for c in connected.all { await c.close() }
        relay.terminate()
        relay.waitUntilExit()
        return ClientsResult(clients: n, failures: failures, rssStart: rssStart, rssConnected: rssConnected, connectSeconds: connectSeconds)
    }

    /// A field of /proc/<pid>/status ("VmRSS", "RssAnon"...) in bytes.
    static func residentBytes(pid: Int32, field: String) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            if parts.count >= 2, let kb = Int(parts[1]) { return kb * 1024 }
        }
        throw BenchError("no \(field) in /proc/\(pid)/status")
    }

    /// Reads the child's stdout until it prints "Server address: smp://...".
    static func readServerAddress(_ handle: FileHandle) async throws -> SMPServerAddress {
        let line: String = try await withCheckedThrowingContinuation { cont in
            DispatchQueue.global().async {
                var text = ""
                while true {
                    let data = handle.availableData
                    if data.isEmpty {
                        cont.resume(throwing: BenchError("smp-server exited before printing its address: \(text)"))
                        return
                    }
                    text += String(decoding: data, as: UTF8.self)
                    // Only complete lines: the address may arrive in more than one read.
                    let complete = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
                    if let l = complete.first(where: { $0.hasPrefix("Server address: ") }) {
                        cont.resume(returning: String(l.dropFirst("Server address: ".count)))
                        return
                    }
                }
            }
        }
        return try SMPServerAddress(parsing: line.trimmingCharacters(in: .whitespaces))
    }
}

/// The benchmark's connected clients, kept open until the relay's memory is read.
final class ClientList: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [SMPClient] = []
    func append(_ c: SMPClient) { lock.lock(); items.append(c); lock.unlock() }
    var all: [SMPClient] { lock.lock(); defer { lock.unlock() }; return items }
}
