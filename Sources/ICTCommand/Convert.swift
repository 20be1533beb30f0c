import ArgumentParser
import PropertyList

extension Ict {
    /// `ict convert`: one form of property list to another.
    struct Convert: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Convert a property list to XML, binary or JSON.",
            discussion: """
                The input is read in whatever form it is (binary, XML, OpenStep or \
                JSON) and never modified unless -o names it. A regular output file \
                is replaced in one step (written beside it, then renamed); a device \
                or pipe such as /dev/stdout is written directly.
                """
        )

        @Argument(help: "The property list to read, or - for standard input.")
        var input: String

        @Option(help: "The form to write.")
        var format: OutputFormat

        @Option(name: [.short, .customLong("output")],
                help: "Where to write: a file, a device, or - for standard output (the default).")
        var output: String?

        enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
            case xml1, binary1, json

            var propertyListFormat: PropertyListFormat {
                switch self {
                case .xml1: .xml
                case .binary1: .binary
                case .json: .json
                }
            }
        }

        func run() throws {
            let destination = output ?? "-"
            if format == .binary1, output == nil, OutputFile.isTerminal("-") {
                Diagnostics.printError("ict: binary output is not written to a terminal; name a file with -o (or -o - to insist)")
                throw ExitCode.failure
            }
            let bytes: [UInt8]
            do {
                let file = try InputFile(path: input)
                let hint: PropertyListFormat? = input.hasSuffix(".json") ? .json : nil
                let value = try file.withBytes { bytes throws(PropertyListError) in
                    try PropertyListReader().read(bytes, format: hint).value
                }
                do {
                    bytes = try PropertyListWriter().encode(value, format: format.propertyListFormat)
                } catch {
                    Diagnostics.printError(Diagnostics.line(file: destination == "-" ? "<stdout>" : destination, error))
                    throw ExitCode.failure
                }
            } catch let error as PropertyListError {
                Diagnostics.printError(Diagnostics.line(file: input == "-" ? "<stdin>" : input, error))
                throw ExitCode.failure
            }
            do {
                try OutputFile.write(bytes, to: destination)
            } catch {
                Diagnostics.printError("ict: \(error.description)")
                throw ExitCode.failure
            }
        }
    }
}
