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

/// `xftp-bench`: uploads and downloads one large file through an in-process XFTP server (TLS +
/// HTTP/2 on loopback, real chunk files) and sends the same number of bytes both ways over a
/// plain TLS connection in the same run; prints both times, their ratio, and the peak RSS.
@main
struct XFTPBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "xftp-bench",
                                                    abstract: "XFTP upload+download time against a plain TLS stream of the same bytes.")

    @Option(name: .long, help: "File size in MB.")
    var sizeMB: Int = 64

    func run() async throws {
        let size = sizeMB * 1024 * 1024
        let dir = NSTemporaryDirectory() + "xftp-bench-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let src = dir + "/file.bin"
        try writeFile(src, size: size)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let credentials = try ServerCredentials.generate(commonName: "127.0.0.1")

        // XFTP: encrypt, chunk, upload, download, decrypt.
        var config = XFTPServerConfig()
        config.filesPath = dir + "/files"
        let core = try XFTPServerCore(config: config, store: FileStore())
        let server = try await XFTPTransportServer.start(core: core, credentials: credentials, host: "127.0.0.1", port: 0, group: group)
        let address = XFTPServerAddress(keyHash: credentials.keyHash, hosts: [.ipv4(127, 0, 0, 1)], port: String(server.port))
        let progress = try DirectoryProgressStore(directory: dir + "/progress")
        let transfer = XFTPFileTransfer(pool: XFTPClientPool(group: group), progress: progress, workDirectory: dir + "/work")
        let t0 = Date()
        let result = try await transfer.upload(sourcePath: src, fileName: "file.bin", servers: [address], recipientCount: 1, transferId: "b")
        let t1 = Date()
        try FileManager.default.createDirectory(atPath: dir + "/out", withIntermediateDirectories: true)
        let out = try await transfer.download(result.recipients[0], to: dir + "/out", transferId: "b")
        let t2 = Date()
        guard PosixFile.size(of: out) == Int64(size) else { throw ValidationError("downloaded file has the wrong size") }
        await server.shutdown()
        let xftpPeak = peakRSS()

        // Plain TLS: the same bytes up, then back.
        let tlsTime = try await plainTLS(bytes: size, credentials: credentials, group: group)
        try? await group.shutdownGracefully()

        let xftpTime = t2.timeIntervalSince(t0)
        print("file: \(sizeMB) MB in \(result.recipients[0].chunks.count) chunks")
        print(String(format: "xftp upload: %.2f s, download: %.2f s, total: %.2f s (%.1f MB/s each way)",
                     t1.timeIntervalSince(t0), t2.timeIntervalSince(t1), xftpTime, Double(sizeMB) * 2 / xftpTime))
        print(String(format: "plain TLS both ways: %.2f s", tlsTime))
        print(String(format: "ratio xftp/tls: %.2f", xftpTime / tlsTime))
        print("peak RSS after XFTP: \(xftpPeak) kB, after both: \(peakRSS()) kB")
    }

    func writeFile(_ path: String, size: Int) throws {
        let f = try PosixFile(path: path, mode: .create)
        var left = size
        let block = SecureRandom.bytes(1 << 20)
        while left > 0 {
            let n = min(left, block.count)
            try f.write(n == block.count ? block : Array(block[0..<n]))
            left -= n
        }
    }

    /// VmHWM of this process.
    func peakRSS() -> String {
        guard let s = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = s.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
        else { return "?" }
        return line.split(separator: " ").dropFirst().first.map(String.init) ?? "?"
    }

    func plainTLS(bytes: Int, credentials: ServerCredentials, group: any EventLoopGroup) async throws -> Double {
        let serverCtx = try TLSContext(serverChain: credentials.chain, privateKeyPKCS8: credentials.serverPrivateKey.pkcs8Encoded,
                                       configuration: XFTPTLS.server)
        let listener = try await ServerBootstrap(group: group)
            .childChannelInitializer { ch in
                ch.eventLoop.makeCompletedFuture {
                    try ch.pipeline.syncOperations.addHandler(TLSHandler(context: serverCtx))
                    try ch.pipeline.syncOperations.addHandler(EchoAfter(bytes: bytes))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
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
            .connect(host: "127.0.0.1", port: listener.localAddress!.port!).get()
        let block = SecureRandom.bytes(65536)
        var left = bytes
        while left > 0 {
            let n = min(left, block.count)
            var buf = client.allocator.buffer(capacity: n)
            buf.writeBytes(block[0..<n])
            try await client.writeAndFlush(buf)
            left -= n
        }
        try await done.futureResult.get()
        let t = Date().timeIntervalSince(start)
        try? await client.close()
        try? await listener.close()
        return t
    }
}

/// Receives `bytes`, then sends as many back.
final class EchoAfter: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    let bytes: Int
    var received = 0
    init(bytes: Int) { self.bytes = bytes }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        received += unwrapInboundIn(data).readableBytes
        guard received >= bytes, received - unwrapInboundIn(data).readableBytes < bytes else { return }
        sendBack(context: context, left: bytes)
    }

    private func sendBack(context: ChannelHandlerContext, left: Int) {
        guard left > 0 else { return }
        let n = min(left, 65536)
        var buf = context.channel.allocator.buffer(capacity: n)
        buf.writeRepeatingByte(7, count: n)
        let loop = context.eventLoop
        let ctx = NIOLoopBound(context, eventLoop: loop)
        let me = NIOLoopBound(self, eventLoop: loop)
        context.writeAndFlush(wrapOutboundOut(buf)).whenSuccess { me.value.sendBack(context: ctx.value, left: left - n) }
    }
}

/// Completes `done` once `bytes` arrived.
final class CountTo: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    let bytes: Int
    let done: EventLoopPromise<Void>
    var received = 0
    init(bytes: Int, done: EventLoopPromise<Void>) {
        self.bytes = bytes
        self.done = done
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        received += unwrapInboundIn(data).readableBytes
        if received >= bytes { done.succeed(()) }
    }
}
