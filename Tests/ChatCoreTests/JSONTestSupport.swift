import Foundation
import Testing

@testable import ChatCore

/// JSON text in a canonical form (keys sorted by JSONSerialization), so two texts compare as
/// JSON objects whatever their member order.
func canonicalJSON(_ text: String) throws -> String {
    let obj = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
    let data = try JSONSerialization.data(withJSONObject: obj, options: [.sortedKeys, .fragmentsAllowed])
    return String(decoding: data, as: UTF8.self)
}

/// Decodes `json` as `T`, re-encodes it, and returns the re-encoded text.
func reencode<T: Codable>(_ type: T.Type, _ json: String) throws -> String {
    let v = try ChatJSON.decode(T.self, from: json)
    return try ChatJSON.string(v)
}

/// Expects `json` to decode as `T` and to re-encode to the same JSON object (same field names,
/// optionality and tags); returns the decoded value.
@discardableResult
func expectRoundTrip<T: Codable & Equatable>(
    _ type: T.Type, _ json: String, sourceLocation: SourceLocation = #_sourceLocation
) throws -> T {
    let v = try ChatJSON.decode(T.self, from: json)
    let out = try ChatJSON.string(v)
    #expect(try canonicalJSON(out) == canonicalJSON(json), sourceLocation: sourceLocation)
    let again = try ChatJSON.decode(T.self, from: out)
    #expect(again == v, sourceLocation: sourceLocation)
    return v
}

/// Expects the encoding of `value` to be the JSON object `json`.
func expectEncodes<T: Encodable>(_ value: T, _ json: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let out = try ChatJSON.string(value)
    #expect(try canonicalJSON(out) == canonicalJSON(json), sourceLocation: sourceLocation)
}

/// A literal JSON example and the type it must round-trip through.
struct JSONFixture: Sendable, CustomTestStringConvertible {
    let name: String
    let json: String
    let check: @Sendable (String) throws -> String

    init<T: Codable & SendableMetatype>(_ name: String, _ type: T.Type, _ json: String) {
        self.name = name
        self.json = json
        check = { try reencode(T.self, $0) }
    }

    var testDescription: String { name }
}
