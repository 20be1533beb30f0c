import DocumentFormats
import KeyedArchive
import OrderedCollections
import PackageFormat
import PropertyList

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One difference between two packages (or two `.ict` documents, or two
/// property lists): the change, by key path, and the package entry it is in.
package struct PackageDifference: Hashable, Sendable {
    /// The entry the change is in (`ctdocument.data`, `Contents/Info.plist`);
    /// nil when the two compared are files, not packages.
    package var entry: String?
    /// What changed, at the key path inside the entry's value (empty when
    /// the entry as a whole was added, removed or changed).
    package var change: PropertyListDifference

    /// A difference at `entry`.
    package init(entry: String?, change: PropertyListDifference) {
        self.entry = entry
        self.change = change
    }
}

/// A package or an `.ict` document read to be compared with another, as
/// `ict diff` compares them: packages entry by entry (an entry in one only,
/// a link or kind that differs, bytes that differ: by value when both are
/// property lists, keyed archives by object graph, `KeyedArchiveTree`);
/// documents field by field, each field at `ENTRY` and its key.
package struct ComparablePackage: Sendable {
    private enum Entry: Equatable, Sendable {
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

    private enum Contents: Sendable {
        case entries(OrderedDictionary<String, Entry>)
        case fields(PropertyListValue)
    }

    private let path: String
    private let contents: Contents

    /// The package at `path`, every entry read (its whole bytes: for a
    /// package's size of memory).
    ///
    /// - Throws: `ICTDocumentError` with code `.package` when the package or
    ///   an entry cannot be read; its `packageError` names the file.
    package init(packageAt path: String) throws(ICTDocumentError) {
        self.path = path
        let package: PackageWrapper
        do {
            package = try PackageWrapper(readingFrom: ICTDocumentFormat.trimmingTrailingSlashes(path), mode: .lazy)
        } catch {
            throw Self.packageError(error, at: path)
        }
        var result: OrderedDictionary<String, Entry> = [:]
        func walk(_ wrapper: PackageWrapper, prefix: String) throws(ICTDocumentError) {
            for child in wrapper.children {
                let name = child.fileName ?? ""
                let entryPath = prefix.isEmpty ? name : "\(prefix)/\(name)"
                switch child.kind {
                case .directory:
                    result[entryPath] = .folder
                    try walk(child, prefix: entryPath)
                case .symbolicLink:
                    result[entryPath] = .link(child.symbolicLinkDestinationText ?? "")
                case .regularFile:
                    do {
                        result[entryPath] = .file(try child.contents())
                    } catch {
                        throw Self.packageError(error, at: path)
                    }
                }
            }
        }
        try walk(package, prefix: "")
        contents = .entries(result)
    }

    /// The `.ict` document at `path`, its fields read from both entries:
    /// the ones `CTData` and `CTMetadata` know by value, any other key (a
    /// newer app's) by its archived objects.
    ///
    /// - Throws: `ICTDocumentError` when the document cannot be read.
    package init(documentAt path: String) throws(ICTDocumentError) {
        self.path = path
        let document = try ICTDocumentFile(contentsOf: ICTDocumentFormat.trimmingTrailingSlashes(path))
        let metadata = try document.metadata(), data = try document.data()
        var metadataFields: OrderedDictionary<String, PropertyListValue> = [
            ICTDocumentFormat.versionKey: .integer(PropertyListInteger(Int64(metadata.version)))
        ]
        metadataFields[ICTDocumentFormat.metadataDisplayNameKey] = metadata.displayName.map(PropertyListValue.string)
        metadataFields[ICTDocumentFormat.thumbnailKey] = metadata.thumbnail.map(PropertyListValue.data)
        var dataFields: OrderedDictionary<String, PropertyListValue> = [ICTDocumentFormat.versionKey: .integer(PropertyListInteger(Int64(data.version)))]
        dataFields[ICTDocumentFormat.dataDisplayNameKey] = data.displayName.map(PropertyListValue.string)
        dataFields[ICTDocumentFormat.firstNameKey] = data.firstName.map(PropertyListValue.string)
        dataFields[ICTDocumentFormat.lastNameKey] = data.lastName.map(PropertyListValue.string)
        dataFields[ICTDocumentFormat.favoriteNumberKey] = data.favoriteNumber.map(PropertyListValue.real)
        dataFields[ICTDocumentFormat.photoKey] = data.photo.map(PropertyListValue.data)
        // Keys a newer app added are compared as the archive holds them, objects by class and fields.
        do throws(KeyedArchiveError) {
            metadataFields.merge(try metadata.unknownFields.comparableFields) { known, _ in known }
        } catch {
            throw ICTDocumentError(error, entry: ICTDocumentFormat.metadataEntryName)
        }
        do throws(KeyedArchiveError) {
            dataFields.merge(try data.unknownFields.comparableFields) { known, _ in known }
        } catch {
            throw ICTDocumentError(error, entry: ICTDocumentFormat.dataEntryName)
        }
        contents = .fields(
            .dictionary([ICTDocumentFormat.metadataEntryName: .dictionary(metadataFields), ICTDocumentFormat.dataEntryName: .dictionary(dataFields)]))
    }

    /// The differences from `old` to this one, in entry (or field) order:
    /// the old one's first, then those only this one has.
    ///
    /// Both must be read alike, two packages or two documents (a
    /// precondition). Decodes entries that differ as property lists.
    package func differences(from old: ComparablePackage) -> [PackageDifference] {
        switch (old.contents, contents) {
        case let (.fields(first), .fields(second)):
            return PropertyListDifference.between(first, second).map(Self.splitEntry)
        case let (.entries(first), .entries(second)):
            return Self.differences(first, second, oldPath: old.path, newPath: path)
        default:
            preconditionFailure("a package is compared with a package, a document with a document")
        }
    }

    private static func differences(
        _ first: OrderedDictionary<String, Entry>, _ second: OrderedDictionary<String, Entry>, oldPath: String, newPath: String
    ) -> [PackageDifference] {
        var differences: [PackageDifference] = []
        for (name, item) in first {
            guard let other = second[name] else {
                differences.append(PackageDifference(entry: name, change: PropertyListDifference(.removed, at: [], old: item.summary, new: nil)))
                continue
            }
            switch (item, other) {
            case let (.file(bytes), .file(otherBytes)):
                guard bytes != otherBytes else { continue }
                if let a = propertyList(bytes), let b = propertyList(otherBytes), let oldValue = graph(of: a), let newValue = graph(of: b) {
                    differences += PropertyListDifference.between(oldValue, newValue).map { PackageDifference(entry: name, change: $0) }
                } else {
                    differences.append(
                        PackageDifference(entry: name, change: PropertyListDifference(.changed, at: [], old: .data(bytes), new: .data(otherBytes))))
                }
            default:
                if item != other {
                    differences.append(
                        PackageDifference(entry: name, change: PropertyListDifference(.changed, at: [], old: item.summary, new: other.summary)))
                }
            }
        }
        for (name, item) in second where first[name] == nil {
            differences.append(PackageDifference(entry: name, change: PropertyListDifference(.added, at: [], old: nil, new: item.summary)))
        }
        return differences
    }

    /// A keyed archive's object graph from `$top`, without object numbers;
    /// any other value as it is; nil for an archive that cannot be read or
    /// whose graph passes a limit.
    private static func graph(of value: PropertyListValue) -> PropertyListValue? {
        guard KeyedArchiveObjectGraph.looksLikeArchive(value), let archive = try? KeyedArchiveObjectGraph(propertyList: value) else {
            return KeyedArchiveObjectGraph.looksLikeArchive(value) ? nil : value
        }
        return try? KeyedArchiveTree.comparableValue(archive)
    }

    /// An entry's value when it is a property list: binary, XML or JSON,
    /// or OpenStep text holding a dictionary or array (a text file is a
    /// valid OpenStep string, and is compared as bytes instead).
    private static func propertyList(_ bytes: Data) -> PropertyListValue? {
        guard let (value, format) = try? PropertyListReader().read(bytes) else { return nil }
        switch (format, value) {
        case (.openStep, .dictionary), (.openStep, .array), (.binary, _), (.xml, _), (.json, _): return value
        default: return nil
        }
    }

    /// A document difference at `ENTRY.KEY` as the entry and the key.
    private static func splitEntry(_ change: PropertyListDifference) -> PackageDifference {
        guard case .key(let entry)? = change.keyPath.components.first else { return PackageDifference(entry: nil, change: change) }
        var inside = change
        inside.keyPath = PropertyListKeyPath(Array(change.keyPath.components.dropFirst()))
        return PackageDifference(entry: entry, change: inside)
    }

    /// A package's error, naming the package as given when it names no file.
    private static func packageError(_ error: DocumentPackageError, at path: String) -> ICTDocumentError {
        var error = error
        if error.fileSystemPathText.isEmpty { error.fileSystemPathText = path }
        return ICTDocumentError(error)
    }
}
