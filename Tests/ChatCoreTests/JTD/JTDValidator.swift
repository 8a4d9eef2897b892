import Foundation

@testable import ChatCore

/// One RFC 8927 validation error: where in the instance and which schema rule failed.
struct JTDError: Sendable, Hashable, CustomStringConvertible {
    var instancePath: String
    var reason: String
    var description: String { "\(instancePath.isEmpty ? "/" : instancePath): \(reason)" }
}

extension JTDRoot {
    /// All validation errors of `instance` (empty when it is valid).
    func validate(_ instance: JSONValue) -> [JTDError] {
        var errors: [JTDError] = []
        validate(instance, schema, path: "", errors: &errors, depth: 0)
        return errors
    }

    private func validate(_ v: JSONValue, _ s: JTDSchema, path: String, errors: inout [JTDError], depth: Int, tag: String? = nil) {
        if s.nullable, case .null = v { return }
        func fail(_ why: String) { errors.append(JTDError(instancePath: path, reason: why)) }
        switch s.form {
        case .empty:
            return
        case .ref(let name):
            // Definitions may be recursive; the depth bound keeps a pathological instance finite.
            guard depth < 64, let d = definitions[name] else { return fail("ref too deep") }
            validate(v, d, path: path, errors: &errors, depth: depth + 1)
        case .type(let t):
            if !Self.matches(v, type: t) { fail("expected \(t), got \(Self.describe(v))") }
        case .enum(let values):
            guard case .string(let str) = v, values.contains(str) else { return fail("expected one of \(values.sorted()), got \(Self.describe(v))") }
        case .elements(let e):
            guard case .array(let items) = v else { return fail("expected an array, got \(Self.describe(v))") }
            for (i, item) in items.enumerated() { validate(item, e, path: "\(path)/\(i)", errors: &errors, depth: depth) }
        case .properties(let req, let opt, let additional):
            guard case .object(let o) = v else { return fail("expected an object, got \(Self.describe(v))") }
            for (k, ps) in req.sorted(by: { $0.key < $1.key }) {
                if let pv = o[k] { validate(pv, ps, path: "\(path)/\(k)", errors: &errors, depth: depth) } else { fail("missing property \(k)") }
            }
            for (k, ps) in opt.sorted(by: { $0.key < $1.key }) {
                if let pv = o[k] { validate(pv, ps, path: "\(path)/\(k)", errors: &errors, depth: depth) }
            }
            if !additional {
                for k in o.keys.sorted() where req[k] == nil && opt[k] == nil && k != tag {
                    errors.append(JTDError(instancePath: "\(path)/\(k)", reason: "property not allowed by the schema"))
                }
            }
        case .values(let vs):
            guard case .object(let o) = v else { return fail("expected an object, got \(Self.describe(v))") }
            for (k, item) in o.sorted(by: { $0.key < $1.key }) { validate(item, vs, path: "\(path)/\(k)", errors: &errors, depth: depth) }
        case .discriminator(let tagName, let mapping):
            guard case .object(let o) = v else { return fail("expected an object, got \(Self.describe(v))") }
            guard let t = o[tagName] else { return fail("missing discriminator \(tagName)") }
            guard case .string(let value) = t else { return fail("discriminator \(tagName) is not a string") }
            guard let m = mapping[value] else {
                return errors.append(JTDError(instancePath: "\(path)/\(tagName)", reason: "\(tagName) \"\(value)\" not in the schema"))
            }
            validate(v, m, path: path, errors: &errors, depth: depth, tag: tagName)
        }
    }

    static func matches(_ v: JSONValue, type: String) -> Bool {
        switch type {
        case "boolean":
            if case .bool = v { return true }
            return false
        case "string":
            if case .string = v { return true }
            return false
        case "timestamp":
            if case .string(let s) = v { return isRFC3339(s) }
            return false
        case "float32", "float64":
            switch v {
            case .int, .double: return true
            default: return false
            }
        default:
            let ranges: [String: ClosedRange<Double>] = [
                "int8": -128...127, "uint8": 0...255, "int16": -32768...32767, "uint16": 0...65535,
                "int32": -2_147_483_648...2_147_483_647, "uint32": 0...4_294_967_295,
            ]
            guard let range = ranges[type] else { return false }
            switch v {
            case .int(let i): return range.contains(Double(i))
            case .double(let d): return d.rounded() == d && range.contains(d)
            default: return false
            }
        }
    }

    /// RFC 3339 `date-time`: `YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)`, with the leap second allowed.
    static func isRFC3339(_ s: String) -> Bool {
        let b = Array(s.utf8)
        func digits(_ from: Int, _ n: Int) -> Int? {
            guard from + n <= b.count else { return nil }
            var x = 0
            for c in b[from..<from + n] {
                guard c >= 48, c <= 57 else { return nil }
                x = x * 10 + Int(c - 48)
            }
            return x
        }
        func at(_ i: Int, _ chars: String) -> Bool { i < b.count && chars.utf8.contains(b[i]) }
        guard let y = digits(0, 4), at(4, "-"), let mo = digits(5, 2), at(7, "-"), let d = digits(8, 2), at(10, "Tt"),
            let h = digits(11, 2), at(13, ":"), let mi = digits(14, 2), at(16, ":"), let sec = digits(17, 2)
        else { return false }
        let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
        let monthDays = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard (1...12).contains(mo), (1...monthDays[mo - 1]).contains(d), h <= 23, mi <= 59, sec <= 60 else { return false }
        var i = 19
        if at(i, ".") {
            i += 1
            let start = i
            while i < b.count, b[i] >= 48, b[i] <= 57 { i += 1 }
            if i == start { return false }
        }
        if at(i, "Zz") { return i + 1 == b.count }
        guard at(i, "+-"), let oh = digits(i + 1, 2), at(i + 3, ":"), let om = digits(i + 4, 2), oh <= 23, om <= 59 else { return false }
        return i + 6 == b.count
    }

    static func describe(_ v: JSONValue) -> String {
        switch v {
        case .null: "null"
        case .bool(let b): "boolean \(b)"
        case .int(let i): "number \(i)"
        case .double(let d): "number \(d)"
        case .string(let s): "string \"\(s.prefix(40))\""
        case .array: "an array"
        case .object: "an object"
        }
    }
}
