/// Key paths in `plutil`'s syntax, and reading and editing a value by key path.
///
/// `plutil`'s syntax separates components with `.`; `\.` is a dot inside a
/// key. Every component is a key; applied to an array, a component that is a
/// decimal integer selects the element at that index (and, as the last
/// component of an insertion, the place to insert at, the array's count
/// appending). `PropertyListKeyPath(parsing:)`'s `a.b[2]` indexes work too:
/// an `.index` component selects in arrays only.
extension PropertyListKeyPath {
    /// Parses `plutil`'s syntax: `a.b.2`, `dotted\.key.c`. The empty text is
    /// one empty key (which no dictionary lookup of `plutil` matches).
    public init(plutilSyntax text: String) {
        var components: [PropertyListPathComponent] = []
        var key = ""
        var escaped = false
        for character in text {
            if escaped {
                if character != "." { key.append("\\") }
                key.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "." {
                components.append(.key(key))
                key = ""
            } else {
                key.append(character)
            }
        }
        if escaped { key.append("\\") }
        components.append(.key(key))
        self.init(components)
    }

    /// The path in `plutil`'s syntax: keys joined with `.`, dots in keys as `\.`.
    public var plutilDescription: String {
        components.map { component in
            switch component {
            case .key(let key): key.replacing(".", with: "\\.")
            case .index(let index): String(index)
            }
        }.joined(separator: ".")
    }
}

/// Why a value could not be read, set or removed at a key path.
public struct PropertyListKeyPathError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong: one of the static members, compared with `==` or
    /// matched in a `switch` (which needs a `default:`, as codes may be added
    /// in later versions without breaking callers).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        // fileprivate: `message` below switches over every case.
        fileprivate enum Wrapped: Hashable, Sendable {
            case missing
            case notAnIndex
            case indexOutOfRange(Int)
            case notAnArray(parentIsArray: Bool)
            case exists
            case notAContainer
            case root
        }

        fileprivate var wrapped: Wrapped

        private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

        /// A key or index on the way (or, for removal, at the end) is absent.
        public static var missing: Self { Self(.missing) }
        /// A component applied to an array is not an index.
        public static var notAnIndex: Self { Self(.notAnIndex) }
        /// An index lies past the end of its array; ``index`` gives it.
        public static func indexOutOfRange(_ index: Int) -> Self { Self(.indexOutOfRange(index)) }
        /// The value to append to is not an array; `parentIsArray` (read
        /// back with ``parentIsArray``) tells whether it was reached through
        /// an array index.
        public static func notAnArray(parentIsArray: Bool) -> Self { Self(.notAnArray(parentIsArray: parentIsArray)) }
        /// An insertion (not a replacement) found a value already there.
        public static var exists: Self { Self(.exists) }
        /// The path runs through a value that is neither array nor dictionary.
        public static var notAContainer: Self { Self(.notAContainer) }
        /// The path is empty: the root itself cannot be removed.
        public static var root: Self { Self(.root) }

        /// The index past the end of its array, for an ``indexOutOfRange(_:)``
        /// code; nil for every other code.
        public var index: Int? {
            if case .indexOutOfRange(let index) = wrapped { index } else { nil }
        }

        /// For a ``notAnArray(parentIsArray:)`` code, whether the value was
        /// reached through an array index; nil for every other code.
        public var parentIsArray: Bool? {
            if case .notAnArray(let parentIsArray) = wrapped { parentIsArray } else { nil }
        }

        /// The code's name, stable across versions: `missing`,
        /// `indexOutOfRange(3)`, `notAnArray(parentIsArray: true)`.
        public var description: String {
            switch wrapped {
            case .missing: "missing"
            case .notAnIndex: "notAnIndex"
            case .indexOutOfRange(let index): "indexOutOfRange(\(index))"
            case .notAnArray(let parentIsArray): "notAnArray(parentIsArray: \(parentIsArray))"
            case .exists: "exists"
            case .notAContainer: "notAContainer"
            case .root: "root"
            }
        }
    }

    /// What went wrong.
    public var code: Code
    /// The whole key path asked for.
    public var keyPath: PropertyListKeyPath
    /// How many components of `keyPath` were walked before the problem.
    public var depth: Int

    /// Makes an error.
    public init(_ code: Code, keyPath: PropertyListKeyPath, depth: Int) {
        self.code = code
        self.keyPath = keyPath
        self.depth = depth
    }

    /// A sentence for people, without the key path.
    public var message: String {
        let reached = PropertyListKeyPath(Array(keyPath.components.prefix(depth)))
        let place = reached.components.isEmpty ? "the root" : "'\(reached.plutilDescription)'"
        switch code.wrapped {
        case .missing: return "no value at this key path"
        case .notAnIndex: return "\(place) is an array, and '\(Self.text(of: keyPath.components[depth]))' is not an index"
        case .indexOutOfRange(let index): return "index \(index) is past the end of the array at \(place)"
        case .notAnArray: return "the value at this key path is not an array, so nothing can be appended to it"
        case .exists: return "a value already exists at this key path (replace it instead)"
        case .notAContainer: return "\(place) is neither an array nor a dictionary"
        case .root: return "the root value cannot be removed"
        }
    }

    public var description: String { "\(message) (at \(keyPath.plutilDescription))" }

    private static func text(of component: PropertyListPathComponent) -> String {
        switch component {
        case .key(let key): key
        case .index(let index): String(index)
        }
    }
}

/// How `PropertyListValue.setValue(_:at:mode:)` puts a value in place.
public enum PropertyListEditMode: Hashable, Sendable {
    /// Adds the value: a new dictionary key, or inserted into an array at
    /// the index (the array's count appends); an existing key is an error.
    case insert
    /// Puts the value in place of what is there, or adds it when nothing is.
    case replace
    /// Appends the value to the array at the key path; when the key path
    /// names nothing in a dictionary, the value is added there as `insert` does.
    case append
}

extension PropertyListValue {
    /// The value at `keyPath`, or nil when something on the way is absent,
    /// out of range or not a container. The empty path is the value itself.
    public func value(at keyPath: PropertyListKeyPath) -> PropertyListValue? {
        var current = self
        for component in keyPath.components {
            guard let next = current.child(component) else { return nil }
            current = next
        }
        return current
    }

    /// The element `component` selects, when there is one.
    private func child(_ component: PropertyListPathComponent) -> PropertyListValue? {
        switch (self, component) {
        case (.dictionary(let dictionary), .key(let key)):
            return dictionary[key]
        case (.array(let array), _):
            guard let index = Self.index(component), array.indices.contains(index) else { return nil }
            return array[index]
        default:
            return nil
        }
    }

    /// The array index a component names: an index, or a key that is a decimal integer.
    private static func index(_ component: PropertyListPathComponent) -> Int? {
        switch component {
        case .index(let index): index
        case .key(let key): Int(key)
        }
    }

    /// Puts `value` at `keyPath` (see `PropertyListEditMode`). Every
    /// container on the way must exist.
    ///
    /// - Throws: `PropertyListKeyPathError` saying where the path fails;
    ///   `self` is then unchanged.
    public mutating func setValue(
        _ value: PropertyListValue, at keyPath: PropertyListKeyPath,
        mode: PropertyListEditMode
    ) throws(PropertyListKeyPathError) {
        guard !keyPath.components.isEmpty else {
            if mode == .replace { self = value; return }
            throw PropertyListKeyPathError(.exists, keyPath: keyPath, depth: 0)
        }
        try set(value, keyPath: keyPath, depth: 0, mode: mode)
    }

    private mutating func set(
        _ value: PropertyListValue, keyPath: PropertyListKeyPath, depth: Int,
        mode: PropertyListEditMode
    ) throws(PropertyListKeyPathError) {
        let component = keyPath.components[depth]
        let isLast = depth == keyPath.components.count - 1
        switch self {
        case .dictionary(var dictionary):
            guard case .key(let key) = component else { throw PropertyListKeyPathError(.notAnIndex, keyPath: keyPath, depth: depth) }
            if !isLast {
                guard var child = dictionary[key] else { throw PropertyListKeyPathError(.missing, keyPath: keyPath, depth: depth) }
                try child.set(value, keyPath: keyPath, depth: depth + 1, mode: mode)
                dictionary[key] = child
            } else if let existing = dictionary[key], mode != .replace {
                guard mode == .append else { throw PropertyListKeyPathError(.exists, keyPath: keyPath, depth: depth) }
                guard case .array(let elements) = existing else {
                    throw PropertyListKeyPathError(.notAnArray(parentIsArray: false), keyPath: keyPath, depth: depth)
                }
                dictionary[key] = .array(elements + [value])
            } else {
                dictionary[key] = value
            }
            self = .dictionary(dictionary)
        case .array(var array):
            guard let index = Self.index(component) else { throw PropertyListKeyPathError(.notAnIndex, keyPath: keyPath, depth: depth) }
            let inside = array.indices.contains(index)
            if !isLast || mode == .append {
                guard inside else { throw PropertyListKeyPathError(.indexOutOfRange(index), keyPath: keyPath, depth: depth) }
                if isLast {
                    guard case .array(let elements) = array[index] else {
                        throw PropertyListKeyPathError(.notAnArray(parentIsArray: true), keyPath: keyPath, depth: depth)
                    }
                    array[index] = .array(elements + [value])
                } else {
                    try array[index].set(value, keyPath: keyPath, depth: depth + 1, mode: mode)
                }
            } else if inside {
                if mode == .replace { array[index] = value } else { array.insert(value, at: index) }
            } else if index == array.count {
                array.append(value)
            } else {
                throw PropertyListKeyPathError(.indexOutOfRange(index), keyPath: keyPath, depth: depth)
            }
            self = .array(array)
        default:
            throw PropertyListKeyPathError(.notAContainer, keyPath: keyPath, depth: depth)
        }
    }

    /// Removes the value at `keyPath`.
    ///
    /// - Throws: `PropertyListKeyPathError`: `.missing` when there is no
    ///   value there, `.root` for the empty path; `self` is then unchanged.
    public mutating func removeValue(at keyPath: PropertyListKeyPath) throws(PropertyListKeyPathError) {
        guard !keyPath.components.isEmpty else { throw PropertyListKeyPathError(.root, keyPath: keyPath, depth: 0) }
        try remove(keyPath: keyPath, depth: 0)
    }

    private mutating func remove(keyPath: PropertyListKeyPath, depth: Int) throws(PropertyListKeyPathError) {
        let component = keyPath.components[depth]
        let isLast = depth == keyPath.components.count - 1
        switch self {
        case .dictionary(var dictionary):
            guard case .key(let key) = component, !key.isEmpty, var child = dictionary[key] else {
                throw PropertyListKeyPathError(.missing, keyPath: keyPath, depth: depth)
            }
            if isLast {
                dictionary.removeValue(forKey: key)
            } else {
                try child.remove(keyPath: keyPath, depth: depth + 1)
                dictionary[key] = child
            }
            self = .dictionary(dictionary)
        case .array(var array):
            guard let index = Self.index(component), array.indices.contains(index) else {
                throw PropertyListKeyPathError(.missing, keyPath: keyPath, depth: depth)
            }
            if isLast {
                array.remove(at: index)
            } else {
                try array[index].remove(keyPath: keyPath, depth: depth + 1)
            }
            self = .array(array)
        default:
            throw PropertyListKeyPathError(.missing, keyPath: keyPath, depth: depth)
        }
    }
}
