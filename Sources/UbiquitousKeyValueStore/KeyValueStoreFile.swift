import OrderedCollections
import PropertyList
import SystemPackage
import SystemSupport

/// The last change one device made to one key: a value, or its removal, at
/// a hybrid logical time (`HybridLogicalClock`).
public struct KeyValueStoreEntry: Hashable, Sendable {
    /// The value set; nil when the key was removed (a tombstone, kept so the
    /// removal wins over older values on other devices).
    public var value: PropertyListValue?
    /// When, in milliseconds since 1970 as the device's hybrid logical clock gave it.
    public var time: Int64
    /// The device that made the change (its identity token).
    public var device: String

    /// Makes an entry.
    public init(value: PropertyListValue?, time: Int64, device: String) {
        self.value = value
        self.time = time
        self.device = device
    }

    /// Whether this change wins over `other` for the same key: the later
    /// time; on equal times the greater device token; then a value over a
    /// removal, then the greater binary encoding (only a device's own
    /// conflict copy can tie that far). Every device orders any two entries
    /// the same way, so every device picks the same winner. Encodes the
    /// values only on a tie of time and device.
    public func wins(over other: KeyValueStoreEntry) -> Bool {
        if time != other.time { return time > other.time }
        if device != other.device { return device > other.device }
        switch (value, other.value) {
        case (nil, _): return false
        case (_?, nil): return true
        case (let mine?, let theirs?):
            let writer = BinaryPropertyListWriter()
            let first = (try? writer.encode(mine)) ?? []
            let second = (try? writer.encode(theirs)) ?? []
            return second.lexicographicallyPrecedes(first)
        }
    }
}

/// One device's file in a container's store folder
/// (`.ictkit-kvstore/DEVICE.plist`): the winning change of each key as the
/// device knew them when it last wrote (its own changes, and those of other
/// devices it had read, each with the device that made it), and whether it
/// has seen another device's file yet. A binary property list;
/// `docs/kvstore-format.md` is its reference.
public struct KeyValueStoreFile: Hashable, Sendable {
    /// The format version written (`Format`); a file of a later one is not read.
    public static let formatVersion = 1
    /// The largest file read: 1 MB of values, their keys and tombstones, with room to spare.
    public static let maximumSize = 16 << 20

    /// The device that writes it (`Device`).
    public var device: String
    /// Whether the device had seen another device's file when it wrote it
    /// (`InitialSyncDone`): after that, another device's values arriving are
    /// server changes, not the initial sync.
    public var initialSyncDone: Bool
    /// The winning change of each key (`Entries`), removals too, in key order.
    public var entries: OrderedDictionary<String, KeyValueStoreEntry>

    /// Makes a file's contents.
    public init(device: String, initialSyncDone: Bool = false, entries: OrderedDictionary<String, KeyValueStoreEntry> = [:]) {
        self.device = device
        self.initialSyncDone = initialSyncDone
        self.entries = entries
    }

    /// Reads a file's bytes; `path` names it in errors.
    ///
    /// - Throws: `KeyValueStoreError` `.unreadable` saying what is wrong and
    ///   where (the key path in the property list, or the property-list
    ///   reader's byte offset): not a property list, a later format, a
    ///   missing or mistyped field.
    public init(decoding bytes: [UInt8], path: FilePath) throws(KeyValueStoreError) {
        try self.init(decoding: bytes, path: RawFileName.text(path))
    }

    /// `init(decoding:path:)` with the file named by the kit's text for a path.
    package init(decoding bytes: [UInt8], path: String) throws(KeyValueStoreError) {
        let limits = PropertyListLimits(maximumDepth: 512, maximumObjectCount: 4_000_000, maximumInputSize: Self.maximumSize)
        let read: Result<PropertyListValue, PropertyListError> = bytes.withUnsafeBytes { raw in
            Result { () throws(PropertyListError) in try PropertyListReader(limits: limits).read(raw).value }
        }
        let root: PropertyListValue
        switch read {
        case .success(let value): root = value
        case .failure(let error): throw KeyValueStoreError(.unreadable, pathText: path, "not a store file: \(error)")
        }
        func bad(_ place: String, _ message: String) -> KeyValueStoreError {
            KeyValueStoreError(.unreadable, pathText: path, key: place, message)
        }
        guard case .dictionary(let top) = root else { throw bad("", "not a store file: the top is not a dictionary") }
        guard case .integer(let format)? = top["Format"], let version = format.int64Value else {
            throw bad("Format", "missing, or not an integer")
        }
        guard version == Int64(Self.formatVersion) else {
            throw bad("Format", "format \(version) is not one this version reads (\(Self.formatVersion)); written by a newer ICTKit?")
        }
        guard case .string(let device)? = top["Device"], !device.isEmpty else { throw bad("Device", "missing, or not a non-empty string") }
        var initialSyncDone = false
        if let flag = top["InitialSyncDone"] {
            guard case .bool(let done) = flag else { throw bad("InitialSyncDone", "not a boolean") }
            initialSyncDone = done
        }
        guard case .dictionary(let stored)? = top["Entries"] else { throw bad("Entries", "missing, or not a dictionary") }
        var entries = OrderedDictionary<String, KeyValueStoreEntry>(minimumCapacity: stored.count)
        for (key, item) in stored {
            guard case .dictionary(let fields) = item else { throw bad("Entries.\(key)", "not a dictionary") }
            guard case .integer(let stamp)? = fields["Time"], let time = stamp.int64Value, time >= 0 else {
                throw bad("Entries.\(key).Time", "missing, or not an integer of milliseconds since 1970")
            }
            var madeBy = device
            if let origin = fields["Device"] {
                guard case .string(let name) = origin, !name.isEmpty else { throw bad("Entries.\(key).Device", "not a non-empty string") }
                madeBy = name
            }
            if let value = fields["Value"] {
                entries[key] = KeyValueStoreEntry(value: value, time: time, device: madeBy)
            } else if case .bool(true)? = fields["Removed"] {
                entries[key] = KeyValueStoreEntry(value: nil, time: time, device: madeBy)
            } else {
                throw bad("Entries.\(key)", "has neither Value nor Removed")
            }
        }
        self.init(device: device, initialSyncDone: initialSyncDone, entries: entries)
    }

    /// The file's bytes: a binary property list, the entries sorted by key;
    /// `path` names the file in errors.
    ///
    /// - Throws: `KeyValueStoreError` `.io` when a value cannot be written
    ///   (nested past the writer's depth).
    public func encoded(path: FilePath) throws(KeyValueStoreError) -> [UInt8] {
        try encoded(path: RawFileName.text(path))
    }

    /// `encoded(path:)` with the file named by the kit's text for a path.
    package func encoded(path: String) throws(KeyValueStoreError) -> [UInt8] {
        var stored = OrderedDictionary<String, PropertyListValue>(minimumCapacity: entries.count)
        for key in entries.keys.sorted() {
            let entry = entries[key]!
            var fields: OrderedDictionary<String, PropertyListValue> = ["Time": .integer(PropertyListInteger(entry.time))]
            if entry.device != device { fields["Device"] = .string(entry.device) }
            if let value = entry.value { fields["Value"] = value } else { fields["Removed"] = .bool(true) }
            stored[key] = .dictionary(fields)
        }
        let top: OrderedDictionary<String, PropertyListValue> = [
            "Format": .integer(PropertyListInteger(Int64(Self.formatVersion))), "Device": .string(device),
            "InitialSyncDone": .bool(initialSyncDone), "Entries": .dictionary(stored),
        ]
        do throws(PropertyListError) {
            return try BinaryPropertyListWriter().encode(.dictionary(top))
        } catch {
            throw KeyValueStoreError(.io, pathText: path, "cannot encode the store: \(error)")
        }
    }
}
