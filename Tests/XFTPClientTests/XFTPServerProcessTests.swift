import Crypto
import Foundation
import NIOPosix
import SimplexFoundation
import XCTest
import XFTPClient
import XFTPProtocol

/// The `xftp-server` executable: `init` then `start` serves our client over the network; SIGTERM
/// stops it cleanly and a restart still has the uploaded chunk (store log).
final class XFTPServerProcessTests: XCTestCase {
    func testInitStartServeAndRestart() async throws {
        let exe = try xftpServerBinary()
        let dir = makeTempDir("xftp-proc")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let port = Int.random(in: 20000...60000)
        let initOut = try run(exe, ["init", "--data", dir + "/data", "--path", dir + "/files", "--quota", "10mb", "--port", String(port)])
        guard let line = initOut.split(separator: "\n").first(where: { $0.hasPrefix("Server address: ") }),
              let address = XFTPServerAddress(parsing: line.dropFirst("Server address: ".count))
        else { return XCTFail("no address in: \(initOut)") }
        XCTAssertEqual(address.port, String(port))

        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        var server = try start(exe, dir + "/data")
        try await waitListening(server)
        let c = try await XFTPClientSession.connect(to: address, group: group)
        try await c.ping()
        let path = dir + "/chunk"
        let bytes = try writeRandom(path, Int(XFTPChunkSizes.size0))
        let digest = Array(SHA256.hash(data: bytes))
        let sKey = AnyPrivateKey.generate(.ed25519), rKey = AnyPrivateKey.generate(.ed25519)
        let (sid, rids) = try await c.createChunk(senderKey: sKey, info: FileInfo(senderKey: sKey.publicKey, size: XFTPChunkSizes.size0, digest: digest),
                                                  recipientKeys: [rKey.publicKey], auth: nil)
        try await c.uploadChunk(senderKey: sKey, senderId: sid, chunk: XFTPChunkSpec(path: path, offset: 0, size: XFTPChunkSizes.size0))
        await c.close()
        server.terminate()  // SIGTERM
        server.waitUntilExit()
        XCTAssertEqual(server.terminationStatus, 0)

        server = try start(exe, dir + "/data")
        try await waitListening(server)
        let c2 = try await XFTPClientSession.connect(to: address, group: group)
        try await c2.downloadChunk(recipientKey: rKey, recipientId: rids[0],
                                   destination: XFTPReceiveChunkSpec(path: dir + "/down", size: XFTPChunkSizes.size0, digest: digest))
        XCTAssertEqual(Array(try Data(contentsOf: URL(fileURLWithPath: dir + "/down"))), bytes)
        await c2.close()
        server.interrupt()  // SIGINT
        server.waitUntilExit()
        XCTAssertEqual(server.terminationStatus, 0)
        try? await group.shutdownGracefully()
    }

    func xftpServerBinary() throws -> String {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var dir = URL(fileURLWithPath: exe).deletingLastPathComponent()
        for _ in 0..<3 {
            let candidate = dir.appendingPathComponent("xftp-server").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        throw XCTSkip("xftp-server binary not found next to \(exe); run `swift build` first")
    }

    func run(_ path: String, _ args: [String]) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = args
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = pipe
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    func start(_ path: String, _ data: String) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = ["start", "--data", data]
        p.standardOutput = Pipe()
        p.standardError = FileHandle.nullDevice
        try p.run()
        return p
    }

    /// Reads the server's output until it says it listens.
    func waitListening(_ p: Process) async throws {
        guard let pipe = p.standardOutput as? Pipe else { return XCTFail("no pipe") }
        let handle = pipe.fileHandleForReading
        try await withCheckedThrowingContinuation { (cont: CheckedContinuation<Void, any Error>) in
            DispatchQueue.global().async {
                var text = ""
                while true {
                    let data = handle.availableData
                    if data.isEmpty {
                        cont.resume(throwing: NSError(domain: "xftp-server", code: 1, userInfo: [NSLocalizedDescriptionKey: "exited: \(text)"]))
                        return
                    }
                    text += String(decoding: data, as: UTF8.self)
                    if text.contains("Listening on") {
                        cont.resume()
                        return
                    }
                }
            }
        }
    }
}
