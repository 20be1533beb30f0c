import KeyedArchive
import OrderedCollections
import PropertyList

/// Shows a keyed archive's object graph (`KeyedArchiveTree`, one walk
/// over it), as a tree for people or as JSON for programs: each object is
/// expanded where it is first reached; later references to it say `shared`
/// and name its index, and a reference back to an object being expanded
/// says `cycle`. Foundation's, AppKit's and UIKit's values that read best
/// as text (a UUID, URL, rect, colour, font, attributed string) are shown
/// as the library's `readableText` of them, the raw fields beside it in JSON.
package enum ArchiveGraphView {
    package typealias Node = KeyedArchiveTree.Node

    /// The depth the JSON form expands objects to: each object is two JSON
    /// containers (itself and its `fields`), below `archive` and `top`, and
    /// all of them must stay within the JSON writer's depth limit, with room
    /// for the values inside the last objects. Deeper objects are `notShown`.
    package static let jsonMaximumDepth = PropertyListLimits.default.maximumDepth / 2 - 56

    /// Prints the tree: `root => NSDictionary #1 {`, fields indented, `#3 (shared)`, `#1 (cycle)`;
    /// with `expanding`, data values holding archives decoded in place.
    ///
    /// - Throws: `KeyedArchiveError` when the tree passes a limit (`KeyedArchiveTree.topNodes()`), before anything is printed.
    package static func printTree(_ archive: KeyedArchiveObjectGraph, expanding: EmbeddedArchiveView? = nil) throws(KeyedArchiveError) {
        var view = KeyedArchiveTree(archive: archive)
        let nodes = try view.topNodes()
        var output = StandardOutput()
        output.write("NSKeyedArchiver archive, \(archive.objects.count) objects\n")
        for (key, node) in nodes {
            output.write(TreePrinter.quoted(key) + " => ")
            write(node, indent: 0, archive: archive, to: &output, expanding: expanding)
            output.write("\n")
        }
        output.flush()
    }

    /// Writes the tree as the value of a data value (`inspect --expand`): in braces, at `indent`.
    ///
    /// - Throws: `KeyedArchiveError` when the tree passes a limit, before anything is written.
    package static func writeTree(
        _ archive: KeyedArchiveObjectGraph, indent: Int, to output: inout StandardOutput, expanding: EmbeddedArchiveView
    ) throws(KeyedArchiveError) {
        var view = KeyedArchiveTree(archive: archive)
        let nodes = try view.topNodes()
        output.write("NSKeyedArchiver archive, \(archive.objects.count) objects {\n")
        for (key, node) in nodes {
            output.write(String(repeating: "  ", count: indent + 1) + TreePrinter.quoted(key) + " => ")
            write(node, indent: indent + 1, archive: archive, to: &output, expanding: expanding)
            output.write("\n")
        }
        output.write(String(repeating: "  ", count: indent) + "}")
    }

    private static func write(
        _ node: Node, indent: Int, archive: KeyedArchiveObjectGraph, to output: inout StandardOutput, expanding: EmbeddedArchiveView?
    ) {
        let pad = String(repeating: "  ", count: indent + 1)
        switch node {
        case .null: output.write("$null")
        case .value(let value):
            if case .data(let bytes) = value, let expanding, expanding.write(bytes, indent: indent, to: &output) { return }
            output.write(TreePrinter.scalar(value))
        case .seen(let index, let name, let isCycle):
            output.write("\(TerminalText.escaped(name)) #\(index) (\(isCycle ? "cycle" : "shared"), shown above)")
        case .tooDeep(let index): output.write("#\(index) (nested too deep, not shown)")
        case .list(let elements):
            if elements.isEmpty { output.write("[]"); return }
            output.write("[\n")
            for (position, element) in elements.enumerated() {
                output.write(pad + "\(position) => ")
                write(element, indent: indent + 1, archive: archive, to: &output, expanding: expanding)
                output.write("\n")
            }
            output.write(String(repeating: "  ", count: indent) + "]")
        case .object(let index, let name, _, let fields):
            if let value = archive.readableValue(ofObjectAt: index) {
                output.write("\(TerminalText.escaped(name)) #\(index) = \(TerminalText.escaped(value.readableText))")
                return
            }
            output.write("\(TerminalText.escaped(name)) #\(index) {")
            if fields.isEmpty { output.write("}"); return }
            output.write("\n")
            for (key, field) in fields {
                output.write(pad + TreePrinter.quoted(key) + " => ")
                write(field, indent: indent + 1, archive: archive, to: &output, expanding: expanding)
                output.write("\n")
            }
            output.write(String(repeating: "  ", count: indent) + "}")
        }
    }

    /// The graph as JSON: `{"top": {"root": {"object": 1, "class": …, "classes": […], "fields": {…}}}}`;
    /// `{"null": true}`, `{"shared": 3, "class": …}`, `{"cycle": 1, "class": …}`; values in the property-list JSON form.
    ///
    /// - Throws: `KeyedArchiveError` when the tree passes a limit.
    package static func jsonValue(_ archive: KeyedArchiveObjectGraph) throws(KeyedArchiveError) -> PropertyListValue {
        var view = KeyedArchiveTree(archive: archive, maximumDepth: jsonMaximumDepth)
        var top = OrderedDictionary<String, PropertyListValue>()
        for (key, node) in try view.topNodes() { top[key] = json(node, archive) }
        return .dictionary(["objectCount": .integer(PropertyListInteger(archive.objects.count)), "top": .dictionary(top)])
    }

    private static func json(_ node: Node, _ archive: KeyedArchiveObjectGraph) -> PropertyListValue {
        switch node {
        case .null: return ["null": true]
        case .value(let value): return value
        case .seen(let index, let name, let isCycle):
            return .dictionary([isCycle ? "cycle" : "shared": .integer(PropertyListInteger(index)), "class": .string(name)])
        case .tooDeep(let index): return ["notShown": .integer(PropertyListInteger(index))]
        case .list(let elements): return .array(elements.map { json($0, archive) })
        case .object(let index, let name, let chain, let fields):
            var members = OrderedDictionary<String, PropertyListValue>()
            for (key, field) in fields { members[key] = json(field, archive) }
            var object: OrderedDictionary<String, PropertyListValue> = [
                "object": .integer(PropertyListInteger(index)), "class": .string(name),
                "classes": .array(chain.map(PropertyListValue.string)), "fields": .dictionary(members),
            ]
            if let value = archive.readableValue(ofObjectAt: index) { object["readable"] = .string(value.readableText) }
            return .dictionary(object)
        }
    }
}
