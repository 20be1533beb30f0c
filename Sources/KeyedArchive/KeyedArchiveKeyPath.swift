import PropertyList

/// Key paths through a keyed archive's object graph.
///
/// The rule: in an archive (a dictionary holding `$archiver` and
/// `$objects`), a key path whose first key is `$top` follows references.
/// Each time the walk reaches a UID (`CF$UID`), it goes on at the object the
/// UID names, `$objects[N]`; so `$top.root.NSString` is the string object of
/// the root's `NSString` key, wherever it is stored. Any other key path
/// addresses the archive's property list as it is (`$objects.3`).
/// `resolve` turns the first kind into the second, which any property-list
/// reader or editor then uses; an edit at such a path changes the object in
/// `$objects`, for every reference to it.
public enum KeyedArchiveKeyPath {
    /// Whether `value` is the top level of a keyed archive.
    public static func isArchive(_ value: PropertyListValue) -> Bool {
        guard case .dictionary(let top) = value, top["$archiver"] != nil, case .array = top["$objects"] else { return false }
        return true
    }

    /// The path in the archive's own property list that `keyPath` reaches
    /// by following references (see the type's rule). A path not starting
    /// at `$top`, or a value that is no archive, is returned unchanged; a
    /// step that finds nothing ends the walk, the rest kept as it is.
    /// With `followingLast` false a reference reached by the last step is
    /// not followed: the path names the reference itself (to remove it, or
    /// to put another value in its place).
    ///
    /// Cost: looks up only the steps of the path; decodes nothing.
    public static func resolve(
        _ keyPath: PropertyListKeyPath, in archive: PropertyListValue,
        followingLast: Bool = true
    ) -> PropertyListKeyPath {
        guard isArchive(archive), keyPath.components.first == .key("$top") else { return keyPath }
        var resolved: [PropertyListPathComponent] = []
        var current = archive
        for (index, component) in keyPath.components.enumerated() {
            resolved.append(component)
            guard let next = current.value(at: [component]) else {
                return PropertyListKeyPath(resolved + keyPath.components.dropFirst(index + 1))
            }
            current = next
            let isLast = index == keyPath.components.count - 1
            if let uid = reference(in: current), !isLast || followingLast,
                let object = archive.value(at: [.key("$objects"), .index(Int(clamping: uid))])
            {
                resolved = [.key("$objects"), .key(String(uid))]
                current = object
            }
        }
        return PropertyListKeyPath(resolved)
    }

    /// The object number of a reference: a binary UID, or XML's `{CF$UID = N}`.
    private static func reference(in value: PropertyListValue) -> UInt64? {
        switch value {
        case .uid(let uid): return uid
        case .dictionary(let dictionary) where dictionary.count == 1:
            if case .integer(let number)? = dictionary["CF$UID"] { return number.uint64Value }
            return nil
        default: return nil
        }
    }

    /// The value `keyPath` (from `$top`) reaches decoded, when it is an
    /// object of one of Foundation's, AppKit's or UIKit's classes that
    /// reads best as text (`KeyedArchiveObjectGraph.readableValue(ofObjectAt:limits:)`:
    /// a UUID, URL, rect, colour, font, attributed string, …); nil for any
    /// other value, or when `archive` is no archive.
    ///
    /// Cost: reads the archive's object graph and decodes that object.
    public static func readableValue(at keyPath: PropertyListKeyPath, in archive: PropertyListValue) -> ArchivedValue? {
        guard isArchive(archive), keyPath.components.first == .key("$top") else { return nil }
        let resolved = resolve(keyPath, in: archive).components
        guard resolved.count == 2, resolved[0] == .key("$objects"), case .key(let number) = resolved[1], let index = Int(number),
            let graph = try? KeyedArchiveObjectGraph(propertyList: archive)
        else { return nil }
        return graph.readableValue(ofObjectAt: index)
    }
}
