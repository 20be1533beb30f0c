import ArgumentParser
import ICTDocument
import KeyedArchive
import OrderedCollections
import PropertyList
import UniformTypes

extension Ict {
    /// `ict validate`: are these files well-formed and structurally valid?
    struct Validate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check that files are well-formed, valid property lists.",
            discussion: """
                Binary, XML, OpenStep and JSON property lists are read in full; XML \
                is also checked against the property-list DTD (Schemas/PropertyList-1.0.dtd). \
                A property list with CFBundleDocumentTypes, UTExportedTypeDeclarations, \
                UTImportedTypeDeclarations or CFBundleIdentifier is an Info.plist: its type \
                declarations are checked too, each finding printed as \
                file: error|warning: message (at key path); warnings alone leave it valid. \
                A keyed archive is also checked as one: $archiver, $version, $top, \
                $objects with $null first, dangling UIDs, $class references and class \
                chains, each problem with its key path and object index. \
                A directory ending in .ict (or any package directory, with --schema) is \
                checked as a document against Schemas/ict-document.schema.plist (built in) \
                or the schema --schema names: required entries, archived classes and \
                class chains, versions, keys and value types, PNGs that decode, and the \
                schema's consistency rules (display names, thumbnail showing the photo); \
                each finding prints as DOC.ict/entry: message (at key path). \
                Each problem prints as file:location: message on standard error. \
                Exit status: 0 all valid, 1 any invalid, 64 usage.
                """
        )

        @Argument(help: "The files to check.")
        var files: [String] = []

        @Flag(help: "Print one JSON document describing every file, for programs.")
        var json = false

        @Option(help: "A document schema (as Schemas/ict-document.schema.plist) to check package directories against.")
        var schema: String?

        func validate() throws {
            guard !files.isEmpty else { throw ValidationError("name at least one file to validate") }
        }

        func run() throws {
            let documentSchema = try loadSchema()
            var reports: [FileReport] = []
            var progress = ProgressReporter("validate", total: files.count, unit: "files")
            for path in files {
                if DocumentSupport.isICTPackage(path) || (schema != nil && PackageConversion.isDirectory(path)) {
                    reports.append(Self.checkDocument(path, schema: documentSchema))
                } else {
                    reports.append(Self.check(path))
                }
                progress.advance()
            }
            progress.clear()
            if json {
                try printJSON(reports)
            } else {
                var output = StandardOutput()
                for report in reports {
                    if report.isValid {
                        output.write("\(report.path): valid \(report.formatName)\n")
                    }
                    if !report.findings.isEmpty || !report.typeFindings.isEmpty || !report.documentFindings.isEmpty {
                        output.flush()
                        for finding in report.documentFindings { Diagnostics.printError(DocumentSupport.line(document: report.path, finding)) }
                        for finding in report.findings { Diagnostics.printError(Diagnostics.line(file: report.path, finding)) }
                        for finding in report.typeFindings { Diagnostics.printError(Self.line(file: report.path, finding)) }
                    }
                }
                output.flush()
            }
            if reports.contains(where: { !$0.isValid }) { throw ExitCode.failure }
        }

        struct FileReport {
            var path: String
            var format: PropertyListFormat?
            var isKeyedArchive = false
            var findings: [PropertyListError]
            /// The Info.plist declaration checks' findings, when the file is an Info.plist.
            var typeFindings: [TypeDeclarationFinding] = []
            /// The schema's name, when the path is a document package checked against one.
            var documentFormat: String?
            /// The document checks' findings.
            var documentFindings: [DocumentFinding] = []

            /// No property-list problem, no document finding and no declaration error (warnings allowed).
            var isValid: Bool { findings.isEmpty && documentFindings.isEmpty && !typeFindings.contains { $0.severity == .error } }

            var formatName: String {
                if let documentFormat { return documentFormat }
                if isKeyedArchive { return "keyed archive (\(format == .xml ? "XML" : "binary") property list)" }
                return switch format {
                case .binary: "binary property list"
                case .xml: "XML property list"
                case .openStep: "OpenStep property list"
                case .json: "JSON property list"
                case nil: "file"
                }
            }
        }

        /// The schema documents are checked against: --schema's, else the built-in `.ict` one.
        private func loadSchema() throws -> DocumentSchema {
            guard let schema else { return .ictDocument }
            do {
                let bytes = try DocumentSupport.readFile(schema)
                return try DocumentSchema(propertyListText: String(decoding: bytes, as: UTF8.self))
            } catch let error as PropertyListError {
                Diagnostics.printError(Diagnostics.line(file: schema, error))
            } catch let error as ICTDocumentError {
                Diagnostics.printError("\(schema): \(error.description)")
            }
            throw ExitCode.failure
        }

        static func checkDocument(_ path: String, schema: DocumentSchema) -> FileReport {
            let trimmed = DocumentSupport.trimmingTrailingSlashes(path)
            return FileReport(path: trimmed, format: nil, findings: [], documentFormat: schema.name,
                              documentFindings: DocumentValidator(schema: schema).validate(packageAt: trimmed))
        }

        static func check(_ path: String) -> FileReport {
            var report = FileReport(path: path, format: nil, findings: [])
            do {
                let file = try InputFile(path: path)
                try file.withBytes { bytes throws(PropertyListError) in
                    let hint: PropertyListFormat? = path.hasSuffix(".json") ? .json : nil
                    let (value, format) = try PropertyListReader().read(bytes, format: hint)
                    report.format = format
                    if TypeDeclarationSet.looksLikeInfoPlist(value) {
                        report.typeFindings = TypeDeclarationValidator().validate(TypeDeclarationSet(infoPlist: value, file: nil))
                    }
                    if KeyedArchive.looksLikeArchive(value) {
                        report.isKeyedArchive = true
                        var validator = KeyedArchiveValidator()
                        _ = validator.check(value)
                        report.findings += validator.problems.map(Self.finding)
                    }
                    if report.format == .xml {
                        report.findings += try XMLPropertyListValidator.propertyListDTD().validate(bytes)
                    }
                }
            } catch {
                report.findings.append(error)
            }
            return report
        }

        /// An archive's problem in the form findings are printed in.
        private static func finding(_ problem: KeyedArchiveError) -> PropertyListError {
            let message = problem.objectIndex.map { "\(problem.message) (object \($0))" } ?? problem.message
            return PropertyListError(.invalidObject, at: .none, keyPath: problem.keyPath, message)
        }

        private func printJSON(_ reports: [FileReport]) throws {
            let entries: [PropertyListValue] = reports.map { report in
                var entry: OrderedDictionary<String, PropertyListValue> = [
                    "path": .string(report.path),
                    "valid": .bool(report.isValid),
                ]
                if let format = report.format { entry["format"] = .string(format.rawValue) }
                if report.isKeyedArchive { entry["keyedArchive"] = true }
                if let documentFormat = report.documentFormat { entry["document"] = .string(documentFormat) }
                entry["findings"] = .array(report.findings.map(Self.findingValue) + report.documentFindings.map(Self.documentFindingValue))
                if !report.typeFindings.isEmpty {
                    entry["typeDeclarationFindings"] = .array(report.typeFindings.map(Self.typeFindingValue))
                }
                return .dictionary(entry)
            }
            let document: PropertyListValue = ["files": .array(entries)]
            var output = StandardOutput()
            output.write(String(decoding: try JSONPropertyListWriter(prettyPrinted: true).encode(document), as: UTF8.self))
            output.write("\n")
            output.flush()
        }

        /// `file: warning: message (at key path)`.
        static func line(file: String, _ finding: TypeDeclarationFinding) -> String {
            var text = "\(file): \(finding.severity.rawValue): \(finding.message)"
            if !finding.keyPath.components.isEmpty { text += " (at \(finding.keyPath))" }
            return text
        }

        private static func typeFindingValue(_ finding: TypeDeclarationFinding) -> PropertyListValue {
            var value: OrderedDictionary<String, PropertyListValue> = [
                "severity": .string(finding.severity.rawValue),
                "kind": .string(finding.kind.rawValue),
                "message": .string(finding.message),
            ]
            if !finding.keyPath.components.isEmpty { value["keyPath"] = .string(finding.keyPath.description) }
            return .dictionary(value)
        }

        private static func documentFindingValue(_ finding: DocumentFinding) -> PropertyListValue {
            var value: OrderedDictionary<String, PropertyListValue> = ["message": .string(finding.message)]
            if !finding.entry.isEmpty { value["entry"] = .string(finding.entry) }
            if !finding.keyPath.isEmpty { value["keyPath"] = .string(finding.keyPath) }
            return .dictionary(value)
        }

        private static func findingValue(_ error: PropertyListError) -> PropertyListValue {
            var finding: OrderedDictionary<String, PropertyListValue> = ["message": .string(error.message)]
            switch error.location {
            case .byteOffset(let offset): finding["byteOffset"] = .integer(PropertyListInteger(offset))
            case .lineColumn(let line, let column):
                finding["line"] = .integer(PropertyListInteger(line))
                finding["column"] = .integer(PropertyListInteger(column))
            case .none: break
            }
            if !error.keyPath.components.isEmpty { finding["keyPath"] = .string(error.keyPath.description) }
            return .dictionary(finding)
        }
    }
}
