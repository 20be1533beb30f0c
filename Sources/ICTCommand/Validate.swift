import ArgumentParser
import OrderedCollections
import PropertyList

extension Ict {
    /// `ict validate`: are these files well-formed and structurally valid?
    struct Validate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check that files are well-formed, valid property lists.",
            discussion: """
                Binary, XML, OpenStep and JSON property lists are read in full; XML \
                is also checked against the property-list DTD (Schemas/PropertyList-1.0.dtd). \
                Each problem prints as file:location: message on standard error. \
                Exit status: 0 all valid, 1 any invalid, 64 usage.
                """
        )

        @Argument(help: "The files to check.")
        var files: [String] = []

        @Flag(help: "Print one JSON document describing every file, for programs.")
        var json = false

        func validate() throws {
            guard !files.isEmpty else { throw ValidationError("name at least one file to validate") }
        }

        func run() throws {
            var reports: [FileReport] = []
            for path in files {
                reports.append(Self.check(path))
            }
            if json {
                try printJSON(reports)
            } else {
                var output = StandardOutput()
                for report in reports {
                    if report.findings.isEmpty {
                        output.write("\(report.path): valid \(report.formatName)\n")
                    } else {
                        output.flush()
                        for finding in report.findings { Diagnostics.printError(Diagnostics.line(file: report.path, finding)) }
                    }
                }
                output.flush()
            }
            if reports.contains(where: { !$0.findings.isEmpty }) { throw ExitCode.failure }
        }

        struct FileReport {
            var path: String
            var format: PropertyListFormat?
            var findings: [PropertyListError]

            var formatName: String {
                switch format {
                case .binary: "binary property list"
                case .xml: "XML property list"
                case .openStep: "OpenStep property list"
                case .json: "JSON property list"
                case nil: "file"
                }
            }
        }

        static func check(_ path: String) -> FileReport {
            var report = FileReport(path: path, format: nil, findings: [])
            do {
                let file = try InputFile(path: path)
                try file.withBytes { bytes throws(PropertyListError) in
                    let hint: PropertyListFormat? = path.hasSuffix(".json") ? .json : nil
                    report.format = try PropertyListReader().read(bytes, format: hint).format
                    if report.format == .xml {
                        report.findings += try XMLPropertyListValidator.propertyListDTD().validate(bytes)
                    }
                }
            } catch {
                report.findings.append(error)
            }
            return report
        }

        private func printJSON(_ reports: [FileReport]) throws {
            let entries: [PropertyListValue] = reports.map { report in
                var entry: OrderedDictionary<String, PropertyListValue> = [
                    "path": .string(report.path),
                    "valid": .bool(report.findings.isEmpty),
                ]
                if let format = report.format { entry["format"] = .string(format.rawValue) }
                entry["findings"] = .array(report.findings.map(Self.findingValue))
                return .dictionary(entry)
            }
            let document: PropertyListValue = ["files": .array(entries)]
            var output = StandardOutput()
            output.write(String(decoding: try JSONPropertyListWriter(prettyPrinted: true).encode(document), as: UTF8.self))
            output.write("\n")
            output.flush()
        }

        private static func findingValue(_ error: PropertyListError) -> PropertyListValue {
            var finding: OrderedDictionary<String, PropertyListValue> = ["message": .string(error.message)]
            switch error.location {
            case .byteOffset(let offset): finding["byteOffset"] = .integer(PropertyListInteger(offset))
            case .lineColumn(let line, let column):
                finding["line"] = .integer(PropertyListInteger(line))
                finding["column"] = .integer(PropertyListInteger(column))
            case .none: break
            }
            if !error.keyPath.components.isEmpty { finding["keyPath"] = .string(error.keyPath.description) }
            return .dictionary(finding)
        }
    }
}
