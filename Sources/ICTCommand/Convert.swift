import ArgumentParser
import CoreDataFiles
import DocumentFormats
import ICTKitTooling
import KeyedArchive
import NIBArchive
import PackageFormat
import PropertyList
import SystemSupport
import TypedStream
import UniformTypes

extension Ict {
    /// `ict convert`: one form of property list to another.
    struct Convert: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "convert",
            abstract: "Convert a property list to XML, binary or JSON, a keyed archive to and from JSON, or a package to a zip and back.",
            discussion: """
                The input is read in whatever form it is (binary, XML, OpenStep or \
                JSON) and never modified unless -o names it. A keyed archive converted \
                to json is written in the keyed-archive JSON form \
                (Schemas/keyed-archive.schema.json); keyed-archive and keyed-archive-xml \
                write an archive (from that JSON form or from an archive) laid out as \
                NSKeyedArchiver lays it out, binary or XML. zip writes a package \
                directory as a zip archive; package restores one, refusing entries \
                that would land outside the target. A regular output file \
                is replaced in one step (written beside it, then renamed); a device \
                or pipe such as /dev/stdout is written directly.

                A package directory converts with --format zip to a zip holding the \
                package under its name (default output: PACKAGE.zip beside it). A zip \
                converts back with --format package (default output: the package's \
                name beside the zip); entries that would land outside the package, \
                absolute paths and links pointing outside are refused, and nothing is \
                left behind when the zip is refused. An existing package is not replaced.

                An .ict document converts with --format json to its fields as JSON, the \
                photo and thumbnail written as PNG files next to the output (or beside \
                the document when the JSON goes to standard output), or inside the JSON \
                as base64 with --embed. An existing image file is not replaced unless \
                --force, and none is made beside a device or pipe (-o /dev/null needs \
                --embed); no output is written inside the package being read. Such a \
                JSON file converts back with --format ict \
                (default output: the JSON's name with .ict; never replaced); the \
                thumbnail is made again from the photo. A .ptk document (the photo \
                app's package) converts with --format json to the same form, with only \
                its version, photo and thumbnail; a note (.icfnote, .dox) to {"kind", \
                "text", "bytes", "droppedBytes"} (Schemas/text-note.json-form.schema.json), \
                a .dox cut inside a character with a warning at that byte. A Core Data model \
                (.xcdatamodeld, .xcdatamodel, .momd, or a .mom holding an NSManagedObjectModel) converts \
                with --format json to the whole model as JSON: {"entities": [{"name", "attributes", \
                "relationships", …}], "configurations", "versionIdentifiers"} (Schemas/cli/model.schema.json); \
                a .mom converts with the other formats as the property list it is.

                A compiled nib (a NIBArchive file) converts with --format json to its \
                lossless JSON form: {"format": "NIBArchive", "formatVersion", \
                "coderVersion", "objects": [{"class", "className", "firstValue", \
                "valueCount"}], "keys", "values": [{"key", "keyName", "type", "value"}], \
                "classNames": [{"name", "extras"}]}, each value with its type (int8, \
                int16, int32, int64, true, false, float as {"$real32": x}, double, data as \
                {"$data": base64}, nil, object with the object's index). A folder ending \
                in .nib converts to {"members": [{"name", "file"}]}, one for each nib \
                file in it (a keyed archive member as its property list).

                With --files-from, the inputs named in a list (and the one argument, \
                first) are converted one by one into the folder -o names, each at its \
                own path below it (a leading / or ./ left out; a name with .. is \
                refused): for --format json the name's extension becomes .json, for \
                the other forms the name is kept (a .json one becomes .plist). \
                --jsonl prints a line for each input as it is done.

                An NSArchiver typed stream (an old nib's objects.nib, an iMessage \
                attributedBody) converts with --format json to {"typedStream": its lossless \
                form (byte order, versions, classes with their versions and superclasses, \
                objects with every field and its type encoding), "decoded": its root decoded \
                by class name (an attributed string as its text and runs with their \
                attributes)}, and with --format text to the text of the string or \
                attributed string at its root and a newline; a root of another class is \
                an error naming it.

                A Core Data SQLite store (or a UIManagedDocument package) converts with \
                --format json to a JSON array of its objects, or with --format jsonl to one \
                object a line, read one row at a time (never the whole store in memory): \
                {"id": "x-coredata://STORE-UUID/Entity/pN", "entity", "values"}, dates \
                {"$date"}, binary data {"$data"}, data kept outside the store \
                {"externalDataFile"}, a transformable its keyed archive's JSON form, \
                relationships as object IDs (ordered ones in order). --model types the \
                values; without it each column is written as SQLite stores it. The store, \
                its -wal and its -shm are never written; what the -wal holds is read.
                """
        )

        @Argument(help: ArgumentHelp("The property list to read, or - for standard input.", valueName: "input"))
        var inputArgument: String?

        /// The input: the argument, or with --files-from each name in turn.
        private var input: String { inputArgument ?? "-" }

        /// Parsed by `OutputFormat.parse`, so an unknown value is refused with the choices on one line in the
        /// command's own words; the help and completions list the values as argument-parser lists an enum's.
        @Option(
            help: ArgumentHelp("The form to write. (values: \(OutputFormat.allValueStrings.joined(separator: ", ")))"),
            completion: .list(OutputFormat.allValueStrings), transform: OutputFormat.parse)
        var format: OutputFormat

        @Option(
            name: [.short, .customLong("output")],
            help: "Where to write: a file, a device, or - for standard output (the default).")
        var output: String?

        enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
            case xml1, binary1, json
            case keyedArchive = "keyed-archive"
            case keyedArchiveXML = "keyed-archive-xml"
            case zip, package, ict
            case text
            /// A Core Data store's objects, one JSON object a line.
            case jsonl

            var isBinary: Bool { self == .binary1 || self == .keyedArchive }

            /// The format named `text`, or an error listing the choices ("one of: xml1, binary1, …"), which
            /// argument-parser puts after its "The value 'TEXT' is invalid for '--format <format>'".
            @Sendable static func parse(_ text: String) throws -> OutputFormat {
                guard let format = OutputFormat(rawValue: text) else { throw InvalidChoice(choices: allValueStrings) }
                return format
            }

            /// The library's form for a property-list conversion (`.xml` for a package's or document's, which are not).
            var propertyListForm: PropertyListConversion.Form {
                switch self {
                case .binary1: .binary
                case .json: .json
                case .keyedArchive: .keyedArchive
                case .keyedArchiveXML: .keyedArchiveXML
                case .xml1, .zip, .package, .ict, .text, .jsonl: .xml
                }
            }
        }

        @Option(help: "For a Core Data store: the model (.xcdatamodeld, .xcdatamodel, .momd, .mom) to type its values by.")
        var model: String?

        @Flag(
            help:
                "With a Core Data store and --format json or jsonl, add to each object \"layers\": what its data values hold (property lists, keyed archives, typed streams, NIB archives, gzip, zlib, protocol buffers), decoded beside the raw bytes."
        )
        var expand = false

        @Flag(help: "With an .ict document and --format json, put the photo and thumbnail in the JSON as base64.")
        var embed = false

        @Flag(help: "With an .ict document and --format json, replace existing photo and thumbnail files beside the JSON.")
        var force = false

        @Flag(help: "Print one JSON document describing the conversion (Schemas/cli/convert.schema.json); the output then goes to the file -o names.")
        var json = false

        @Flag(help: "Write every dictionary's keys sorted, for canonical, diff-friendly output (order kept otherwise).")
        var sortKeys = false

        @OptionGroup var batch: BatchOptions

        @OptionGroup var inputOptions: InputOptions

        @OptionGroup var links: LinkOptions

        func validate() throws {
            try BatchOptions.checkOneJSONForm(json: json, jsonl: batch.jsonl)
            if batch.filesFrom == nil {
                guard inputArgument != nil else { throw ValidationError("name the input to convert, or the inputs with --files-from") }
                guard !batch.jsonl else { throw ValidationError("--jsonl prints a line for each input of --files-from; for one input use --json") }
            } else {
                try validateBatch()
            }
            if format == .zip || format == .package, output == "-" {
                throw ValidationError("a \(format == .zip ? "zip" : "package") is written to a file, not standard output; name one with -o")
            }
            if json, output == nil || output == "-" {
                throw ValidationError("--json prints the report on standard output; name the converted output's file with -o")
            }
        }

        func run() throws {
            if batch.filesFrom != nil { return try runBatch() }
            try job(input: input, output: output).run()
        }

        /// The conversion of `input` to `output` with this command line's options.
        func job(input: String, output: String?) -> ConvertJob {
            ConvertJob(
                input: input, format: format, output: output, embed: embed, force: force, json: json, sortKeys: sortKeys,
                limits: inputOptions.limits, model: model, expand: expand, outputLinks: links.outputLinks)
        }
    }

    /// One `ict convert` as the command line asked for it, without
    /// argument-parser's property wrappers, so `QuickCommand` can make one
    /// at no cost.
    struct ConvertJob {
        var input: String
        var format: Convert.OutputFormat
        var output: String?
        var embed = false
        var force = false
        var json = false
        var sortKeys = false
        var limits = PropertyListLimits.default
        /// For a Core Data store: the model to type its values by.
        var model: String?
        /// For a Core Data store: each object's data values' layers beside them.
        var expand = false
        /// A symbolic link at an output path: refused unless `--follow-symlinks`.
        var outputLinks = AtomicFileWriter.LinkHandling.refused

        private var displayInput: String { input == "-" ? "<stdin>" : input }

        func run() throws {
            let report = Convert.report(json: json)
            try convert(report)
            try report.finish()
            // The value may be a tree of millions of nodes: leave freeing it to
            // the system rather than walking it once more on the way out.
            CurrentProcess.exit(0)
        }

        /// Converts `input` to `output`, filling `report`; a problem fails the report.
        func convert(_ report: TypedReport<Convert.Fields>) throws {
            report.fields.input = displayInput
            report.fields.format = format.rawValue
            // A store's objects are written as JSON or JSON lines; documents, models and nibs as JSON.
            let readers: InputClass.Readers = format == .json ? .all : format == .jsonl ? .coreDataStores : []
            let kind: InputKind
            switch InputClass(classifying: input, readers: readers) {
            case .coreDataStore:
                try StoreCommands.convert(input, model: model, output: output, lines: format == .jsonl, expand: expand, report: report)
                report.fields.output = output ?? "-"
                return
            case .document(let documentKind): return try convertDocument(of: documentKind, report)
            case .model: return try convertModel(report)
            case .nibArchive: return try convertNib(report)
            case .other(let other): kind = other
            }
            if let problem = inputProblem(kind) { throw report.fail(problem) }
            if (format == .json && kind == .document) || (format == .ict && kind != .standardInput) {
                try convertDocument(report)
            } else if format == .zip || format == .package {
                try convertPackage(report)
            } else {
                try convertPropertyList(report)
            }
        }

        /// An input of the wrong kind for the format asked for (exit status 1: the command line is right, the file is not).
        private func inputProblem(_ kind: InputKind) -> Problem? {
            if format == .json, kind == .document { return nil }
            let inputIsPackage = kind.isDirectory
            let inputIsZip = kind == .zipArchive
            switch format {
            case .zip:
                if !inputIsPackage { return Problem(path: input, "--format zip needs a package directory; this is not one") }
            case .package:
                if !inputIsZip { return Problem(path: input, "--format package needs a zip archive; this is not one") }
            case .ict:
                if input == "-" || !input.hasSuffix(".json") { return Problem(path: displayInput, "--format ict needs a JSON export (DOC.json) as input") }
            case .jsonl:
                return Problem(path: displayInput, "--format jsonl writes a Core Data store's objects; this is not a store")
            case .xml1, .binary1, .json, .keyedArchive, .keyedArchiveXML, .text:
                if inputIsPackage { return Problem(path: input, "is a directory (a package); convert a package with --format zip") }
                if inputIsZip { return Problem(path: input, "is a zip archive; restore its package with --format package") }
            }
            return nil
        }

        private func convertDocument(_ report: TypedReport<Convert.Fields>) throws {
            let source = DocumentSupport.trimmingTrailingSlashes(input)
            let destination = format == .ict ? (output ?? String(source.dropLast(5)) + ".ict") : (output ?? "-")
            report.fields.output = destination
            do {
                if format == .ict {
                    try DocumentConversion.import(source, to: destination)
                } else {
                    // Coordinated: a save by another process is never seen half done.
                    try ItemLockSupport.reading(source) {
                        try DocumentConversion.export(
                            source, to: destination, embedding: embed, replacingImageFiles: force, links: outputLinks)
                    }
                }
            } catch let problem as Problem {
                throw report.fail(problem)
            } catch let error as ICTDocumentError {
                throw report.fail(Problem(document: source, error))
            } catch let error as PropertyListError {
                throw report.fail(Problem(path: source, error))
            } catch let failure as CommandFailure {
                throw report.fail(Problem(path: Problem.outputName(destination), failure.description))
            }
        }

        /// A `.ptk` document to the `.ict` JSON form (its version, photo and thumbnail), a note to its own
        /// (`Schemas/text-note.json-form.schema.json`).
        private func convertDocument(of kind: DocumentKind, _ report: TypedReport<Convert.Fields>) throws {
            let source = DocumentSupport.trimmingTrailingSlashes(input)
            let destination = output ?? "-"
            report.fields.output = destination
            do {
                if kind == .ptk {
                    try ItemLockSupport.reading(source) {
                        try DocumentConversion.export(
                            source, kind: .ptk, to: destination, embedding: embed, replacingImageFiles: force, links: outputLinks)
                    }
                } else {
                    if let problem = OutputPlacement.insideInputProblem(destination, reading: source) { throw problem }
                    let note = try NoteInspection(path: source, kind: kind)
                    if let truncation = note.truncationProblem { report.add(truncation) }
                    try OutputFile.write(note.note.jsonBytes() + [UInt8(ascii: "\n")], to: destination, links: outputLinks)
                }
            } catch let problem as Problem {
                throw report.fail(problem)
            } catch let error as ICTDocumentError {
                throw report.fail(Problem(document: source, error))
            } catch let failure as CommandFailure {
                throw report.fail(Problem(path: Problem.outputName(destination), failure.description))
            }
        }

        /// A Core Data model to its JSON form (Schemas/cli/model.schema.json).
        private func convertModel(_ report: TypedReport<Convert.Fields>) throws {
            let destination = output ?? "-"
            report.fields.output = destination
            do {
                if let problem = OutputPlacement.insideInputProblem(destination, reading: input) { throw problem }
                let document = try ModelSupport.read(input)
                try OutputFile.write(document.model.jsonText(), to: destination, links: outputLinks)
            } catch let problem as Problem {
                throw report.fail(problem)
            } catch let failure as CommandFailure {
                throw report.fail(Problem(path: Problem.outputName(destination), failure.description))
            }
        }

        /// A compiled nib to its lossless JSON form (`NIBArchiveFile.jsonForm`); a folder to its members' forms.
        private func convertNib(_ report: TypedReport<Convert.Fields>) throws {
            let destination = output ?? "-"
            report.fields.output = destination == "-" ? "<stdout>" : destination
            do {
                if let problem = OutputPlacement.insideInputProblem(destination, reading: input) { throw problem }
                let nib = try NibSupport.read(input, maxInputSize: limits.maximumInputSize)
                let forms = nib.members.map { member -> (String, PropertyListValue) in
                    switch member.contents {
                    case .nibArchive(let file): (member.name, file.jsonForm)
                    case .keyedArchive(let archive): (member.name, archive.propertyList)
                    }
                }
                let value: PropertyListValue =
                    NibSupport.isFolder(input)
                    ? .dictionary(["members": .array(forms.map { .dictionary(["name": .string($0.0), "file": $0.1]) })])
                    : forms[0].1
                let bytes: [UInt8]
                do {
                    bytes = try JSONPropertyListWriter().encode(sortKeys ? value.withSortedKeys() : value)
                } catch {
                    throw Problem(path: displayInput, error)
                }
                try OutputFile.write(bytes + [UInt8(ascii: "\n")], to: destination, links: outputLinks)
            } catch let problem as Problem {
                throw report.fail(problem)
            } catch let failure as CommandFailure {
                throw report.fail(Problem(path: Problem.outputName(destination), failure.description))
            }
        }

        private func convertPackage(_ report: TypedReport<Convert.Fields>) throws {
            if format == .zip, let output, let problem = OutputPlacement.insideInputProblem(output, reading: input) {
                throw report.fail(problem)
            }
            do {
                let written: String
                if format == .zip {
                    let target = outputLinks == .followed ? output.map(LinkOptions.resolved) : output
                    written = try ItemLockSupport.reading(input) { try PackageConversion.zip(packageAt: input, to: target) }
                } else {
                    written = try PackageConversion.unzip(input, to: output)
                }
                report.fields.output = written
            } catch let problem as Problem {
                throw report.fail(problem)
            } catch let error as DocumentPackageError {
                throw report.fail(Problem(path: input, error))
            }
        }

        private func convertPropertyList(_ report: TypedReport<Convert.Fields>) throws {
            let destination = output ?? "-"
            report.fields.output = destination == "-" ? "<stdout>" : destination
            if format.isBinary, output == nil, OutputFile.isTerminal("-") {
                throw report.fail(Problem(path: "<stdout>", "binary output is not written to a terminal; name a file with -o (or -o - to insist)"))
            }
            let file: InputFile
            do {
                // -o naming the input itself edits it in place, which only a regular file can be.
                let inPlace = output.map { InputFile.names($0, sameFileAs: input) } ?? false
                file = try InputFile(path: input, limit: limits.maximumInputSize, for: inPlace ? .editingInPlace : .reading)
            } catch {
                throw report.fail(Problem(path: displayInput, error))
            }
            if let typedStream = TypedStreamSupport.read(file) {
                return try convertTypedStream(typedStream, destination: destination, report)
            }
            if format == .text {
                throw report.fail(
                    Problem(path: displayInput, "--format text needs a typed stream holding a string or attributed string; this is not a typed stream"))
            }
            if format == .xml1, !sortKeys, let mapped = file.file, PropertyListFormat.detect(mapped.bytes) == .binary {
                report.fields.inputFormat = PropertyListFormat.binary.rawValue
                try convertBinaryToXML(mapped, destination: destination, report)
                return
            }
            let conversion = PropertyListConversion(to: format.propertyListForm, sortingKeys: sortKeys, limits: limits)
            let read: PropertyListConversion.Input
            do {
                let hint: PropertyListFormat? = input.hasSuffix(".json") ? .json : nil
                read = try file.withBytes { bytes throws(PropertyListError) in try conversion.read(bytes, hint: hint) }
                report.fields.inputFormat = read.format.rawValue
            } catch {
                throw report.fail(Problem(path: displayInput, error))
            }
            do {
                let sink = try OutputFile(path: destination, links: outputLinks)
                do {
                    try conversion.write(read) { (bytes) throws(PropertyListError) in
                        do throws(CommandFailure) {
                            try sink.write(bytes)
                        } catch {
                            throw PropertyListError(.io, at: .none, error.description)
                        }
                    }
                } catch let error as KeyedArchiveError {
                    sink.abandon()
                    throw report.fail(Problem(file: file, error))
                } catch let error as PropertyListError {
                    sink.abandon()
                    throw report.fail(Problem(path: destination == "-" ? "<stdout>" : destination, error))
                }
                try sink.commit()
            } catch let failure as CommandFailure {
                throw report.fail(Problem(path: Problem.outputName(destination), failure.description))
            }
        }

        /// A typed stream to its JSON form or its text.
        private func convertTypedStream(
            _ read: Result<TypedStreamDocument, TypedStreamError>, destination: String, _ report: TypedReport<Convert.Fields>
        ) throws {
            report.fields.inputFormat = "typedStream"
            let document: TypedStreamDocument
            do { document = try read.get() } catch { throw report.fail(TypedStreamSupport.problem(displayInput, error)) }
            let bytes: [UInt8]
            switch format {
            case .json:
                do throws(PropertyListError) {
                    bytes = try JSONPropertyListWriter().encode(TypedStreamSupport.jsonForm(document)) + [UInt8(ascii: "\n")]
                } catch {
                    throw report.fail(Problem(path: displayInput, error))
                }
            case .text:
                switch TypedStreamSupport.decodedRoot(document, path: displayInput) {
                case .failure(let problem): throw report.fail(problem)
                case .success(let root):
                    guard let text = root.text else {
                        throw report.fail(
                            Problem(path: displayInput, "--format text needs a string or attributed string; the root is \(rootClassName(document))"))
                    }
                    bytes = Array(text.utf8) + [UInt8(ascii: "\n")]
                }
            default:
                throw report.fail(Problem(path: displayInput, "a typed stream converts with --format json or text only"))
            }
            if let output, let problem = OutputPlacement.insideInputProblem(output, reading: input) { throw report.fail(problem) }
            do { try OutputFile.write(bytes, to: destination, links: outputLinks) } catch {
                throw report.fail(Problem(path: Problem.outputName(destination), error.description))
            }
        }

        /// "of class NSIBObjectData (version 224)", or "not an object".
        private func rootClassName(_ document: TypedStreamDocument) -> String {
            guard case .object(let index?) = document.rootValue, let root = document.classChain(of: document.objects[index]).first else {
                return "not an object"
            }
            return "of class \(root.name) (version \(root.version))"
        }

        /// Binary to XML without building the value: objects are written out
        /// as they are read. On standard output or a pipe, a problem found part
        /// way leaves what was written before it; a file is replaced only when
        /// the whole conversion succeeded.
        private func convertBinaryToXML(_ file: MappedFile, destination: String, _ report: TypedReport<Convert.Fields>) throws {
            do {
                let sink = try OutputFile(path: destination, links: outputLinks)
                do throws(PropertyListError) {
                    try XMLPropertyListWriter().encode(binaryPropertyList: file, limits: limits) { (bytes) throws(PropertyListError) in
                        do throws(CommandFailure) {
                            try sink.write(bytes)
                        } catch {
                            throw PropertyListError(.io, at: .none, error.description)
                        }
                    }
                } catch {
                    sink.abandon()
                    let blamed = error.location == .none && error.code == .io ? (destination == "-" ? "<stdout>" : destination) : input
                    throw report.fail(Problem(path: blamed, error))
                }
                try sink.commit()
            } catch let failure as CommandFailure {
                throw report.fail(Problem(path: Problem.outputName(destination), failure.description))
            }
        }
    }
}

extension Ict.Convert: TypedReportingCommand {
    static let reportName = "convert"
    static var lineFields: [String] { Fields.fieldNames }

    /// `Schemas/cli/convert.schema.json`; with `--files-from`, each input's
    /// line (`Schemas/cli/convert.jsonl.schema.json`) has the same fields.
    struct Fields: ReportFields {
        /// The input as named (`<stdin>` for `-`).
        var input: String?
        /// Where the output went (`<stdout>` or `-` for standard output).
        var output: String?
        /// The format asked for.
        var format: String?
        /// The input's format, where it was read as a property list or typed stream.
        var inputFormat: String?
    }
}
