import OrderedCollections
import PropertyList

/// Fields of an archived object that its Swift type does not know, kept as
/// they were stored, with every object they reach, so that encoding the
/// object again writes them back unchanged.
///
/// A type that decodes only the keys it knows would drop a newer writer's
/// keys when it is encoded again; keeping them here, read with
/// `KeyedArchiveDecoder.preservedFields(excludingKeys:)` and written with
/// `KeyedArchiveEncoder.encode(_:)`, keeps them: each field's value and the
/// objects it refers to — strings, numbers, data, collections, instances of
/// any class with their class descriptions, `$null`, objects shared between
/// fields, cycles, a reference back to the object itself — as the archive
/// held them. Only the objects' numbers in `$objects` change.
public struct PreservedArchiveFields: Hashable, Sendable {
    /// The kept fields in the archive's order; their UIDs refer to `objects`.
    private var fields: OrderedDictionary<String, PropertyListValue>
    /// The objects the fields reach, renumbered from 1 in the order first
    /// reached; entry 0 is `$null`. Their UIDs refer to this array.
    private var objects: [PropertyListValue]
    /// Where in `objects` a reference to the object that holds the fields
    /// is; that entry is only a placeholder.
    private var ownerSlot: Int?
    /// The class name of the object that holds the fields.
    private var ownerClassName: String

    /// No fields kept.
    public init() {
        fields = [:]
        objects = [.string("$null")]
        ownerSlot = nil
        ownerClassName = "NSObject"
    }

    /// The keys kept, in the archive's order.
    public var keys: [String] { Array(fields.keys) }

    /// True when no field is kept.
    public var isEmpty: Bool { fields.isEmpty }

    /// The kept fields as property lists to compare by value, without object
    /// numbers, as `KeyedArchiveTree.comparableValue(_:)` gives them: each
    /// object `{"$class": name, field: value, …}`, a later reference to it
    /// `{"$class": name, "$reference": "shared"}`, `$null` as `"$null"`;
    /// a reference to the object that holds the fields is
    /// `{"$class": its class}`. Costs a walk over the kept objects.
    ///
    /// - Throws: `KeyedArchiveError` as `KeyedArchiveTree.comparableValue(_:)`
    ///   does (the kept objects expand past its limits).
    public var comparableFields: OrderedDictionary<String, PropertyListValue> {
        get throws(KeyedArchiveError) { try comparableFieldsExpanded() }
    }

    private func comparableFieldsExpanded() throws(KeyedArchiveError) -> OrderedDictionary<String, PropertyListValue> {
        var graphObjects = objects
        if let ownerSlot {
            graphObjects.append(.dictionary(["$classname": .string(ownerClassName), "$classes": [.string(ownerClassName)]]))
            graphObjects[ownerSlot] = .dictionary(["$class": .uid(UInt64(graphObjects.count - 1))])
        }
        guard case .dictionary(let top) = try KeyedArchiveTree.comparableValue(KeyedArchiveObjectGraph(top: fields, objects: graphObjects)) else {
            preconditionFailure("KeyedArchiveTree.comparableValue gives a dictionary")
        }
        return top
    }

    /// Copies `fields` of the object at `ownerIndex` of `archive` with the
    /// objects they reach.
    ///
    /// - Throws: `.danglingReference` for a UID past the archive's objects,
    ///   at `keyPath` and the key of the field that reaches it, with the
    ///   index of the object holding it.
    init(
        copying fields: OrderedDictionary<String, PropertyListValue>, of archive: KeyedArchiveObjectGraph, ownerIndex: Int?,
        ownerClassName: String, keyPath: PropertyListKeyPath
    ) throws(KeyedArchiveError) {
        self.init()
        self.ownerClassName = ownerClassName
        var slots: [Int: Int] = [0: 0]
        // The objects copied whose own references are still to copy, with their index and the field that reaches them.
        var pending: [(slot: Int, original: Int, field: String)] = []
        func slot(_ uid: UInt64, field: String, in holder: Int?) throws(KeyedArchiveError) -> UInt64 {
            guard uid < UInt64(archive.objects.count) else {
                throw KeyedArchiveError(
                    .danglingReference, at: keyPath.appending(.key(field)), object: holder,
                    "UID \(uid) refers past the \(archive.objects.count) objects")
            }
            let original = Int(uid)
            if let known = slots[original] { return UInt64(known) }
            let new = objects.count
            slots[original] = new
            if original == ownerIndex {
                ownerSlot = new
                objects.append(.string("$null"))
            } else {
                objects.append(archive.objects[original])
                pending.append((new, original, field))
            }
            return UInt64(new)
        }
        for (key, value) in fields {
            self.fields[key] = try Self.mapUIDs(in: value) { (uid) throws(KeyedArchiveError) in try slot(uid, field: key, in: ownerIndex) }
        }
        while let (next, original, field) = pending.popLast() {
            objects[next] = try Self.mapUIDs(in: objects[next]) { (uid) throws(KeyedArchiveError) in try slot(uid, field: field, in: original) }
        }
    }

    /// `value` with each UID in it, at any depth, replaced by `map`'s.
    private static func mapUIDs<Failure: Error>(
        in value: PropertyListValue, _ map: (UInt64) throws(Failure) -> UInt64
    ) throws(Failure) -> PropertyListValue {
        switch value {
        case .uid(let uid): return .uid(try map(uid))
        case .array(let elements):
            var mapped: [PropertyListValue] = []
            mapped.reserveCapacity(elements.count)
            for element in elements { mapped.append(try mapUIDs(in: element, map)) }
            return .array(mapped)
        case .dictionary(let members):
            var mapped = OrderedDictionary<String, PropertyListValue>(minimumCapacity: members.count)
            for (key, member) in members { mapped[key] = try mapUIDs(in: member, map) }
            return .dictionary(mapped)
        default: return value
        }
    }

    /// Appends the kept objects to `state`'s and returns the kept fields
    /// with their UIDs renumbered to match; a reference to the owner becomes
    /// one to `ownerIndex`.
    func append(to state: KeyedArchiveEncodingState, ownerIndex: Int) -> OrderedDictionary<String, PropertyListValue> {
        var newIndex = [Int](repeating: 0, count: objects.count)
        var next = state.objects.count
        for slot in objects.indices.dropFirst() {
            if slot == ownerSlot {
                newIndex[slot] = ownerIndex
            } else {
                newIndex[slot] = next
                next += 1
            }
        }
        // The UIDs of the kept graph are all below `objects.count`, by construction in init(copying:…).
        func renumber(_ value: PropertyListValue) -> PropertyListValue {
            Self.mapUIDs(in: value) { UInt64(newIndex[Int($0)]) }
        }
        for slot in objects.indices.dropFirst() where slot != ownerSlot {
            state.objects.append(renumber(objects[slot]))
        }
        return fields.mapValues(renumber)
    }
}

extension KeyedArchiveDecoder {
    /// The object's fields other than `known`, kept as stored with every
    /// object they reach, to be written back with
    /// `KeyedArchiveEncoder.encode(_:)`: how a type keeps the keys a newer
    /// writer added.
    ///
    /// - Throws: `.danglingReference` for a reference past the archive's
    ///   objects, with the key path of the field. Costs a copy of the
    ///   objects the kept fields reach.
    public func preservedFields(excludingKeys known: Set<String>) throws(KeyedArchiveError) -> PreservedArchiveFields {
        let kept = fields.filter { !known.contains($0.key) }
        if kept.isEmpty { return PreservedArchiveFields() }
        return try PreservedArchiveFields(copying: kept, of: context.archive, ownerIndex: index, ownerClassName: className, keyPath: keyPath)
    }
}

extension KeyedArchiveEncoder {
    /// Writes fields kept by `KeyedArchiveDecoder.preservedFields(excludingKeys:)`
    /// with the objects they reach, after the fields already encoded; a kept
    /// key this object has already encoded is not written again.
    ///
    /// Costs a copy of the kept objects into the archive.
    public mutating func encode(_ preserved: PreservedArchiveFields) {
        guard !preserved.isEmpty else { return }
        for (key, value) in preserved.append(to: state, ownerIndex: objectIndex) where fields[key] == nil {
            fields[key] = value
        }
    }
}
