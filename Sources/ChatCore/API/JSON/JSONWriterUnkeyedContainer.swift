/// An unkeyed container of `JSONWriterEncoder`: elements are written into the array's buffer
/// in order; nested containers are joined in when the array is written.
struct JSONWriterUnkeyedContainer: UnkeyedEncodingContainer {
    let encoder: JSONWriterEncoder
    let node: JSONNode
    let path: [any CodingKey]

    var codingPath: [any CodingKey] { encoder.codingPath + path }
    var count: Int { node.members.count }

    private var indexKey: JSONWriterIndexKey { JSONWriterIndexKey(index: count) }

    mutating func encodeNil() throws { node.appendScalar(key: "") { JSONTextWriter.writeNull(into: &$0) } }
    mutating func encode(_ value: Bool) throws { node.appendScalar(key: "") { JSONTextWriter.writeBool(value, into: &$0) } }
    mutating func encode(_ value: String) throws { node.appendScalar(key: "") { JSONTextWriter.writeString(value, into: &$0) } }
    mutating func encode(_ value: Double) throws {
        let p = codingPath + [JSONWriterIndexKey(index: count)]
        try node.appendScalar(key: "") { try JSONTextWriter.writeFloat(value, into: &$0, path: p) }
    }
    mutating func encode(_ value: Float) throws {
        let p = codingPath + [JSONWriterIndexKey(index: count)]
        try node.appendScalar(key: "") { try JSONTextWriter.writeFloat(value, into: &$0, path: p) }
    }
    mutating func encode(_ value: Int) throws { integer(value) }
    mutating func encode(_ value: Int8) throws { integer(value) }
    mutating func encode(_ value: Int16) throws { integer(value) }
    mutating func encode(_ value: Int32) throws { integer(value) }
    mutating func encode(_ value: Int64) throws { integer(value) }
    mutating func encode(_ value: Int128) throws { integer(value) }
    mutating func encode(_ value: UInt) throws { integer(value) }
    mutating func encode(_ value: UInt8) throws { integer(value) }
    mutating func encode(_ value: UInt16) throws { integer(value) }
    mutating func encode(_ value: UInt32) throws { integer(value) }
    mutating func encode(_ value: UInt64) throws { integer(value) }
    mutating func encode(_ value: UInt128) throws { integer(value) }

    @inline(__always)
    private func integer<I: FixedWidthInteger & CustomStringConvertible>(_ value: I) {
        node.appendScalar(key: "") { JSONTextWriter.writeInteger(value, into: &$0) }
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try encoder.encodeMember(value, name: "", codingKey: indexKey, path: path, in: node)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let key = JSONWriterIndexKey(index: count)
        let child = JSONNode(kind: .object)
        node.members.append(.init(key: "", value: .node(child)))
        return KeyedEncodingContainer(JSONWriterKeyedContainer<NestedKey>(encoder: encoder, node: child, path: path + [key]))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let key = JSONWriterIndexKey(index: count)
        let child = JSONNode(kind: .array)
        node.members.append(.init(key: "", value: .node(child)))
        return JSONWriterUnkeyedContainer(encoder: encoder, node: child, path: path + [key])
    }

    mutating func superEncoder() -> any Encoder {
        let e = encoder.deferredChild(key: indexKey, path: path, in: node)
        node.members.append(.init(key: "", value: .deferred(e)))
        return e
    }
}
