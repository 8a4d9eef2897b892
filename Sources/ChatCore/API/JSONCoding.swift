/// Helpers for the hand-written Codable of tagged unions: SimpleX encodes every sum type as an
/// object whose `"type"` names the case, with the case's fields beside it (aeson `TaggedObject`).
struct JSONKey: CodingKey, Hashable {
    let stringValue: String
    var intValue: Int? { nil }

    init(_ s: String) { stringValue = s }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { return nil }

    static let type = JSONKey("type")
}

typealias JSONDecodingContainer = KeyedDecodingContainer<JSONKey>
typealias JSONEncodingContainer = KeyedEncodingContainer<JSONKey>

extension KeyedDecodingContainer where Key == JSONKey {
    /// A required member.
    func v<T: Decodable>(_ key: String, as type: T.Type = T.self) throws -> T {
        try decode(T.self, forKey: JSONKey(key))
    }

    /// An optional member: missing and `null` both give nil.
    func opt<T: Decodable>(_ key: String, as type: T.Type = T.self) throws -> T? {
        try decodeIfPresent(T.self, forKey: JSONKey(key))
    }

    /// A member that older or newer peers may omit, with the value SimpleX assumes then.
    func v<T: Decodable>(_ key: String, default value: T) throws -> T {
        try decodeIfPresent(T.self, forKey: JSONKey(key)) ?? value
    }

    /// The `"type"` tag.
    func tag() throws -> String {
        try decode(String.self, forKey: .type)
    }
}

extension KeyedEncodingContainer where Key == JSONKey {
    /// A member (an optional that is nil is omitted, as aeson's `omitNothingFields` does).
    mutating func put<T: Encodable>(_ value: T, _ key: String) throws {
        try encode(value, forKey: JSONKey(key))
    }

    mutating func put<T: Encodable>(_ value: T?, _ key: String) throws {
        try encodeIfPresent(value, forKey: JSONKey(key))
    }

    /// The `"type"` tag.
    mutating func tag(_ t: String) throws {
        try encode(t, forKey: .type)
    }
}

/// A union whose members carry no fields: `{"type": "<raw value>"}`.
public protocol TypeTaggedEnum: RawRepresentable, Codable, Sendable, Hashable where RawValue == String {}

extension TypeTaggedEnum {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: JSONKey.self)
        let t = try c.tag()
        guard let v = Self(rawValue: t) else {
            throw DecodingError.dataCorruptedError(
                forKey: .type, in: c, debugDescription: "unknown \(Self.self) type \"\(t)\"")
        }
        self = v
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONKey.self)
        try c.tag(rawValue)
    }
}

/// Decodes the raw object of an unknown union member so it can be re-encoded unchanged.
func rawJSON(_ decoder: any Decoder) throws -> JSONValue {
    try JSONValue(from: decoder)
}
