import ArgumentParser
import UniformTypes

extension Ict.Types {
    /// `ict types conforms`: does one type conform to another?
    struct Conforms: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Test whether type A conforms to type B (transitively, or by being it).",
            discussion: "Exit status: 0 yes, 1 no."
        )

        @Argument(help: "The type to test.")
        var type: String

        @Argument(help: "The type it may conform to.")
        var ancestor: String

        @OptionGroup var sources: TypeSources

        func run() throws {
            let report = Self.report(json: sources.json)
            let registry = try sources.registry(report, describing: false)
            let yes = registry.conforms(type, to: ancestor)
            report["type"] = .string(type)
            report["conformsTo"] = .string(ancestor)
            report["conforms"] = .bool(yes)
            if !sources.json {
                var output = StandardOutput()
                output.write("\(type) \(yes ? "conforms" : "does not conform") to \(ancestor)\n")
                output.flush()
            }
            report.answeredNo = !yes
            try report.finish()
        }
    }
}

extension Ict.Types.Conforms: ReportingCommand {
    static let reportName = "types conforms"
    static let reportFields = ["type", "conformsTo", "conforms"]
}
