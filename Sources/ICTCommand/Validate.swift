import ArgumentParser
import CoreDataFiles
import DocumentFormats
import ICTKitTooling
import KeyedArchive
import OrderedCollections
import PropertyList
import TypedStream
import UniformTypes

extension Ict {
    /// `ict validate`: are these files well-formed and structurally valid?
    struct Validate: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "validate",
            abstract: "Check that files are well-formed, valid property lists.",
            discussion: """
                Binary, XML, OpenStep and JSON property lists are read in full; XML \
                is also checked against the property-list DTD (Schemas/PropertyList-1.0.dtd). \
                A property list with CFBundleDocumentTypes, UTExportedTypeDeclarations, \
                UTImportedTypeDeclarations or CFBundleIdentifier is an Info.plist: its type \
                declarations are checked too, each finding printed as a warning \
                (file:line:column: warning: message (at key path)): the file reads, and \
                LaunchServices registers the declarations it can use and skips the others. \
                A keyed archive is also checked as one: $archiver, $version, $top, \
                $objects with $null first, dangling UIDs, $class references and class \
                chains, each problem with its key path and object index. \
                A directory ending in .ict (or any package directory, with --schema) is \
                checked as a document against Schemas/ict-document.schema.plist (built in) \
                or the schema --schema names: required entries, archived classes and \
                class chains, versions, keys and value types, PNGs that decode, and the \
                schema's consistency rules (display names, thumbnail showing the photo), \
                whose findings are warnings: the document still reads; each finding prints \
                as DOC.ict:entry: error|warning: message (at key path). Warnings leave a file \
                valid unless --strict is given. A directory ending in .ptk (the photo app's \
                package) is checked likewise against the built-in .ptk schema \
                (Schemas/ptk-document.schema.plist): photo.metadata and photo.data, each a \
                keyed archive of PTKMetadata or PTKData under "data", with Version 1 and \
                PNGs that decode. A file ending in .icfnote or .dox is checked as a note, \
                UTF-8 text: a byte that is not UTF-8 is an error at its byte offset \
                (NOTE:byte N); a .dox that ends inside a character (its app wrote the \
                character count as the byte count) is a warning at the offset where the \
                character starts, an .icfnote so an error. \
                An NSArchiver typed stream (an old nib's objects.nib, an iMessage attributedBody) \
                is read in full and its root decoded by class name; a problem prints at its byte \
                offset (FILE:byte N). \
                A Core Data model (.xcdatamodeld, .xcdatamodel, .momd, or a .mom holding an \
                NSManagedObjectModel) is read, then checked for consistency: relationships whose \
                destination entity or inverse is missing or does not point back, duplicate entity and \
                property names, superentities missing or inheriting in a cycle, properties hiding an \
                inherited one; each finding prints as FILE:LINE:1: error|warning: message (at entity E, \
                property P) for XML, FILE:entity E, property P: … for a compiled model. \
                A Core Data SQLite store (or a UIManagedDocument package) is checked \
                without being changed (nor its -wal and -shm): every entity's table, a \
                primary key above Z_MAX; with --model also the model's entities, columns \
                and version hashes, to-one relationships naming missing objects, and every \
                value against its attribute's type, each problem at its table, row and column. \
                A compiled nib (a NIBArchive file, or a folder ending in .nib holding them) is read \
                whole: header, the four tables, every index (class names, keys, value runs, object \
                references), and its graph's depth; a problem is an error at its byte offset \
                (FILE:byte N), in the member file for a folder. \
                Each problem prints as file:location: severity: message on standard error. \
                For batches, --files-from names more files in a list (one a line, or \
                NUL-separated with -0, as find -print0 writes it), read as the files are \
                checked, and --jsonl prints one JSON line per file as each is done \
                (Schemas/cli/validate.jsonl.schema.json), keeping nothing once printed. \
                Exit status: 0 all valid, 1 any invalid, 64 usage.
                """
        )

        @Argument(help: "The files to check.")
        var files: [String] = []

        @Flag(help: "Print one JSON document describing every file, for programs (Schemas/cli/validate.schema.json).")
        var json = false

        @Option(help: "For a Core Data store: the model (.xcdatamodeld, .xcdatamodel, .momd, .mom) to check it against.")
        var model: String?

        @Option(help: "A document schema (as Schemas/ict-document.schema.plist) to check package directories against.")
        var schema: String?

        @Flag(help: "Fail (exit status 1) on warnings too: Info.plist declaration advice and document consistency rules.")
        var strict = false

        @Flag(help: "Also check each property list against the iCloud key-value store's limits (NSUbiquitousKeyValueStore: 1024 keys, 1 MB, 64-byte keys).")
        var kvs = false

        @OptionGroup var batch: BatchOptions

        @OptionGroup var inputOptions: InputOptions

        func validate() throws {
            try BatchOptions.checkOneJSONForm(json: json, jsonl: batch.jsonl)
            guard !files.isEmpty || batch.filesFrom != nil else { throw ValidationError("name at least one file to validate") }
        }

        func run() throws {
            let report = Self.report(json: json, jsonLines: batch.jsonl)
            report.strict = strict
            let documentSchema = try loadSchema(report)
            var names: InputNames
            do throws(CommandFailure) {
                names = try batch.names(after: files)
            } catch {
                throw report.fail(error.problem)
            }
            // Kept only for the one --json document: with --jsonl or none, memory does not grow with the files.
            var entries: [PathEntry<LineFields>] = []
            var progress = ProgressReporter("validate", total: names.hasList ? nil : files.count, unit: "files")
            var output = StandardOutput()
            while let path = names.next(reportingTo: report, clearing: &progress) {
                let result: FileResult
                switch InputClass(classifying: path) {
                case .model(let form):
                    result = Self.checkModel(path, form: form)
                case .coreDataStore:
                    var store = FileResult(path: path)
                    store.isCoreDataStore = true
                    store.problems = StoreCommands.check(path, model: model)
                    result = store
                case .document(let documentKind):
                    result =
                        documentKind == .ptk
                        ? Self.checkDocument(path, schema: schema == nil ? .ptkDocument : documentSchema)
                        : Self.checkNote(path, kind: documentKind)
                case .nibArchive:
                    result = checkNib(path)
                case .other(let kind) where kind == .document || kind == .documentWithoutMetadata || (schema != nil && kind == .package):
                    result = Self.checkDocument(path, schema: documentSchema)
                case .other:
                    result = check(path)
                }
                progress.clear()
                if !json, !batch.jsonl, strict ? result.isStrictlyValid : result.isValid {
                    output.writeLine("\(result.path): valid \(result.formatName)")
                }
                output.flush()
                result.problems.forEach(report.add)
                if json { entries.append(PathEntry(path: result.path, fields: result.lineFields(strict: strict))) }
                try report.line(path: result.path, result.lineFields(strict: strict))
                progress.advance()
            }
            progress.clear()
            report.fields.files = entries
            try report.finish()
        }

        /// What one file's check found.
        struct FileResult {
            var path: String
            var format: PropertyListFormat?
            var isKeyedArchive = false
            var isInfoPlist = false
            /// The schema's name, when the path is a document package checked against one.
            var documentSchema: String?
            /// The note's kind, when the path is a text note (`.icfnote`, `.dox`).
            var noteKind: DocumentKind?
            /// "typed stream (big-endian)", when the path is an NSArchiver typed stream.
            var typedStreamFormat: String?
            /// A Core Data store or managed document package.
            var isCoreDataStore = false
            /// The model's form, when the path is a Core Data model.
            var modelForm: ModelFileForm?
            /// Whether the path is a compiled nib (NIBArchive).
            var isNib = false
            var problems: [Problem] = []

            /// No error (warnings allowed).
            var isValid: Bool { !problems.contains { $0.severity == .error } }

            /// No problem at all, warnings included (`--strict`).
            var isStrictlyValid: Bool { problems.isEmpty }

            var kind: String? {
                if documentSchema != nil { return "document" }
                if isCoreDataStore { return "coreDataStore" }
                if noteKind != nil { return "textNote" }
                if typedStreamFormat != nil { return "typedStream" }
                if modelForm != nil { return "model" }
                if isNib { return "nib" }
                if isKeyedArchive { return "keyedArchive" }
                if isInfoPlist { return "infoPlist" }
                return format == nil ? nil : "propertyList"
            }

            var formatName: String {
                if let documentSchema { return documentSchema }
                if isCoreDataStore { return "Core Data SQLite store" }
                if let noteKind { return ".\(noteKind.rawValue) note (UTF-8 text)" }
                if let typedStreamFormat { return typedStreamFormat }
                if let modelForm { return "Core Data model, \(modelForm.displayName)" }
                if isNib { return "compiled nib (NIBArchive)" }
                if isKeyedArchive { return "keyed archive (\(format == .xml ? "XML" : "binary") property list)" }
                return switch format {
                case .binary: "binary property list"
                case .xml: "XML property list"
                case .openStep: "OpenStep property list"
                case .json: "JSON property list"
                case nil: "file"
                }
            }

            /// The fields after `path` of the file's entry, which are also those of the `--jsonl` line.
            func lineFields(strict: Bool) -> LineFields {
                LineFields(valid: strict ? isStrictlyValid : isValid, kind: kind, format: format?.rawValue, schema: documentSchema)
            }
        }

        /// The schema documents are checked against: --schema's, else the built-in `.ict` one.
        private func loadSchema(_ report: Report) throws -> DocumentSchema {
            guard let schema else { return .ictDocument }
            do {
                let bytes = try DocumentSupport.readFile(schema)
                return try DocumentSchema(propertyListText: String(decoding: bytes, as: UTF8.self))
            } catch let error as PropertyListError {
                throw report.fail(Problem(path: schema, error))
            } catch let error as ICTDocumentError {
                throw report.fail(Problem(path: schema, error.description))
            }
        }

        static func checkDocument(_ path: String, schema: DocumentSchema) -> FileResult {
            let trimmed = DocumentSupport.trimmingTrailingSlashes(path)
            // Coordinated: a save by another process is never seen half done.
            let findings: [DocumentFinding]
            do {
                findings = try ItemLockSupport.reading(trimmed) { DocumentValidator(schema: schema).validate(packageAt: trimmed) }
            } catch {
                let problem = error as? Problem ?? Problem(path: trimmed, "\(error)")
                return FileResult(path: trimmed, documentSchema: schema.name, problems: [problem])
            }
            return FileResult(path: trimmed, documentSchema: schema.name, problems: findings.map { Problem(document: trimmed, $0) })
        }

        /// A Core Data model: read (an error where it cannot be), then checked by `ModelValidator`, each finding at
        /// its line of the XML or its entity and property.
        static func checkModel(_ path: String, form: ModelFileForm) -> FileResult {
            var result = FileResult(path: path, modelForm: form)
            do throws(Problem) {
                let document = try ModelSupport.read(path)
                result.problems = ModelValidator().validate(document.model, locations: document.locations).map {
                    ModelSupport.problem($0, in: document)
                }
            } catch {
                result.problems.append(error)
            }
            return result
        }

        /// A note: UTF-8 throughout (an error at the first byte that is not), a `.dox` cut short a warning.
        static func checkNote(_ path: String, kind: DocumentKind) -> FileResult {
            var result = FileResult(path: path, noteKind: kind)
            do {
                let inspection = try NoteInspection(path: path, kind: kind)
                if let truncation = inspection.truncationProblem { result.problems.append(truncation) }
            } catch {
                result.problems.append(Problem(document: path, error))
            }
            return result
        }

        /// A compiled nib: read whole (every table and index), each member's graph walked within the depth limit.
        func checkNib(_ path: String) -> FileResult {
            var result = FileResult(path: DocumentSupport.trimmingTrailingSlashes(path), isNib: true)
            do throws(Problem) {
                let limits = NibSupport.limits(inputOptions.maxInputSize)
                for (_, graph) in try NibSupport.graphs(try NibSupport.read(path, maxInputSize: inputOptions.maxInputSize), path: path) {
                    do {
                        _ = try graph.treeText(limits: limits)
                    } catch {
                        throw Problem(path, error)
                    }
                }
            } catch {
                result.problems.append(error)
            }
            return result
        }

        func check(_ path: String) -> FileResult {
            var result = FileResult(path: path)
            do {
                let file = try InputFile(path: path, limit: inputOptions.maxInputSize)
                result.path = file.displayName
                if let typedStream = TypedStreamSupport.read(file) {
                    Self.check(typedStream, into: &result)
                    return result
                }
                try file.withBytes { bytes throws(PropertyListError) in
                    let format = try checkValue(bytes, path: path, displayName: file.displayName, into: &result)
                    // The value read is gone by now: the DTD check streams the bytes again.
                    if format == .xml {
                        result.problems += try XMLPropertyListValidator.propertyListDTD().validate(bytes).map { Problem(path: file.displayName, $0) }
                        // A third parse; over this size it would break validate's memory bound
                        // (ValidateMemoryTests: under 3× the file), so large files are not scanned.
                        if bytes.count <= Self.duplicateKeyScanLimit {
                            result.problems += XMLPropertyListReader.duplicateKeys(in: bytes).map { Self.problem(file.displayName, $0) }
                        }
                    }
                }
            } catch {
                result.problems.append(Problem(path: path == "-" ? "<stdin>" : path, error))
            }
            return result
        }

        /// A typed stream reads in full, and its root decodes by class name.
        static func check(_ read: Result<TypedStreamDocument, TypedStreamError>, into result: inout FileResult) {
            result.typedStreamFormat = "typed stream"
            switch read {
            case .failure(let error):
                result.problems.append(TypedStreamSupport.problem(result.path, error))
            case .success(let document):
                result.typedStreamFormat = TypedStreamSupport.formatName(document)
                if case .failure(let problem) = TypedStreamSupport.decodedRoot(document, path: result.path) { result.problems.append(problem) }
            }
        }

        /// The largest XML file whose dictionaries are scanned for duplicate keys (16 MiB).
        static let duplicateKeyScanLimit = 16 << 20

        /// A key written twice in one dictionary: a warning at the later key, naming both lines.
        static func problem(_ path: String, _ duplicate: XMLDuplicateKey) -> Problem {
            let key: String
            if case .key(let name)? = duplicate.keyPath.components.last { key = name } else { key = "" }
            return Problem(
                path: path, location: .lineColumn(line: duplicate.line, column: 1), severity: .warning,
                "duplicate key \"\(key)\" at lines \(duplicate.firstLine) and \(duplicate.line) of one dictionary; "
                    + "the last value is kept, as Apple's readers keep it",
                keyPath: KeyPathText.abbreviated(duplicate.keyPath))
        }

        /// Reads the property list in `bytes`, checks it as an Info.plist or
        /// keyed archive when it looks like one, and returns its format.
        private func checkValue(
            _ bytes: UnsafeRawBufferPointer, path: String, displayName: String,
            into result: inout FileResult
        ) throws(PropertyListError) -> PropertyListFormat {
            let hint: PropertyListFormat? = path.hasSuffix(".json") ? .json : nil
            let (value, format) = try PropertyListReader(limits: inputOptions.limits).read(bytes, format: hint)
            result.format = format
            if TypeDeclarationSet.looksLikeInfoPlist(value) {
                result.isInfoPlist = true
                let findings = TypeDeclarationValidator().validate(TypeDeclarationSet(infoPlist: value, file: nil))
                // Each finding at the place of the value it is about. All are
                // warnings here: the file reads, and LaunchServices registers
                // the declarations it can use and skips the others.
                let places = findings.isEmpty ? [] : PropertyListLocator.locations(of: findings.map(\.keyPath), in: bytes)
                result.problems += zip(findings, places).map { Problem(path: displayName, $0, location: $1, severity: .warning) }
            }
            if KeyedArchiveObjectGraph.looksLikeArchive(value) {
                result.isKeyedArchive = true
                var validator = KeyedArchiveValidator()
                _ = validator.check(value)
                let places = validator.problems.isEmpty ? [] : PropertyListLocator.locations(of: validator.problems.map(\.keyPath), in: bytes)
                result.problems += zip(validator.problems, places).map { Problem(path: displayName, $0, location: $1) }
            }
            if kvs {
                let findings = UbiquitousKeyValueStoreValidator().findings(in: value)
                let places = findings.isEmpty ? [] : PropertyListLocator.locations(of: findings.map(\.keyPath), in: bytes)
                result.problems += zip(findings, places).map {
                    Problem(path: displayName, location: Problem.Location($1), $0.message, keyPath: $0.keyPath.description)
                }
            }
            return format
        }
    }
}

extension Ict.Validate: TypedReportingCommand {
    static let reportName = "validate"
    static var lineFields: [String] { LineFields.fieldNames }

    /// `Schemas/cli/validate.schema.json`.
    struct Fields: ReportFields {
        /// An entry for each file checked.
        var files: [PathEntry<LineFields>]?
    }

    /// A file's line with `--jsonl` (`Schemas/cli/validate.jsonl.schema.json`), after `path`.
    struct LineFields: ReportFields {
        /// No error (with `--strict`, no problem at all).
        var valid: Bool?
        /// What the file is (`propertyList`, `keyedArchive`, `document`, …), null when not told.
        var kind: String?
        /// The property list's format, null for a file that is none.
        var format: String?
        /// The schema a document was checked against.
        var schema: String?
    }
}
