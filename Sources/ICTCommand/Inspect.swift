import ArgumentParser
import PropertyList

extension Ict {
    /// `ict inspect`: what is inside a file, as a tree for people or JSON for programs.
    struct Inspect: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show what a property list holds, as a tree.",
            discussion: "With --json, prints the lossless JSON form instead (see Schemas/property-list.schema.json)."
        )

        @Argument(help: "The file to inspect, or - for standard input.")
        var input: String

        @Flag(help: "Print JSON for programs instead of a tree.")
        var json = false

        func run() throws {
            let value: PropertyListValue
            do {
                let file = try InputFile(path: input)
                value = try file.withBytes { bytes throws(PropertyListError) in
                    try PropertyListReader().read(bytes, format: input.hasSuffix(".json") ? .json : nil).value
                }
            } catch let error as PropertyListError {
                Diagnostics.printError(Diagnostics.line(file: input == "-" ? "<stdin>" : input, error))
                throw ExitCode.failure
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
    }
}
