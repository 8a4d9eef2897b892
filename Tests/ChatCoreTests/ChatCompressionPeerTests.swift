import Foundation
import SMPAgent
import Testing

@testable import ChatCore

/// Compressed bodies between our code and an independent implementation of the format
/// (scripts/chat_compression_peer.py over PyPI `zstandard`, which bundles its own libzstd):
/// each side reads what the other wrote. scripts/test.sh installs `zstandard`.
struct ChatCompressionPeerTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/chat_compression_peer.py").path

    static func python(_ args: [String]) throws -> Data {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", script] + args
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        try #require(p.terminationStatus == 0, "python3 \(script) \(args) failed (is PyPI zstandard installed?)")
        return data
    }

    static func messages() throws -> [ChatMessage] {
        [
            ChatMessage(chatVRange: VersionRange(1...9), msgId: .random(), event: .msgNew(MsgContainer(content: .text("short")))),
            ChatMessage(chatVRange: VersionRange(1...9), msgId: .random(),
                        event: .msgNew(MsgContainer(content: .text(String(repeating: "a message long enough for zstd. ", count: 300))))),
            ChatMessage(chatVRange: VersionRange(1...9), msgId: .random(), event: .info(Profile(displayName: "peer", fullName: String(repeating: "x", count: 500)))),
        ]
    }

    @Test func weReadWhatThePeerWrites() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("zpeer-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let ms = try Self.messages()
        // Parts: one message, one long message, and a batch of all three.
        let batch = try #require(try ChatMessageBody.encode(ms).first?.get())
        #expect(batch.messageIndices == [0, 1, 2])
        let parts = try [ms[0].encodedString(), ms[1].encodedString(), String(decoding: batch.body, as: UTF8.self)]
        let partsFile = dir.appendingPathComponent("parts.json"), bodyFile = dir.appendingPathComponent("body")
        try JSONSerialization.data(withJSONObject: parts).write(to: partsFile)
        _ = try Self.python(["encode", partsFile.path, bodyFile.path])
        let body = try Data(contentsOf: bodyFile)
        #expect(body.first == UInt8(ascii: "X") && body[1] == 3)
        #expect(try ChatMessageBody.decode(body).map { try $0.get() } == [ms[0], ms[1]] + ms)
    }

    @Test func thePeerReadsWhatWeWrite() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("zpeer-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        for m in try Self.messages() {
            let json = try m.encoded()
            let bodyFile = dir.appendingPathComponent("body")
            try ChatCompression.compressedBody(json).write(to: bodyFile)
            let decoded = try JSONSerialization.jsonObject(with: try Self.python(["decode", bodyFile.path])) as? [String]
            #expect(decoded == [String(decoding: json, as: UTF8.self)])
        }
    }
}
