import OrderedCollections
import PropertyList

/// The lossless JSON form of a keyed archive (`Schemas/keyed-archive.schema.json`):
///
/// ```json
/// {
///   "archiver": "NSKeyedArchiver",
///   "version": 100000,
///   "top": {"root": {"$uid": 1}},
///   "objects": ["$null", {"title": {"$uid": 2}, "$class": {"$uid": 3}}, "yo", …]
/// }
/// ```
///
/// `top` and every entry of `objects` are property-list values in the JSON
/// form of `JSONPropertyListWriter` (UIDs `{"$uid": n}`, data `{"$data": …}`,
/// a dictionary whose one key is a tag inside `{"$dict": …}`), in the archive's order,
/// so the document is itself a property list in that form. An archive read
/// with its layout (`KeyedArchiveReader.keepsLayout`) whose objects are not
/// numbered by the writer's rule also has `"layout"`, `KeyedArchiveLayout`'s
/// JSON form. Reading it back
/// and writing the archive with `KeyedArchiveWriter` gives the same bytes as
/// writing the original archive.
extension KeyedArchiveObjectGraph {
    /// The archive in its JSON form, as a property-list value for `JSONPropertyListWriter`.
    public var jsonForm: PropertyListValue {
        var document: OrderedDictionary<String, PropertyListValue> = [
            "archiver": .string(Self.archiverName),
            "version": .integer(PropertyListInteger(Self.formatVersion)),
            "top": .dictionary(top),
            "objects": .array(objects),
        ]
        if let layout, !layout.isStandard { document["layout"] = layout.jsonForm }
        return .dictionary(document)
    }

    /// Reads an archive from its JSON form (as `JSONPropertyListReader` reads
    /// the text) and checks it as `init(propertyList:)` does.
    ///
    /// - Throws: `KeyedArchiveError` with code `.notAnArchive` when the
    ///   document lacks `archiver`, `version`, `top` or `objects`, has other
    ///   members (but `layout`) or a `layout` of the wrong shape; else any
    ///   structural problem, with its key path.
    public init(jsonForm value: PropertyListValue) throws(KeyedArchiveError) {
        guard case .dictionary(let document) = value else {
            throw KeyedArchiveError(.notAnArchive, at: [], "the JSON form of a keyed archive is an object, not \(value.kindNameWithArticle)")
        }
        let expected: Set<String> = ["archiver", "version", "top", "objects", "layout"]
        if let extra = document.keys.first(where: { !expected.contains($0) }) {
            throw KeyedArchiveError(.notAnArchive, at: [.key(extra)], "\"\(extra)\" is not a member of a keyed archive's JSON form")
        }
        for member in ["archiver", "version", "top", "objects"] where document[member] == nil {
            throw KeyedArchiveError(.notAnArchive, at: [], "the JSON form of a keyed archive needs \"\(member)\"")
        }
        var propertyList = OrderedDictionary<String, PropertyListValue>()
        propertyList["$version"] = document["version"]
        propertyList["$objects"] = document["objects"]
        propertyList["$archiver"] = document["archiver"]
        propertyList["$top"] = document["top"]
        try self.init(propertyList: .dictionary(propertyList))
        if let layout = document["layout"] { self.layout = try KeyedArchiveLayout(jsonForm: layout) }
    }

    /// True when `value` looks like the JSON form (an object with `archiver` and `objects`).
    public static func looksLikeJSONForm(_ value: PropertyListValue) -> Bool {
        guard let dictionary = value.dictionaryValue else { return false }
        return dictionary["archiver"] != nil && dictionary["objects"] != nil
    }
}
