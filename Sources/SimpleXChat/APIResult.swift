import ChatCore
import Foundation

/// A decoded core answer (seed 002 §2 step 6): the result, the core's error, or — instead of a
/// decoding failure — `.invalid` with the answer's `type` and raw JSON, so a response or event this
/// build does not know is reported and logged rather than lost.
///
/// ChatCore has its own `APIResult` for *encoding* envelopes; this one only decodes and is the
/// one clients of SimpleXChat see (a module's declarations shadow those of modules it imports).
public enum APIResult<R: Decodable> {
    case result(R)
    case error(ChatError)
    case invalid(type: String, json: Data)

    /// Decodes an envelope string from `ChatBackend.send` or `receive`; never fails.
    public static func decode(_ text: String) -> APIResult<R> {
        decode(Data(text.utf8))
    }

    /// Decodes an envelope; undecodable results become `.invalid`.
    public static func decode(_ data: Data) -> APIResult<R> {
        if let env = try? JSONDecoder().decode(Envelope.self, from: data) {
            if let e = env.error { return .error(e) }
            if let r = env.result {
                if let raw = (r as? any KeepsUnknownMembers)?.unknownMember {
                    return .invalid(type: raw.typeTag ?? "unknown", json: (try? ChatJSON.encode(raw)) ?? data)
                }
                return .result(r)
            }
        }
        // Not decodable as R: keep the tag and the raw JSON of the result (or of the whole answer).
        guard let top = try? JSONDecoder().decode(JSONValue.self, from: data), case .object(let members) = top else {
            return .invalid(type: "invalid", json: data)
        }
        if let inner = members["result"] ?? members["error"] {
            return .invalid(type: inner.typeTag ?? "invalid", json: (try? ChatJSON.encode(inner)) ?? data)
        }
        return .invalid(type: top.typeTag ?? "invalid", json: data)
    }

    /// The result, or nil.
    public var result: R? {
        if case .result(let r) = self { return r }
        return nil
    }

    /// The result, or `ChatAPIError` for an error or an invalid answer.
    public func get() throws(ChatAPIError) -> R {
        switch self {
        case .result(let r): return r
        case .error(let e): throw .chat(e)
        case .invalid(let type, let json): throw .invalid(type: type, json: json)
        }
    }

    private struct Envelope: Decodable {
        let result: R?
        let error: ChatError?
    }
}

extension APIResult: Sendable where R: Sendable {}

extension APIResult where R: Encodable {
    /// The `type` of the answer, for logs and for errors about unexpected responses.
    public var responseType: String {
        switch self {
        case .result(let r):
            let raw = (try? ChatJSON.encode(r)).flatMap { try? ChatJSON.decode(JSONValue.self, from: $0) }
            return raw?.typeTag ?? String(describing: R.self)
        case .error: return "error"
        case .invalid(let type, _): return type
        }
    }
}

/// ChatCore unions that decode unknown members as `.unknown(JSONValue)`; for the app layer those are
/// `.invalid` answers (seed 002: "unknown/undecodable response keeps its type and raw JSON").
protocol KeepsUnknownMembers {
    var unknownMember: JSONValue? { get }
}

extension ChatResponse: KeepsUnknownMembers {
    var unknownMember: JSONValue? {
        if case .unknown(let raw) = self { return raw }
        return nil
    }
}

extension ChatEvent: KeepsUnknownMembers {
    var unknownMember: JSONValue? {
        if case .unknown(let raw) = self { return raw }
        return nil
    }
}

extension JSONValue {
    /// The `"type"` member of a tagged object.
    var typeTag: String? {
        if case .object(let m) = self, case .string(let t)? = m["type"] { return t }
        return nil
    }
}
