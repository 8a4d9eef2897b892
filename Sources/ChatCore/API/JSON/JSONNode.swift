import Foundation

/// One JSON object or array under construction. Scalar members are written straight into
/// `bytes`; members that are containers keep a reference. Objects are ordered only when
/// written, since `.sortedKeys` needs every key first and a key set twice keeps its last value
/// (as JSONEncoder's dictionary does).
final class JSONNode {
    enum Kind { case object, array }

    /// Where a member's value is: a byte range of `bytes`, a nested container, or an encoder
    /// handed out by `superEncoder` whose contents are known only when writing.
    enum Value {
        case bytes(Int, Int)
        case node(JSONNode)
        case deferred(JSONWriterEncoder)
    }

    struct Member {
        /// Empty for array elements.
        var key: String
        var value: Value
    }

    /// Foundation's JSONWriter refuses deeper nesting.
    static let maximumDepth = 512

    let kind: Kind
    var bytes: [UInt8] = []
    var members: [Member] = []

    init(kind: Kind) {
        self.kind = kind
    }

    /// Appends a scalar member written by `write`.
    @inline(__always)
    func appendScalar(key: String, _ write: (inout [UInt8]) throws -> Void) rethrows {
        let start = bytes.count
        try write(&bytes)
        members.append(Member(key: key, value: .bytes(start, bytes.count)))
    }

    /// The nested container last stored under `key` (for a container requested twice, which
    /// JSONEncoder merges into one).
    func existingChild(key: String, kind: Kind) -> JSONNode? {
        var i = members.count
        while i > 0 {
            i -= 1
            if members[i].key == key {
                if case .node(let n) = members[i].value, n.kind == kind { return n }
                return nil
            }
        }
        return nil
    }

    /// Writes this container and everything below it.
    func write(into out: inout [UInt8], depth: Int) throws {
        guard depth < Self.maximumDepth else { throw JSONNodeTooDeep() }
        switch kind {
        case .array:
            out.append(UInt8(ascii: "["))
            for i in members.indices {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                try writeValue(members[i].value, into: &out, depth: depth)
            }
            out.append(UInt8(ascii: "]"))
        case .object:
            out.append(UInt8(ascii: "{"))
            let order = sortedOrder()
            var first = true
            for (n, i) in order.enumerated() {
                let m = members[i]
                // Equal keys sort together by insertion order: only the last one counts.
                if n + 1 < order.count && members[order[n + 1]].key == m.key { continue }
                if first { first = false } else { out.append(UInt8(ascii: ",")) }
                JSONTextWriter.writeString(m.key, into: &out)
                out.append(UInt8(ascii: ":"))
                try writeValue(m.value, into: &out, depth: depth)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    private func writeValue(_ value: Value, into out: inout [UInt8], depth: Int) throws {
        switch value {
        case .bytes(let s, let e):
            bytes.withUnsafeBufferPointer { out.append(contentsOf: UnsafeBufferPointer(rebasing: $0[s..<e])) }
        case .node(let n):
            try n.write(into: &out, depth: depth + 1)
        case .deferred(let encoder):
            switch encoder.storage {
            case .empty: out.append(contentsOf: [UInt8(ascii: "{"), UInt8(ascii: "}")])
            case .scalar(let s, let e):
                encoder.sink.bytes.withUnsafeBufferPointer {
                    out.append(contentsOf: UnsafeBufferPointer(rebasing: $0[s..<e]))
                }
            case .node(let n): try n.write(into: &out, depth: depth + 1)
            }
        }
    }

    /// Member indices ordered as JSONEncoder's `.sortedKeys` orders keys: by their UTF-8 bytes;
    /// equal keys keep insertion order.
    private func sortedOrder() -> [Int] {
        var order = Array(members.indices)
        if order.count < 2 { return order }
        // Insertion sort: objects are small and often nearly sorted already.
        for i in 1..<order.count {
            let x = order[i]
            var j = i
            while j > 0 && Self.utf8Less(members[x].key, members[order[j - 1]].key) {
                order[j] = order[j - 1]
                j -= 1
            }
            order[j] = x
        }
        return order
    }

    /// Byte-wise comparison of the UTF-8 forms, as `a.utf8.lexicographicallyPrecedes(b.utf8)`.
    @inline(__always)
    static func utf8Less(_ a: String, _ b: String) -> Bool {
        var a = a
        var b = b
        return a.withUTF8 { pa in
            b.withUTF8 { pb in
                let n = min(pa.count, pb.count)
                if n > 0 {
                    let r = memcmp(pa.baseAddress!, pb.baseAddress!, n)
                    if r != 0 { return r < 0 }
                }
                return pa.count < pb.count
            }
        }
    }
}

/// Nesting beyond `JSONNode.maximumDepth`; reported as JSONEncoder reports it.
struct JSONNodeTooDeep: Error {}
