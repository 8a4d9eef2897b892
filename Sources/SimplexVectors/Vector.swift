import Foundation

/// One reference vector as stored in ../shared/refvectors (README there): a name, inputs and
/// expected bytes. Accessors throw `VectorError` so a check can report what is missing.
public struct Vector: @unchecked Sendable {
    public let file: String
    public let module: String
    public let name: String
    /// The whole JSON object of the vector (inputs, output_hex and any extra fields).
    public let json: [String: Any]

    public init(file: String, module: String, json: [String: Any]) {
        self.file = file
        self.module = module
        self.json = json
        self.name = json["name"] as? String ?? "?"
    }

    /// Name segments: "command/NEW/v6" -> ["command", "NEW", "v6"].
    public var path: [Substring] { name.split(separator: "/") }

    public var inputs: [String: Any] { json["inputs"] as? [String: Any] ?? [:] }

    public func field(_ key: String, in obj: [String: Any]? = nil) throws -> Any {
        guard let v = (obj ?? json)[key] else { throw VectorError.missing(key) }
        return v
    }

    public func string(_ key: String, in obj: [String: Any]? = nil) throws -> String {
        guard let s = try field(key, in: obj) as? String else { throw VectorError.badType(key) }
        return s
    }

    public func int(_ key: String, in obj: [String: Any]? = nil) throws -> Int {
        let v = try field(key, in: obj)
        if let i = v as? Int { return i }
        if let n = v as? NSNumber { return n.intValue }
        throw VectorError.badType(key)
    }

    public func bool(_ key: String, in obj: [String: Any]? = nil) throws -> Bool {
        let v = try field(key, in: obj)
        if let b = v as? Bool { return b }
        throw VectorError.badType(key)
    }

    public func object(_ key: String, in obj: [String: Any]? = nil) throws -> [String: Any] {
        guard let o = try field(key, in: obj) as? [String: Any] else { throw VectorError.badType(key) }
        return o
    }

    public func array(_ key: String, in obj: [String: Any]? = nil) throws -> [Any] {
        guard let a = try field(key, in: obj) as? [Any] else { throw VectorError.badType(key) }
        return a
    }

    /// Bytes of a `*_hex` field.
    public func bytes(_ key: String, in obj: [String: Any]? = nil) throws -> [UInt8] {
        let s = try string(key, in: obj)
        guard let b = Hex.decode(s) else { throw VectorError.badHex(key) }
        return b
    }

    /// The expected output bytes (`output_hex`).
    public func output() throws -> [UInt8] { try bytes("output_hex") }

    /// An input value, looked up in `inputs`.
    public func input(_ key: String) throws -> Any { try field(key, in: inputs) }
    public func inputBytes(_ key: String) throws -> [UInt8] { try bytes(key, in: inputs) }
    public func inputObject(_ key: String) throws -> [String: Any] { try object(key, in: inputs) }
    public func inputString(_ key: String) throws -> String { try string(key, in: inputs) }
    public func inputInt(_ key: String) throws -> Int { try int(key, in: inputs) }
}

public enum VectorError: Error, CustomStringConvertible {
    case missing(String)
    case badType(String)
    case badHex(String)
    case unsupported(String)

    public var description: String {
        switch self {
        case .missing(let k): "missing field \(k)"
        case .badType(let k): "field \(k) has an unexpected type"
        case .badHex(let k): "field \(k) is not hex"
        case .unsupported(let w): "unsupported: \(w)"
        }
    }
}

/// What a check concluded about one vector.
public enum VectorResult: Sendable, Equatable {
    case pass
    case fail(String)
    /// A kind or variant this implementation does not check (never counted as passed).
    case skip(String)
}

public enum Hex {
    public static func decode(_ s: String) -> [UInt8]? {
        let u = Array(s.utf8)
        guard u.count % 2 == 0 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(u.count / 2)
        var i = 0
        while i < u.count {
            guard let h = nibble(u[i]), let l = nibble(u[i + 1]) else { return nil }
            out.append(h << 4 | l)
            i += 2
        }
        return out
    }

    public static func encode<B: Sequence>(_ b: B) -> String where B.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        for x in b {
            out.append(digits[Int(x >> 4)])
            out.append(digits[Int(x & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case 48...57: c - 48
        case 97...102: c - 87
        case 65...70: c - 55
        default: nil
        }
    }
}

/// Compares produced bytes with expected ones, naming the first difference.
public func expectBytes(_ got: [UInt8], _ want: [UInt8], _ what: String = "output") -> VectorResult {
    if got == want { return .pass }
    let n = min(got.count, want.count)
    var i = 0
    while i < n && got[i] == want[i] { i += 1 }
    return .fail("\(what) differs at byte \(i) (got \(got.count) bytes, want \(want.count)): got \(Hex.encode(got[i..<min(i + 16, got.count)]))…, want \(Hex.encode(want[i..<min(i + 16, want.count)]))…")
}
