import Foundation
import NIOCore
import NIOPosix
import SMPTransport
import SimplexFoundation
import XFTPProtocol
import XFTPServer
import XFTPTransport

/// The server side of the benchmark, run as a child process (`xftp-bench --serve-dir DIR`) so its
/// peak RSS is its own: an XFTP server and a plain TLS echo listener with the same credentials.
/// It prints `READY <xftp address> <tls port>` and exits when its stdin closes.
enum BenchServer {
    static func serve(directory: String) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let credentials = try ServerCredentials.generate(commonName: "127.0.0.1")
        var config = XFTPServerConfig()
        config.filesPath = directory + "/files"
        let core = try XFTPServerCore(config: config, store: FileStore())
        let server = try await XFTPTransportServer.start(core: core, credentials: credentials, host: "127.0.0.1", port: 0, group: group)
        let address = XFTPServerAddress(keyHash: credentials.keyHash, hosts: [.ipv4(127, 0, 0, 1)], port: String(server.port))

        let tls = try TLSContext(serverChain: credentials.chain, privateKeyPKCS8: credentials.serverPrivateKey.pkcs8Encoded,
                                 configuration: XFTPTLS.server)
        let listener = try await ServerBootstrap(group: group)
            .childChannelInitializer { ch in
                ch.eventLoop.makeCompletedFuture {
                    try ch.pipeline.syncOperations.addHandler(TLSHandler(context: tls))
                    try ch.pipeline.syncOperations.addHandler(EchoAfter())
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        FileHandle.standardOutput.write(Data("READY \(address) \(listener.localAddress?.port ?? 0)\n".utf8))
        // The parent closes our stdin when it is done (or dies): then we go.
        let stopped = Thread {
            _ = FileHandle.standardInput.readDataToEndOfFile()
            exit(0)
        }
        stopped.start()
        while true { try await Task.sleep(for: .seconds(3600)) }
    }

    /// A running child server.
    struct Child {
        let process: Process
        let stdin: Pipe
        let address: XFTPServerAddress
        let tlsPort: Int

        static func start(directory: String) throws -> Child {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            p.arguments = ["--serve-dir", directory]
            let input = Pipe(), output = Pipe()
            p.standardInput = input
            p.standardOutput = output
            try p.run()
            // One line: READY <address> <port>.
            var line: [UInt8] = []
            while true {
                let b = output.fileHandleForReading.readData(ofLength: 1)
                guard let c = b.first else { break }
                if c == UInt8(ascii: "\n") { break }
                line.append(c)
            }
            let parts = String(decoding: line, as: UTF8.self).split(separator: " ")
            guard parts.count == 3, parts[0] == "READY", let address = XFTPServerAddress(parsing: parts[1]), let port = Int(parts[2]) else {
                p.terminate()
                throw BenchError("server child did not start: \(String(decoding: line, as: UTF8.self))")
            }
            return Child(process: p, stdin: input, address: address, tlsPort: port)
        }

        func stop() {
            try? stdin.fileHandleForWriting.close()
            process.waitUntilExit()
        }
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}

/// Reads an 8-byte size, receives that many bytes, then sends as many back.
final class EchoAfter: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    var header = ByteBuffer()
    var bytes: Int64?
    var received: Int64 = 0
    var answered = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buf = unwrapInboundIn(data)
        if bytes == nil {
            header.writeBuffer(&buf)
            guard header.readableBytes >= 8, let n = header.readInteger(as: UInt64.self) else { return }
            bytes = Int64(n)
            received = Int64(header.readableBytes)
        } else {
            received += Int64(buf.readableBytes)
        }
        guard let bytes, received >= bytes, !answered else { return }
        answered = true
        sendBack(context: context, left: bytes)
    }

    private func sendBack(context: ChannelHandlerContext, left: Int64) {
        guard left > 0 else { return }
        let n = Int(min(left, 65536))
        var buf = context.channel.allocator.buffer(capacity: n)
        buf.writeRepeatingByte(7, count: n)
        let loop = context.eventLoop
        let ctx = NIOLoopBound(context, eventLoop: loop)
        let me = NIOLoopBound(self, eventLoop: loop)
        // The next piece goes from a fresh turn of the loop: a write the socket takes at once
        // completes synchronously, and calling on from inside its callback kept every piece's
        // buffer alive down a recursion as deep as the echo (the echo process grew by the bytes
        // echoed and spent the baseline's time faulting in that memory).
        context.writeAndFlush(wrapOutboundOut(buf)).whenSuccess {
            loop.execute { me.value.sendBack(context: ctx.value, left: left - Int64(n)) }
        }
    }
}
