import ArgumentParser
import DocumentPackage
import ICTDocument
import KeyedArchive
import OrderedCollections
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
                differences = try Self.differences(old, new)
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

        /// The differences between `old` and `new`, each a file, a package or a document.
        static func differences(_ old: String, _ new: String) throws(Problem) -> [PackageDifference] {
            let oldIsFolder = ContentSniffer.typeIdentifier(ofItemAtPath: old) == "public.directory"
            let newIsFolder = ContentSniffer.typeIdentifier(ofItemAtPath: new) == "public.directory"
            if oldIsFolder != newIsFolder {
                throw Problem(path: newIsFolder ? old : new, "is a file and the other is a folder; compare two files or two packages")
            }
            guard oldIsFolder else {
                return PropertyListDifference.between(try comparable(file: old), try comparable(file: new)).map {
                    PackageDifference(entry: nil, change: $0)
                }
            }
            let documents = ICTDocumentFormat.isDocument(atPath: old) && ICTDocumentFormat.isDocument(atPath: new)
            let first = try comparable(old, asDocument: documents), second = try comparable(new, asDocument: documents)
            return second.differences(from: first)
        }

        /// A file as compared: a property list's value, a keyed archive's graph.
        static func comparable(file path: String) throws(Problem) -> PropertyListValue {
            let value: PropertyListValue
            let input: InputFile
            do {
                input = try InputFile(path: path)
                value = try input.withBytes { bytes throws(PropertyListError) in try PropertyListReader().read(bytes).value }
            } catch {
                throw Problem(path: path, error)
            }
            guard KeyedArchiveObjectGraph.looksLikeArchive(value) else { return value }
            do {
                return try KeyedArchiveTree.comparableValue(try KeyedArchiveObjectGraph(propertyList: value))
            } catch {
                throw Problem(file: input, error)
            }
        }

        /// A package or a document as compared, read now, or a problem at it.
        static func comparable(_ path: String, asDocument: Bool) throws(Problem) -> ComparablePackage {
            do throws(ICTDocumentError) {
                return asDocument ? try ComparablePackage(documentAt: path) : try ComparablePackage(packageAt: path)
            } catch {
                if let packageError = error.packageError, !asDocument { throw Problem(path: path, packageError) }
                throw Problem(document: DocumentSupport.trimmingTrailingSlashes(path), error)
            }
        }
    }
}

/// A difference as `ict diff` prints it, for people (`line`) and programs (`jsonForm`).
extension PackageDifference {
    var place: String {
        let keyPath = KeyPathText.abbreviated(change.keyPath) ?? ""
        guard let entry else { return keyPath.isEmpty ? "(the whole value)" : keyPath }
        return keyPath.isEmpty ? entry : "\(entry):\(keyPath)"
    }

    var line: String {
        switch change.kind {
        case .removed: "- \(place): \(Self.text(change.old))"
        case .added: "+ \(place): \(Self.text(change.new))"
        case .changed: "~ \(place): \(Self.text(change.old)) → \(Self.text(change.new))"
        }
    }

    /// A difference in `ict diff --json` (`Schemas/cli/diff.schema.json`).
    struct JSONForm: Encodable {
        var kind: String
        var entry: String?
        var keyPath: String?
        var old: JSONValue
        var new: JSONValue
    }

    var jsonForm: JSONForm {
        JSONForm(
            kind: change.kind.rawValue, entry: entry, keyPath: KeyPathText.abbreviated(change.keyPath),
            old: change.old.map(JSONValue.propertyList) ?? .null, new: change.new.map(JSONValue.propertyList) ?? .null)
    }

    /// A value on one line: its compact JSON form, data as its size, cut at 100 characters.
    static func text(_ value: PropertyListValue?) -> String {
        guard let value else { return "" }
        if case .data(let bytes) = value { return "<\(bytes.count) bytes of data>" }
        let json = (try? JSONPropertyListWriter(prettyPrinted: false).encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "?"
        return json.count > 100 ? String(json.prefix(97)) + "…" : json
    }
}

extension Ict.Diff: TypedReportingCommand {
    static let reportName = "diff"

    /// `Schemas/cli/diff.schema.json`.
    struct Fields: ReportFields {
        /// The two files compared, as named.
        var old: String?
        var new: String?
        var differences: [PackageDifference.JSONForm]?
    }
}
