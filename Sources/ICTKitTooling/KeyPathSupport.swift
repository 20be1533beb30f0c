import DocumentFormats
import KeyedArchive
import PackageFormat
import PropertyList
import SystemSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What `get`, `type`, `set`, `insert` and `remove` work on: the library's
/// `KeyPathTarget` (a value found by key path in a property list, an
/// archive from `$top`, or an `.ict` document's entry as `ENTRY:PATH`),
/// read through `InputFile` (so also from standard input or a FIFO) and
/// written back through `OutputFile`: beside itself and renamed over it,
/// never half written, only over the file that was read.
extension KeyPathTarget {
    /// A problem about this target: the file, the entry, and the key path as typed.
    package func problem(_ message: String) -> Problem {
        Problem(path: address.path, location: address.entry.map(Problem.Location.entry) ?? .none, message, keyPath: address.keyPathText)
    }

    /// The input a key path is looked up in: where it is, the file (or
    /// the document's entry) opened and, a stream, read to its end, and
    /// the file's stamp taken before it was read. Opened once, so that a
    /// stream (standard input, a FIFO) is read once by every look at it.
    package struct Input {
        package let address: KeyPathAddress
        package let file: InputFile
        package let stamp: FileStamp?
    }

    /// Opens the file (or the document's entry) named `path`, to edit it in
    /// place or only to read it (`InputFile.Purpose`).
    ///
    /// - Throws: `Problem` when it cannot be opened or read (to edit: is not
    ///   a regular file) or the key path does not fit it.
    package static func input(_ path: String, keyPath text: String, limits: PropertyListLimits, for purpose: InputFile.Purpose) throws(Problem)
        -> Input
    {
        let address: KeyPathAddress
        do throws(ICTDocumentError) {
            address = try KeyPathAddress(path: path, keyPath: text)
        } catch {
            throw Problem(document: path, error)
        }
        let stamp = FileStamp(path: address.filePath)
        do throws(PropertyListError) {
            let entryPurpose = address.entry == nil || purpose == .editingInPlace ? purpose : .packageEntry
            let file = try InputFile(path: address.filePath, limit: limits.maximumInputSize, for: entryPurpose)
            return Input(address: address, file: file, stamp: stamp)
        } catch {
            throw problem(error, reading: address)
        }
    }

    /// Reads the property list of `input`.
    ///
    /// - Throws: `Problem` at the byte or line where it does not read.
    package static func read(_ input: Input, limits: PropertyListLimits) throws(Problem) -> (target: KeyPathTarget, stamp: FileStamp?) {
        do throws(PropertyListError) {
            let (value, format) = try input.file.withBytes { (bytes) throws(PropertyListError) in
                try PropertyListReader(limits: limits).read(bytes)
            }
            return (KeyPathTarget(address: input.address, propertyList: value, format: format), input.stamp)
        } catch {
            throw problem(error, reading: input.address)
        }
    }

    /// Reads the file (or the document's entry) named `path`, to edit it in
    /// place or only to read it (`InputFile.Purpose`), with the stamp of the
    /// file taken before it was read.
    ///
    /// - Throws: `Problem` when it cannot be read (to edit: is not a regular
    ///   file) or the key path does not fit it.
    package static func read(_ path: String, keyPath text: String, limits: PropertyListLimits, for purpose: InputFile.Purpose) throws(Problem)
        -> (target: KeyPathTarget, stamp: FileStamp?)
    {
        try read(input(path, keyPath: text, limits: limits, for: purpose), limits: limits)
    }

    /// The problem of `error`, met reading the file `address` names: at its entry, for a document's.
    private static func problem(_ error: PropertyListError, reading address: KeyPathAddress) -> Problem {
        if let entry = address.entry, error.code == .io, nothingIs(at: address.filePath) {
            return Problem(path: address.path, location: .entry(entry), "the document has no entry '\(entry)'", keyPath: address.keyPathText)
        }
        if let entry = address.entry, error.code == .io {
            return Problem(path: address.path, location: .entry(entry), error.message, keyPath: address.keyPathText)
        }
        return Problem(path: address.path, error)
    }

    /// Whether nothing at all is at `path` (`ENOENT`; a link, even a dangling one, is something).
    private static func nothingIs(at path: String) -> Bool {
        do throws(SystemCallError) {
            _ = try FileInfo.of(path: path, followingLink: false)
            return false
        } catch {
            return error.isNoSuchEntry
        }
    }

    /// Reads the target for a command, filling the report's `path` and `keyPath`, or fails the report.
    package static func open<Fields: KeyPathReportFields>(
        _ path: String, keyPath: String, limits: PropertyListLimits, for purpose: InputFile.Purpose = .reading,
        report: TypedReport<Fields>
    ) throws -> (target: KeyPathTarget, stamp: FileStamp?) {
        try open(input(path, keyPath: keyPath, limits: limits, for: purpose, report: report), limits: limits, report: report)
    }

    /// Opens the input for a command, filling the report's `path` and `keyPath`, or fails the report.
    package static func input<Fields: KeyPathReportFields>(
        _ path: String, keyPath: String, limits: PropertyListLimits, for purpose: InputFile.Purpose = .reading,
        report: TypedReport<Fields>
    ) throws -> Input {
        report.fields.path = Problem.inputName(path)
        report.fields.keyPath = keyPath
        do throws(Problem) {
            return try input(path, keyPath: keyPath, limits: limits, for: purpose)
        } catch {
            throw report.fail(error)
        }
    }

    /// Reads the target from the input `input(_:keyPath:limits:for:report:)` opened, or fails the report.
    package static func open<Fields: KeyPathReportFields>(_ input: Input, limits: PropertyListLimits, report: TypedReport<Fields>) throws -> (
        target: KeyPathTarget, stamp: FileStamp?
    ) {
        do throws(Problem) {
            return try read(input, limits: limits)
        } catch {
            throw report.fail(error)
        }
    }

    /// The value at the key path.
    ///
    /// - Throws: `Problem` naming the key path when nothing is there.
    package func foundValue() throws(Problem) -> PropertyListValue {
        do throws(ICTDocumentError) {
            return try value()
        } catch {
            throw problem(error.message)
        }
    }

    /// Writes the property list back to the file in the file's own form,
    /// only over the file `stamp` describes.
    ///
    /// - Throws: `Problem` when the form is read only, the file cannot be
    ///   written, or another program changed it since it was read (it is
    ///   then as that program left it).
    package func save(expecting stamp: FileStamp?) throws(Problem) {
        let bytes: [UInt8]
        do throws(ICTDocumentError) {
            bytes = try encoded()
        } catch {
            throw problem(error.message)
        }
        if address.entry != nil {
            // An entry is rewritten in place, inside the document: never inside one a link stands for.
            let document = ICTDocumentFormat.trimmingTrailingSlashes(address.path)
            if (try? FileInfo.of(path: document, followingLink: false))?.kind == .symbolicLink {
                let destination = (try? SymbolicLink.destination(ofLinkAt: document)).map { " (to \"\($0)\")" } ?? ""
                throw problem(
                    "the document is a symbolic link\(destination); not written through it, which would change whatever it points to\(SymbolicLinkHint.text)")
            }
            // What killed saves of the whole package left beside it goes first.
            PackageWrapper.removeStaleTemporaries(ofPackageAt: document)
        }
        do {
            // A link at the file or entry is refused, never written through (`--follow-symlinks` resolves the file's path first).
            try OutputFile.write(bytes, to: address.filePath, expecting: stamp)
        } catch {
            throw problem(error.description)
        }
    }
}

/// `plutil`'s name of a value's type: bool, integer, float, string, date, data, array, dictionary.
package enum ValueTypeName {
    package static func of(_ value: PropertyListValue) -> String {
        switch value {
        case .uid: "uid"
        default: Plutil.ValueType(of: value).rawValue
        }
    }
}

/// The fields every key-path command reports first: the file as given (`<stdin>` for `-`) and the key path.
package protocol KeyPathReportFields: ReportFields {
    var path: String? { get set }
    var keyPath: String? { get set }
}
