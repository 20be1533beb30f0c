import DocumentFormats
import KeyedArchive
import PackageFormat
import PropertyList
import SystemSupport
import UniformTypes

/// One problem the command found, in the one form every command reports:
/// `PATH:LOCATION: severity: message (at KEY.PATH)` on standard error, and
/// the same fields in `--json` output (`Schemas/cli/problem.schema.json`).
///
/// LOCATION is `line:column` (XML, OpenStep and JSON text), `byte N` (binary
/// input) or an entry's path inside a package (`ctdocument.data`); it and the
/// `:` before it are left out when the problem has no place in the file.
package struct Problem: Error {
    package enum Severity: String {
        case error, warning
    }

    /// Where in the file.
    package enum Location {
        case none
        case lineColumn(line: Int, column: Int)
        case byte(Int)
        case entry(String)
    }

    /// The file the problem is in, as the user named it (`<stdin>` for `-`,
    /// `<stdout>` for an output's `-`); `ict` for a problem with the command
    /// line itself.
    package var path: String
    package var location: Location
    package var severity: Severity
    package var message: String
    /// The key path of the value concerned, when there is one.
    package var keyPath: String?

    package init(path: String, location: Location = .none, severity: Severity = .error, _ message: String, keyPath: String? = nil) {
        self.path = Self.inputName(path)
        self.location = location
        self.severity = severity
        self.message = message
        self.keyPath = keyPath.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The line printed on standard error (by `Diagnostics.printError`,
    /// which shows control characters in it escaped).
    package var line: String {
        var text = path
        switch location {
        case .none: break
        case .lineColumn(let line, let column): text += ":\(line):\(column)"
        case .byte(let offset): text += ":byte \(offset)"
        case .entry(let entry): text += ":" + entry
        }
        text += ": \(severity.rawValue): \(message)"
        if let keyPath { text += " (at \(keyPath))" }
        return text
    }

    /// The fields of `Schemas/cli/problem.schema.json`, every one present.
    private struct JSONForm: Encodable {
        package var path: String
        package var line: Int?
        package var column: Int?
        package var byte: Int?
        package var entry: String?
        package var severity: String
        package var message: String
        package var keyPath: String?
    }

    /// The problem in its JSON form (`Schemas/cli/problem.schema.json`).
    package var jsonValue: JSONValue {
        var form = JSONForm(path: path, severity: severity.rawValue, message: message, keyPath: keyPath)
        switch location {
        case .none: break
        case .lineColumn(let line, let column): (form.line, form.column) = (line, column)
        case .byte(let offset): form.byte = offset
        case .entry(let name): form.entry = name
        }
        return JSONValueEncoder.encode(form)
    }

    /// How an input named `path` is called in problems and reports: `-` is
    /// standard input, `<stdin>`, in every command.
    package static func inputName(_ path: String) -> String { path == "-" ? "<stdin>" : path }

    /// How an output named `path` is called: `-` is standard output, `<stdout>`.
    package static func outputName(_ path: String) -> String { path == "-" ? "<stdout>" : path }
}

// MARK: From the library's errors

extension Problem.Location {
    package init(_ location: PropertyListLocation) {
        switch location {
        case .none: self = .none
        case .byteOffset(let offset): self = .byte(offset)
        case .lineColumn(let line, let column): self = .lineColumn(line: line, column: column)
        }
    }
}

extension Problem {
    package init(path: String, _ error: PropertyListError, severity: Severity = .error) {
        self.init(
            path: path, location: Location(error.location), severity: severity, error.message,
            keyPath: KeyPathText.abbreviated(error.keyPath))
    }

    /// A uniform-type reading problem, at `path`, the file it names when it names one.
    package init(path: String, _ error: UniformTypeError) {
        self.init(
            path: error.pathText ?? path, location: Location(error.location), error.message,
            keyPath: KeyPathText.abbreviated(error.keyPath))
    }

    package init(path: String, _ error: KeyedArchiveError, location: PropertyListLocation = .none) {
        if let underlying = error.underlying {
            self.init(path: path, underlying)
            return
        }
        let message = error.objectIndex.map { "\(error.message) (object \($0))" } ?? error.message
        self.init(path: path, location: Location(location), message, keyPath: KeyPathText.abbreviated(error.keyPath))
    }

    /// A keyed archive's problem in the input `file`, at the byte (binary)
    /// or line and column (text) of the value its key path names, found in
    /// the file's bytes only now that there is a problem to report.
    package init(file: InputFile, _ error: KeyedArchiveError) {
        let location =
            error.underlying != nil || error.keyPath.components.isEmpty
            ? PropertyListLocation.none
            : (try? file.withBytes { bytes in PropertyListLocator.locations(of: [error.keyPath], in: bytes).first }) ?? .none
        self.init(path: file.displayName, error, location: location)
    }

    /// A document's problem: the entry is the location.
    package init(document: String, _ error: ICTDocumentError) {
        if let archive = error.archiveError, let underlying = archive.underlying, underlying.location != .none {
            // A damaged entry: say where in the entry's bytes, with the entry in the path.
            self.init(path: error.entry.isEmpty ? document : "\(document)/\(error.entry)", underlying)
            return
        }
        if let archive = error.archiveError, archive.underlying == nil, !error.entry.isEmpty,
            let location = Self.location(of: archive.keyPath, inEntry: error.entry, of: document)
        {
            // A keyed archive's problem: at its byte in the entry, as for an archive file.
            self.init(path: "\(document)/\(error.entry)", archive, location: location)
            return
        }
        // A note's text: at its byte offset in the file.
        let location: Location = error.entry.isEmpty ? error.byteOffset.map(Location.byte) ?? .none : .entry(error.entry)
        self.init(path: document, location: location, error.message, keyPath: error.keyPath)
    }

    package init(document: String, _ finding: DocumentFinding) {
        // A keyed archive's own problem (its key path in `$objects` or `$top`): at its byte in the entry.
        if !finding.entry.isEmpty, finding.keyPath.hasPrefix("$objects") || finding.keyPath.hasPrefix("$top"),
            let location = Self.location(of: PropertyListKeyPath(parsing: finding.keyPath), inEntry: finding.entry, of: document)
        {
            self.init(
                path: "\(document)/\(finding.entry)", location: Location(location),
                severity: finding.severity == .warning ? .warning : .error, finding.message, keyPath: finding.keyPath)
            return
        }
        self.init(
            path: document, location: finding.entry.isEmpty ? .none : .entry(finding.entry),
            severity: finding.severity == .warning ? .warning : .error, finding.message, keyPath: finding.keyPath)
    }

    /// Where `keyPath` lies in the bytes of a document's entry, read again
    /// now that there is a problem to report; nil when it cannot be found.
    private static func location(of keyPath: PropertyListKeyPath, inEntry entry: String, of document: String) -> PropertyListLocation? {
        guard !keyPath.components.isEmpty, let file = try? MappedFile(path: "\(document)/\(entry)") else { return nil }
        let location = PropertyListLocator.locations(of: [keyPath], in: file.bytes).first ?? .none
        return location == .none ? nil : location
    }

    /// A type declaration's finding, with the library's severity unless `severity` is given.
    package init(path: String, _ finding: TypeDeclarationFinding, location: PropertyListLocation = .none, severity: Severity? = nil) {
        self.init(
            path: path, location: Location(location), severity: severity ?? (finding.severity == .warning ? .warning : .error), finding.message,
            keyPath: KeyPathText.abbreviated(finding.keyPath))
    }

    /// A package's problem: the package's or zip's path as the user named
    /// it (the library's errors keep it), and the entry inside as the location.
    package init(path: String, _ error: DocumentPackageError) {
        var file = error.fileSystemPathText.isEmpty ? path : error.fileSystemPathText
        // An entry on disk is the package's path and the entry: the entry is said once, as the location.
        if !error.pathInPackage.isEmpty, file.hasSuffix("/" + error.pathInPackage) {
            file.removeLast(error.pathInPackage.count + 1)
        }
        self.init(path: file, location: error.pathInPackage.isEmpty ? .none : .entry(error.pathInPackage), error.message)
    }
}

/// Key paths as messages show them: whole up to 16 steps, else the first and
/// last six with the number left out between, so a 100,000-deep value does
/// not print a line of a megabyte.
package enum KeyPathText {
    package static let shownSteps = 16

    package static func abbreviated(_ keyPath: PropertyListKeyPath) -> String? {
        let components = keyPath.components
        guard !components.isEmpty else { return nil }
        guard components.count > shownSteps else { return keyPath.description }
        let head = PropertyListKeyPath(Array(components.prefix(6))).description
        let tail = PropertyListKeyPath(Array(components.suffix(6))).description
        return "\(head)…(\(components.count - 12) more steps)…\(tail)"
    }
}
