import Foundation

@testable import ChatCore

/// Applies Schema/simplex-chat.schema.overlay.json to the vendored schema: `set` a member,
/// `remove` one, or make a required property `optional`. Every step must find what it names
/// (a path that no longer matches is an error), so the overlay cannot drift silently.
enum JTDOverlay {
    struct OverlayError: Error, CustomStringConvertible {
        var description: String
    }

    static func apply(_ overlay: JSONValue, to schema: JSONValue) throws -> JSONValue {
        guard case .array(let entries)? = overlay.objectValue?["entries"] else { throw OverlayError(description: "no entries") }
        var result = schema
        for entry in entries {
            guard let o = entry.objectValue, case .string(let op)? = o["op"], case .array(let rawPath)? = o["path"],
                case .string(let from)? = o["from"], !from.isEmpty
            else { throw OverlayError(description: "bad entry \(entry)") }
            let path = try rawPath.map { v -> String in
                guard case .string(let s) = v else { throw OverlayError(description: "bad path \(rawPath)") }
                return s
            }
            result = try edit(result, path[...], op: op, entry: o)
        }
        return result
    }

    private static func edit(_ node: JSONValue, _ path: ArraySlice<String>, op: String, entry: [String: JSONValue]) throws -> JSONValue {
        guard case .object(var o) = node else { throw OverlayError(description: "path \(path) goes through a non-object") }
        guard let head = path.first else {
            guard op == "optional", case .string(let key)? = entry["key"] else { throw OverlayError(description: "bad op \(op)") }
            guard case .object(var props)? = o["properties"], let moved = props.removeValue(forKey: key) else {
                throw OverlayError(description: "optional: no required property \(key)")
            }
            o["properties"] = .object(props)
            var opt = o["optionalProperties"]?.objectValue ?? [:]
            opt[key] = moved
            o["optionalProperties"] = .object(opt)
            return .object(o)
        }
        let rest = path.dropFirst()
        if head == "*" {
            for k in o.keys { o[k] = try edit(o[k]!, rest, op: op, entry: entry) }
            return .object(o)
        }
        if rest.isEmpty, op == "set" {
            guard let value = entry["value"] else { throw OverlayError(description: "set without value") }
            o[head] = value
            return .object(o)
        }
        if rest.isEmpty, op == "remove" {
            guard o.removeValue(forKey: head) != nil else { throw OverlayError(description: "remove: no member \(head)") }
            return .object(o)
        }
        // `set` may create the last object level (e.g. a missing optionalProperties).
        let child = o[head] ?? (op == "set" && rest.count == 1 ? .object([:]) : nil)
        guard let child else { throw OverlayError(description: "no member \(head)") }
        o[head] = try edit(child, rest, op: op, entry: entry)
        return .object(o)
    }
}
