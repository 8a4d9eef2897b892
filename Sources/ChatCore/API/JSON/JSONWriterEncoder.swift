import Foundation

/// An `Encoder` that writes JSON bytes directly, byte-identical to Foundation's JSONEncoder with
/// `[.sortedKeys, .withoutEscapingSlashes]` and default strategies, without JSONEncoder's tree of
/// boxed values: scalars go straight into their container's byte buffer and containers are
/// only ordered and joined once, when the whole value is written.
final class JSONWriterEncoder: Encoder {
    /// What this encoder's value has become so far.
    enum Storage {
        case empty
        /// A byte range of `sink.bytes`.
        case scalar(Int, Int)
        case node(JSONNode)
    }

    /// The container whose buffer receives this encoder's single value.
    var sink: JSONNode
    var storage: Storage = .empty
    private var parent: JSONWriterEncoder?
    private var key: (any CodingKey)?
    /// Keys of the nested containers between the parent encoder and `key` (usually none).
    private var keyPath: [any CodingKey] = []
    /// A child encoder kept for reuse once its value has been taken (values are encoded one at a time).
    private var spare: JSONWriterEncoder?
    /// Fragments of recurring values, shared down the tree (nil: every value is encoded).
    private var memo: JSONFragmentMemo?

    init(sink: JSONNode, parent: JSONWriterEncoder?, key: (any CodingKey)?) {
        self.sink = sink
        self.parent = parent
        self.key = key
        self.memo = parent?.memo
    }

    var codingPath: [any CodingKey] {
        var path: [any CodingKey] = []
        var e: JSONWriterEncoder? = self
        while let cur = e {
            if let k = cur.key {
                path.append(k)
                path.append(contentsOf: cur.keyPath.reversed())
            }
            e = cur.parent
        }
        return path.reversed()
    }

    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// Encodes a whole value: the bytes JSONEncoder would give.
    /// With `memo`, values it keeps are written from (and into) it: the same bytes.
    static func encode<T: Encodable>(_ value: T, memo: JSONFragmentMemo? = nil) throws -> [UInt8] {
        let root = JSONNode(kind: .array)
        let encoder = JSONWriterEncoder(sink: root, parent: nil, key: nil)
        encoder.memo = memo
        if try !JSONTextWriter.writeIfScalar(value, into: &root.bytes, path: []) {
            try value.encode(to: encoder)
        } else {
            encoder.storage = .scalar(0, root.bytes.count)
        }
        switch encoder.storage {
        case .empty:
            throw EncodingError.invalidValue(value, .init(
                codingPath: [], debugDescription: "Top-level \(T.self) did not encode any values."))
        case .scalar(let s, let e):
            return Array(root.bytes[s..<e])
        case .node(let n):
            var out: [UInt8] = []
            out.reserveCapacity(n.bytes.count * 2 + 64)
            do {
                try n.write(into: &out, depth: 1)
            } catch is JSONNodeTooDeep {
                throw EncodingError.invalidValue(value, .init(
                    codingPath: [], debugDescription: "Unable to encode the given top-level value to JSON."))
            }
            return out
        }
    }

    /// Encodes `value` as a member of `node` under `name` (empty in arrays).
    /// `path` and `codingKey` locate the member below this encoder, for coding paths.
    func encodeMember<T: Encodable>(
        _ value: T, name: String, codingKey: @autoclosure () -> any CodingKey, path: [any CodingKey], in node: JSONNode
    ) throws {
        let start = node.bytes.count
        if try JSONTextWriter.writeIfScalar(value, into: &node.bytes, path: self.codingPath + path + [codingKey()]) {
            node.members.append(.init(key: name, value: .bytes(start, node.bytes.count)))
            return
        }
        let memoized = memo != nil && JSONFragmentMemo.keeps(T.self)
        if memoized, let fragment = memo?.fragment(value) {
            node.bytes.append(contentsOf: fragment)
            node.members.append(.init(key: name, value: .bytes(start, node.bytes.count)))
            return
        }
        var child = takeChild(sink: node, key: codingKey(), path: path)
        defer { giveBack(&child) }
        try value.encode(to: child)
        // The value's object at the depth it has here (the root is 1), written once and kept.
        if memoized, case .node(let n) = child.storage, let memo {
            var fragment: [UInt8] = []
            if (try? n.write(into: &fragment, depth: codingPath.count + path.count + 2)) != nil {
                memo.remember(value, fragment)
                let at = node.bytes.count
                node.bytes.append(contentsOf: fragment)
                node.members.append(.init(key: name, value: .bytes(at, node.bytes.count)))
                return
            }
        }
        switch child.storage {
        case .empty: node.members.append(.init(key: name, value: .node(JSONNode(kind: .object))))
        case .scalar(let s, let e): node.members.append(.init(key: name, value: .bytes(s, e)))
        case .node(let n): node.members.append(.init(key: name, value: .node(n)))
        }
    }

    /// An encoder for a `superEncoder` call: its value is read when `node` is written.
    func deferredChild(key: any CodingKey, path: [any CodingKey], in node: JSONNode) -> JSONWriterEncoder {
        let e = JSONWriterEncoder(sink: node, parent: self, key: key)
        e.keyPath = path
        return e
    }

    private func takeChild(sink: JSONNode, key: any CodingKey, path: [any CodingKey]) -> JSONWriterEncoder {
        let c: JSONWriterEncoder
        if let s = spare {
            spare = nil
            c = s
            c.sink = sink
            c.key = key
        } else {
            c = JSONWriterEncoder(sink: sink, parent: self, key: key)
        }
        c.keyPath = path
        return c
    }

    private func giveBack(_ child: inout JSONWriterEncoder) {
        if spare == nil, isKnownUniquelyReferenced(&child) {
            child.storage = .empty
            child.key = nil
            spare = child
        }
    }

    func container<Key: CodingKey>(keyedBy: Key.Type) -> KeyedEncodingContainer<Key> {
        switch storage {
        case .node(let n) where n.kind == .object:
            return KeyedEncodingContainer(JSONWriterKeyedContainer<Key>(encoder: self, node: n, path: []))
        case .empty:
            let n = JSONNode(kind: .object)
            storage = .node(n)
            return KeyedEncodingContainer(JSONWriterKeyedContainer<Key>(encoder: self, node: n, path: []))
        default:
            preconditionFailure("Attempt to push new keyed encoding container when already previously encoded at this path.")
        }
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        switch storage {
        case .node(let n) where n.kind == .array:
            return JSONWriterUnkeyedContainer(encoder: self, node: n, path: [])
        case .empty:
            let n = JSONNode(kind: .array)
            storage = .node(n)
            return JSONWriterUnkeyedContainer(encoder: self, node: n, path: [])
        default:
            preconditionFailure("Attempt to push new unkeyed encoding container when already previously encoded at this path.")
        }
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        self
    }
}

extension JSONWriterEncoder: SingleValueEncodingContainer {
    @inline(__always)
    private func writeSingle(_ write: (inout [UInt8]) throws -> Void) rethrows {
        guard case .empty = storage else {
            preconditionFailure("Attempt to encode value through single value container when previously value already encoded.")
        }
        let start = sink.bytes.count
        try write(&sink.bytes)
        storage = .scalar(start, sink.bytes.count)
    }

    func encodeNil() throws { writeSingle { JSONTextWriter.writeNull(into: &$0) } }
    func encode(_ value: Bool) throws { writeSingle { JSONTextWriter.writeBool(value, into: &$0) } }
    func encode(_ value: String) throws { writeSingle { JSONTextWriter.writeString(value, into: &$0) } }
    func encode(_ value: Double) throws { try writeSingle { try JSONTextWriter.writeFloat(value, into: &$0, path: codingPath) } }
    func encode(_ value: Float) throws { try writeSingle { try JSONTextWriter.writeFloat(value, into: &$0, path: codingPath) } }
    func encode(_ value: Int) throws { writeSingle { JSONTextWriter.writeInteger(value, into: &$0) } }
    func encode(_ value: Int8) throws { writeSingle { JSONTextWriter.writeInteger(value, into: &$0) } }
    func encode(_ value: Int16) throws { writeSingle { JSONTextWriter.writeInteger(value, into: &$0) } }
    func encode(_ value: Int32) throws { writeSingle { JSONTextWriter.writeInteger(value, into: &$0) } }
    func encode(_ value: Int64) throws { writeSingle { JSONTextWriter.writeInteger(value, into: &$0) } }
    func encode(_ value: Int128) throws { writeSingle { JSONTextWriter.writeInteger(value, into: &$0) } }
    func encode(_ value: UInt) throws { writeSingle { JSONTextWriter.writeInteger(value, into: &$0) } }
    func encode(_ value: UInt8) throws { writeSingle { JSONTextWriter.writeInteger(value, into: &$0) } }
    func encode(_ value: UInt16) throws { writeSingle { JSONTextWriter.writeInteger(value, into: &$0) } }
    func encode(_ value: UInt32) throws { writeSingle { JSONTextWriter.writeInteger(value, into: &$0) } }
    func encode(_ value: UInt64) throws { writeSingle { JSONTextWriter.writeInteger(value, into: &$0) } }
    func encode(_ value: UInt128) throws { writeSingle { JSONTextWriter.writeInteger(value, into: &$0) } }

    /// Like JSONEncoder: the value encodes itself into this same encoder, so a container it
    /// opens can be reopened (and merged into) afterwards; nothing encoded means `{}`.
    func encode<T: Encodable>(_ value: T) throws {
        guard case .empty = storage else {
            preconditionFailure("Attempt to encode value through single value container when previously value already encoded.")
        }
        let start = sink.bytes.count
        if try JSONTextWriter.writeIfScalar(value, into: &sink.bytes, path: codingPath) {
            storage = .scalar(start, sink.bytes.count)
            return
        }
        try value.encode(to: self)
        if case .empty = storage { storage = .node(JSONNode(kind: .object)) }
    }
}
