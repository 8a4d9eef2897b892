/// A keyed container of `JSONWriterEncoder`: scalars are written into the object's buffer at
/// once; ordering by key happens when the object is written.
struct JSONWriterKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: JSONWriterEncoder
    let node: JSONNode
    /// Keys from the encoder down to this container when it is a nested one.
    let path: [any CodingKey]

    var codingPath: [any CodingKey] { encoder.codingPath + path }

    mutating func encodeNil(forKey key: Key) throws {
        node.appendScalar(key: key.stringValue) { JSONTextWriter.writeNull(into: &$0) }
    }
    mutating func encode(_ value: Bool, forKey key: Key) throws {
        node.appendScalar(key: key.stringValue) { JSONTextWriter.writeBool(value, into: &$0) }
    }
    mutating func encode(_ value: String, forKey key: Key) throws {
        node.appendScalar(key: key.stringValue) { JSONTextWriter.writeString(value, into: &$0) }
    }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        try node.appendScalar(key: key.stringValue) {
            try JSONTextWriter.writeFloat(value, into: &$0, path: codingPath + [key])
        }
    }
    mutating func encode(_ value: Float, forKey key: Key) throws {
        try node.appendScalar(key: key.stringValue) {
            try JSONTextWriter.writeFloat(value, into: &$0, path: codingPath + [key])
        }
    }
    mutating func encode(_ value: Int, forKey key: Key) throws { integer(value, key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { integer(value, key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { integer(value, key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { integer(value, key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { integer(value, key) }
    mutating func encode(_ value: Int128, forKey key: Key) throws { integer(value, key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { integer(value, key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { integer(value, key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { integer(value, key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { integer(value, key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { integer(value, key) }
    mutating func encode(_ value: UInt128, forKey key: Key) throws { integer(value, key) }

    @inline(__always)
    private func integer<I: FixedWidthInteger & CustomStringConvertible>(_ value: I, _ key: Key) {
        node.appendScalar(key: key.stringValue) { JSONTextWriter.writeInteger(value, into: &$0) }
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try encoder.encodeMember(value, name: key.stringValue, codingKey: key, path: path, in: node)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let name = key.stringValue
        let child: JSONNode
        if let existing = node.existingChild(key: name, kind: .object) {
            child = existing
        } else {
            child = JSONNode(kind: .object)
            node.members.append(.init(key: name, value: .node(child)))
        }
        return KeyedEncodingContainer(JSONWriterKeyedContainer<NestedKey>(encoder: encoder, node: child, path: path + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let name = key.stringValue
        let child: JSONNode
        if let existing = node.existingChild(key: name, kind: .array) {
            child = existing
        } else {
            child = JSONNode(kind: .array)
            node.members.append(.init(key: name, value: .node(child)))
        }
        return JSONWriterUnkeyedContainer(encoder: encoder, node: child, path: path + [key])
    }

    mutating func superEncoder() -> any Encoder {
        superEncoder(name: "super", key: JSONWriterIndexKey.superKey)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        superEncoder(name: key.stringValue, key: key)
    }

    private func superEncoder(name: String, key: any CodingKey) -> any Encoder {
        let e = encoder.deferredChild(key: key, path: path, in: node)
        node.members.append(.init(key: name, value: .deferred(e)))
        return e
    }
}
