import Foundation

@testable import ChatCore

/// A JSON Type Definition schema (RFC 8927), parsed strictly: an unknown keyword, a mix of forms or a
/// `ref` to a missing definition is an error, so a malformed schema cannot silently accept anything.
indirect enum JTDForm: Sendable {
    case empty
    case ref(String)
    case type(String)
    case `enum`(Set<String>)
    case elements(JTDSchema)
    case properties(required: [String: JTDSchema], optional: [String: JTDSchema], additional: Bool)
    case values(JTDSchema)
    case discriminator(tag: String, mapping: [String: JTDSchema])
}

struct JTDSchema: Sendable {
    var form: JTDForm
    var nullable: Bool
}

/// The root schema with its definitions.
struct JTDRoot: Sendable {
    var definitions: [String: JTDSchema]
    var schema: JTDSchema

    struct SchemaError: Error, CustomStringConvertible {
        var path: String
        var reason: String
        var description: String { "\(path): \(reason)" }
    }

    static let types: Set<String> = [
        "boolean", "string", "timestamp", "float32", "float64", "int8", "uint8", "int16", "uint16", "int32", "uint32",
    ]

    init(_ json: JSONValue) throws {
        guard case .object(var root) = json else { throw SchemaError(path: "/", reason: "schema is not an object") }
        var defs: [String: JTDSchema] = [:]
        let rawDefs = root.removeValue(forKey: "definitions")
        var defNames: Set<String> = []
        if let rawDefs {
            guard case .object(let d) = rawDefs else { throw SchemaError(path: "/definitions", reason: "not an object") }
            defNames = Set(d.keys)
            for (name, s) in d { defs[name] = try Self.parse(s, path: "/definitions/\(name)", defs: defNames, isRoot: false) }
        }
        definitions = defs
        schema = try Self.parse(.object(root), path: "", defs: defNames, isRoot: true)
    }

    private static func parse(_ json: JSONValue, path: String, defs: Set<String>, isRoot: Bool) throws -> JTDSchema {
        guard case .object(let o) = json else { throw SchemaError(path: path, reason: "schema is not an object") }
        var nullable = false
        if let n = o["nullable"] {
            guard case .bool(let b) = n else { throw SchemaError(path: path, reason: "nullable is not a boolean") }
            nullable = b
        }
        if let m = o["metadata"], case .object = m {} else if o["metadata"] != nil {
            throw SchemaError(path: path, reason: "metadata is not an object")
        }
        let keywords = Set(o.keys).subtracting(["nullable", "metadata"])
        func only(_ allowed: Set<String>) throws {
            let extra = keywords.subtracting(allowed)
            if !extra.isEmpty { throw SchemaError(path: path, reason: "unexpected keywords \(extra.sorted())") }
        }
        func sub(_ v: JSONValue, _ p: String) throws -> JTDSchema { try parse(v, path: path + p, defs: defs, isRoot: false) }
        func members(_ key: String) throws -> [String: JTDSchema] {
            guard let v = o[key] else { return [:] }
            guard case .object(let m) = v else { throw SchemaError(path: path + "/" + key, reason: "not an object") }
            var out: [String: JTDSchema] = [:]
            for (k, s) in m { out[k] = try sub(s, "/\(key)/\(k)") }
            return out
        }
        let form: JTDForm
        if let r = o["ref"] {
            try only(["ref"])
            guard case .string(let name) = r, defs.contains(name) else {
                throw SchemaError(path: path, reason: "ref to an undefined definition \(r)")
            }
            form = .ref(name)
        } else if let t = o["type"] {
            try only(["type"])
            guard case .string(let name) = t, types.contains(name) else { throw SchemaError(path: path, reason: "bad type \(t)") }
            form = .type(name)
        } else if let e = o["enum"] {
            try only(["enum"])
            guard case .array(let items) = e, !items.isEmpty else { throw SchemaError(path: path, reason: "bad enum") }
            var values: Set<String> = []
            for item in items {
                guard case .string(let s) = item, values.insert(s).inserted else {
                    throw SchemaError(path: path, reason: "enum values must be distinct strings")
                }
            }
            form = .enum(values)
        } else if let e = o["elements"] {
            try only(["elements"])
            form = .elements(try sub(e, "/elements"))
        } else if o["properties"] != nil || o["optionalProperties"] != nil {
            try only(["properties", "optionalProperties", "additionalProperties"])
            let req = try members("properties")
            let opt = try members("optionalProperties")
            if let both = Set(req.keys).intersection(opt.keys).first {
                throw SchemaError(path: path, reason: "\(both) is both required and optional")
            }
            var additional = false
            if let a = o["additionalProperties"] {
                guard case .bool(let b) = a else { throw SchemaError(path: path, reason: "additionalProperties is not a boolean") }
                additional = b
            }
            form = .properties(required: req, optional: opt, additional: additional)
        } else if let v = o["values"] {
            try only(["values"])
            form = .values(try sub(v, "/values"))
        } else if let d = o["discriminator"] {
            try only(["discriminator", "mapping"])
            guard case .string(let tag) = d else { throw SchemaError(path: path, reason: "discriminator is not a string") }
            let mapping = try members("mapping")
            for (k, s) in mapping {
                guard case .properties(let req, let opt, _) = s.form, !s.nullable else {
                    throw SchemaError(path: path + "/mapping/" + k, reason: "a mapping must be a non-nullable properties form")
                }
                if req[tag] != nil || opt[tag] != nil {
                    throw SchemaError(path: path + "/mapping/" + k, reason: "mapping redefines the tag \(tag)")
                }
            }
            form = .discriminator(tag: tag, mapping: mapping)
        } else {
            try only([])
            form = .empty
        }
        return JTDSchema(form: form, nullable: nullable)
    }
}
