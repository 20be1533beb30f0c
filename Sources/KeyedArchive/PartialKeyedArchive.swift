import PropertyList

/// A keyed archive read piece by piece from a binary property-list file:
/// the fields of one object without the rest of the archive.
///
/// Opening checks the archive's top level as `KeyedArchiveObjectGraph` does
/// (`$archiver`, `$version`, `$top`, `$objects`, `$null`) and reads nothing
/// else. `instance(at:)` reads one object's dictionary and keys;
/// `className(of:)` and `field(_:of:)` then read the few objects they name. A data field is returned as its place in the file,
/// so a large thumbnail or photo is not read unless asked for with
/// `PartialBinaryPropertyList.bytes(at:count:)`. Unlike `KeyedArchiveReader`,
/// the objects not asked for are not checked.
public struct PartialKeyedArchive {
    /// A field's value, as stored.
    public enum Field: Hashable, Sendable {
        /// `$null`: a reference to object 0, no object.
        case null
        /// A value stored in the object's own dictionary (an integer, a real, a boolean…).
        case inline(PartialBinaryPropertyList.Object)
        /// A reference to object `index` of `$objects`, and that object.
        case reference(index: Int, PartialBinaryPropertyList.Object)
    }

    /// An object of `$objects` that is a dictionary: its keys, read once.
    public struct Instance: Sendable {
        /// Its index in `$objects`.
        public let index: Int
        /// Its keys and the property-list numbers of their values.
        fileprivate let fields: [(key: String, value: Int)]

        /// The number of the value under `key`; the last one when the key repeats.
        fileprivate func value(forKey key: String) -> Int? { fields.last { $0.key == key }?.value }
    }

    /// The property list read from.
    public let propertyList: PartialBinaryPropertyList
    /// How many objects `$objects` holds.
    public var objectCount: Int { objects.count }
    /// The property-list numbers of the entries of `$objects`.
    private let objects: [Int]
    /// `$top`: its keys and the property-list numbers of their values.
    private let top: [(key: String, value: Int)]

    /// Checks the top level of the archive in `propertyList`.
    ///
    /// Reads the top dictionary, its keys, `$archiver`, `$version`, `$top`,
    /// the list of `$objects` and `$objects[0]`.
    ///
    /// - Throws: `KeyedArchiveError` `.notAnArchive`, `.wrongArchiver`,
    ///   `.unsupportedVersion`, `.missingObjects`, `.missingTop` or
    ///   `.missingNull` as `KeyedArchiveObjectGraph(propertyList:)` does, and
    ///   `.propertyList` for bytes that cannot be read.
    public init(propertyList: PartialBinaryPropertyList) throws(KeyedArchiveError) {
        self.propertyList = propertyList
        let root = try Self.entries(of: propertyList.topObject, in: propertyList, path: [])
        guard let root else { throw KeyedArchiveError(.notAnArchive, at: [], "the property list is not a keyed archive's dictionary") }
        func member(_ key: String) -> Int? { root.last { $0.key == key }?.value }
        func object(_ key: String) throws(KeyedArchiveError) -> PartialBinaryPropertyList.Object? {
            guard let number = member(key) else { return nil }
            return try Self.object(number, in: propertyList, at: [.key(key)])
        }
        switch try object("$archiver") {
        case .string(KeyedArchiveObjectGraph.archiverName)?: break
        case .string(let other)?: throw KeyedArchiveError(.wrongArchiver, at: [.key("$archiver")], "$archiver is \"\(other)\", not \"NSKeyedArchiver\"")
        case _?: throw KeyedArchiveError(.wrongArchiver, at: [.key("$archiver")], "$archiver is not the string \"NSKeyedArchiver\"")
        case nil: throw KeyedArchiveError(.wrongArchiver, at: [], "no $archiver: not a keyed archive")
        }
        switch try object("$version") {
        case .integer(let version)? where version.int64Value == KeyedArchiveObjectGraph.formatVersion: break
        case .integer(let version)?: throw KeyedArchiveError(.unsupportedVersion, at: [.key("$version")], "$version is \(version), not 100000")
        case _?: throw KeyedArchiveError(.unsupportedVersion, at: [.key("$version")], "$version is not the integer 100000")
        case nil: throw KeyedArchiveError(.unsupportedVersion, at: [], "no $version")
        }
        guard case .array(let objects)? = try object("$objects") else {
            throw KeyedArchiveError(
                .missingObjects, at: member("$objects") == nil ? [] : [.key("$objects")],
                member("$objects") == nil ? "no $objects" : "$objects is not an array")
        }
        guard let topNumber = member("$top"), let top = try Self.entries(of: topNumber, in: propertyList, path: [.key("$top")]) else {
            throw KeyedArchiveError(
                .missingTop, at: member("$top") == nil ? [] : [.key("$top")],
                member("$top") == nil ? "no $top" : "$top is not a dictionary")
        }
        guard let first = objects.first, try Self.object(first, in: propertyList, at: .object(0)) == .string("$null") else {
            throw KeyedArchiveError(.missingNull, at: .object(0), object: 0, "$objects[0] is not the string \"$null\"")
        }
        self.objects = objects
        self.top = top
    }

    /// The index in `$objects` of the top object under `key`; nil when
    /// `$top` has no such key or holds `$null` there.
    ///
    /// - Throws: `KeyedArchiveError` `.danglingReference` for a reference
    ///   past `$objects`, `.invalidObject` for a value that is no reference.
    public func topObjectIndex(forKey key: String) throws(KeyedArchiveError) -> Int? {
        guard let number = top.last(where: { $0.key == key })?.value else { return nil }
        let path = PropertyListKeyPath.top(key)
        guard case .uid(let uid) = try Self.object(number, in: propertyList, at: path) else {
            throw KeyedArchiveError(.invalidObject, at: path, "the value is not a reference (UID)")
        }
        return uid == 0 ? nil : try index(uid, path: path)
    }

    /// Object `index` of `$objects`, which must be a dictionary (an
    /// instance or a class description). Reads it and its keys.
    ///
    /// - Throws: `KeyedArchiveError` `.invalidObject` when it is no
    ///   dictionary, `.danglingReference` when `index` is past `$objects`.
    public func instance(at index: Int) throws(KeyedArchiveError) -> Instance {
        guard index >= 0, index < objects.count else {
            throw KeyedArchiveError(.danglingReference, at: .object(index), "object \(index) is past the \(objects.count) objects")
        }
        guard let fields = try Self.entries(of: objects[index], in: propertyList, path: .object(index)) else {
            throw KeyedArchiveError(.invalidObject, at: .object(index), object: index, "the object is not an instance (a dictionary)")
        }
        return Instance(index: index, fields: fields)
    }

    /// The class of `instance`: its `$classname` and `$classes` (the chain
    /// is the name alone when the description has no `$classes`).
    ///
    /// - Throws: `KeyedArchiveError` `.invalidObject` when it has no
    ///   `$class`, `.invalidClass` or `.danglingReference` for a bad `$class`.
    public func className(of instance: Instance) throws(KeyedArchiveError) -> KeyedArchiveClass {
        let index = instance.index
        let path = PropertyListKeyPath.object(index).appending(.key("$class"))
        guard let field = try field("$class", of: instance) else {
            throw KeyedArchiveError(.invalidObject, at: .object(index), object: index, "the object has no $class")
        }
        guard case .reference(let classIndex, .dictionary) = field else {
            throw KeyedArchiveError(.invalidClass, at: path, object: index, "$class does not refer to a class description")
        }
        let description = try self.instance(at: classIndex)
        let classPath = PropertyListKeyPath.object(classIndex)
        func string(_ number: Int, _ key: String) throws(KeyedArchiveError) -> String? {
            guard case .string(let text) = try Self.object(number, in: propertyList, at: classPath.appending(.key(key))) else { return nil }
            return text
        }
        guard let nameNumber = description.value(forKey: "$classname"), let name = try string(nameNumber, "$classname") else {
            throw KeyedArchiveError(
                .invalidClass, at: classPath.appending(.key("$classname")), object: classIndex,
                "a class description needs a $classname string")
        }
        var chain: [String] = []
        if let chainNumber = description.value(forKey: "$classes") {
            let chainPath = classPath.appending(.key("$classes"))
            guard case .array(let members) = try Self.object(chainNumber, in: propertyList, at: chainPath) else {
                throw KeyedArchiveError(.invalidClass, at: chainPath, object: classIndex, "$classes is not a list of class names")
            }
            for (position, member) in members.enumerated() {
                guard let className = try string(member, "$classes") else {
                    throw KeyedArchiveError(
                        .invalidClass, at: chainPath.appending(.index(position)), object: classIndex,
                        "$classes holds something other than a class name")
                }
                chain.append(className)
            }
        }
        if chain.isEmpty { chain = [name] }
        return KeyedArchiveClass(name: name, chain: chain)
    }

    /// Field `key` of `instance`; nil when it has no such field.
    ///
    /// Reads the value (for a reference, the object referred to, without
    /// what that refers to).
    ///
    /// - Throws: `KeyedArchiveError` `.danglingReference` for a reference
    ///   past `$objects`, `.propertyList` for bytes that cannot be read.
    public func field(_ key: String, of instance: Instance) throws(KeyedArchiveError) -> Field? {
        guard let number = instance.value(forKey: key) else { return nil }
        let path = PropertyListKeyPath.object(instance.index).appending(.key(key))
        let value = try Self.object(number, in: propertyList, at: path)
        guard case .uid(let uid) = value else { return .inline(value) }
        if uid == 0 { return .null }
        let target = try self.index(uid, path: path)
        return .reference(index: target, try Self.object(objects[target], in: propertyList, at: .object(target)))
    }

    // MARK: Helpers

    private func index(_ uid: UInt64, path: PropertyListKeyPath) throws(KeyedArchiveError) -> Int {
        guard uid < UInt64(objects.count) else {
            throw KeyedArchiveError(.danglingReference, at: path, "the reference \(uid) is past the \(objects.count) objects")
        }
        return Int(uid)
    }

    /// The string keys and the values' numbers of dictionary `number`; nil when it is no dictionary.
    private static func entries(
        of number: Int, in propertyList: PartialBinaryPropertyList,
        path: PropertyListKeyPath
    ) throws(KeyedArchiveError) -> [(key: String, value: Int)]? {
        try located(path) { () throws(PropertyListError) -> [(key: String, value: Int)]? in
            guard case .dictionary(let keys, let values) = try propertyList.object(number) else { return nil }
            var entries: [(key: String, value: Int)] = []
            entries.reserveCapacity(keys.count)
            for (keyNumber, valueNumber) in zip(keys, values) {
                guard case .string(let key) = try propertyList.object(keyNumber) else {
                    throw PropertyListError(.invalidKey, at: .none, "a dictionary key is not a string")
                }
                entries.append((key, valueNumber))
            }
            return entries
        }
    }

    /// Object `number` of the property list, a property-list error given the key path `path`.
    private static func object(
        _ number: Int, in propertyList: PartialBinaryPropertyList,
        at path: PropertyListKeyPath
    ) throws(KeyedArchiveError) -> PartialBinaryPropertyList.Object {
        try located(path) { () throws(PropertyListError) in try propertyList.object(number) }
    }

    /// Runs `body`, giving a property-list error the key path `path`.
    private static func located<T>(_ path: PropertyListKeyPath, _ body: () throws(PropertyListError) -> T) throws(KeyedArchiveError) -> T {
        do {
            return try body()
        } catch {
            var error = KeyedArchiveError(error)
            error.keyPath = path
            throw error
        }
    }
}
