import ArgumentParser
import DocumentPackage
import PropertyList

extension Ict {
    /// `ict convert`: one form of property list to another.
    struct Convert: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Convert a property list to XML, binary or JSON, or a package to a zip and back.",
            discussion: """
                The input is read in whatever form it is (binary, XML, OpenStep or \
                JSON) and never modified unless -o names it. A regular output file \
                is replaced in one step (written beside it, then renamed); a device \
                or pipe such as /dev/stdout is written directly.

                A package directory converts with --format zip to a zip holding the \
                package under its name (default output: PACKAGE.zip beside it). A zip \
                converts back with --format package (default output: the package's \
                name beside the zip); entries that would land outside the package, \
                absolute paths and links pointing outside are refused, and nothing is \
                left behind when the zip is refused. An existing package is not replaced.
                """
        )

        @Argument(help: "The property list, package directory or zip to read, or - for standard input.")
        var input: String

        @Option(help: "The form to write.")
        var format: OutputFormat

        @Option(name: [.short, .customLong("output")],
                help: "Where to write: a file, a device, or - for standard output (the default for property lists).")
        var output: String?

        enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
            case xml1, binary1, json, zip, package

            /// The property-list form, or nil for the package conversions.
            var propertyListFormat: PropertyListFormat? {
                switch self {
                case .xml1: .xml
                case .binary1: .binary
                case .json: .json
                case .zip, .package: nil
                }
            }
        }

        func validate() throws {
            let inputIsPackage = input != "-" && PackageConversion.isDirectory(input)
            let inputIsZip = input != "-" && !inputIsPackage && PackageConversion.isZip(input)
            switch format {
            case .zip:
                guard inputIsPackage else { throw ValidationError("--format zip needs a package directory; \(input) is not one") }
                if output == "-" { throw ValidationError("a zip is written to a file, not standard output; name one with -o") }
            case .package:
                guard inputIsZip else { throw ValidationError("--format package needs a zip archive; \(input) is not one") }
                if output == "-" { throw ValidationError("a package is a directory, not standard output; name one with -o") }
            case .xml1, .binary1, .json:
                if inputIsPackage { throw ValidationError("\(input) is a package directory; convert it with --format zip") }
                if inputIsZip { throw ValidationError("\(input) is a zip archive; restore its package with --format package") }
            }
        }

        func run() throws {
            guard let propertyListFormat = format.propertyListFormat else {
                do {
                    if format == .zip {
                        try PackageConversion.zip(packageAt: input, to: output)
                    } else {
                        try PackageConversion.unzip(input, to: output)
                    }
                } catch {
                    Diagnostics.printError("ict: \(error.description)")
                    throw ExitCode.failure
                }
                return
            }
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
                    let encoded = try PropertyListWriter().encode(value, format: propertyListFormat)
                    // A JSON text file ends with a newline, as XML property lists do.
                    bytes = format == .json ? encoded + [UInt8(ascii: "\n")] : encoded
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
