import Foundation

/// An agent message body as the chat layer reads and writes it: one JSON message, a JSON array of
/// messages (a batch, chat version 5+ in groups, 9+ in direct chats), or a compressed body (`X`,
/// version 8+) whose parts decompress to either. The binary forms of relay groups (`=` binary
/// batch, `/` signed, `>` forwarded, `F` file chunk) are recognised and reported as unsupported.
public enum ChatMessageBody {
    /// The messages in `body`, as simplex-chat's `parseChatMessages`: every failure is an element,
    /// so one bad message (or one bad compressed part) does not lose the others.
    public static func parse(
        _ body: Data, maxLength: Int = ChatProtocolLimits.maxDecodedBodyLength
    ) -> [Result<ChatMessage, ChatProtocolError>] {
        do { return try decode(body, maxLength: maxLength) } catch { return [.failure(error)] }
    }

    /// The messages in `body`. A body that is one message either gives it or throws why not, as does
    /// a body that fails as a whole (empty, too large, malformed compressed list, binary, not JSON).
    /// In a batch each element succeeds or fails on its own, as in simplex-chat, and so does each
    /// part of a compressed body. An empty array gives no messages.
    public static func decode(
        _ body: Data, maxLength: Int = ChatProtocolLimits.maxDecodedBodyLength
    ) throws(ChatProtocolError) -> [Result<ChatMessage, ChatProtocolError>] {
        guard let first = body.first else { throw .emptyBody }
        guard body.count <= maxLength else { throw .tooLarge(size: body.count, limit: maxLength) }
        guard first == ChatCompression.marker else { return try decodeUncompressed(body, maxLength: maxLength) }
        var out: [Result<ChatMessage, ChatProtocolError>] = []
        for part in try ChatCompression.parts(body.dropFirst()) {
            do throws(ChatProtocolError) {
                let plain = try part.decompressed()
                // A compressed part holds a message or a batch, never another compressed body.
                guard let f = plain.first else { throw .emptyBody }
                if f == ChatCompression.marker { throw .invalidCompressedBody("nested compressed body") }
                out += try decodeUncompressed(plain, maxLength: ChatProtocolLimits.maxDecompressedMsgLength)
            } catch {
                out.append(.failure(error))
            }
        }
        return out
    }

    private static func decodeUncompressed(_ body: Data, maxLength: Int) throws(ChatProtocolError) -> [Result<ChatMessage, ChatProtocolError>] {
        guard let first = body.first else { throw .emptyBody }
        switch first {
        case UInt8(ascii: "{"):
            return [.success(try ChatMessage.decode(body, maxLength: maxLength))]
        case UInt8(ascii: "["):
            try checkDepth(body)
            do {
                return try JSONDecoder().decode([BatchElement].self, from: body).map(\.result)
            } catch {
                throw ChatProtocolError.wrapping(error)
            }
        default:
            throw prefixError(first) ?? .invalidJSON("a message body must start with '{' or '['")
        }
    }

    /// The error for a body starting with one of the non-JSON forms' markers, nil for others.
    static func prefixError(_ first: UInt8) -> ChatProtocolError? {
        switch first {
        case UInt8(ascii: "="), UInt8(ascii: "/"), UInt8(ascii: ">"), UInt8(ascii: "F"):
            .unsupportedFormat(prefix: String(UnicodeScalar(first)))
        default: nil
        }
    }

    /// Decodes a body given as text.
    public static func decode(_ text: String) throws(ChatProtocolError) -> [Result<ChatMessage, ChatProtocolError>] {
        try decode(Data(text.utf8))
    }

    /// Packs encoded messages into bodies of at most `maxSize` bytes, keeping their order, as
    /// simplex-chat's `batchMessages` does: filled from the last message backwards (so the last
    /// body is the fullest), a single message sent as itself, several as `[m1,m2,...]`. A message
    /// that alone exceeds `maxSize` becomes a `tooLarge` failure in its place.
    public static func batch(
        _ messages: [Data], maxSize: Int = ChatProtocolLimits.maxEncodedMsgLength
    ) -> [Result<ChatMessageBatch, ChatProtocolError>] {
        // Built back to front, then reversed.
        var out: [Result<ChatMessageBatch, ChatProtocolError>] = []
        var bodies: [Data] = []
        var indices: [Int] = []
        var total = 0

        func flush() {
            guard !indices.isEmpty else { return }
            out.append(.success(ChatMessageBatch(body: joined(Array(bodies.reversed())), messageIndices: Array(indices.reversed()))))
            bodies = []
            indices = []
            total = 0
        }

        for (i, m) in messages.enumerated().reversed() {
            if batchLength(total + m.count, count: indices.count + 1) <= maxSize {
                bodies.append(m)
                indices.append(i)
                total += m.count
                continue
            }
            flush()
            if m.count <= maxSize {
                bodies = [m]
                indices = [i]
                total = m.count
            } else {
                out.append(.failure(.tooLarge(size: m.count, limit: maxSize)))
            }
        }
        flush()
        return Array(out.reversed())
    }

    /// Encodes `messages` and packs them with `batch`; a message that cannot be encoded, or that is
    /// too large on its own, is a failure in its place.
    public static func encode(
        _ messages: [ChatMessage], maxSize: Int = ChatProtocolLimits.maxEncodedMsgLength
    ) -> [Result<ChatMessageBatch, ChatProtocolError>] {
        var out: [Result<ChatMessageBatch, ChatProtocolError>] = []
        var pending: [Data] = []
        var pendingIndices: [Int] = []

        func flush() {
            for r in batch(pending, maxSize: maxSize) {
                out.append(r.map { ChatMessageBatch(body: $0.body, messageIndices: $0.messageIndices.map { pendingIndices[$0] }) })
            }
            pending = []
            pendingIndices = []
        }

        for (i, m) in messages.enumerated() {
            do {
                pending.append(try m.encoded(maxSize: nil))
                pendingIndices.append(i)
            } catch {
                flush()
                out.append(.failure(error))
            }
        }
        flush()
        return out
    }

    /// The size `n` messages of `total` bytes take as one body: commas and brackets for n > 1.
    static func batchLength(_ total: Int, count n: Int) -> Int {
        n <= 1 ? total : total + n + 1
    }

    private static func joined(_ bodies: [Data]) -> Data {
        if bodies.count == 1, let only = bodies.first { return only }
        var d = Data("[".utf8)
        for (i, b) in bodies.enumerated() {
            if i > 0 { d.append(UInt8(ascii: ",")) }
            d.append(b)
        }
        d.append(UInt8(ascii: "]"))
        return d
    }

    /// Rejects JSON nested deeper than `ChatProtocolLimits.maxJSONDepth` before the decoder (and our
    /// recursive `JSONValue`) descend into it. Brackets inside strings do not count.
    static func checkDepth(_ data: Data, limit: Int = ChatProtocolLimits.maxJSONDepth) throws(ChatProtocolError) {
        var depth = 0
        var inString = false
        var escaped = false
        for b in data {
            if inString {
                if escaped {
                    escaped = false
                } else if b == UInt8(ascii: "\\") {
                    escaped = true
                } else if b == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch b {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                if depth > limit { throw .tooDeep(limit: limit) }
            case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
            default: break
            }
        }
    }
}

/// One body made by `ChatMessageBody.batch`: the bytes to send and which of the input messages
/// (by position) it carries, so delivery results can be matched back to messages.
public struct ChatMessageBatch: Sendable, Hashable {
    public var body: Data
    public var messageIndices: [Int]

    public init(body: Data, messageIndices: [Int]) {
        self.body = body
        self.messageIndices = messageIndices
    }
}

/// A batch element that records its own decoding failure instead of failing the array.
private struct BatchElement: Decodable {
    let result: Result<ChatMessage, ChatProtocolError>

    init(from decoder: any Decoder) throws {
        do {
            result = .success(try ChatMessage(from: decoder))
        } catch {
            result = .failure(ChatProtocolError.wrapping(error))
        }
    }
}
