import ArgumentParser
import DocumentFormats
import EmbeddedLayers
import ICTKitTooling
import KeyedArchive
import PropertyList
import SystemSupport

extension Ict {
    /// `ict insert`: add a value at a key path.
    struct Insert: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "insert",
            abstract: "Add a value at a key path (a new key, or into an array at an index; its count appends).",
            discussion: """
                As plutil -insert: a key that exists is an error (use set to replace it); \
                --append adds to the end of the array at the key path. Every container on \
                the way must exist. The file is written back in its own form, safely.
                """
        )

        @OptionGroup var arguments: KeyPathArguments
        @OptionGroup var value: TypedValueOptions
        @OptionGroup var links: LinkOptions

        @Flag(name: [.customLong("append"), .customLong("append", withSingleDash: true)], help: "Append to the array at the key path.")
        var append = false

        func validate() throws { _ = try value.value() }

        func run() throws {
            let newValue = try value.value()
            try KeyPathEdit.run(
                Self.self, links.documentPath(arguments.file), keyPath: arguments.keyPath, limits: arguments.input.limits, json: arguments.json,
                followingLast: false
            ) { propertyList, keyPath throws(PropertyListKeyPathError) in
                try propertyList.setValue(newValue, at: keyPath, mode: append ? .append : .insert)
            }
        }
    }
}

extension Ict.Insert: TypedReportingCommand {
    static let reportName = "insert"
    typealias Fields = KeyPathEditFields
}

/// The fields of `ict insert`, `remove` and `set FILE KEYPATH` (`Schemas/cli/insert.schema.json`, …).
struct KeyPathEditFields: KeyPathReportFields {
    var path: String?
    var keyPath: String?
    /// Whether the edit changed the value, so the file was written.
    var changed: Bool?
}

/// The run of an editing command: read, edit, write back, report.
enum KeyPathEdit {
    /// `edit` gets the property list the key path ends in (the file's, or
    /// one in a data value reached by `!` steps, written back in its own
    /// form) and the path there, references followed (the last one only
    /// when `followingLast`).
    static func run(
        _ command: ReportingCommand.Type, _ file: String, keyPath: String, limits: PropertyListLimits, json: Bool, followingLast: Bool,
        _ edit: (inout PropertyListValue, PropertyListKeyPath) throws(PropertyListKeyPathError) -> Void
    ) throws {
        let report = TypedReport<KeyPathEditFields>(command: command.reportName, json: json)
        // Held from reading to writing back: concurrent edits of one file by ict take turns, none lost.
        let lock = try ItemLockSupport.exclusive(KeyPathAddress.lockPath(file), report: report)
        defer { lock?.release() }
        let opened = try KeyPathTarget.open(file, keyPath: keyPath, limits: limits, for: .editingInPlace, report: report)
        var target = opened.target
        let before = target.propertyList
        do throws(EmbeddedKeyPathError) {
            try target.edit(followingLast: followingLast, edit)
        } catch {
            throw report.fail(target.problem(error.message))
        }
        let changed = target.propertyList != before
        if changed {
            do throws(Problem) { try target.save(expecting: opened.stamp) } catch { throw report.fail(error) }
        }
        report.fields.changed = changed
        if !json { StandardOutput.printLine("\(file): \(changed ? "saved" : "unchanged")") }
        try report.finish()
    }
}
