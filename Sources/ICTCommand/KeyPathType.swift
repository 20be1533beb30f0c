import ArgumentParser
import ICTKitTooling
import PropertyList

extension Ict {
    /// `ict type`: the type of the value at a key path.
    struct KeyPathType: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "type",
            abstract: "Print the type of the value at a key path: bool, integer, float, string, date, data, array or dictionary.",
            discussion: "As plutil -type KEYPATH; a UID of a binary keyed archive is uid. Nothing there: exit status 1."
        )

        @OptionGroup var arguments: KeyPathArguments

        func run() throws {
            let report = Self.report(json: arguments.json)
            let target = try arguments.target(report)
            let value: PropertyListValue
            do throws(Problem) { value = try target.foundValue() } catch { throw report.fail(error) }
            report.fields.type = ValueTypeName.of(value)
            if !arguments.json { StandardOutput.printLine(ValueTypeName.of(value)) }
            try report.finish()
        }
    }
}

extension Ict.KeyPathType: TypedReportingCommand {
    static let reportName = "type"

    /// `Schemas/cli/type.schema.json`.
    struct Fields: KeyPathReportFields {
        var path: String?
        var keyPath: String?
        /// `plutil`'s name of the value's type (`ValueTypeName`).
        var type: String?
    }
}
