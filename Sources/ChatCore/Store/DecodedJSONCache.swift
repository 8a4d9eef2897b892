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
}

/// A bounded map from JSON text to its decoded value (emptied when full: the hot entries come
/// back at once, and nothing needs ageing).
final class DecodeMemo<T: Decodable & Sendable>: Sendable {
    private let values = NIOLockedValueBox<[String: T]>([:])
    private let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    /// The value `json` decodes to (nil when it does not decode).
    func decode(_ json: String) -> T? {
        if let v = values.withLockedValue({ $0[json] }) { return v }
        guard let v = try? ChatJSON.decode(T.self, from: json) else { return nil }
        values.withLockedValue { d in
            if d.count >= capacity { d.removeAll(keepingCapacity: true) }
            d[json] = v
        }
        return v
    }
}
