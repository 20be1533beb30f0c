import ArgumentParser
import CoreDataFiles
import DocumentFormats
import EmbeddedLayers
import ICTKitTooling
import KeyedArchive
import NIBArchive
import PackageFormat
import PropertyList
import TypedStream
import UniformTypes

extension Ict {
    /// `ict inspect`: what is inside a file, as a tree for people or JSON for programs.
    struct Inspect: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "inspect",
            abstract: "Show what a property list, keyed archive or document package holds, as a tree.",
            discussion: """
                With --json, prints one JSON document (Schemas/cli/inspect.schema.json) whose "value" is \
                the lossless JSON form of a property list (Schemas/property-list.schema.json). \
                A keyed archive (a property list whose top dictionary has $archiver or $objects) is shown \
                as its object graph: class names, fields and values; an object reached again is marked \
                shared, one reached from inside itself cycle, and neither is expanded again. With --json, \
                the same graph as "archive". \
                A directory is inspected as a package: each entry with its size and kind (property list, \
                keyed archive, PNG image, text, other), recognised from its first 4 KB only; with --json, \
                "package": {"path", "entries": [{"path", "type", "size", "kind", "destination"}]}. \
                A directory ending in .ict is inspected as a document: display name, version, thumbnail \
                size and entry sizes, reading only the metadata entry; --data reads the data entry too \
                and shows the fields and the photo's size. A directory ending in .ptk (the photo app's \
                package) likewise: its display name (the file name without .ptk), version, thumbnail \
                size and entries; --data adds the photo's size. A file ending in .icfnote or .dox (a \
                note: the file is UTF-8 text) shows its display name (the file name without its \
                extension), its length in characters and bytes and its first line; a .dox cut inside \
                a character says how many bytes were dropped and where (a warning), bytes that are \
                not UTF-8 are an error at their byte offset. With --json, "document" has a "kind" \
                (ict, ptk, icfnote, dox) and for a note a "text" object. \
                An NSArchiver typed stream (an old nib's objects.nib, an iMessage attributedBody) is \
                shown as its objects: class names with versions, strings, numbers, URLs and the like \
                as values, an attributed string as its text and runs with their attributes, other \
                objects as their fields with type encodings; with --json, "typedStream" holds its \
                lossless form and its root decoded by class name (as convert --format json writes). \
                A Core Data model (an .xcdatamodeld folder: its current version; an .xcdatamodel folder; a \
                compiled .momd folder: its current version, with the entity version hashes of its \
                VersionInfo.plist; a .mom whose archive's top object is an NSManagedObjectModel) is shown as \
                a tree: entities with their superentity, attributes (type, optional, default), relationships \
                (destination, to-one or to-many, inverse, ordered, delete rule), fetch indexes and \
                configurations. With --json, "kind" is "model" and "model" the whole model \
                (Schemas/cli/model.schema.json). \
                A Core Data SQLite store (an SQLite file with a Z_METADATA table) or a \
                UIManagedDocument package (a directory with StoreContent/persistentStore) \
                shows its UUID, store type, model version and each entity with its table and \
                number of objects, reading the store without writing it or its -wal and -shm; \
                with --json, "store": {"uuid", "layoutVersion", "modelVersionIdentifiers", \
                "entities", "metadata"}. \
                A compiled nib (a NIBArchive file, or a folder ending in .nib holding NIBArchive files \
                such as objects-13.0+.nib and runtime.nib), and a keyed archive with IB.objectdata \
                (Interface Builder's keyedobjects.nib), is shown as its object graph: the top-level \
                objects, the outlet and action connections (outlet "view": #3 UIViewController -> \
                #7 UIView), then each object from the root with its class name and keyed values, an \
                array's UINibEncoderEmptyKey elements numbered [0], [1], …; an object reached again \
                says (shown above), one reached from inside itself (cycle). With --json, "kind" is \
                "nib" and "nib" is {"members": [{"name", "graph": {"root", "topLevelObjects", \
                "connections", "objects"}}]}. \
                With --expand, a data value that holds a property list (binary, XML naming a plist, \
                or JSON or OpenStep text opening a dictionary or array), a keyed archive, an \
                NSArchiver typed stream (iMessage's attributedBody) or a NIB archive ("bplist \
                inception": a Terminal profile's Font, an archive's NS.data) is shown decoded in place after its summary, marked "embedded" \
                and its form, nested levels too (at most 16 deep: deeper is an error naming the key \
                path); bytes that start as a property list but do not read say why and where in \
                them. Compressed data (gzip, zlib) is inflated (at most 64 MB a layer) and what it \
                holds shown the same way, or, when it is no property list, as a protocol buffer read \
                without a schema as protoc --decode_raw prints one (Apple Notes' note data). With --json the report keeps the data as it is and adds "embedded": each one's \
                key path (get KEYPATH! reads it), kind, format, length and decoded form.
                """
        )

        @Argument(help: "The file to inspect, or - for standard input.")
        var input: String

        @Flag(help: "Print one JSON document for programs (Schemas/cli/inspect.schema.json) instead of a tree.")
        var json = false

        @Flag(help: "For an .ict or .ptk document, also read the data entry and show its fields or photo.")
        var data = false

        @Flag(help: "Show every dictionary's keys sorted, for canonical, diff-friendly output (order kept otherwise).")
        var sortKeys = false

        @Option(help: "For a Core Data store: the model (.xcdatamodeld, .xcdatamodel, .momd, .mom) to type its values by.")
        var model: String?

        @Flag(
            help:
                "Show property lists, keyed archives, typed streams, NIB archives, compressed data and protocol buffers held in data values decoded in place, marked embedded."
        )
        var expand = false

        @OptionGroup var inputOptions: InputOptions

        func run() throws {
            let report = Self.report(json: json)
            report.fields.path = input == "-" ? "<stdin>" : input
            switch InputClass(classifying: input) {
            case .coreDataStore: return try StoreCommands.inspect(input, model: model, json: json, report: report)
            case .document(let kind): return try inspectDocument(of: kind, report)
            case .model: return try inspectModel(report)
            case .nibArchive: return try inspectNib(report)
            case .other(.document): return try inspectDocument(report)
            case .other(.documentWithoutMetadata), .other(.package): return try inspectPackage(report)
            case .other(.standardInput), .other(.zipArchive), .other(.file): break
            }
            let file: InputFile
            do {
                file = try InputFile(path: input, limit: inputOptions.maxInputSize)
            } catch {
                throw report.fail(Problem(path: input == "-" ? "<stdin>" : input, error))
            }
            if let typedStream = TypedStreamSupport.read(file) { return try show(typedStream: typedStream, in: file, report) }
            let value: PropertyListValue
            do {
                let read = try file.withBytes { bytes throws(PropertyListError) in
                    try PropertyListReader(limits: inputOptions.limits).read(bytes, format: input.hasSuffix(".json") ? .json : nil)
                }
                value = sortKeys ? read.value.withSortedKeys() : read.value
                report.fields.format = read.format.rawValue
            } catch {
                throw report.fail(Problem(path: input == "-" ? "<stdin>" : input, error))
            }
            var expansion: EmbeddedArchiveView?
            if expand {
                let archives = EmbeddedArchives(limits: inputOptions.limits)
                do throws(EmbeddedKeyPathError) {
                    let embedded = try EmbeddedArchiveView.jsonValue(value, archives)
                    if json { report.fields.embedded = embedded }
                } catch {
                    throw report.fail(Problem(path: file.displayName, error.message, keyPath: error.keyPath.description))
                }
                expansion = EmbeddedArchiveView(archives: archives, nesting: 0)
            }
            if KeyedArchiveObjectGraph.looksLikeArchive(value) {
                try show(archiveFrom: value, in: file, expanding: expansion, report)
                return
            }
            report.fields.kind = "propertyList"
            if json {
                report.fields.value = .propertyList(value)
            } else {
                var printer = TreePrinter(expanding: expansion)
                printer.print(value)
            }
            try report.finish()
        }

        private func show(archiveFrom value: PropertyListValue, in file: InputFile, expanding: EmbeddedArchiveView?, _ report: TypedReport<Fields>) throws {
            report.fields.kind = "keyedArchive"
            let archive: KeyedArchiveObjectGraph
            do {
                archive = try KeyedArchiveObjectGraph(propertyList: value)
            } catch {
                throw report.fail(Problem(file: file, error))
            }
            if archive.topObjectIndex(forKey: "IB.objectdata") != nil {
                report.fields.kind = "nib"
                let graph: NibObjectGraph
                do {
                    graph = try NibObjectGraph(keyedArchive: archive)
                } catch {
                    throw report.fail(Problem(file.displayName, error))
                }
                return try show(nibGraphs: [(file.displayName, graph)], report)
            }
            do throws(KeyedArchiveError) {
                if json {
                    report.fields.archive = .propertyList(try ArchiveGraphView.jsonValue(archive))
                } else {
                    try ArchiveGraphView.printTree(archive, expanding: expanding)
                }
            } catch {
                throw report.fail(Problem(file: file, error))
            }
            try report.finish()
        }

        /// A typed stream: its tree, or with --json its lossless form and its root decoded (`"typedStream"`).
        private func show(typedStream read: Result<TypedStreamDocument, TypedStreamError>, in file: InputFile, _ report: TypedReport<Fields>) throws {
            report.fields.kind = "typedStream"
            let document: TypedStreamDocument
            do { document = try read.get() } catch { throw report.fail(TypedStreamSupport.problem(file.displayName, error)) }
            if json {
                report.fields.typedStream = .propertyList(TypedStreamSupport.jsonForm(document))
            } else {
                var output = StandardOutput()
                TypedStreamSupport.treeLines(document).forEach { output.writeLine($0) }
                output.flush()
            }
            try report.finish()
        }

        private func inspectNib(_ report: TypedReport<Fields>) throws {
            report.fields.kind = "nib"
            let graphs: [(name: String, graph: NibObjectGraph)]
            do {
                graphs = try NibSupport.graphs(try NibSupport.read(input, maxInputSize: inputOptions.maxInputSize), path: input)
            } catch {
                throw report.fail(error)
            }
            try show(nibGraphs: graphs, report)
        }

        /// Each graph as a tree, under its member's name when there are several; or the "nib" JSON.
        private func show(nibGraphs graphs: [(name: String, graph: NibObjectGraph)], _ report: TypedReport<Fields>) throws {
            let limits = NibSupport.limits(inputOptions.maxInputSize)
            var texts: [String] = []
            do {
                for (name, graph) in graphs where !json {
                    let tree = try graph.treeText(limits: limits)
                    texts.append(graphs.count > 1 ? "\(name):\n" + tree : tree)
                }
            } catch {
                throw report.fail(Problem(input, error))
            }
            if json {
                report.fields.nib = NibForm(members: graphs.map { NibForm.Member(name: $0.name, graph: .propertyList($0.graph.jsonForm)) })
            } else {
                var output = StandardOutput()
                output.write(texts.joined(separator: "\n"))
                output.flush()
            }
            try report.finish()
        }

        private func inspectDocument(_ report: TypedReport<Fields>) throws {
            let path = DocumentSupport.trimmingTrailingSlashes(input)
            report.fields.kind = "document"
            let inspection: DocumentInspection
            do {
                // Coordinated: a save by another process is never seen half done.
                inspection = try ItemLockSupport.reading(path) { try DocumentInspection(path: path, readingData: data) }
            } catch let problem as Problem {
                throw report.fail(problem)
            } catch let error as ICTDocumentError {
                throw report.fail(Problem(document: path, error))
            }
            if json {
                report.fields.document = inspection.jsonForm()
            } else {
                var output = StandardOutput()
                output.write(inspection.text())
                output.flush()
            }
            try report.finish()
        }

        /// A `.ptk` document or a text note.
        private func inspectDocument(of kind: DocumentKind, _ report: TypedReport<Fields>) throws {
            let path = DocumentSupport.trimmingTrailingSlashes(input)
            report.fields.kind = "document"
            let value: DocumentInspection.JSONForm
            let text: String
            do {
                if kind == .ptk {
                    let inspection = try ItemLockSupport.reading(path) { try PTKInspection(path: path, readingData: data) }
                    (value, text) = (inspection.jsonForm(), inspection.text())
                } else {
                    let inspection = try NoteInspection(path: path, kind: kind)
                    if let warning = inspection.truncationProblem { report.add(warning) }
                    (value, text) = (inspection.jsonForm(), inspection.text())
                }
            } catch let problem as Problem {
                throw report.fail(problem)
            } catch let error as ICTDocumentError {
                throw report.fail(Problem(document: path, error))
            }
            if json {
                report.fields.document = value
            } else {
                var output = StandardOutput()
                output.write(text)
                output.flush()
            }
            try report.finish()
        }

        /// A Core Data model (.xcdatamodeld, .xcdatamodel, .momd, .mom): its tree, or with --json the whole model.
        private func inspectModel(_ report: TypedReport<Fields>) throws {
            report.fields.kind = "model"
            let document: ModelDocument
            do throws(Problem) {
                document = try ModelSupport.read(input)
            } catch {
                throw report.fail(error)
            }
            if json {
                report.fields.model = .propertyList(document.model.jsonForm)
            } else {
                var output = StandardOutput()
                output.write(document.model.treeText())
                output.flush()
            }
            try report.finish()
        }

        private func inspectPackage(_ report: TypedReport<Fields>) throws {
            report.fields.kind = "package"
            let inspection: PackageInspection
            do {
                inspection = try ItemLockSupport.reading(input) { try PackageInspection(path: input) }
            } catch let problem as Problem {
                throw report.fail(problem)
            } catch let error as DocumentPackageError {
                throw report.fail(Problem(path: input, error))
            }
            if json {
                report.fields.package = inspection.jsonForm()
            } else {
                var output = StandardOutput()
                output.write(inspection.treeText())
                output.flush()
            }
            try report.finish()
        }
    }
}

extension Ict.Inspect: TypedReportingCommand {
    static let reportName = "inspect"
    /// `Schemas/cli/inspect.schema.json`: the path and kind, then the field of that kind.
    typealias Fields = InspectReport.Fields
    typealias NibForm = InspectReport.NibForm
}
