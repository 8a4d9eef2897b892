/// Coding keys and container helpers for the chat protocol's hand-written Codable. Kept apart from
/// the API folder's helpers so the two layers can evolve independently.
struct ChatProtocolKey: CodingKey, Hashable {
    let stringValue: String
    var intValue: Int? { nil }

    init(_ s: String) { stringValue = s }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { return nil }
}

typealias ProtocolDecodingContainer = KeyedDecodingContainer<ChatProtocolKey>
typealias ProtocolEncodingContainer = KeyedEncodingContainer<ChatProtocolKey>

extension KeyedDecodingContainer where Key == ChatProtocolKey {
    /// A required member (aeson `.:`).
    func req<T: Decodable>(_ key: String, as type: T.Type = T.self) throws -> T {
        try decode(T.self, forKey: ChatProtocolKey(key))
    }

    /// An optional member: absent and `null` are both nil (aeson `.:?`).
    func opt<T: Decodable>(_ key: String, as type: T.Type = T.self) throws -> T? {
        try decodeIfPresent(T.self, forKey: ChatProtocolKey(key))
    }
}

extension KeyedEncodingContainer where Key == ChatProtocolKey {
    /// A member.
    mutating func set<T: Encodable>(_ value: T, _ key: String) throws {
        try encode(value, forKey: ChatProtocolKey(key))
    }

    /// An optional member, omitted when nil (aeson `omitNothingFields`).
    mutating func set<T: Encodable>(_ value: T?, _ key: String) throws {
        try encodeIfPresent(value, forKey: ChatProtocolKey(key))
    }
}
