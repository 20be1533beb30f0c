import ICTKitTooling

/// A `ReportingCommand` whose fields are a `ReportFields` struct.
protocol TypedReportingCommand: ReportingCommand {
    associatedtype Fields: ReportFields
}

extension TypedReportingCommand {
    static var reportFields: [String] { Fields.fieldNames }

    /// A report for one run of this command (with `jsonLines`, a line for each file).
    static func report(json: Bool, jsonLines: Bool = false) -> TypedReport<Fields> {
        // The line fields only for lines: a command's `LineFields.fieldNames` encodes a value (`TypedReport`'s cost).
        TypedReport(command: reportName, json: json, jsonLines: jsonLines, lineFields: jsonLines ? lineFields : [])
    }
}
