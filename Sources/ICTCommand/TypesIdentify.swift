import ArgumentParser
import ICTKitTooling
import PropertyList
import UniformTypes

extension Ict.Types {
    /// `ict types identify`: the type of each file or directory.
    struct Identify: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "identify",
            abstract: "Name the type of files and directories.",
            discussion: """
                A directory with a package extension (.ict, .app, .rtfd…) is that package type, \
                any other directory public.folder; property lists are recognised by content. \
                Prints path: identifier (description). Exit status: 0, or 1 when a path cannot be examined.
                """
        )

        @Argument(help: "The files and directories to identify.")
        var paths: [String] = []

        @OptionGroup var sources: TypeSources

        func validate() throws {
            guard !paths.isEmpty else { throw ValidationError("name at least one path to identify") }
        }

        func run() throws {
            let report = Self.report(json: sources.json)
            let registry = try sources.registry(report)
            var output = StandardOutput()
            var items: [Fields.Item] = []
            for path in paths {
                switch Result(catching: { () throws(UniformTypeError) in try registry.identifyItem(atPath: path) }) {
                case .success(let type):
                    items.append(Fields.Item(path: path, type: TypeJSONForm(type, registry: registry)))
                    if !sources.json {
                        output.writeLine("\(path): \(type.identifier)" + (type.typeDescription.map { " (\($0))" } ?? ""))
                    }
                case .failure(let error):
                    output.flush()
                    items.append(Fields.Item(path: path, type: nil))
                    report.add(Problem(path: path, error))
                }
            }
            output.flush()
            report.fields.items = items
            try report.finish()
        }
    }
}

extension Ict.Types.Identify: TypedReportingCommand {
    static let reportName = "types identify"

    /// `Schemas/cli/types-identify.schema.json`.
    struct Fields: ReportFields {
        /// One path named, and its type (null when it could not be examined).
        struct Item: Encodable {
            var path: String
            var type: TypeJSONForm?
        }

        var items: [Item]?
    }
}
