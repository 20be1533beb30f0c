/// A path as a dictionary key, equal to another when their bytes are, as
/// the file system compares names: Swift's `String` equality and hashing
/// take canonically equivalent text for one (`café` with `é`, and with `e`
/// + U+0301), which a Linux file system keeps as two names.
package struct PathKey: Hashable, Sendable {
    package let text: String

    package init(_ text: String) { self.text = text }

    package static func == (left: PathKey, right: PathKey) -> Bool { PathName.same(left.text, right.text) }

    package func hash(into hasher: inout Hasher) {
        var text = text
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}

/// A dictionary keyed by paths compared byte for byte (`PathKey`), read
/// and written by `String` paths as a `[String: Value]` is.
package struct PathDictionary<Value>: Sequence, ExpressibleByDictionaryLiteral {
    private var storage: [PathKey: Value] = [:]

    package init() {}

    package init(dictionaryLiteral elements: (String, Value)...) {
        for (path, value) in elements { storage[PathKey(path)] = value }
    }

    package subscript(path: String) -> Value? {
        get { storage[PathKey(path)] }
        set { storage[PathKey(path)] = newValue }
    }

    package subscript(path: String, default defaultValue: @autoclosure () -> Value) -> Value {
        get { storage[PathKey(path), default: defaultValue()] }
        set { storage[PathKey(path)] = newValue }
    }

    @discardableResult
    package mutating func removeValue(forKey path: String) -> Value? { storage.removeValue(forKey: PathKey(path)) }

    package var keys: [String] { storage.keys.map(\.text) }
    package var values: Dictionary<PathKey, Value>.Values { storage.values }
    package var count: Int { storage.count }
    package var isEmpty: Bool { storage.isEmpty }

    package func makeIterator() -> some IteratorProtocol<(key: String, value: Value)> {
        storage.lazy.map { (key: $0.key.text, value: $0.value) }.makeIterator()
    }
}

extension PathDictionary: Sendable where Value: Sendable {}
