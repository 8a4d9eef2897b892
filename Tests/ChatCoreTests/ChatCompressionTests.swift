import CZstd
import Foundation
import SMPAgent
import Testing

@testable import ChatCore

/// Compressed chat bodies (chat version 8+) as simplexmq's Compression.hs and simplex-chat's
/// `parseChatMessages` define them, built here with libzstd the way the Haskell code builds them.
struct ChatCompressionTests {
    static func message(_ text: String) -> ChatMessage {
        ChatMessage(chatVRange: VersionRange(1...9), msgId: .random(), event: .msgNew(MsgContainer(content: .text(text))))
    }

    /// The bytes libzstd decompresses `frame` to, found independently of our decoder.
    static func zstdDecompress(_ frame: Data) throws -> Data {
        let size = frame.withUnsafeBytes { ZSTD_getFrameContentSize($0.baseAddress, frame.count) }
        try #require(size < UInt64(ZSTD_CONTENTSIZE_ERROR))
        var out = Data(count: Int(size))
        let n = out.withUnsafeMutableBytes { d in frame.withUnsafeBytes { s in ZSTD_decompress(d.baseAddress, Int(size), s.baseAddress, frame.count) } }
        try #require(ZSTD_isError(n) == 0)
        return out.prefix(n)
    }

    /// A zstd frame that does not record its decompressed size (as a streaming compressor makes).
    static func frameWithoutSize(_ data: Data) throws -> Data {
        let cctx = try #require(ZSTD_createCCtx())
        defer { ZSTD_freeCCtx(cctx) }
        ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 0)
        let cap = ZSTD_compressBound(data.count)
        var out = Data(count: cap)
        let n = out.withUnsafeMutableBytes { d in data.withUnsafeBytes { s in ZSTD_compress2(cctx, d.baseAddress, cap, s.baseAddress, data.count) } }
        try #require(ZSTD_isError(n) == 0)
        return out.prefix(n)
    }

    static func texts(_ results: [Result<ChatMessage, ChatProtocolError>]) -> [String?] {
        results.map { r in
            guard case .success(let m) = r, case .msgNew(let c) = m.event else { return nil }
            return c.content.text
        }
    }

    // MARK: encoding

    @Test func shortBodiesPassThrough() throws {
        let body = try Self.message("hi").encoded()
        #expect(body.count <= CompressedPart.maxLengthPassthrough)
        let wire = try ChatCompression.compressedBody(body)
        // 'X', a list of one part, '0', a 1-byte length, the body as it is.
        let expected: Data = Data([UInt8(ascii: "X"), 1, UInt8(ascii: "0"), UInt8(body.count)]) + body
        #expect(wire == expected)
        #expect(Self.texts(try ChatMessageBody.decode(wire)) == ["hi"])
        // 180 bytes still pass through, 181 do not.
        #expect(try CompressedPart.compress(Data(count: 180)) == .passthrough(Data(count: 180)))
        guard case .compressed = try CompressedPart.compress(Data(count: 181)) else {
            Issue.record("181 bytes not compressed")
            return
        }
    }

    @Test func longBodiesAreOneZstdFrame() throws {
        let text = String(repeating: "compress me, ", count: 400)
        let body = try Self.message(text).encoded()
        let wire = try ChatCompression.compressedBody(body)
        // 'X', one part, '1', a 2-byte big-endian length, a level-3 zstd frame recording the size.
        #expect(Array(wire.prefix(3)) == [UInt8(ascii: "X"), 1, UInt8(ascii: "1")])
        let len = Int(wire[3]) << 8 | Int(wire[4])
        #expect(len == wire.count - 5)
        let frame = wire.dropFirst(5)
        #expect(frame.count < body.count / 4)
        #expect(try Self.zstdDecompress(Data(frame)) == body)
        // And the same frame as libzstd's one-shot level-3 compression makes it (as Haskell `Z1.compress 3`).
        var direct = Data(count: ZSTD_compressBound(body.count))
        let n = direct.withUnsafeMutableBytes { d in body.withUnsafeBytes { s in ZSTD_compress(d.baseAddress, d.count, s.baseAddress, body.count, 3) } }
        #expect(Data(frame) == direct.prefix(n))
        #expect(Self.texts(try ChatMessageBody.decode(wire)) == [text])
    }

    @Test func compressedBatchesAndSeveralParts() throws {
        let long = String(repeating: "x", count: 3000)
        let batch = try #require(try ChatMessageBody.encode([Self.message("one"), Self.message(long)]).first?.get())
        #expect(batch.body.first == UInt8(ascii: "["))
        let single = try Self.message("three").encoded()
        let wire = try ChatCompression.body([try CompressedPart.compress(batch.body), try CompressedPart.compress(single)])
        #expect(wire[1] == 2)
        #expect(Self.texts(try ChatMessageBody.decode(wire)) == ["one", long, "three"])
        // Round trip of the part list itself.
        #expect(try ChatCompression.parts(wire.dropFirst()) == [try CompressedPart.compress(batch.body), .passthrough(single)])
    }

    // MARK: malformed input

    @Test func malformedPartListsFailAsAWhole() throws {
        let ok = try Self.message("hi").encoded()
        let cases: [(String, Data)] = [
            ("no list", Data("X".utf8)),
            ("empty list", Data("X".utf8) + Data([0])),
            ("unknown tag", Data("X".utf8) + Data([1, UInt8(ascii: "2"), 2]) + Data("{}".utf8)),
            ("short passthrough", Data("X".utf8) + Data([1, UInt8(ascii: "0"), 200]) + ok),
            ("short frame", Data("X".utf8) + Data([1, UInt8(ascii: "1"), 0xFF, 0xFF]) + ok),
            ("fewer parts than counted", Data("X".utf8) + Data([2, UInt8(ascii: "0"), UInt8(ok.count)]) + ok),
            ("trailing bytes", Data("X".utf8) + Data([1, UInt8(ascii: "0"), UInt8(ok.count)]) + ok + Data([0])),
        ]
        for (name, body) in cases {
            #expect(throws: ChatProtocolError.self, "\(name)") { try ChatMessageBody.decode(body) }
            let parsed = ChatMessageBody.parse(body)
            #expect(parsed.count == 1, "\(name)")
            guard case .failure(.invalidCompressedBody) = parsed.first else {
                Issue.record("\(name): \(parsed)")
                continue
            }
        }
    }

    @Test func badFramesFailAloneWithTypedErrors() throws {
        let good = try Self.message("still here").encoded()
        let longBody = try Self.message(String(repeating: "y", count: 2000)).encoded()
        guard case .compressed(let frame) = try CompressedPart.compress(longBody) else {
            Issue.record("not compressed")
            return
        }
        // A bomb: 70,000 bytes declared, more than the 65,536 a part may decompress to.
        let bomb = try CompressedPart.compress(Data(repeating: UInt8(ascii: "a"), count: 70_000))
        guard case .compressed(let bombFrame) = bomb else {
            Issue.record("not compressed")
            return
        }
        #expect(bombFrame.count < 100)
        // A frame of nothing (content size 0), made directly with libzstd.
        var emptyFrame = Data(count: 64)
        let emptyCount = emptyFrame.withUnsafeMutableBytes { d in ZSTD_compress(d.baseAddress, 64, nil, 0, 3) }
        try #require(ZSTD_isError(emptyCount) == 0)
        emptyFrame = emptyFrame.prefix(emptyCount)
        // Two frames: the first declares less than the pair decompresses to.
        let twoFrames = frame + frame
        let cases: [(String, CompressedPart, ChatProtocolError?)] = [
            ("not zstd", .compressed(Data("definitely not a zstd frame".utf8)), .decompressedSizeUnknownOrTooLarge(limit: 65_536)),
            ("bomb", bomb, .decompressedSizeUnknownOrTooLarge(limit: 65_536)),
            ("size not recorded", .compressed(try Self.frameWithoutSize(longBody)), .decompressedSizeUnknownOrTooLarge(limit: 65_536)),
            ("truncated", .compressed(frame.prefix(frame.count - 5)), nil),
            ("more than declared", .compressed(twoFrames), nil),
            ("nested compressed", .passthrough(Data("X".utf8) + Data([1, UInt8(ascii: "0"), 2]) + Data("{}".utf8)), .invalidCompressedBody("nested compressed body")),
            ("empty", .passthrough(Data()), .emptyBody),
            ("empty frame", .compressed(emptyFrame), .emptyBody),
            ("bad JSON", .passthrough(Data(#"[{"event":"x.ok""#.utf8)), nil),
        ]
        for (name, bad, expected) in cases {
            // The bad part fails on its own; the good part after it is still read.
            let wire = try ChatCompression.body([bad, .passthrough(good)])
            let results = try ChatMessageBody.decode(wire)
            #expect(results.count == 2, "\(name)")
            guard case .failure(let e) = results.first else {
                Issue.record("\(name) decoded")
                continue
            }
            if let expected {
                #expect(e == expected, "\(name): \(e)")
            } else if name == "bad JSON" {
                guard case .invalidJSON = e else { Issue.record("\(name): \(e)"); continue }
            } else {
                guard case .decompressionFailed = e else { Issue.record("\(name): \(e)"); continue }
            }
            #expect(Self.texts(Array(results.dropFirst())) == ["still here"], "\(name)")
        }
        // Exactly at the cap is allowed.
        let atCap = try CompressedPart.compress(Data(repeating: UInt8(ascii: " "), count: 65_535) + Data("7".utf8))
        #expect(try atCap.decompressed().count == 65_536)
    }

    @Test func randomAndMutatedBodiesNeverCrash() throws {
        var rng = SystemRandomNumberGenerator()
        let good = try ChatCompression.compressedBody(try Self.message(String(repeating: "mutate me ", count: 100)).encoded())
        for i in 0..<3000 {
            var body: Data
            if i % 2 == 0 {
                // Random bytes after the marker, often with a plausible count and tag.
                body = Data([UInt8(ascii: "X"), UInt8.random(in: 0...3, using: &rng), [UInt8(ascii: "0"), UInt8(ascii: "1")][i % 4 / 2]])
                body += Data((0..<Int.random(in: 0...300, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) })
            } else {
                // A real body with a few bytes changed.
                body = good
                for _ in 0..<Int.random(in: 1...4, using: &rng) {
                    body[Int.random(in: 1..<body.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
                }
            }
            // Any outcome but a crash; every failure is a typed error.
            _ = ChatMessageBody.parse(body)
        }
    }

    @Test func badMessagesInACompressedBatchFailAlone() throws {
        let batch = Data(#"[{"event":"x.ok","params":{}},7,{"event":"x.msg.new","params":{}},{"event":"x.direct.del","params":{}}]"#.utf8)
        let wire = try ChatCompression.body([.passthrough(batch)])
        let results = try ChatMessageBody.decode(wire)
        #expect(results.count == 4)
        #expect(try results[0].get() == ChatMessage(event: .ok))
        if case .success = results[1] { Issue.record("7 decoded") }
        if case .success = results[2] { Issue.record("x.msg.new without content decoded") }
        #expect(try results[3].get() == ChatMessage(event: .directDel))
    }

    // MARK: when we compress

    @Test func compressOnlyOnPQConnectionsOfVersion8AndLongBodies() throws {
        let long = try Self.message(String(repeating: "long message text ", count: 800)).encoded()
        let short = try Self.message("short").encoded()
        #expect(long.count > ChatProtocolLimits.maxCompressedMsgLength)
        // Not PQ, or below version 8, or not long: sent as it is.
        #expect(try ChatCompression.bodyToSend(long, pqSupport: false, chatVersion: 9) == long)
        #expect(try ChatCompression.bodyToSend(long, pqSupport: true, chatVersion: 7) == long)
        #expect(try ChatCompression.bodyToSend(short, pqSupport: true, chatVersion: 9) == short)
        let atLimit = Data(repeating: UInt8(ascii: "{"), count: ChatProtocolLimits.maxCompressedMsgLength)
        #expect(try ChatCompression.bodyToSend(atLimit, pqSupport: true, chatVersion: 8) == atLimit)
        // PQ, version 8+, longer than the limit: compressed, and read back the same.
        let sent = try ChatCompression.bodyToSend(long, pqSupport: true, chatVersion: 8)
        #expect(sent.first == UInt8(ascii: "X") && sent.count < long.count)
        #expect(try ChatMessageBody.decode(sent).map { try $0.get() } == [try ChatMessage.decode(long)])
        // Incompressible and still too long: refused, not sent.
        var rng = SystemRandomNumberGenerator()
        let noise = Data((0..<14_000).map { _ in UInt8.random(in: 0...255, using: &rng) }).base64EncodedString()
        let noisy = try ChatMessage(event: .msgNew(MsgContainer(content: .text(noise)))).encoded(maxSize: nil)
        #expect(throws: ChatProtocolError.self) { try ChatCompression.bodyToSend(noisy, pqSupport: true, chatVersion: 9) }
        // Connection info has its own limit.
        let info = Data(repeating: UInt8(ascii: "a"), count: ChatProtocolLimits.maxCompressedInfoLength + 1)
        #expect(try ChatCompression.bodyToSend(info, pqSupport: true, chatVersion: 9, limit: ChatProtocolLimits.maxCompressedInfoLength).first == UInt8(ascii: "X"))
    }

    // MARK: batching and versions

    @Test func batchesFillFromTheEndAsSimplexChat() throws {
        let a = try ChatMessage(event: .ok).encoded()
        let b = try ChatMessage(event: .directDel).encoded()
        let c = try ChatMessage(event: .grpLeave).encoded()
        let two = ChatMessageBody.batchLength(b.count + c.count, count: 2)
        // Room for two: the last two go together, the first alone (foldr in Batch.hs).
        #expect(try ChatMessageBody.batch([a, b, c], maxSize: two).map { try $0.get().messageIndices } == [[0], [1, 2]])
    }

    @Test func negotiatedVersions() {
        #expect(ChatProtocolVersion.supportedRange == VersionRange(1...16))
        #expect(ChatController.negotiatedVersion(peerMin: 1, peerMax: 18) == 16)
        #expect(ChatController.negotiatedVersion(peerMin: 1, peerMax: 9) == 9)
        #expect(ChatController.negotiatedVersion(peerMin: 1, peerMax: 3) == 3)
        #expect(ChatController.negotiatedVersion(peerMin: nil, peerMax: nil) == 1)
        #expect(ChatController.negotiatedVersion(peerMin: 17, peerMax: 18) == 16)
        #expect(ChatController.negotiatedVersion(ours: VersionRange(1...9), peerMin: 10, peerMax: 18) == 9)
        #expect(ChatController.negotiatedVersion(peerMin: 1, peerMax: 1) == 1)
    }

    @Test func forwardedEventsAsSimplexChat() throws {
        #expect(ChatMsgEvent.msgNew(MsgContainer(content: .text("a"))).isForwardedGroupMsg)
        #expect(ChatMsgEvent.grpLeave.isForwardedGroupMsg)
        #expect(ChatMsgEvent.info(Profile(displayName: "a")).isForwardedGroupMsg)
        #expect(!ChatMsgEvent.grpMemCon(memberId: MemberId(bytes: [1])).isForwardedGroupMsg)
        #expect(!ChatMsgEvent.ok.isForwardedGroupMsg)
        // x.grp.msg.forward round trip with the forwarded message inside (sorted keys, as aeson).
        let inner = ChatMessage(chatVRange: VersionRange(1...9), msgId: SharedMsgId(bytes: [1, 2, 3, 4]), event: .msgNew(MsgContainer(content: .text("hi"))))
        let fwd = ChatMessage(event: .grpMsgForward(memberId: MemberId(bytes: [5]), memberName: "bob", msg: inner,
                                                    msgTs: try #require(UTCTime("2024-05-01T10:00:00Z"))))
        let text = try fwd.encodedString()
        #expect(text == #"{"event":"x.grp.msg.forward","params":{"memberId":"BQ==","memberName":"bob","msg":{"event":"x.msg.new","msgId":"AQIDBA==","params":{"content":{"text":"hi","type":"text"}},"v":"1-9"},"msgTs":"2024-05-01T10:00:00Z"}}"#)
        #expect(try ChatMessage.decode(text) == fwd)
    }
}
