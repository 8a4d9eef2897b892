import Foundation
import SMPAgent

/// One chat protocol message, the JSON object a client puts in an agent message body:
/// `{"v":"1-16","msgId":"...","event":"x.msg.new","params":{...}}` (simplex-chat.md "JSON format").
public struct ChatMessage: Sendable, Hashable {
    /// The sender's supported chat version range (`v`); absent in messages from version-1 peers.
    public var chatVRange: VersionRange?
    /// The shared message ID (`msgId`), present on messages that can be referenced later.
    public var msgId: SharedMsgId?
    public var event: ChatMsgEvent

    public init(chatVRange: VersionRange? = nil, msgId: SharedMsgId? = nil, event: ChatMsgEvent) {
        self.chatVRange = chatVRange
        self.msgId = msgId
        self.event = event
    }

    /// The range to negotiate with: `v`, or version 1 when the sender did not say.
    public var effectiveVRange: VersionRange { chatVRange ?? ChatProtocolVersion.initialRange }

    /// Decodes one message from a JSON object (not an array: see `ChatMessageBody.decode`).
    public static func decode(
        _ data: Data, maxLength: Int = ChatProtocolLimits.maxDecodedBodyLength
    ) throws(ChatProtocolError) -> ChatMessage {
        guard !data.isEmpty else { throw .emptyBody }
        guard data.count <= maxLength else { throw .tooLarge(size: data.count, limit: maxLength) }
        if let first = data.first, first != UInt8(ascii: "{") {
            throw ChatMessageBody.prefixError(first) ?? .invalidJSON("a chat message must be a JSON object")
        }
        try ChatMessageBody.checkDepth(data)
        do {
            return try JSONDecoder().decode(ChatMessage.self, from: data)
        } catch {
            throw ChatProtocolError.wrapping(error)
        }
    }

    /// Decodes one message from JSON text.
    public static func decode(_ text: String) throws(ChatProtocolError) -> ChatMessage {
        try decode(Data(text.utf8))
    }

    /// The compact JSON the peer receives: envelope members in simplex-chat's order (`v`, `msgId`,
    /// `event`, `params`), `params` with keys sorted as aeson writes them. Fails with `tooLarge`
    /// when longer than `maxSize` (pass nil for no limit, e.g. for a message to be batched).
    public func encoded(maxSize: Int? = ChatProtocolLimits.maxEncodedMsgLength) throws(ChatProtocolError) -> Data {
        guard ChatMsgEvent.isValidTag(event.tag) else { throw .invalidEvent(event.tag) }
        var out = Data("{".utf8)
        do {
            if let v = chatVRange {
                out += Data(#""v":"#.utf8) + (try ChatJSON.encode(v.description)) + Data(",".utf8)
            }
            if let msgId {
                out += Data(#""msgId":"#.utf8) + (try ChatJSON.encode(msgId)) + Data(",".utf8)
            }
            out += Data(#""event":"#.utf8) + (try ChatJSON.encode(event.tag))
            out += Data(#","params":"#.utf8) + (try ChatJSON.encode(EventParams(event: event)))
        } catch {
            throw ChatProtocolError.wrapping(error)
        }
        out += Data("}".utf8)
        if let maxSize, out.count > maxSize { throw .tooLarge(size: out.count, limit: maxSize) }
        return out
    }

    /// `encoded()` as a string.
    public func encodedString(maxSize: Int? = ChatProtocolLimits.maxEncodedMsgLength) throws(ChatProtocolError) -> String {
        String(decoding: try encoded(maxSize: maxSize), as: UTF8.self)
    }
}

/// Codable, so a chat message can sit inside other JSON (simplex-chat stores and forwards them).
/// Decoding errors thrown here are `DecodingError`s or `ChatProtocolError`s; the static `decode`
/// maps both to `ChatProtocolError`.
extension ChatMessage: Codable {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: ChatProtocolKey.self)
        if let v = try c.opt("v", as: String.self) {
            guard let range = VersionRange(parsing: v) else { throw ChatProtocolError.invalidVersionRange(v) }
            chatVRange = range
        } else {
            chatVRange = nil
        }
        msgId = try c.opt("msgId")
        let tag = try c.req("event", as: String.self)
        guard ChatMsgEvent.isValidTag(tag) else { throw ChatProtocolError.invalidEvent(tag) }
        event = try ChatMsgEvent.decode(tag: tag, from: c)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: ChatProtocolKey.self)
        try c.set(chatVRange?.description, "v")
        try c.set(msgId, "msgId")
        try c.set(event.tag, "event")
        try c.set(EventParams(event: event), "params")
    }
}

/// Encodes an event's params object.
private struct EventParams: Encodable {
    let event: ChatMsgEvent
    func encode(to encoder: any Encoder) throws { try event.encodeParams(to: encoder) }
}
