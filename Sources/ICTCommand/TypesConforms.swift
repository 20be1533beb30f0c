import ArgumentParser
import ICTKitTooling
import UniformTypes

extension Ict.Types {
    /// `ict types conforms`: does one type conform to another?
    struct Conforms: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "conforms",
            abstract: "Test whether type A conforms to type B (transitively, or by being it).",
            discussion: "Exit status: 0 yes, 1 no."
        )

        @Argument(help: "The type to test.")
        var type: String

        @Argument(help: "The type it may conform to.")
        var ancestor: String

        @OptionGroup var sources: TypeSources

        func run() throws {
            try ConformsJob(
                type: type, ancestor: ancestor, declarationFiles: sources.declarationFiles,
                sharedMimeInfo: !sources.noSharedMimeInfo, json: sources.json
            ).run()
        }
    }

    /// One `ict types conforms` as the command line asked for it, without
    /// argument-parser's property wrappers (see `QuickCommand`).
    struct ConformsJob {
        var type: String
        var ancestor: String
        var declarationFiles: [String] = []
        var sharedMimeInfo = true
        var json = false

        func run() throws {
            let report = Conforms.report(json: json)
            let graph = try TypeSources.conformanceGraph(declarationFiles: declarationFiles, sharedMimeInfo: sharedMimeInfo, report)
            let yes = graph.conforms(type, to: ancestor)
            report.fields.type = type
            report.fields.conformsTo = ancestor
            report.fields.conforms = yes
            if !json {
                var output = StandardOutput()
                output.writeLine("\(type) \(yes ? "conforms" : "does not conform") to \(ancestor)")
                output.flush()
            }
            report.answeredNo = !yes
            try report.finish()
        }
    }
}

extension Ict.Types.Conforms: TypedReportingCommand {
    static let reportName = "types conforms"

    /// `Schemas/cli/types-conforms.schema.json`.
    struct Fields: ReportFields {
        /// The type asked about, and the one it may conform to.
        var type: String?
        var conformsTo: String?
        var conforms: Bool?
    }
}
