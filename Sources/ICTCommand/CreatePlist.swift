import ArgumentParser
import FileCoordination
import ICTKitTooling
import PropertyList
import SystemSupport

extension Ict {
    /// `ict create-plist`: a new property list holding an empty dictionary.
    struct CreatePlist: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create-plist",
            abstract: "Create a property list holding an empty dictionary (plutil -create); an existing file is never replaced.",
            discussion: "Fill it with ict set and ict insert. ict create makes .ict documents."
        )

        enum Format: String, ExpressibleByArgument, CaseIterable {
            case xml1, binary1, json
        }

        @Argument(help: "The new file ('-' is standard output).")
        var file: String

        @Option(help: "xml1, binary1 or json.")
        var format: Format = .xml1

        @Flag(help: "Print one JSON document for programs (Schemas/cli/create-plist.schema.json).")
        var json = false

        func validate() throws {
            if json, file == "-" { throw ValidationError("--json needs a file: standard output carries the report") }
        }

        func run() throws {
            let report = Self.report(json: json)
            report.fields.path = file
            report.fields.format = format.rawValue
            if file != "-", (try? FileInfo.of(path: file)) != nil {
                throw report.fail(Problem(path: file, "already exists; ict create-plist never replaces a file"))
            }
            let empty = PropertyListValue.dictionary([:])
            let bytes: [UInt8]
            switch format {
            case .xml1: bytes = try XMLPropertyListWriter().encode(empty)
            case .binary1: bytes = try BinaryPropertyListWriter().encode(empty)
            case .json: bytes = try JSONPropertyListWriter().encode(empty) + [UInt8(ascii: "\n")]
            }
            do {
                if file == "-" {
                    try OutputFile.write(bytes, to: file)
                } else {
                    try FileCoordinator().coordinate(writing: file, options: .forReplacing) { try OutputFile.write(bytes, to: $0) }
                }
            } catch {
                throw report.fail(Problem(path: Problem.outputName(file), "\(error)"))
            }
            if !json, file != "-" { StandardOutput.printLine(file) }
            try report.finish()
        }
    }
}

extension Ict.CreatePlist: TypedReportingCommand {
    static let reportName = "create-plist"

    /// `Schemas/cli/create-plist.schema.json`.
    struct Fields: ReportFields {
        /// The file made, or `-`.
        var path: String?
        /// xml1, binary1 or json.
        var format: String?
    }
}
