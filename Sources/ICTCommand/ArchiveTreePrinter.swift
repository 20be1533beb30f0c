import KeyedArchive
import OrderedCollections
import PropertyList

/// Shows a keyed archive's object graph, as a tree for people or as JSON for
/// programs, from one walk over the graph: each object is expanded where it
/// is first reached; later references to it say `shared` and name its index,
/// and a reference back to an object being expanded says `cycle`.
struct ArchiveGraphView {
    /// One node of the walk.
    indirect enum Node {
        case null
        case value(PropertyListValue)
        case object(index: Int, className: String, chain: [String], fields: [(String, Node)])
        case list([Node])
        case seen(index: Int, className: String, isCycle: Bool)
        case tooDeep(index: Int)
    }

    let archive: KeyedArchiveObjectGraph
    /// Objects nested deeper than this are not expanded (stops runaway chains).
    let maximumDepth: Int
    private var expanded: Set<Int> = []
    private var onPath: Set<Int> = []

    init(archive: KeyedArchiveObjectGraph, maximumDepth: Int = 256) {
        self.archive = archive
        self.maximumDepth = maximumDepth
    }

    /// The depth the JSON form expands objects to: each object is two JSON
    /// containers (itself and its `fields`), below `archive` and `top`, and
    /// all of them must stay within the JSON writer's depth limit, with room
    /// for the values inside the last objects. Deeper objects are `notShown`.
    static let jsonMaximumDepth = PropertyListLimits.default.maximumDepth / 2 - 56

    /// The top keys with their nodes.
    mutating func topNodes() -> [(String, Node)] {
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

    /// Prints the tree: `root => NSDictionary #1 {`, fields indented, `#3 (shared)`, `#1 (cycle)`.
    static func printTree(_ archive: KeyedArchiveObjectGraph) {
        var view = ArchiveGraphView(archive: archive)
        var output = StandardOutput()
        output.write("NSKeyedArchiver archive, \(archive.objects.count) objects\n")
        for (key, node) in view.topNodes() {
            output.write(TreePrinter.quoted(key) + " => ")
            write(node, indent: 0, to: &output)
            output.write("\n")
        }
        output.flush()
    }

    private static func write(_ node: Node, indent: Int, to output: inout StandardOutput) {
        let pad = String(repeating: "  ", count: indent + 1)
        switch node {
        case .null: output.write("$null")
        case .value(let value): output.write(TreePrinter.scalar(value))
        case .seen(let index, let name, let isCycle):
            output.write("\(TerminalText.escaped(name)) #\(index) (\(isCycle ? "cycle" : "shared"), shown above)")
        case .tooDeep(let index): output.write("#\(index) (nested too deep, not shown)")
        case .list(let elements):
            if elements.isEmpty { output.write("[]"); return }
            output.write("[\n")
            for (position, element) in elements.enumerated() {
                output.write(pad + "\(position) => ")
                write(element, indent: indent + 1, to: &output)
                output.write("\n")
            }
            output.write(String(repeating: "  ", count: indent) + "]")
        case .object(let index, let name, _, let fields):
            output.write("\(TerminalText.escaped(name)) #\(index) {")
            if fields.isEmpty { output.write("}"); return }
            output.write("\n")
            for (key, field) in fields {
                output.write(pad + TreePrinter.quoted(key) + " => ")
                write(field, indent: indent + 1, to: &output)
                output.write("\n")
            }
            output.write(String(repeating: "  ", count: indent) + "}")
        }
    }

    /// The graph as JSON: `{"top": {"root": {"object": 1, "class": …, "classes": […], "fields": {…}}}}`;
    /// `{"null": true}`, `{"shared": 3, "class": …}`, `{"cycle": 1, "class": …}`; values in the property-list JSON form.
    static func jsonValue(_ archive: KeyedArchiveObjectGraph) -> PropertyListValue {
        var view = ArchiveGraphView(archive: archive, maximumDepth: jsonMaximumDepth)
        var top = OrderedDictionary<String, PropertyListValue>()
        for (key, node) in view.topNodes() { top[key] = json(node) }
        return .dictionary(["objectCount": .integer(PropertyListInteger(archive.objects.count)), "top": .dictionary(top)])
    }

    private static func json(_ node: Node) -> PropertyListValue {
        switch node {
        case .null: return ["null": true]
        case .value(let value): return value
        case .seen(let index, let name, let isCycle):
            return .dictionary([isCycle ? "cycle" : "shared": .integer(PropertyListInteger(index)), "class": .string(name)])
        case .tooDeep(let index): return ["notShown": .integer(PropertyListInteger(index))]
        case .list(let elements): return .array(elements.map(json))
        case .object(let index, let name, let chain, let fields):
            var members = OrderedDictionary<String, PropertyListValue>()
            for (key, field) in fields { members[key] = json(field) }
            return .dictionary([
                "object": .integer(PropertyListInteger(index)), "class": .string(name),
                "classes": .array(chain.map(PropertyListValue.string)), "fields": .dictionary(members),
            ])
        }
    }
}

extension ArchiveGraphView {
    /// The graph from `$top` as one value to compare two archives by: each
    /// object a dictionary of `$class` and its fields, in place of the number
    /// it has in `$objects` (which any rewrite may change); an object reached
    /// again is `{"$class", "$reference": "shared" | "cycle"}`.
    static func comparableValue(_ archive: KeyedArchiveObjectGraph) -> PropertyListValue {
        var view = ArchiveGraphView(archive: archive)
        var top = OrderedDictionary<String, PropertyListValue>()
        for (key, node) in view.topNodes() { top[key] = comparable(node) }
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
