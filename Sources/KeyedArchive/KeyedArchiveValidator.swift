import OrderedCollections
import PropertyList

/// Finds the structural problems of a keyed archive's property list: a wrong
/// `$archiver` or `$version`, a missing `$top` or `$objects`, no `$null` at
/// index 0, UIDs past the end of `$objects` (dangling), instances without a
/// `$class` or whose `$class` is not a class description, and class
/// descriptions without a `$classname` string or whose `$classes` is there
/// but not a list of strings. These are what Apple's `NSKeyedUnarchiver`
/// refuses; it does not need `$classes` (the archiver leaves it out for a
/// class named with `setClassName(_:for:)`) nor a `root` key in `$top`.
///
/// The check is one pass over `$objects` with an explicit stack, so neither
/// cycles nor deep nesting can exhaust the call stack. Each problem carries
/// its key path (`$objects[3].$class`) and object index.
public struct KeyedArchiveValidator: Sendable {
    /// The problems found so far, in the order found.
    public private(set) var problems: [KeyedArchiveError] = []
    private let stopAtFirstProblem: Bool

    /// Makes a validator that collects every problem, or only the first.
    public init(stopAtFirstProblem: Bool = false) {
        self.stopAtFirstProblem = stopAtFirstProblem
    }

    /// Checks `propertyList` as a keyed archive; returns its parts when the
    /// top-level structure is usable (even if objects have problems), else nil.
    /// Problems are appended to `problems`.
    public mutating func check(_ propertyList: PropertyListValue) -> KeyedArchiveObjectGraph? {
        guard case .dictionary(let root) = propertyList else {
            report(.notAnArchive, [], nil, "the property list is \(propertyList.kindNameWithArticle), not a keyed archive's dictionary")
            return nil
        }
        switch root["$archiver"] {
        case .string(KeyedArchiveObjectGraph.archiverName)?: break
        case .string(let other)?: report(.wrongArchiver, [.key("$archiver")], nil, "$archiver is \"\(other)\", not \"NSKeyedArchiver\"")
        case let other?: report(.wrongArchiver, [.key("$archiver")], nil, "$archiver is \(other.kindNameWithArticle), not the string \"NSKeyedArchiver\"")
        case nil: report(.wrongArchiver, [], nil, "no $archiver: not a keyed archive")
        }
        if isDone { return nil }
        switch root["$version"] {
        case .integer(let version)? where version.int64Value == KeyedArchiveObjectGraph.formatVersion: break
        case .integer(let version)?: report(.unsupportedVersion, [.key("$version")], nil, "$version is \(version), not 100000")
        case let other?: report(.unsupportedVersion, [.key("$version")], nil, "$version is \(other.kindNameWithArticle), not the integer 100000")
        case nil: report(.unsupportedVersion, [], nil, "no $version")
        }
        if isDone { return nil }
        guard case .array(let objects)? = root["$objects"] else {
            report(
                .missingObjects, root["$objects"] == nil ? [] : [.key("$objects")], nil,
                root["$objects"] == nil ? "no $objects" : "$objects is not an array")
            return nil
        }
        guard case .dictionary(let top)? = root["$top"] else {
            report(.missingTop, root["$top"] == nil ? [] : [.key("$top")], nil, root["$top"] == nil ? "no $top" : "$top is not a dictionary")
            return nil
        }
        if objects.first != .string("$null") {
            report(.missingNull, .object(0), 0, "$objects[0] is not the string \"$null\"")
            if isDone { return nil }
        }
        for (key, value) in top {
            checkReferences(in: value, path: .top(key), objectIndex: nil, objectCount: objects.count)
            if isDone { return nil }
        }
        var isClassDescription = [Bool](repeating: false, count: objects.count)
        for index in objects.indices.dropFirst() {
            checkObject(objects[index], at: index, in: objects, isClassDescription: &isClassDescription)
            if isDone { return nil }
        }
        return KeyedArchiveObjectGraph(top: top, objects: objects)
    }

    private var isDone: Bool { stopAtFirstProblem && !problems.isEmpty }

    private mutating func report(_ code: KeyedArchiveError.Code, _ path: PropertyListKeyPath, _ index: Int?, _ message: String) {
        problems.append(KeyedArchiveError(code, at: path, object: index, message))
    }

    /// Checks one object of `$objects`. `isClassDescription` marks, by index,
    /// the objects already found to be class descriptions, so each is looked at once.
    private mutating func checkObject(
        _ object: PropertyListValue, at index: Int, in objects: [PropertyListValue],
        isClassDescription: inout [Bool]
    ) {
        guard case .dictionary(let fields) = object else {
            if !Self.isFlatAndValid(object, objectCount: objects.count) {
                checkReferences(in: object, path: .object(index), objectIndex: index, objectCount: objects.count)
            }
            return
        }
        var path: PropertyListKeyPath { .object(index) }  // Built only for a problem.
        if fields["$classname"] != nil || fields["$classes"] != nil {
            checkClassDescription(fields, path: path, index: index)
            return
        }
        guard let classReference = fields["$class"] else {
            report(.invalidObject, path, index, "the object has no $class")
            return
        }
        guard case .uid(let uid) = classReference else {
            report(.invalidClass, path.appending(.key("$class")), index, "$class is \(classReference.kindNameWithArticle), not a UID")
            return
        }
        guard uid < UInt64(objects.count) else {
            report(
                .danglingReference, path.appending(.key("$class")), index,
                "$class refers to object \(uid), past the \(objects.count) objects")
            return
        }
        if !isClassDescription[Int(uid)] {
            guard case .dictionary(let classFields) = objects[Int(uid)], classFields["$classname"] != nil else {
                report(
                    .invalidClass, path.appending(.key("$class")), index,
                    "$class refers to object \(uid), which is not a class description")
                return
            }
            isClassDescription[Int(uid)] = true
        }
        for (key, value) in fields where key != "$class" && !Self.isFlatAndValid(value, objectCount: objects.count) {
            checkReferences(in: value, path: path.appending(.key(key)), objectIndex: index, objectCount: objects.count)
            if isDone { return }
        }
    }

    private mutating func checkClassDescription(_ fields: OrderedDictionary<String, PropertyListValue>, path: PropertyListKeyPath, index: Int) {
        guard case .string = fields["$classname"] else {
            report(.invalidClass, path.appending(.key("$classname")), index, "a class description needs a $classname string")
            return
        }
        switch fields["$classes"] {
        case nil: return
        case .array(let chain)?:
            if let position = chain.firstIndex(where: { $0.stringValue == nil }) {
                report(
                    .invalidClass, path.appending(.key("$classes")).appending(.index(position)), index,
                    "$classes holds a \(chain[position].kindName), not a class name")
            }
        case let other?:
            report(.invalidClass, path.appending(.key("$classes")), index, "$classes is a \(other.kindName), not a list of class names")
        }
    }

    /// Checks every UID inside `value`, walking nested arrays and dictionaries with a stack.
    private mutating func checkReferences(in value: PropertyListValue, path: PropertyListKeyPath, objectIndex: Int?, objectCount: Int) {
        if Self.isFlatAndValid(value, objectCount: objectCount) { return }
        var pending: [(PropertyListValue, PropertyListKeyPath)] = [(value, path)]
        while let (current, currentPath) = pending.popLast() {
            switch current {
            case .uid(let uid) where uid >= UInt64(objectCount):
                report(.danglingReference, currentPath, objectIndex, "UID \(uid) refers past the \(objectCount) objects")
                if isDone { return }
            case .array(let elements):
                for (position, element) in elements.enumerated().reversed() {
                    pending.append((element, currentPath.appending(.index(position))))
                }
            case .dictionary(let dictionary):
                for (key, element) in dictionary.reversed() {
                    pending.append((element, currentPath.appending(.key(key))))
                }
            default: break
            }
        }
    }

    /// The common case, checked without building key paths: a scalar, a UID
    /// in range, or an array of those (`NS.objects`). False means "look closer".
    private static func isFlatAndValid(_ value: PropertyListValue, objectCount: Int) -> Bool {
        switch value {
        case .uid(let uid): return uid < UInt64(objectCount)
        case .array(let elements):
            for element in elements {
                switch element {
                case .uid(let uid): if uid >= UInt64(objectCount) { return false }
                case .array, .dictionary: return false
                default: continue
                }
            }
            return true
        case .dictionary: return false
        default: return true
        }
    }
}
