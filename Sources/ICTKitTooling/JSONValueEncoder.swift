import PropertyList

/// Makes the `JSONValue` of a report's `Encodable` struct, so that a report's
/// fields are a type's stored properties (a wrong field name fails to
/// compile) and are written in the order the struct declares them (the
/// order synthesized conformances encode them in). Unlike Foundation's
/// `JSONEncoder`, a nil optional is written as `null`, so every field is
/// always present; a `PropertyListValue` is written in its lossless JSON
/// form, and a `JSONValue` as it is.
package enum JSONValueEncoder {
    /// The value of `value`; null when its own `encode(to:)` throws (a
    /// synthesized one never does, and this encoder throws nothing).
    package static func encode(_ value: some Encodable) -> JSONValue {
        let node = Node()
        do {
            try node.encode(value, codingPath: [])
        } catch {
            return .null
        }
        return node.value
    }

    /// One value being built; containers are filled in place.
    fileprivate final class Node {
        private enum Content {
            case value(JSONValue)
            case object([(String, Node)])
            case array([Node])
        }

        private var content = Content.value(.null)

        package var value: JSONValue {
            switch content {
            case .value(let value): value
            case .object(let members): .object(members.map { ($0.0, $0.1.value) })
            case .array(let elements): .array(elements.map(\.value))
            }
        }

        package func set(_ value: JSONValue) { content = .value(value) }

        package func makeObject() {
            if case .object = content { return }
            content = .object([])
        }

        package func makeArray() {
            if case .array = content { return }
            content = .array([])
        }

        package func member(_ key: String) -> Node {
            let node = Node()
            if case .object(var members) = content {
                members.append((key, node))
                content = .object(members)
            }
            return node
        }

        package func element() -> Node {
            let node = Node()
            if case .array(var elements) = content {
                elements.append(node)
                content = .array(elements)
            }
            return node
        }

        package var count: Int {
            if case .array(let elements) = content { return elements.count }
            return 0
        }

        /// Writes `value` here: the JSON cases directly, anything else through its `encode(to:)`.
        package func encode(_ value: some Encodable, codingPath: [any CodingKey]) throws {
            switch value {
            case let value as JSONValue: set(value)
            case let value as PropertyListValue: set(.propertyList(value))
            case let value as String: set(.string(value))
            case let value as Bool: set(.bool(value))
            case let value as Int: set(.integer(value))
            case let value as Double: set(.propertyList(.real(value)))
            case let value as Float: set(.propertyList(.real(Double(value))))
            case let value as any BinaryInteger: set(.integer(Int(clamping: value)))
            default: try value.encode(to: NodeEncoder(node: self, codingPath: codingPath))
            }
        }
    }

    private struct NodeEncoder: Encoder {
        package let node: Node
        package let codingPath: [any CodingKey]
        package var userInfo: [CodingUserInfoKey: Any] { [:] }

        package func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            node.makeObject()
            return KeyedEncodingContainer(ObjectContainer<Key>(node: node, codingPath: codingPath))
        }

        package func unkeyedContainer() -> any UnkeyedEncodingContainer {
            node.makeArray()
            return ArrayContainer(node: node, codingPath: codingPath)
        }

        package func singleValueContainer() -> any SingleValueEncodingContainer { ValueContainer(node: node, codingPath: codingPath) }
    }

    private struct ObjectContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
        package let node: Node
        package let codingPath: [any CodingKey]

        package mutating func encodeNil(forKey key: Key) throws { node.member(key.stringValue).set(.null) }

        package mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try encode(value as T?, key) }

        // The standard types, each through the generic one (the protocol has no defaults for them).
        package mutating func encode(_ value: Bool, forKey key: Key) throws { try encode(value as Bool?, key) }
        package mutating func encode(_ value: String, forKey key: Key) throws { try encode(value as String?, key) }
        package mutating func encode(_ value: Double, forKey key: Key) throws { try encode(value as Double?, key) }
        package mutating func encode(_ value: Float, forKey key: Key) throws { try encode(value as Float?, key) }
        package mutating func encode(_ value: Int, forKey key: Key) throws { try encode(value as Int?, key) }
        package mutating func encode(_ value: Int8, forKey key: Key) throws { try encode(value as Int8?, key) }
        package mutating func encode(_ value: Int16, forKey key: Key) throws { try encode(value as Int16?, key) }
        package mutating func encode(_ value: Int32, forKey key: Key) throws { try encode(value as Int32?, key) }
        package mutating func encode(_ value: Int64, forKey key: Key) throws { try encode(value as Int64?, key) }
        package mutating func encode(_ value: UInt, forKey key: Key) throws { try encode(value as UInt?, key) }
        package mutating func encode(_ value: UInt8, forKey key: Key) throws { try encode(value as UInt8?, key) }
        package mutating func encode(_ value: UInt16, forKey key: Key) throws { try encode(value as UInt16?, key) }
        package mutating func encode(_ value: UInt32, forKey key: Key) throws { try encode(value as UInt32?, key) }
        package mutating func encode(_ value: UInt64, forKey key: Key) throws { try encode(value as UInt64?, key) }

        // A nil optional is null, not left out (the defaults leave it out): every field is present.
        package mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws { try encode(value, key) }
        package mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { try encode(value, key) }
        package mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { try encode(value, key) }
        package mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { try encode(value, key) }
        package mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws { try encode(value, key) }
        package mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { try encode(value, key) }
        package mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { try encode(value, key) }
        package mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { try encode(value, key) }
        package mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { try encode(value, key) }
        package mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { try encode(value, key) }
        package mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { try encode(value, key) }
        package mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { try encode(value, key) }
        package mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { try encode(value, key) }
        package mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { try encode(value, key) }
        package mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { try encode(value, key) }

        /// The one body of the overloads above: a value, or null.
        private mutating func encode<T: Encodable>(_ value: T?, _ key: Key) throws {
            guard let value else { return try encodeNil(forKey: key) }
            try node.member(key.stringValue).encode(value, codingPath: codingPath + [key])
        }

        package mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
            let child = node.member(key.stringValue)
            child.makeObject()
            return KeyedEncodingContainer(ObjectContainer<NestedKey>(node: child, codingPath: codingPath + [key]))
        }

        package mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            let child = node.member(key.stringValue)
            child.makeArray()
            return ArrayContainer(node: child, codingPath: codingPath + [key])
        }

        package mutating func superEncoder() -> any Encoder { NodeEncoder(node: node.member("super"), codingPath: codingPath) }

        package mutating func superEncoder(forKey key: Key) -> any Encoder { NodeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key]) }
    }

    private struct ArrayContainer: UnkeyedEncodingContainer {
        package let node: Node
        package let codingPath: [any CodingKey]
        package var count: Int { node.count }

        package mutating func encodeNil() throws { node.element().set(.null) }

        package mutating func encode<T: Encodable>(_ value: T) throws { try node.element().encode(value, codingPath: codingPath) }
        package mutating func encode(_ value: Bool) throws { try node.element().encode(value, codingPath: codingPath) }
        package mutating func encode(_ value: String) throws { try node.element().encode(value, codingPath: codingPath) }
        package mutating func encode(_ value: Double) throws { try node.element().encode(value, codingPath: codingPath) }
        package mutating func encode(_ value: Float) throws { try node.element().encode(value, codingPath: codingPath) }
        package mutating func encode(_ value: Int) throws { try node.element().encode(value, codingPath: codingPath) }
        package mutating func encode(_ value: Int8) throws { try node.element().encode(value, codingPath: codingPath) }
        package mutating func encode(_ value: Int16) throws { try node.element().encode(value, codingPath: codingPath) }
        package mutating func encode(_ value: Int32) throws { try node.element().encode(value, codingPath: codingPath) }
        package mutating func encode(_ value: Int64) throws { try node.element().encode(value, codingPath: codingPath) }
        package mutating func encode(_ value: UInt) throws { try node.element().encode(value, codingPath: codingPath) }
        package mutating func encode(_ value: UInt8) throws { try node.element().encode(value, codingPath: codingPath) }
        package mutating func encode(_ value: UInt16) throws { try node.element().encode(value, codingPath: codingPath) }
        package mutating func encode(_ value: UInt32) throws { try node.element().encode(value, codingPath: codingPath) }
        package mutating func encode(_ value: UInt64) throws { try node.element().encode(value, codingPath: codingPath) }

        package mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            let child = node.element()
            child.makeObject()
            return KeyedEncodingContainer(ObjectContainer<NestedKey>(node: child, codingPath: codingPath))
        }

        package mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            let child = node.element()
            child.makeArray()
            return ArrayContainer(node: child, codingPath: codingPath)
        }

        package mutating func superEncoder() -> any Encoder { NodeEncoder(node: node.element(), codingPath: codingPath) }
    }

    private struct ValueContainer: SingleValueEncodingContainer {
        package let node: Node
        package let codingPath: [any CodingKey]

        package mutating func encodeNil() throws { node.set(.null) }

        package mutating func encode<T: Encodable>(_ value: T) throws { try node.encode(value, codingPath: codingPath) }
        package mutating func encode(_ value: Bool) throws { try node.encode(value, codingPath: codingPath) }
        package mutating func encode(_ value: String) throws { try node.encode(value, codingPath: codingPath) }
        package mutating func encode(_ value: Double) throws { try node.encode(value, codingPath: codingPath) }
        package mutating func encode(_ value: Float) throws { try node.encode(value, codingPath: codingPath) }
        package mutating func encode(_ value: Int) throws { try node.encode(value, codingPath: codingPath) }
        package mutating func encode(_ value: Int8) throws { try node.encode(value, codingPath: codingPath) }
        package mutating func encode(_ value: Int16) throws { try node.encode(value, codingPath: codingPath) }
        package mutating func encode(_ value: Int32) throws { try node.encode(value, codingPath: codingPath) }
        package mutating func encode(_ value: Int64) throws { try node.encode(value, codingPath: codingPath) }
        package mutating func encode(_ value: UInt) throws { try node.encode(value, codingPath: codingPath) }
        package mutating func encode(_ value: UInt8) throws { try node.encode(value, codingPath: codingPath) }
        package mutating func encode(_ value: UInt16) throws { try node.encode(value, codingPath: codingPath) }
        package mutating func encode(_ value: UInt32) throws { try node.encode(value, codingPath: codingPath) }
        package mutating func encode(_ value: UInt64) throws { try node.encode(value, codingPath: codingPath) }
    }
}

/// A `JSONValue` as a field of a report struct. `JSONValueEncoder` takes it
/// as it is; any other encoder gets its JSON cases, and an error for a
/// property list (whose lossless JSON form only `JSONValueEncoder` writes).
extension JSONValue: Encodable {
    private struct Key: CodingKey {
        package var stringValue: String
        package var intValue: Int? { nil }
        package init(stringValue: String) { self.stringValue = stringValue }
        package init?(intValue: Int) { nil }
    }

    package func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .integer(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .string(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .array(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements { try container.encode(element) }
        case .object(let members):
            var container = encoder.container(keyedBy: Key.self)
            for (key, value) in members { try container.encode(value, forKey: Key(stringValue: key)) }
        case .propertyList:
            throw EncodingError.invalidValue(
                self, EncodingError.Context(codingPath: encoder.codingPath, debugDescription: "a property list is written by JSONValueEncoder only"))
        }
    }
}
