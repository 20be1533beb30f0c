import ArgumentParser
import ICTKitTooling
import UniformTypes

extension Ict.Types {
    /// `ict types lookup`: the types a filename extension or MIME type names.
    struct Lookup: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "lookup",
            abstract: "List the types for a filename extension or MIME type, best first.",
            discussion: """
                Prints identifier, origin (system, exported, imported, dynamic) and description, \
                one type a line. A tag nobody declares gives its dynamic type (dyn.…). \
                Exit status: 0 when a type is found, 1 when none conforms to --conforming-to.
                """
        )

        @Option(name: .customLong("extension"), help: "A filename extension, without the dot.")
        var filenameExtension: String?

        @Option(name: .customLong("mime-type"), help: "A MIME type.")
        var mimeType: String?

        @Option(help: "Keep only types conforming to this identifier.")
        var conformingTo: String?

        @OptionGroup var sources: TypeSources

        func validate() throws {
            guard (filenameExtension == nil) != (mimeType == nil) else {
                throw ValidationError("give exactly one of --extension and --mime-type")
            }
        }

        func run() throws {
            let report = Self.report(json: sources.json)
            let registry = try sources.registry(report)
            let types =
                if let filenameExtension {
                    registry.types(forTag: filenameExtension, tagClass: .filenameExtension, conformingTo: conformingTo)
                } else {
                    registry.types(forTag: mimeType ?? "", tagClass: .mimeType, conformingTo: conformingTo)
                }
            report.fields.types = types.map { TypeJSONForm($0, registry: registry) }
            if !sources.json {
                var output = StandardOutput()
                for type in types { output.write(typeSummary(type) + "\n") }
                output.flush()
            }
            report.answeredNo = types.isEmpty
            try report.finish()
        }
    }
}

extension Ict.Types.Lookup: TypedReportingCommand {
    static let reportName = "types lookup"

    /// `Schemas/cli/types-lookup.schema.json`.
    struct Fields: ReportFields {
        var types: [TypeJSONForm]?
    }
}
