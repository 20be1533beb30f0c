import ArgumentParser
import DocumentPackage
import ICTDocument
import KeyedArchive
import PropertyList

extension Ict {
    /// `ict inspect`: what is inside a file, as a tree for people or JSON for programs.
    struct Inspect: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show what a property list, keyed archive or document package holds, as a tree.",
            discussion: """
                With --json, prints the lossless JSON form instead (see Schemas/property-list.schema.json). \
                A keyed archive (a property list whose top dictionary has $archiver or $objects) is shown \
                as its object graph: class names, fields and values; an object reached again is marked \
                shared, one reached from inside itself cycle, and neither is expanded again. With --json, \
                the same graph as one JSON document. \
                A directory is inspected as a package: each entry with its size and kind (property list, \
                keyed archive, PNG image, text, other), recognised from its first 4 KB only; with --json, \
                one document {"package", "entries": [{"path", "type", "size", "kind" | "destination"}]}. \
                A directory ending in .ict is inspected as a document: display name, version, thumbnail \
                size and entry sizes, reading only the metadata entry; --data reads the data entry too \
                and shows the fields and the photo's size.
                """
        )

        @Argument(help: "The file to inspect, or - for standard input.")
        var input: String

        @Flag(help: "Print JSON for programs instead of a tree.")
        var json = false

        @Flag(help: "For an .ict document, also read the data entry and show its fields.")
        var data = false

        func run() throws {
            if input != "-", DocumentSupport.isDocument(input) {
                try inspectDocument()
                return
            }
            if input != "-", PackageConversion.isDirectory(input) {
                try inspectPackage()
                return
            }
            let value: PropertyListValue
            do {
                let file = try InputFile(path: input)
                value = try file.withBytes { bytes throws(PropertyListError) in
                    try PropertyListReader().read(bytes, format: input.hasSuffix(".json") ? .json : nil).value
                }
            } catch {
                Diagnostics.printError(Diagnostics.line(file: input == "-" ? "<stdin>" : input, error))
                throw ExitCode.failure
            }
            if KeyedArchive.looksLikeArchive(value) {
                try show(archiveFrom: value)
                return
            }
            if json {
                let bytes = try JSONPropertyListWriter(prettyPrinted: true).encode(value)
                var output = StandardOutput()
                output.write(String(decoding: bytes, as: UTF8.self))
                output.write("\n")
                output.flush()
            } else {
                var printer = TreePrinter()
                printer.print(value)
            }
        }

        private func show(archiveFrom value: PropertyListValue) throws {
            let archive: KeyedArchive
            do {
                archive = try KeyedArchive(propertyList: value)
            } catch {
                Diagnostics.printError(Diagnostics.line(file: input == "-" ? "<stdin>" : input, error))
                throw ExitCode.failure
            }
            if json {
                let bytes = try JSONPropertyListWriter(prettyPrinted: true).encode(ArchiveGraphView.jsonValue(archive))
                var output = StandardOutput()
                output.write(String(decoding: bytes, as: UTF8.self))
                output.write("\n")
                output.flush()
            } else {
                ArchiveGraphView.printTree(archive)
            }
        }

        private func inspectDocument() throws {
            let path = DocumentSupport.trimmingTrailingSlashes(input)
            let inspection: DocumentInspection
            do {
                inspection = try DocumentInspection(path: path, readingData: data)
            } catch {
                throw DocumentSupport.fail(document: path, error)
            }
            var output = StandardOutput()
            if json {
                output.write(String(decoding: try JSONPropertyListWriter(prettyPrinted: true).encode(inspection.jsonValue()), as: UTF8.self))
                output.write("\n")
            } else {
                output.write(inspection.text())
            }
            output.flush()
        }

        private func inspectPackage() throws {
            let inspection: PackageInspection
            do {
                inspection = try PackageInspection(path: input)
            } catch {
                Diagnostics.printError("ict: \(error.description)")
                throw ExitCode.failure
            }
            var output = StandardOutput()
            if json {
                output.write(String(decoding: try JSONPropertyListWriter(prettyPrinted: true).encode(inspection.jsonValue()), as: UTF8.self))
                output.write("\n")
            } else {
                output.write(inspection.treeText())
            }
            output.flush()
        }
    }
}
