import DocumentFormats
import KeyedArchive
import PackageFormat
import PropertyList
import UniformTypes

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What `ict diff` compares: two files (property lists, keyed archives as
/// their graphs), two packages or two `.ict` documents, entry by entry.
package enum Diffing {
    /// The differences between `old` and `new`, each a file, a package or a document.
    package static func differences(_ old: String, _ new: String) throws(Problem) -> [PackageDifference] {
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
        let documents =
            InputClass(classifying: old, readers: []) == .other(.document) && InputClass(classifying: new, readers: []) == .other(.document)
        let first = try comparable(old, asDocument: documents), second = try comparable(new, asDocument: documents)
        return second.differences(from: first)
    }

    /// A file as compared: a property list's value, a keyed archive's graph.
    package static func comparable(file path: String) throws(Problem) -> PropertyListValue {
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
    package static func comparable(_ path: String, asDocument: Bool) throws(Problem) -> ComparablePackage {
        do throws(ICTDocumentError) {
            return asDocument ? try ComparablePackage(documentAt: path) : try ComparablePackage(packageAt: path)
        } catch {
            if let packageError = error.packageError, !asDocument { throw Problem(path: path, packageError) }
            throw Problem(document: DocumentSupport.trimmingTrailingSlashes(path), error)
        }
    }

    /// `Schemas/cli/diff.schema.json`.
    package struct Fields: ReportFields {
        /// The two files compared, as named.
        package var old: String?
        package var new: String?
        package var differences: [PackageDifference.JSONForm]?

        package init() {}
    }
}

/// A difference as `ict diff` prints it, for people (`line`) and programs (`jsonForm`).
extension PackageDifference {
    package var place: String {
        let keyPath = KeyPathText.abbreviated(change.keyPath) ?? ""
        guard let entry else { return keyPath.isEmpty ? "(the whole value)" : keyPath }
        return keyPath.isEmpty ? entry : "\(entry):\(keyPath)"
    }

    package var line: String {
        switch change.kind {
        case .removed: "- \(place): \(Self.text(change.old))"
        case .added: "+ \(place): \(Self.text(change.new))"
        case .changed: "~ \(place): \(Self.text(change.old)) → \(Self.text(change.new))"
        }
    }

    /// A difference in `ict diff --json` (`Schemas/cli/diff.schema.json`).
    package struct JSONForm: Encodable {
        package var kind: String
        package var entry: String?
        package var keyPath: String?
        package var old: JSONValue
        package var new: JSONValue
    }

    package var jsonForm: JSONForm {
        JSONForm(
            kind: change.kind.rawValue, entry: entry, keyPath: KeyPathText.abbreviated(change.keyPath),
            old: change.old.map(JSONValue.propertyList) ?? .null, new: change.new.map(JSONValue.propertyList) ?? .null)
    }

    /// A value on one line: its compact JSON form, data as its size, cut at 100 characters.
    package static func text(_ value: PropertyListValue?) -> String {
        guard let value else { return "" }
        if case .data(let bytes) = value { return "<\(bytes.count) bytes of data>" }
        let json = (try? JSONPropertyListWriter(prettyPrinted: false).encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "?"
        return json.count > 100 ? String(json.prefix(97)) + "…" : json
    }
}
