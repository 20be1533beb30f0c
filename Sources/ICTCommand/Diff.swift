import ArgumentParser
import DocumentFormats
import ICTKitTooling
import KeyedArchive
import OrderedCollections
import PackageFormat
import PropertyList
import UniformTypes

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Ict {
    /// `ict diff`: where two property lists, keyed archives, packages or
    /// `.ict` documents differ, by key path.
    struct Diff: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "diff",
            abstract: "Show where two property lists, keyed archives, packages or .ict documents differ, by key path.",
            discussion: """
                Property lists are compared by value, whatever their forms (a binary file \
                and its XML conversion are equal); keyed archives by object graph from \
                $top (objects by class and fields, not by their numbers in $objects); \
                packages entry by entry, then by value for entries that are property lists; \
                .ict documents field by field (ENTRY:KEY), keys ict does not know by \
                their archived objects. Each difference prints as \
                '- PATH: OLD', '+ PATH: NEW' or '~ PATH: OLD → NEW'. Exit status: 0 when \
                they are equal, 1 when they differ or one cannot be read, as diff(1). \
                Given git's seven external-diff arguments (PATH OLD-FILE OLD-HEX OLD-MODE \
                NEW-FILE NEW-HEX NEW-MODE), it compares the two files (see the README).
                """
        )

        @Argument(help: "The first and the second (or git's seven external-diff arguments).")
        var paths: [String] = []

        @Flag(help: "Print one JSON document for programs (Schemas/cli/diff.schema.json).")
        var json = false

        func validate() throws {
            guard paths.count == 2 || paths.count == 7 else {
                throw ValidationError("name two files, packages or documents to compare")
            }
        }

        func run() throws {
            let report = Self.report(json: json)
            // git diff's external-diff protocol: the old and new files are the second and fifth.
            let (old, new) = paths.count == 7 ? (paths[1], paths[4]) : (paths[0], paths[1])
            report.fields.old = old
            report.fields.new = new
            let differences: [PackageDifference]
            do throws(Problem) {
                differences = try Diffing.differences(old, new)
            } catch {
                throw report.fail(error)
            }
            report.fields.differences = differences.map(\.jsonForm)
            if !json {
                var output = StandardOutput()
                if paths.count == 7 { output.writeLine("ict diff \(paths[0])") }
                for difference in differences { output.writeLine(difference.line) }
                output.flush()
            }
            report.answeredNo = !differences.isEmpty
            try report.finish()
        }
    }
}

extension Ict.Diff: TypedReportingCommand {
    static let reportName = "diff"

    /// `Schemas/cli/diff.schema.json`.
    typealias Fields = Diffing.Fields
}
