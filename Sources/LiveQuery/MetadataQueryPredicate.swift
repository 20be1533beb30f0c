import UniformTypes

/// Which items a metadata query keeps: a pattern on the file name and
/// content types, both of which must match (the sources' `%K LIKE '*.ict'`
/// on `NSMetadataItemFSNameKey`, and a type conformance).
public struct MetadataQueryPredicate: Sendable {
    /// The file name's pattern, with `NSPredicate`'s `LIKE` meaning: `*`
    /// any run of characters (none too), `?` exactly one character, every
    /// other character itself, case-sensitive, the whole name. nil: any name.
    public var namePattern: String?
    /// Types the item's content type must conform to, one at least (through
    /// the query's type registry); empty: any type.
    public var contentTypes: [String]

    /// A predicate on the name and the content type; by default every item.
    public init(namePattern: String? = nil, contentTypes: [String] = []) {
        self.namePattern = namePattern
        self.contentTypes = contentTypes
    }

    /// Whether `name` matches `namePattern`.
    func matchesName(_ name: String) -> Bool {
        guard let namePattern else { return true }
        return Self.like(Array(name), Array(namePattern))
    }

    /// Whether `contentType` conforms to one of `contentTypes` in `registry`.
    func matchesType(_ contentType: String?, in registry: TypeRegistry) -> Bool {
        guard !contentTypes.isEmpty else { return true }
        guard let contentType else { return false }
        return contentTypes.contains { registry.conforms(contentType, to: $0) }
    }

    /// `LIKE` by characters: the classic two-pointer glob match, which goes
    /// back only to the last `*` (linear for patterns with one star, at most
    /// name × pattern steps otherwise).
    static func like(_ name: [Character], _ pattern: [Character]) -> Bool {
        var nameIndex = 0
        var patternIndex = 0
        var star: (pattern: Int, name: Int)?
        while nameIndex < name.count {
            if patternIndex < pattern.count, pattern[patternIndex] == "*" {
                star = (patternIndex, nameIndex)
                patternIndex += 1
            } else if patternIndex < pattern.count, pattern[patternIndex] == "?" || pattern[patternIndex] == name[nameIndex] {
                nameIndex += 1
                patternIndex += 1
            } else if let last = star {
                // The last star takes one more character; try the rest of the pattern after it again.
                star = (last.pattern, last.name + 1)
                nameIndex = last.name + 1
                patternIndex = last.pattern + 1
            } else {
                return false
            }
        }
        return pattern[patternIndex...].allSatisfy { $0 == "*" }
    }
}
