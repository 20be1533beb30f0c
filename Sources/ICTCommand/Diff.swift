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
                .ict documents field by field (ENTRY:KEY). Each difference prints as \
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
            report["old"] = .string(old)
            report["new"] = .string(new)
            let differences: [Difference]
            do throws(Problem) {
                differences = try Self.differences(old, new)
            } catch {
                throw report.fail(error)
            }
            report["differences"] = .array(differences.map(\.jsonValue))
            if !json {
                var output = StandardOutput()
                if paths.count == 7 { output.writeLine("ict diff \(paths[0])") }
                for difference in differences { output.writeLine(difference.line) }
                output.flush()
            }
            report.answeredNo = !differences.isEmpty
            try report.finish()
        }

        /// One difference, with the package entry it is in when there is one.
        struct Difference {
            var entry: String?
            var change: PropertyListDifference

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

            var jsonValue: JSONValue {
                .object([
                    ("kind", .string(change.kind.rawValue)), ("entry", .optional(entry)),
                    ("keyPath", .optional(KeyPathText.abbreviated(change.keyPath))),
                    ("old", change.old.map(JSONValue.propertyList) ?? .null), ("new", change.new.map(JSONValue.propertyList) ?? .null),
                ])
            }

            /// A value on one line: its compact JSON form, data as its size, cut at 100 characters.
            static func text(_ value: PropertyListValue?) -> String {
                guard let value else { return "" }
                if case .data(let bytes) = value { return "<\(bytes.count) bytes of data>" }
                let json = (try? JSONPropertyListWriter(prettyPrinted: false).encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "?"
                return json.count > 100 ? String(json.prefix(97)) + "…" : json
            }
        }

        /// The differences between `old` and `new`, each a file, a package or a document.
        static func differences(_ old: String, _ new: String) throws(Problem) -> [Difference] {
            let oldIsFolder = ContentSniffer.typeIdentifier(ofItemAtPath: old) == "public.directory"
            let newIsFolder = ContentSniffer.typeIdentifier(ofItemAtPath: new) == "public.directory"
            if oldIsFolder != newIsFolder {
                throw Problem(path: newIsFolder ? old : new, "is a file and the other is a folder; compare two files or two packages")
            }
            guard oldIsFolder else {
                return PropertyListDifference.between(try comparable(file: old), try comparable(file: new)).map { Difference(entry: nil, change: $0) }
            }
            if ICTDocumentFormat.isDocument(atPath: old), ICTDocumentFormat.isDocument(atPath: new) {
                return PropertyListDifference.between(try fields(ofDocument: old), try fields(ofDocument: new)).map(splitEntry)
            }
            return try packageDifferences(old, new)
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
                return ArchiveGraphView.comparableValue(try KeyedArchiveObjectGraph(propertyList: value))
            } catch {
                throw Problem(file: input, error)
            }
        }

        /// A keyed archive's object graph from `$top`, without object numbers; any other value as it is.
        static func graph(of value: PropertyListValue, path: String) throws(Problem) -> PropertyListValue {
            guard KeyedArchiveObjectGraph.looksLikeArchive(value) else { return value }
            do {
                return ArchiveGraphView.comparableValue(try KeyedArchiveObjectGraph(propertyList: value))
            } catch {
                throw Problem(path: path, error)
            }
        }

        /// A document's fields, entry by entry, as a dictionary `{entry: {key: value}}`.
        static func fields(ofDocument path: String) throws(Problem) -> PropertyListValue {
            let trimmed = DocumentSupport.trimmingTrailingSlashes(path)
            do {
                let document = try ICTDocumentFile(contentsOf: trimmed)
                let metadata = try document.metadata(), data = try document.data()
                var metadataFields: OrderedDictionary<String, PropertyListValue> = [
                    ICTDocumentFormat.versionKey: .integer(PropertyListInteger(Int64(metadata.version)))
                ]
                metadataFields[ICTDocumentFormat.metadataDisplayNameKey] = metadata.displayName.map(PropertyListValue.string)
                metadataFields[ICTDocumentFormat.thumbnailKey] = metadata.thumbnail.map(PropertyListValue.data)
                var dataFields: OrderedDictionary<String, PropertyListValue> = [
                    ICTDocumentFormat.versionKey: .integer(PropertyListInteger(Int64(data.version)))
                ]
                dataFields[ICTDocumentFormat.dataDisplayNameKey] = data.displayName.map(PropertyListValue.string)
                dataFields[ICTDocumentFormat.firstNameKey] = data.firstName.map(PropertyListValue.string)
                dataFields[ICTDocumentFormat.lastNameKey] = data.lastName.map(PropertyListValue.string)
                dataFields[ICTDocumentFormat.favoriteNumberKey] = data.favoriteNumber.map(PropertyListValue.real)
                dataFields[ICTDocumentFormat.photoKey] = data.photo.map(PropertyListValue.data)
                return .dictionary([ICTDocumentFormat.metadataEntryName: .dictionary(metadataFields), ICTDocumentFormat.dataEntryName: .dictionary(dataFields)])
            } catch {
                throw Problem(document: trimmed, error)
            }
        }

        /// A document difference at `ENTRY.KEY` as the entry and the key.
        static func splitEntry(_ change: PropertyListDifference) -> Difference {
            guard case .key(let entry)? = change.keyPath.components.first else { return Difference(entry: nil, change: change) }
            var inside = change
            inside.keyPath = PropertyListKeyPath(Array(change.keyPath.components.dropFirst()))
            return Difference(entry: entry, change: inside)
        }

        /// Two packages, entry by entry: an entry in one only, a link or kind
        /// that differs, bytes that differ (by value when both are property lists).
        static func packageDifferences(_ old: String, _ new: String) throws(Problem) -> [Difference] {
            let first = try entries(of: old), second = try entries(of: new)
            var differences: [Difference] = []
            for (name, item) in first {
                guard let other = second[name] else {
                    differences.append(Difference(entry: name, change: PropertyListDifference(.removed, at: [], old: item.summary, new: nil)))
                    continue
                }
                switch (item, other) {
                case let (.file(bytes), .file(otherBytes)):
                    guard bytes != otherBytes else { continue }
                    if let a = propertyList(bytes), let b = propertyList(otherBytes),
                        let oldValue = try? graph(of: a, path: "\(old)/\(name)"), let newValue = try? graph(of: b, path: "\(new)/\(name)")
                    {
                        differences += PropertyListDifference.between(oldValue, newValue).map { Difference(entry: name, change: $0) }
                    } else {
                        differences.append(Difference(entry: name, change: PropertyListDifference(.changed, at: [], old: .data(bytes), new: .data(otherBytes))))
                    }
                default:
                    if item != other {
                        differences.append(Difference(entry: name, change: PropertyListDifference(.changed, at: [], old: item.summary, new: other.summary)))
                    }
                }
            }
            for (name, item) in second where first[name] == nil {
                differences.append(Difference(entry: name, change: PropertyListDifference(.added, at: [], old: nil, new: item.summary)))
            }
            return differences
        }

        /// An entry's value when it is a property list: binary, XML or JSON,
        /// or OpenStep text holding a dictionary or array (a text file is a
        /// valid OpenStep string, and is compared as bytes instead).
        static func propertyList(_ bytes: Data) -> PropertyListValue? {
            guard let (value, format) = try? PropertyListReader().read(bytes) else { return nil }
            switch (format, value) {
            case (.openStep, .dictionary), (.openStep, .array), (.binary, _), (.xml, _), (.json, _): return value
            default: return nil
            }
        }

        enum Entry: Equatable {
            case file(Data)
            case folder
            case link(String)

            var summary: PropertyListValue {
                switch self {
                case .file(let bytes): .data(bytes)
                case .folder: "folder"
                case .link(let destination): .string("link to \(destination)")
                }
            }
        }

        /// Every entry of a package by its path inside it, in name order.
        static func entries(of path: String) throws(Problem) -> OrderedDictionary<String, Entry> {
            let package: PackageWrapper
            do {
                package = try PackageWrapper(readingFrom: DocumentSupport.trimmingTrailingSlashes(path), mode: .lazy)
            } catch {
                throw Problem(path: path, error)
            }
            var result: OrderedDictionary<String, Entry> = [:]
            func walk(_ wrapper: PackageWrapper, prefix: String) throws(Problem) {
                for child in wrapper.children {
                    let name = child.fileName ?? ""
                    let entryPath = prefix.isEmpty ? name : "\(prefix)/\(name)"
                    switch child.kind {
                    case .directory:
                        result[entryPath] = .folder
                        try walk(child, prefix: entryPath)
                    case .symbolicLink:
                        result[entryPath] = .link(child.symbolicLinkDestination ?? "")
                    case .regularFile:
                        do {
                            result[entryPath] = .file(try child.contents())
                        } catch {
                            throw Problem(path: path, error)
                        }
                    }
                }
            }
            try walk(package, prefix: "")
            return result
        }
    }
}

extension Ict.Diff: ReportingCommand {
    static let reportName = "diff"
    static let reportFields = ["old", "new", "differences"]
}
