import KeyedArchive
import PropertyList

extension NibObjectGraph {
    /// The graph of a keyed nib: Interface Builder's `keyedobjects.nib` for
    /// AppKit, or an iOS nib as `ibtool` compiled them before iOS 6.
    ///
    /// - AppKit: the `NSIBObjectData` under `$top`'s `IB.objectdata` is the
    ///   root; its `NSRoot` (the file's owner) and the objects whose parent
    ///   (`NSObjectsKeys`/`NSObjectsValues`) is `NSRoot` are the top level;
    ///   connections are its `NSNibOutletConnector`s and `NSNibControlConnector`s.
    /// - iOS: `$top` itself holds what a compiled nib's object 0 holds
    ///   (`UINibTopLevelObjectsKey`, `UINibObjectsKey`, `UINibConnectionsKey`,
    ///   …), so it is shown as the root, at index 0 (the archive's `$null`,
    ///   which no field refers to), with the class name `$top`; the top
    ///   level is its `UINibTopLevelObjectsKey` array, and connections are
    ///   the `UIRuntimeOutletConnection`s and `UIRuntimeEventConnection`s.
    ///
    /// Strings and numbers stored as themselves are shown in place; instances are objects.
    ///
    /// - Throws: `NIBArchiveError` `.notAKeyedNib` when `$top` has neither
    ///   `IB.objectdata` nor `UINibTopLevelObjectsKey`, or a reference points
    ///   outside `$objects` (the message names the object and key).
    public init(keyedArchive archive: KeyedArchiveObjectGraph) throws(NIBArchiveError) {
        let root = archive.topObjectIndex(forKey: "IB.objectdata")
        let uikitTop = root == nil ? archive.topObjectIndex(forKey: Self.uikitTopLevelKey) : nil
        guard root != nil || uikitTop != nil else {
            throw NIBArchiveError(
                .notAKeyedNib, at: nil,
                "the keyed archive has neither $top.IB.objectdata nor $top.\(Self.uikitTopLevelKey): not a keyed nib")
        }
        var objects: [Object?] = Array(repeating: nil, count: archive.objects.count)
        for index in archive.objects.indices {
            guard case .instance(let instance) = archive.object(at: index) else { continue }
            var fields: [Field] = []
            var string: String?
            for (key, value) in instance.fields {
                let converted = try Self.value(value, in: archive, at: "$objects[\(index)].\(key)")
                fields.append(Field(key: key, value: converted))
                if key == "NS.string", case .string(let text) = converted { string = text }
            }
            objects[index] = Object(index: index, className: instance.classDescription.name, fields: fields, string: string)
        }
        if let uikitTop {
            var fields: [Field] = []
            for (key, value) in archive.top {
                fields.append(Field(key: key, value: try Self.value(value, in: archive, at: "$top.\(key)")))
            }
            objects[0] = Object(index: 0, className: "$top", fields: fields, string: nil)
            self.objects = objects
            rootIndex = 0
            connections = Self.connections(in: objects)
            topLevelObjects = []
            topLevelObjects = elements(of: uikitTop)
            return
        }
        self.objects = objects
        rootIndex = root ?? 0
        connections = Self.connections(in: objects)
        topLevelObjects = []
        topLevelObjects = keyedTopLevelObjects()
    }

    /// The `$top` key of an iOS keyed nib's top-level objects.
    static let uikitTopLevelKey = "UINibTopLevelObjectsKey"

    /// `NSRoot`, then each object whose parent is `NSRoot`, in `NSObjectsKeys` order.
    private func keyedTopLevelObjects() -> [Int] {
        guard let rootData = object(rootIndex) else { return [] }
        func reference(_ key: String) -> Int? {
            for field in rootData.fields where field.key == key {
                if case .object(let index) = field.value { return index }
            }
            return nil
        }
        guard let owner = reference("NSRoot") else { return [] }
        var found = [owner]
        if let keys = reference("NSObjectsKeys"), let parents = reference("NSObjectsValues") {
            for (child, parent) in zip(elements(of: keys), elements(of: parents)) where parent == owner && child != owner {
                found.append(child)
            }
        }
        return found
    }

    private static func value(_ value: PropertyListValue, in archive: KeyedArchiveObjectGraph, at path: @autoclosure () -> String)
        throws(NIBArchiveError) -> Value
    {
        switch value {
        case .uid(let uid):
            guard uid < UInt64(archive.objects.count) else {
                throw NIBArchiveError(
                    .notAKeyedNib, at: nil, "\(path()) refers to object \(uid) of \(archive.objects.count)")
            }
            let index = Int(uid)
            switch archive.object(at: index) {
            case .null: return .nil
            case .value(let plain) where !Self.isContainer(plain): return try Self.value(plain, in: archive, at: path())
            default: return .object(index)
            }
        case .string(let text): return .string(text)
        case .integer(let integer): return integer.int64Value.map(Value.integer) ?? .real(Double(integer.uint64Value ?? 0))
        case .real(let real): return .real(real)
        case .real32(let real): return .real(Double(real))
        case .bool(let flag): return .bool(flag)
        case .data(let data): return .data(Array(data))
        case .date(let date): return .string("\(date)")
        case .array(let elements):
            var list: [Value] = []
            for element in elements { list.append(try Self.value(element, in: archive, at: path())) }
            return .list(list)
        case .dictionary(let dictionary):
            var list: [Value] = []
            for (key, element) in dictionary {
                list.append(.list([.string(key), try Self.value(element, in: archive, at: path())]))
            }
            return .list(list)
        }
    }

    private static func isContainer(_ value: PropertyListValue) -> Bool {
        switch value {
        case .array, .dictionary: true
        default: false
        }
    }
}
