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
            let registry = try sources.registry()
            var output = StandardOutput()
            let yes = registry.conforms(type, to: ancestor)
            output.write("\(type) \(yes ? "conforms" : "does not conform") to \(ancestor)\n")
            output.flush()
            if !yes { throw ExitCode.failure }
        }
    }
}
