import NIBArchive
import OrderedCollections
import PropertyList
import SystemSupport

/// The compiled nibs the commands read (the library, `CompiledNib`, does the reading).
package enum NibSupport {
    /// Whether `path` is a compiled nib in the `NIBArchive` format: a file
    /// that starts with the magic, or a folder whose name ends in `.nib`
    /// holding such a file. (An old Interface Builder nib folder, with
    /// `keyedobjects.nib`, stays a package; its `keyedobjects.nib` is a keyed archive.)
    package static func isNibArchive(_ path: String) -> Bool {
        guard path != "-", let info = try? FileInfo.of(path: path) else { return false }
        if info.kind == .regular { return startsWithMagic(path) }
        let folder = DocumentSupport.trimmingTrailingSlashes(path)
        guard info.kind == .directory, folder.hasSuffix(".nib"), let entries = try? Directory.entries(atPath: folder) else {
            return false
        }
        return entries.contains { $0.name.hasSuffix(".nib") && startsWithMagic(folder + "/" + $0.name) }
    }

    /// Whether `path` is a folder (a nib folder, when `isNibArchive` says it is a nib).
    package static func isFolder(_ path: String) -> Bool { (try? FileInfo.of(path: path))?.kind == .directory }

    private static func startsWithMagic(_ path: String) -> Bool {
        guard let file = try? OpenFile(path: path, options: [.nonBlocking]) else { return false }
        var head = [UInt8](repeating: 0, count: NIBArchiveReader.magic.count)
        let count = (try? head.withUnsafeMutableBytes { try file.read(into: $0) }) ?? 0
        return count == head.count && NIBArchiveReader.hasMagic(head)
    }

    /// Reads the nib at `path` within the input-size limit.
    package static func read(_ path: String, maxInputSize: Int) throws(Problem) -> CompiledNib {
        do {
            return try CompiledNib(contentsOfPath: DocumentSupport.trimmingTrailingSlashes(path), limits: limits(maxInputSize))
        } catch {
            throw Problem(path, error)
        }
    }

    /// The value at `keyPath` (`NibObjectGraph.value(atKeyPath:)`, after an optional `MEMBER/`) as a
    /// property list, and as text for `raw`. An object that decodes by its class (a `UIColor`, a
    /// `UIFont`: `NibObjectGraph.readableValue(ofObjectAt:limits:)`) shows that value after its label
    /// (`#8 UIFont = ".SFUIDisplay-Bold" 20 pt, …`), and its JSON form has it as `"readable"`, as
    /// `ict inspect` shows it; the fields follow, raw, in both.
    package static func value(_ path: String, keyPath: String, maxInputSize: Int) throws(Problem) -> (PropertyListValue, String) {
        let graphs = try graphs(try read(path, maxInputSize: maxInputSize), path: path)
        var chosen = graphs[0].graph
        var memberKeyPath = keyPath
        if let slash = keyPath.firstIndex(of: "/") {  // A key path, not a path.
            let name = String(keyPath[..<slash])
            guard let member = graphs.first(where: { $0.name == name }) else {
                throw Problem(path: path, "no member \(name) (members: \(graphs.map(\.name).joined(separator: ", ")))", keyPath: keyPath)
            }
            chosen = member.graph
            memberKeyPath = String(keyPath[keyPath.index(after: slash)...])
        }
        let graph = chosen
        let value: NibObjectGraph.Value
        do {
            value = try graph.value(atKeyPath: memberKeyPath)
        } catch {
            throw Problem(path: path, error.message, keyPath: keyPath)
        }
        guard case .object(let index) = value, let object = graph.object(index) else {
            return (NibObjectGraph.jsonValue(value), graph.text(of: value))
        }
        let fields = object.fields.map { PropertyListValue.dictionary(["key": .string($0.key), "value": NibObjectGraph.jsonValue($0.value)]) }
        var form: OrderedDictionary<String, PropertyListValue> = [
            "index": .integer(PropertyListInteger(index)), "className": .string(object.className), "fields": .array(fields),
        ]
        var label = graph.label(of: index)
        if let readable = graph.readableValue(ofObjectAt: index, limits: limits(maxInputSize)) {
            form["readable"] = .string(readable.readableText)
            label += " = " + readable.readableText
        }
        let text = ([label] + object.fields.map { "  \($0.key): \(graph.text(of: $0.value))" }).joined(separator: "\n")
        return (.dictionary(form), text)
    }

    package static func limits(_ maxInputSize: Int) -> NIBArchiveLimits {
        var limits = NIBArchiveLimits.default
        limits.maximumInputSize = maxInputSize
        return limits
    }

    /// Each member's graph, its name before it when the nib is a folder.
    package static func graphs(_ nib: CompiledNib, path: String) throws(Problem) -> [(name: String, graph: NibObjectGraph)] {
        var graphs: [(name: String, graph: NibObjectGraph)] = []
        for member in nib.members {
            do {
                graphs.append((member.name, try member.graph()))
            } catch {
                throw Problem(path, error)
            }
        }
        return graphs
    }
}

extension Problem {
    /// A nib error at its member file and byte offset.
    package init(_ path: String, _ error: NIBArchiveError) {
        self.init(path: error.pathText ?? path, location: error.byteOffset.map { .byte($0) } ?? .none, error.message)
    }
}
