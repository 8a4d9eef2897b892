import ArgumentParser
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import SMPTransport
import SimplexFoundation
import XFTPClient
import XFTPProtocol
import XFTPServer
import XFTPTransport

/// `xftp-bench`: uploads and downloads one generated file through XFTP servers run as child
/// processes (TLS + HTTP/2 on loopback, real chunk files), checks the received file's SHA-256
/// against the source's, and sends the same number of bytes both ways over a plain TLS
/// connection to an echo child in the same run. Prints both times, their ratio (TLS time over
/// XFTP time: 1 is as fast as plain TLS), and the peak RSS of the client and of each server;
/// with `--rounds` it alternates transfers and baselines and gives the median ratio.
/// Exits non-zero when the received file differs, so CI runs it as the end-to-end check.
@main
struct XFTPBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "xftp-bench",
                                                    abstract: "XFTP upload+download time against a plain TLS stream of the same bytes.")

    @Option(name: .long, help: "File size in MB.")
    var sizeMB: Int = 64

    @Option(name: .long, help: "Number of XFTP servers; chunks are spread over them.")
    var servers: Int = 1

    @Option(name: .long, help: "Chunks in flight at once.")
    var parallel: Int = 4

    @Flag(name: .long, help: "Skip the plain TLS baseline (end-to-end check only).")
    var noBaseline = false

    @Option(name: .long, help: "Transfers, each followed by its plain TLS baseline; the median ratio is the figure (this machine's speed drifts by a third within minutes).")
    var rounds: Int = 1

    @Option(name: .long, help: .hidden)
    var serveDir: String?

    func run() async throws {
        // As xftp-server does (both sides of the bench are this binary).
        MemoryTuning.limitRetainedBuffers()
        if let serveDir { return try await BenchServer.serve(directory: serveDir) }
        guard sizeMB > 0, servers > 0 else { throw ValidationError("size and servers must be positive") }
        let size = Int64(sizeMB) * 1024 * 1024
        let dir = NSTemporaryDirectory() + "xftp-bench-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        var children: [BenchServer.Child] = []
        defer {
            for c in children { c.stop() }
            try? FileManager.default.removeItem(atPath: dir)
        }
        for i in 0..<servers { children.append(try BenchServer.Child.start(directory: dir + "/server\(i)")) }
        // The plain TLS baseline talks to a child of its own: the XFTP servers' peak RSS stays theirs
        // over several rounds (the echo's process grew by about the bytes it echoed).
        let echo = noBaseline ? nil : try BenchServer.Child.start(directory: dir + "/echo")
        defer { echo?.stop() }
        let src = dir + "/file.bin"
        let sourceHash = try writeFile(src, size: size)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)

        let progress = try DirectoryProgressStore(directory: dir + "/progress")
        let transfer = XFTPFileTransfer(pool: XFTPClientPool(group: group), progress: progress, workDirectory: dir + "/work",
                                        parallelChunks: parallel)
        let pids = ["self"] + children.map { String($0.process.processIdentifier) }
        var ratios: [Double] = [], failed = false
        for round in 1...max(1, rounds) {
            if rounds > 1 { print("-- round \(round) of \(rounds)") }
            let cpu0 = pids.map(cpuSeconds), faults0 = pids.map(minorFaults)
            let t0 = Date()
            let result = try await transfer.upload(sourcePath: src, fileName: "file.bin", servers: children.map(\.address),
                                                   recipientCount: 1, transferId: "b\(round)")
            let t1 = Date()
            let uploadPeak = peakRSS(of: "self")
            let outDir = dir + "/out\(round)"
            try FileManager.default.createDirectory(atPath: outDir, withIntermediateDirectories: true)
            let out = try await transfer.download(result.recipients[0], to: outDir, transferId: "b\(round)")
            let t2 = Date()
            let cpu1 = pids.map(cpuSeconds), faults1 = pids.map(minorFaults)
            let clientPeak = peakRSS(of: "self")
            let serverPeaks = children.map { peakRSS(of: String($0.process.processIdentifier)) }

            let description = result.recipients[0]
            let usedServers = Set(description.chunks.compactMap { $0.replicas.first?.server.description }).count
            let receivedHash = try hashFile(out)
            PosixFile.remove(out)

            let xftpTime = t2.timeIntervalSince(t0)
            print("file: \(sizeMB) MB in \(description.chunks.count) chunks over \(usedServers) server(s), \(parallel) in flight")
            print(String(format: "xftp upload: %.2f s, download: %.2f s, total: %.2f s (%.1f MB/s each way)",
                         t1.timeIntervalSince(t0), t2.timeIntervalSince(t1), xftpTime, Double(sizeMB) * 2 / xftpTime))
            print("peak RSS: client \(clientPeak) kB (\(uploadPeak) kB by the end of the upload), server(s) \(serverPeaks.map { "\($0) kB" }.joined(separator: ", "))")
            // CPU beside the wall time: the ratio moves with whatever else runs on the machine, this much less.
            let xftpCPU = (cpu1[0] - cpu0[0]) + zip(cpu1, cpu0).dropFirst().map { $0 - $1 }.reduce(0, +)
            print(String(format: "xftp CPU: client %.2f s, server(s) %.2f s", cpu1[0] - cpu0[0], zip(cpu1, cpu0).dropFirst().map { $0 - $1 }.reduce(0, +)))
            // Each fault is a fresh page zeroed and mapped: memory churn the CPU figure includes.
            print("page faults: client \(faults1[0] - faults0[0]), server(s) \(zip(faults1, faults0).dropFirst().map { $0 - $1 }.reduce(0, +))")
            if let echo {
                // Plain TLS to the echo child: the same bytes up, then back.
                let tlsPids = ["self", String(echo.process.processIdentifier)]
                let tlsCPU0 = tlsPids.map(cpuSeconds)
                let tlsTime = try await plainTLS(bytes: size, port: echo.tlsPort, group: group)
                let tlsCPU1 = tlsPids.map(cpuSeconds)
                print(String(format: "plain TLS both ways: %.2f s (CPU: client %.2f s, server %.2f s)", tlsTime, tlsCPU1[0] - tlsCPU0[0],
                             zip(tlsCPU1, tlsCPU0).dropFirst().map { $0 - $1 }.reduce(0, +)))
                print(String(format: "ratio tls/xftp: %.2f (target >= 0.5)", tlsTime / xftpTime))
                ratios.append(tlsTime / xftpTime)
                // The floor of this run: the plain TLS CPU plus the cryptography XFTP adds, spread over every core.
                let floor = XFTPCryptoFloor.measure(), mb = Double(sizeMB)
                let tlsCPU = (tlsCPU1[0] - tlsCPU0[0]) + zip(tlsCPU1, tlsCPU0).dropFirst().map { $0 - $1 }.reduce(0, +)
                let cores = Double(ProcessInfo.processInfo.activeProcessorCount)
                let floorCPU = tlsCPU + floor.client(mb: mb) + floor.server(mb: mb)
                let floorTime = max(tlsTime, floorCPU / cores)
                print(String(format: "crypto per GB, single-threaded: SHA-512 %.2f s, SHA-256 %.2f s, secretbox %.2f s; file write + read back %.2f s",
                             floor.sha512 * 1024, floor.sha256 * 1024, floor.secretbox * 1024, floor.fileIO * 1024))
                print(String(format: "floor: TLS %.2f + XFTP crypto and file copies %.2f (client) + %.2f (servers) = %.2f CPU-s; on %.0f cores >= %.2f s: ratio at most %.2f (xftp CPU %.2f s, %.2fx the floor)",
                             tlsCPU, floor.client(mb: mb), floor.server(mb: mb), floorCPU, cores, floorTime, tlsTime / floorTime,
                             xftpCPU, xftpCPU / floorCPU))
            }
            if receivedHash != sourceHash || usedServers != min(servers, description.chunks.count) {
                print("FAILED: received file \(receivedHash == sourceHash ? "ok" : "differs"), chunks on \(usedServers) of \(servers) servers")
                failed = true
            }
        }
        PosixFile.remove(src)
        if ratios.count > 1 {
            let sorted = ratios.sorted()
            print(String(format: "ratio tls/xftp over %d rounds: median %.2f (%@; target >= 0.5)", ratios.count, sorted[sorted.count / 2],
                         sorted.map { String(format: "%.2f", $0) }.joined(separator: ", ")))
        }
        try? await group.shutdownGracefully()
        if failed { throw ExitCode(1) }
        print("received file: SHA-256 equal to the source")
    }

    /// Pseudo-random content (an XSalsa20 keystream under a random key: no two chunks alike, and
    /// fast enough that a gigabyte takes a second); returns its SHA-256.
    func writeFile(_ path: String, size: Int64) throws -> [UInt8] {
        let f = try PosixFile(path: path, mode: .create)
        let h = StreamDigest(.sha256)
        var keystream = try SecretBoxStream(secret: SecureRandom.bytes(32), nonce: SecureRandom.bytes(24))
        var left = size
        while left > 0 {
            let n = Int(min(left, 1 << 20))
            var block = [UInt8](repeating: 0, count: n)
            block.withUnsafeMutableBytes { keystream.encrypt(inPlace: $0) }
            try f.write(block)
            h.update(block)
            left -= Int64(n)
        }
        // On disk before the clock starts, as a file someone sends is: its dirty pages would
        // otherwise take the page cache's write-back budget from the transfer being timed.
        f.sync()
        return h.finalize()
    }

    func hashFile(_ path: String) throws -> [UInt8] {
        let f = try PosixFile(path: path, mode: .read)
        let h = StreamDigest(.sha256)
        while true {
            let b = try f.read(max: 1 << 20)
            if b.isEmpty { break }
            h.update(b)
        }
        return h.finalize()
    }

    func plainTLS(bytes: Int64, port: Int, group: any EventLoopGroup) async throws -> Double {
        let clientCtx = try TLSContext(clientConfiguration: XFTPTLS.client)
        let done = group.next().makePromise(of: Void.self)
        let start = Date()
        let client = try await ClientBootstrap(group: group)
            .channelInitializer { ch in
                ch.eventLoop.makeCompletedFuture {
                    try ch.pipeline.syncOperations.addHandler(TLSHandler(context: clientCtx, verifier: { _ in true }))
                    try ch.pipeline.syncOperations.addHandler(CountTo(bytes: bytes, done: done))
                }
            }
            .connect(host: "127.0.0.1", port: port).get()
        // The size first, so the echo side knows when to answer.
        var head = client.allocator.buffer(capacity: 8)
        head.writeInteger(UInt64(bytes))
        try await client.writeAndFlush(head)
        let block = SecureRandom.bytes(65536)
        var left = bytes
        while left > 0 {
            let n = Int(min(left, Int64(block.count)))
            var buf = client.allocator.buffer(capacity: n)
            buf.writeBytes(block[0..<n])
            try await client.writeAndFlush(buf)
            left -= Int64(n)
        }
        try await done.futureResult.get()
        let t = Date().timeIntervalSince(start)
        try? await client.close()
        return t
    }
}

/// Minor page faults of a process so far (`/proc/<pid>/stat`, the 10th field).
func minorFaults(of pid: String) -> Int {
    guard let s = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = s.lastIndex(of: ")") else { return 0 }
    let fields = s[s.index(after: close)...].split(separator: " ")
    return fields.count > 7 ? Int(fields[7]) ?? 0 : 0
}

/// User plus system CPU time of a process so far (`/proc/<pid>/stat`), in seconds.
func cpuSeconds(of pid: String) -> Double {
    guard let s = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let close = s.lastIndex(of: ")") else { return 0 }
    // Fields after the command name: state is the 3rd field of the line, utime and stime the 14th and 15th.
    let fields = s[s.index(after: close)...].split(separator: " ")
    guard fields.count > 12, let u = Double(fields[11]), let k = Double(fields[12]) else { return 0 }
    return (u + k) / Double(sysconf(Int32(_SC_CLK_TCK)))
}

/// VmHWM (peak resident set) of a process, in kB.
func peakRSS(of pid: String) -> String {
    guard let s = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
          let line = s.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
    else { return "?" }
    return line.split(separator: " ").dropFirst().first.map(String.init) ?? "?"
}

/// Completes `done` once `bytes` arrived.
final class CountTo: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    let bytes: Int64
    let done: EventLoopPromise<Void>
    var received: Int64 = 0
    init(bytes: Int64, done: EventLoopPromise<Void>) {
        self.bytes = bytes
        self.done = done
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        received += Int64(unwrapInboundIn(data).readableBytes)
        if received >= bytes { done.succeed(()) }
    }
}

