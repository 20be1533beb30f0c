import OrderedCollections
import PropertyList

/// A walk over a keyed archive's object graph from `$top`: each object is
/// expanded where it is first reached; a later reference to it is `seen`,
/// and a reference back to an object being expanded is `seen` as a cycle.
/// What `ict inspect` shows as a tree or JSON and `ict diff` compares.
public struct KeyedArchiveTree {
    /// One node of the walk.
    public indirect enum Node: Sendable {
        /// `$null`, or a reference to no object.
        case null
        /// A value that is not an object: a string, number, data, …
        case value(PropertyListValue)
        /// An object expanded here: its index in `$objects`, its class, the
        /// class chain, and its fields in the archive's order.
        case object(index: Int, className: String, chain: [String], fields: [(String, Node)])
        /// An array of references or values.
        case list([Node])
        /// An object expanded elsewhere; `isCycle` when it is being expanded
        /// on the way here (it contains itself).
        case seen(index: Int, className: String, isCycle: Bool)
        /// An object nested deeper than `maximumDepth`, not expanded.
        case tooDeep(index: Int)
    }

    /// The archive walked.
    public let archive: KeyedArchiveObjectGraph
    /// Objects nested deeper than this are not expanded (stops runaway chains).
    public let maximumDepth: Int
    private var expanded: Set<Int> = []
    private var onPath: Set<Int> = []

    /// A walk over `archive`, expanding objects down to `maximumDepth`.
    public init(archive: KeyedArchiveObjectGraph, maximumDepth: Int = 256) {
        self.archive = archive
        self.maximumDepth = maximumDepth
    }

    /// The top keys with their nodes. Each object is expanded once in a
    /// walk: call it once per `KeyedArchiveTree`.
    public mutating func topNodes() -> [(String, Node)] {
        archive.top.map { key, value in (key, node(for: value, depth: 0)) }
    }

    private mutating func node(for value: PropertyListValue, depth: Int) -> Node {
        switch value {
        case .uid(let uid): return objectNode(Int(clamping: uid), depth: depth)
        case .array(let elements): return .list(elements.map { node(for: $0, depth: depth + 1) })
        default: return .value(value)
        }
    }

    private mutating func objectNode(_ index: Int, depth: Int) -> Node {
        guard index > 0, index < archive.objects.count else { return .null }
        switch archive.object(at: index) {
        case .null: return .null
        case .value(let value): return .value(value)
        case .classDescription(let description): return .seen(index: index, className: description.name, isCycle: false)
        case .instance(let instance):
            let name = instance.classDescription.name
            if onPath.contains(index) { return .seen(index: index, className: name, isCycle: true) }
            if expanded.contains(index) { return .seen(index: index, className: name, isCycle: false) }
            guard depth < maximumDepth else { return .tooDeep(index: index) }
            expanded.insert(index)
            onPath.insert(index)
            defer { onPath.remove(index) }
            let fields = instance.fields.map { key, value in (key, node(for: value, depth: depth + 1)) }
            return .object(index: index, className: name, chain: instance.classDescription.chain, fields: fields)
        }
    }

    /// The archive's graph as a property list to compare by value, without
    /// object numbers: `{top key: object}`, each object
    /// `{"$class": name, field: value, …}`, a later reference to it
    /// `{"$class": name, "$reference": "shared"}` (or `"cycle"`), `$null` as
    /// the string `"$null"`. Two archives of the same objects numbered
    /// otherwise give the same value.
    public static func comparableValue(_ archive: KeyedArchiveObjectGraph) -> PropertyListValue {
        var graph = KeyedArchiveTree(archive: archive)
        var top = OrderedDictionary<String, PropertyListValue>()
        for (key, node) in graph.topNodes() { top[key] = comparable(node) }
        return .dictionary(top)
    }

    private static func comparable(_ node: Node) -> PropertyListValue {
        switch node {
        case .null: return "$null"
        case .value(let value): return value
        case .seen(_, let name, let isCycle): return ["$class": .string(name), "$reference": isCycle ? "cycle" : "shared"]
        case .tooDeep: return ["$reference": "not shown (too deep)"]
        case .list(let elements): return .array(elements.map(comparable))
        case .object(_, let name, _, let fields):
            var members: OrderedDictionary<String, PropertyListValue> = ["$class": .string(name)]
            for (key, field) in fields { members[key] = comparable(field) }
            return .dictionary(members)
        }
    }
}
