import ArgumentParser
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
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
            let value: PropertyListValue
            do {
                let file = try InputFile(path: input)
                let hint: PropertyListFormat? = input.hasSuffix(".json") ? .json : nil
                value = try file.withBytes { bytes throws(PropertyListError) in
                    try PropertyListReader().read(bytes, format: hint).value
                }
            } catch {
                Diagnostics.printError(Diagnostics.line(file: input == "-" ? "<stdin>" : input, error))
                throw ExitCode.failure
            }
            do {
                let sink = try OutputFile(path: destination)
                do {
                    try write(value, to: sink)
                } catch {
                    sink.abandon()
                    Diagnostics.printError(Diagnostics.line(file: destination == "-" ? "<stdout>" : destination, error))
                    throw ExitCode.failure
                }
                try sink.commit()
            } catch let failure as OutputFile.Failure {
                Diagnostics.printError("ict: \(failure.description)")
                throw ExitCode.failure
            }
            // The value may be a tree of millions of nodes: leave freeing it to
            // the system rather than walking it once more on the way out.
            #if canImport(Glibc)
            Glibc.exit(EXIT_SUCCESS)
            #else
            Darwin.exit(EXIT_SUCCESS)
            #endif
        }

        /// Encodes `value` in the chosen form into `sink`: XML in pieces as
        /// it is produced, the other forms whole.
        private func write(_ value: PropertyListValue, to sink: OutputFile) throws(PropertyListError) {
            func put(_ bytes: UnsafeRawBufferPointer) throws(PropertyListError) {
                do {
                    try sink.write(bytes)
                } catch {
                    throw PropertyListError(.io, at: .none, error.description)
                }
            }
            switch format {
            case .xml1:
                try XMLPropertyListWriter().encode(value, to: put)
            case .binary1, .json:
                var bytes = try PropertyListWriter().encode(value, format: format.propertyListFormat)
                // A JSON text file ends with a newline, as XML property lists do.
                if format == .json { bytes.append(UInt8(ascii: "\n")) }
                let result: Result<Void, PropertyListError> = bytes.withUnsafeBytes { buffer in
                    Result { () throws(PropertyListError) in try put(buffer) }
                }
                try result.get()
            }
        }
    }
}
