import Foundation

/// Any JSON value (TYPES.md `JSONObject`, and the raw form of unknown union members), kept so
/// that what we do not understand is passed on unchanged instead of failing the whole decode.
public enum JSONValue: Sendable, Hashable, Codable {
    case null
    case bool(Bool)
    /// Whole numbers stay exact (database IDs are int64).
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let b = try? c.decode(Bool.self) {
            self = .bool(b)
        } else if let i = try? c.decode(Int64.self) {
            self = .int(i)
        } else if let d = try? c.decode(Double.self) {
            self = .double(d)
        } else if let s = try? c.decode(String.self) {
            self = .string(s)
        } else if let a = try? c.decode([JSONValue].self) {
            self = .array(a)
        } else if let o = try? c.decode([String: JSONValue].self) {
            self = .object(o)
        } else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "not a JSON value")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let b): try c.encode(b)
        case .int(let i): try c.encode(i)
        case .double(let d): try c.encode(d)
        case .string(let s): try c.encode(s)
        case .array(let a): try c.encode(a)
        case .object(let o): try c.encode(o)
        }
    }

    /// The object's members, or nil for other values.
    public var objectValue: [String: JSONValue]? {
        if case .object(let o) = self { return o }
        return nil
    }

    /// The string, or nil for other values.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// A member of an object (nil for other values or a missing key).
    public subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }
}

/// Compact JSON text, the form every SimpleX API message takes; shared encoder settings so all
/// our output escapes and orders the same way.
public enum ChatJSON {
    /// Encodes compactly, with sorted keys (stable output) and without escaping "/": the bytes
    /// JSONEncoder gives with `[.sortedKeys, .withoutEscapingSlashes]`, written directly by
    /// `JSONWriterEncoder` (JSONEncoder's boxed tree cost ~15 % of a chat core's CPU).
    public static func encode<T: Encodable>(_ value: T) throws -> Data {
        Data(try JSONWriterEncoder.encode(value))
    }

    /// `encode` as a UTF-8 string.
    public static func string<T: Encodable>(_ value: T) throws -> String {
        String(decoding: try JSONWriterEncoder.encode(value), as: UTF8.self)
    }

    /// `string`, writing the values `memo` keeps from it (the same bytes).
    public static func string<T: Encodable>(_ value: T, memo: JSONFragmentMemo) throws -> String {
        String(decoding: try JSONWriterEncoder.encode(value, memo: memo), as: UTF8.self)
    }

    /// `encode`, writing the values `memo` keeps from it (the same bytes).
    public static func encode<T: Encodable>(_ value: T, memo: JSONFragmentMemo) throws -> Data {
        Data(try JSONWriterEncoder.encode(value, memo: memo))
    }

    /// Decodes UTF-8 JSON text.
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try JSONDecoder().decode(type, from: data)
    }

    /// Decodes JSON text given as a string.
    public static func decode<T: Decodable>(_ type: T.Type, from text: some StringProtocol) throws -> T {
        try decode(type, from: Data(text.utf8))
    }
}
