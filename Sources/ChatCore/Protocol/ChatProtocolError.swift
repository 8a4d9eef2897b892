import Foundation

/// Why a chat protocol body could not be decoded or encoded. Every failure is one of these, so the
/// chat core can log it as a protocol error item instead of crashing on a peer's bad input.
public enum ChatProtocolError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The agent message body was empty.
    case emptyBody
    /// The body (decoding) or the encoded message (encoding) is longer than the limit.
    case tooLarge(size: Int, limit: Int)
    /// JSON nested deeper than `ChatProtocolLimits.maxJSONDepth`.
    case tooDeep(limit: Int)
    /// A compressed body (leading `X`) whose list of parts is malformed (simplexmq's parser error).
    case invalidCompressedBody(String)
    /// A zstd frame that does not state its decompressed size, or states more than the limit
    /// (simplexmq `limitDecompress1`: "compressed size not specified or exceeds <limit>").
    case decompressedSizeUnknownOrTooLarge(limit: Int)
    /// A zstd frame that libzstd rejects (corrupt, truncated, or larger than it claims).
    case decompressionFailed(String)
    /// A body in one of the binary forms (`=` binary batch, `/` signed, `>` forwarded, `F` file chunk).
    case unsupportedFormat(prefix: String)
    /// Not JSON at all, truncated JSON, or a body that does not start with `{` or `[`.
    case invalidJSON(String)
    /// A required field is absent (`path` is dotted from the message root, e.g. `params.content`).
    case missingField(path: String)
    /// A field has the wrong JSON type (or is `null` where a value is required).
    case wrongType(path: String, expected: String)
    /// A field has the right type but a value that is not allowed (bad base64url, bad time, ...).
    case invalidValue(path: String, reason: String)
    /// The `event` tag is not a chat event (simplex-chat accepts only tags starting with `x`, without spaces).
    case invalidEvent(String)
    /// The `v` member is not a version range (`"7"` or `"1-16"`, min <= max).
    case invalidVersionRange(String)
    /// The message could not be serialised (e.g. a non-finite number in raw JSON).
    case encodingFailed(String)

    public var description: String {
        switch self {
        case .emptyBody: "empty message body"
        case .tooLarge(let size, let limit): "message of \(size) bytes exceeds the limit of \(limit) bytes"
        case .tooDeep(let limit): "JSON nested deeper than \(limit) levels"
        case .invalidCompressedBody(let reason): "invalid compressed body: \(reason)"
        case .decompressedSizeUnknownOrTooLarge(let limit): "compressed size not specified or exceeds \(limit)"
        case .decompressionFailed(let reason): "decompression failed: \(reason)"
        case .unsupportedFormat(let prefix): "unsupported message body format '\(prefix)'"
        case .invalidJSON(let reason): "invalid JSON: \(reason)"
        case .missingField(let path): "missing field \(path)"
        case .wrongType(let path, let expected): "field \(path): expected \(expected)"
        case .invalidValue(let path, let reason): "field \(path): \(reason)"
        case .invalidEvent(let event): "invalid event tag \"\(event)\""
        case .invalidVersionRange(let v): "invalid chat version range \"\(v)\""
        case .encodingFailed(let reason): "cannot encode message: \(reason)"
        }
    }

    /// Maps anything thrown while decoding or encoding to a protocol error, keeping the field path.
    static func wrapping(_ error: any Error) -> ChatProtocolError {
        if let e = error as? ChatProtocolError { return e }
        if let e = error as? DecodingError { return from(e) }
        if let e = error as? EncodingError {
            switch e {
            case .invalidValue(_, let ctx): return .encodingFailed("\(path(ctx.codingPath)): \(ctx.debugDescription)")
            @unknown default: return .encodingFailed(String(describing: e))
            }
        }
        return .invalidJSON(String(describing: error))
    }

    private static func from(_ e: DecodingError) -> ChatProtocolError {
        switch e {
        case .keyNotFound(let key, let ctx):
            return .missingField(path: path(ctx.codingPath + [key]))
        case .typeMismatch(let type, let ctx):
            return .wrongType(path: path(ctx.codingPath), expected: jsonTypeName(type))
        case .valueNotFound(let type, let ctx):
            return .wrongType(path: path(ctx.codingPath), expected: "non-null " + jsonTypeName(type))
        case .dataCorrupted(let ctx):
            if ctx.codingPath.isEmpty {
                var reason = ctx.debugDescription
                if let u = ctx.underlyingError { reason += " (\(u))" }
                return .invalidJSON(reason)
            }
            return .invalidValue(path: path(ctx.codingPath), reason: ctx.debugDescription)
        @unknown default:
            return .invalidJSON(String(describing: e))
        }
    }

    /// `params.mentions.bob.memberId`, `[2].params` (array positions in brackets).
    static func path(_ keys: [any CodingKey]) -> String {
        var s = ""
        for k in keys {
            if let i = k.intValue {
                s += "[\(i)]"
            } else {
                if !s.isEmpty { s += "." }
                s += k.stringValue
            }
        }
        return s.isEmpty ? "(root)" : s
    }

    private static func jsonTypeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "string"
        case is Bool.Type: "boolean"
        case is Int.Type, is Int64.Type, is Int32.Type, is UInt32.Type, is UInt16.Type, is UInt64.Type: "integer"
        case is Double.Type, is Float.Type: "number"
        case is [String: Any].Type: "object"
        case is [Any].Type: "array"
        default: String(describing: type)
        }
    }
}
