/// The limits Apple documents for the iCloud key-value store
/// (`NSUbiquitousKeyValueStore`), in one place.
///
/// Source: Apple Developer Documentation, `NSUbiquitousKeyValueStore`
/// (developer.apple.com/documentation/foundation/nsubiquitouskeyvaluestore,
/// "Overview": at most 1024 keys; 1 MB in all; 1 MB per value; key strings
/// limited to 64 bytes of UTF-8) and
/// `NSUbiquitousKeyValueStoreQuotaViolationChange` (the same three quotas);
/// values are property-list objects (`set(_:forKey:)`: "a property list
/// object"). Apple gives no byte measure for "1 MB", so ICTKit takes 1 MB as
/// 1,048,576 bytes and measures a value by its contents (see
/// `UbiquitousKeyValueStoreValidator.size(of:)`).
public struct UbiquitousKeyValueStoreLimits: Hashable, Sendable {
    /// The most keys the store holds: 1024.
    public var maximumKeyCount: Int
    /// The most bytes of all keys and values together: 1 MB.
    public var maximumTotalSize: Int
    /// The most bytes of one value: 1 MB.
    public var maximumValueSize: Int
    /// The most bytes of one key, in UTF-8: 64.
    public var maximumKeyLength: Int

    /// Apple's documented limits.
    public static let apple = UbiquitousKeyValueStoreLimits(
        maximumKeyCount: 1024, maximumTotalSize: 1_048_576, maximumValueSize: 1_048_576, maximumKeyLength: 64)
}

/// One way a property list breaks the key-value store's limits.
public struct UbiquitousKeyValueStoreFinding: Hashable, Sendable {
    /// Where: the top-level key, and below it for a type a value may not hold.
    public var keyPath: PropertyListKeyPath
    /// What is over the limit, with the limit.
    public var message: String
}

/// Checks a property list meant for `NSUbiquitousKeyValueStore` — a
/// dictionary of the store's keys and values — against its limits.
public struct UbiquitousKeyValueStoreValidator: Sendable {
    /// The limits checked.
    public var limits: UbiquitousKeyValueStoreLimits

    /// Makes a validator for `limits` (Apple's by default).
    public init(limits: UbiquitousKeyValueStoreLimits = .apple) {
        self.limits = limits
    }

    /// Every finding, each with its key; empty when the store accepts it.
    /// Costs one walk of the value.
    public func findings(in value: PropertyListValue) -> [UbiquitousKeyValueStoreFinding] {
        guard case .dictionary(let store) = value else {
            return [
                .init(
                    keyPath: [],
                    message:
                        "the key-value store is a dictionary of keys and values, not \(value.kindName.first.map { "aeiou".contains($0) } == true ? "an" : "a") \(value.kindName)"
                )
            ]
        }
        var findings: [UbiquitousKeyValueStoreFinding] = []
        if store.count > limits.maximumKeyCount {
            findings.append(.init(keyPath: [], message: "\(store.count) keys; the iCloud key-value store holds at most \(limits.maximumKeyCount)"))
        }
        var total = 0
        for (key, entry) in store {
            let checked = self.findings(forKey: key, value: entry)
            total += checked.size
            findings += checked.findings
        }
        if total > limits.maximumTotalSize {
            findings.append(.init(keyPath: [], message: "\(total) bytes of keys and values; the store holds at most \(limits.maximumTotalSize)"))
        }
        return findings
    }

    /// The findings of one key and its value (its length, the value's size,
    /// the types it holds; not the store's key count or total), and the
    /// bytes the two count for towards the total: the key's UTF-8 and
    /// `size(of:)` the value. Costs one walk of the value; allocates only
    /// for a finding.
    public func findings(forKey key: String, value: PropertyListValue) -> (findings: [UbiquitousKeyValueStoreFinding], size: Int) {
        var findings: [UbiquitousKeyValueStoreFinding] = []
        let keyBytes = key.utf8.count
        if keyBytes > limits.maximumKeyLength {
            findings.append(.init(keyPath: [.key(key)], message: "key of \(keyBytes) bytes in UTF-8; keys are at most \(limits.maximumKeyLength)"))
        }
        let size = Self.size(of: value)
        if size > limits.maximumValueSize {
            findings.append(.init(keyPath: [.key(key)], message: "value of \(size) bytes; a value is at most \(limits.maximumValueSize)"))
        }
        if Self.holdsUID(value) { findings += Self.typeFindings(in: value, at: [.key(key)]) }
        return (findings, keyBytes + size)
    }

    /// Whether a UID is anywhere in `value`; allocates nothing.
    private static func holdsUID(_ value: PropertyListValue) -> Bool {
        switch value {
        case .uid: true
        case .array(let elements): elements.contains(where: holdsUID)
        case .dictionary(let members): members.values.contains(where: holdsUID)
        default: false
        }
    }

    /// A value's size as counted here: strings in UTF-8, data by length,
    /// numbers and dates 8 bytes, booleans 1, arrays and dictionaries the
    /// sum of their contents and keys.
    public static func size(of value: PropertyListValue) -> Int {
        switch value {
        case .string(let text): text.utf8.count
        case .data(let bytes): bytes.count
        case .integer, .real, .real32, .date, .uid: 8
        case .bool: 1
        case .array(let elements): elements.reduce(0) { $0 + size(of: $1) }
        case .dictionary(let members): members.reduce(0) { $0 + $1.key.utf8.count + size(of: $1.value) }
        }
    }

    /// UIDs are keyed-archive references, not property-list objects the store takes.
    private static func typeFindings(in value: PropertyListValue, at path: [PropertyListPathComponent]) -> [UbiquitousKeyValueStoreFinding] {
        switch value {
        case .uid: [.init(keyPath: PropertyListKeyPath(path), message: "a UID is not a property-list type the key-value store accepts")]
        case .array(let elements): elements.enumerated().flatMap { typeFindings(in: $1, at: path + [.index($0)]) }
        case .dictionary(let members): members.flatMap { typeFindings(in: $0.value, at: path + [.key($0.key)]) }
        default: []
        }
    }
}
