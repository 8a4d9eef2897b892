import Foundation
import NIOConcurrencyHelpers

/// Decoded values of the JSON columns that the same reads decode again and again (a contact's
/// three preference blobs, the user's, item statuses, a sent item's content read for its answer
/// and each status event): JSONDecoder cost more than the queries on chat-bench's hot path.
/// Keyed by the exact stored text, so a hit is what decoding that text gives; text that does not
/// decode is not kept (the caller falls back as before).
final class DecodedJSONCache: Sendable {
    let preferences = DecodeMemo<Preferences>(capacity: 256)
    let statuses = DecodeMemo<CIStatus>(capacity: 64)
    let contents = DecodeMemo<CIContent>(capacity: 128)
    /// An item's markdown (`Markdown.parse` of its text): a sent item is shown in its answer and
    /// in each status event.
    let formattedTexts = TextMemo<[FormattedText]?>(capacity: 128)

    func formattedText(_ text: String) -> [FormattedText]? {
        formattedTexts.value(text) { .some(Markdown.parse($0)) } ?? nil
    }
}

/// A bounded map from JSON text to its decoded value (`TextMemo`'s two generations).
final class DecodeMemo<T: Decodable & Sendable>: Sendable {
    private let memo: TextMemo<T>

    init(capacity: Int) { memo = TextMemo(capacity: capacity) }

    /// The value `json` decodes to (nil when it does not decode).
    func decode(_ json: String) -> T? {
        memo.value(json) { try? ChatJSON.decode(T.self, from: $0) }
    }

    /// Keeps a value just encoded as `json`, so the read that follows the write does not decode
    /// it. Only for values that `json` decodes back to exactly (the caller's promise).
    func remember(_ json: String, _ value: T) {
        memo.store(json, value)
    }
}

/// A bounded map from a text to what a pure function of it gives, in two generations: when the
/// current one is full it becomes the previous one (dropped at the next turn) and a hit there
/// moves back. Emptying it all at once lost the items still in flight (a sent item's content is
/// read again at its SENT and at its receipt, tens of messages later), which then decoded again.
final class TextMemo<Value: Sendable>: Sendable {
    private struct Generations {
        var current: [String: Value] = [:]
        var previous: [String: Value] = [:]

        mutating func insert(_ text: String, _ value: Value, capacity: Int) {
            if current.count >= capacity {
                previous = current
                current = [:]
                current.reserveCapacity(capacity)
            }
            current[text] = value
        }
    }

    private let values = NIOLockedValueBox(Generations())
    private let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    /// The value for `text`, made (and kept) on a miss; nil when `make` gives none (not kept).
    func value(_ text: String, orMake make: (String) -> Value?) -> Value? {
        let found = values.withLockedValue { g -> Value? in
            if let v = g.current[text] { return v }
            guard let v = g.previous.removeValue(forKey: text) else { return nil }
            g.insert(text, v, capacity: capacity)
            return v
        }
        if let found { return found }
        guard let v = make(text) else { return nil }
        store(text, v)
        return v
    }

    func store(_ text: String, _ value: Value) {
        values.withLockedValue { g in g.insert(text, value, capacity: capacity) }
    }
}
