/// One place where two property lists differ: a value only in the first,
/// only in the second, or in both but not equal.
public struct PropertyListDifference: Hashable, Sendable {
    /// What kind of difference.
    public enum Kind: String, Hashable, Sendable {
        /// The value is in the first only.
        case removed
        /// The value is in the second only.
        case added
        /// Both hold a value there, and they are not equal.
        case changed
    }

    public var kind: Kind
    /// Where, from the root.
    public var keyPath: PropertyListKeyPath
    /// The first's value (nil when added).
    public var old: PropertyListValue?
    /// The second's value (nil when removed).
    public var new: PropertyListValue?

    /// Makes a difference.
    public init(_ kind: Kind, at keyPath: PropertyListKeyPath, old: PropertyListValue?, new: PropertyListValue?) {
        self.kind = kind
        self.keyPath = keyPath
        self.old = old
        self.new = new
    }

    /// The places where `old` and `new` differ, in document order: keys of
    /// dictionaries by name (the first's order, then keys only in the
    /// second), array elements by index (the extra ones of the longer array
    /// as added or removed), any other pair of unequal values as changed —
    /// a value of another kind too. Equal values give no difference, so two
    /// equal lists give none. Nesting is bounded by the values themselves,
    /// which every reader limits (`PropertyListLimits.maximumDepth`).
    public static func between(_ old: PropertyListValue, _ new: PropertyListValue) -> [PropertyListDifference] {
        var differences: [PropertyListDifference] = []
        compare(old, new, at: [], into: &differences)
        return differences
    }

    private static func compare(
        _ old: PropertyListValue, _ new: PropertyListValue, at path: [PropertyListPathComponent],
        into differences: inout [PropertyListDifference]
    ) {
        switch (old, new) {
        case let (.dictionary(first), .dictionary(second)):
            for (key, value) in first {
                if let other = second[key] {
                    compare(value, other, at: path + [.key(key)], into: &differences)
                } else {
                    differences.append(PropertyListDifference(.removed, at: PropertyListKeyPath(path + [.key(key)]), old: value, new: nil))
                }
            }
            for (key, value) in second where first[key] == nil {
                differences.append(PropertyListDifference(.added, at: PropertyListKeyPath(path + [.key(key)]), old: nil, new: value))
            }
        case let (.array(first), .array(second)):
            for index in 0..<max(first.count, second.count) {
                let place = PropertyListKeyPath(path + [.index(index)])
                if index >= second.count {
                    differences.append(PropertyListDifference(.removed, at: place, old: first[index], new: nil))
                } else if index >= first.count {
                    differences.append(PropertyListDifference(.added, at: place, old: nil, new: second[index]))
                } else {
                    compare(first[index], second[index], at: path + [.index(index)], into: &differences)
                }
            }
        default:
            if old != new {
                differences.append(PropertyListDifference(.changed, at: PropertyListKeyPath(path), old: old, new: new))
            }
        }
    }
}
