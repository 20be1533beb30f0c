import ArgumentParser
import ICTDocument
import KeyedArchive
import PropertyList
import SystemSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What `get`, `type`, `set`, `insert` and `remove` work on: one value of a
/// property list found by key path, in `plutil`'s syntax (`a.b.2`, `\.` a
/// dot inside a key).
///
/// - In a keyed archive, a key path starting `$top` follows references
///   (`$top.root.NSString`; see `KeyedArchiveKeyPath`).
/// - In an `.ict` document the key path is `ENTRY:PATH`: PATH is taken in
///   the entry's archive from its root object (`ctdocument.data:FIRST_NAME`
///   is `$top.DATA.FIRST_NAME` there); an empty PATH is the root object.
///
/// An edited file is written back in its own form (binary, XML or JSON;
/// OpenStep is read only) beside itself and renamed over it, never half
/// written; a failed edit leaves it as it was.
struct KeyPathTarget {
    /// The file as named on the command line.
    let path: String
    /// The entry of an `.ict` document, or nil.
    let entry: String?
    /// The key path as typed.
    let keyPathText: String
    /// The key path in the file's property list, before references are followed.
    let keyPath: PropertyListKeyPath
    /// The whole property list of the file (or entry).
    var document: PropertyListValue
    let format: PropertyListFormat
    /// The file (or entry) as it was before it was read: a save replaces only that file.
    let stamp: FileStamp?

    /// A problem about this target: the file, the entry, and the key path as typed.
    func problem(_ message: String) -> Problem {
        Problem(path: path, location: entry.map(Problem.Location.entry) ?? .none, message, keyPath: keyPathText)
    }

    /// Reads the file (or the document's entry) named `path`, to edit it in
    /// place or only to read it (`InputFile.Purpose`).
    ///
    /// - Throws: `Problem` when it cannot be read (to edit: is not a regular
    ///   file) or the key path does not fit it.
    init(path: String, keyPath text: String, limits: PropertyListLimits, for purpose: InputFile.Purpose) throws(Problem) {
        self.path = path
        keyPathText = text
        var file = path
        var pathText = text
        if ICTDocumentFormat.isPackage(atPath: path) {
            guard let colon = text.firstIndex(of: ":") else {
                throw Problem(path: path, "an .ict document's key path is ENTRY:PATH, such as ctdocument.data:FIRST_NAME", keyPath: text)
            }
            let name = String(text[..<colon])
            guard !name.isEmpty, !name.contains("/"), !name.hasPrefix(".") else {
                throw Problem(path: path, "'\(name)' is not an entry name of the document", keyPath: text)
            }
            entry = name
            file = DocumentSupport.trimmingTrailingSlashes(path) + "/" + name
            pathText = String(text[text.index(after: colon)...])
            if let problem = Self.entryProblem(file) { throw Problem(path: path, location: .entry(name), problem, keyPath: text) }
        } else {
            entry = nil
        }
        stamp = FileStamp(path: file)
        do throws(PropertyListError) {
            let input = try InputFile(path: file, limit: limits.maximumInputSize, for: entry == nil || purpose == .editingInPlace ? purpose : .packageEntry)
            (document, format) = try input.withBytes { (bytes) throws(PropertyListError) in try PropertyListReader(limits: limits).read(bytes) }
        } catch {
            var status = stat()
            if let entry, error.code == .io, RawFileName.withPath(file, { lstat($0, &status) }) != 0, errno == ENOENT {
                throw Problem(path: path, location: .entry(entry), "the document has no entry '\(entry)'", keyPath: text)
            }
            if let entry, error.code == .io { throw Problem(path: path, location: .entry(entry), error.message, keyPath: text) }
            throw Problem(path: path, error)
        }
        var components = pathText.isEmpty && entry != nil ? [] : PropertyListKeyPath(plutilSyntax: pathText).components
        if entry != nil, KeyedArchiveKeyPath.isArchive(document) {
            components = [.key("$top"), .key(ICTDocumentFormat.topKey)] + components
        }
        keyPath = PropertyListKeyPath(components)
    }

    /// The value at the key path of a binary property list file, found
    /// without reading the rest of the file (`BinaryPropertyListDocument`:
    /// the trailer, then only the objects on the way), for `get` on a large
    /// file. nil unless `path` is a regular binary property-list file and
    /// the path is a plain one (not into an `.ict` document, not following
    /// an archive's references from `$top`), and nil whenever anything on
    /// the way fails: the caller then reads the whole file, whose reading
    /// says what is wrong, exactly as for any other file.
    static func valueInBinaryFile(_ path: String, keyPath text: String, limits: PropertyListLimits) -> PropertyListValue? {
        let keyPath = PropertyListKeyPath(plutilSyntax: text)
        guard path != "-", keyPath.components.first != .key("$top"), !keyPath.components.contains(.key("")),
            !ICTDocumentFormat.isPackage(atPath: path)
        else { return nil }
        var status = stat()
        guard RawFileName.withPath(path, { stat($0, &status) }) == 0, (status.st_mode & S_IFMT) == S_IFREG,
            Int(status.st_size) <= limits.maximumInputSize
        else { return nil }
        #if canImport(Glibc)
        let descriptor = RawFileName.withPath(path) { Glibc.open($0, O_RDONLY | O_NONBLOCK | O_CLOEXEC) }
        #else
        let descriptor = RawFileName.withPath(path) { Darwin.open($0, O_RDONLY | O_NONBLOCK | O_CLOEXEC) }
        #endif
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        guard let file = try? MappedFile(descriptor: descriptor, path: path), file.bytes.count <= limits.maximumInputSize,
            file.bytes.starts(with: "bplist00".utf8),
            let document = try? BinaryPropertyListDocument(file: file, limits: limits)
        else { return nil }
        return (try? document.value(at: keyPath)) ?? nil
    }

    /// The path whose `ItemLock` a read-modify-write of this target holds:
    /// the document for an entry of an `.ict` document (its saves replace
    /// the whole package), else the file.
    static func lockPath(_ path: String) -> String {
        path == "-" || !ICTDocumentFormat.isPackage(atPath: path) ? path : DocumentSupport.trimmingTrailingSlashes(path)
    }

    /// Why an `.ict` document's entry cannot be read or edited in place: it
    /// is a symbolic link (links in a document are never followed, as
    /// `ICTDocumentFile` reads entries: an edit would write through it, maybe
    /// outside the document) or a folder; nil for a file or nothing there.
    private static func entryProblem(_ file: String) -> String? {
        var status = stat()
        guard RawFileName.withPath(file, { lstat($0, &status) }) == 0 else { return nil }
        switch status.st_mode & S_IFMT {
        case S_IFLNK:
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let count = RawFileName.withPath(file) { readlink($0, &buffer, buffer.count - 1) }
            let destination = count >= 0 ? RawFileName.decoding(buffer[..<count].map { UInt8(bitPattern: $0) }) : "?"
            return "the entry is a symbolic link (to \(destination)), not a file; links in a document are not followed"
        case S_IFDIR:
            return "the entry is a folder, not a file"
        default:
            return nil
        }
    }

    /// Reads the target for a command, filling the report's `path` and `keyPath`, or fails the report.
    static func open(
        _ path: String, keyPath: String, limits: PropertyListLimits, for purpose: InputFile.Purpose = .reading, report: Report
    ) throws -> KeyPathTarget {
        report["path"] = .string(Problem.inputName(path))
        report["keyPath"] = .string(keyPath)
        do throws(Problem) {
            return try KeyPathTarget(path: path, keyPath: keyPath, limits: limits, for: purpose)
        } catch {
            throw report.fail(error)
        }
    }

    /// The file written back: the document's entry, or the file itself.
    private var filePath: String {
        entry.map { DocumentSupport.trimmingTrailingSlashes(path) + "/" + $0 } ?? path
    }

    /// The path in the property list itself, references followed (see `KeyedArchiveKeyPath`).
    func resolved(followingLast: Bool = true) -> PropertyListKeyPath {
        KeyedArchiveKeyPath.resolve(keyPath, in: document, followingLast: followingLast)
    }

    /// The value at the key path.
    ///
    /// - Throws: `Problem` naming the key path when nothing is there.
    func value() throws(Problem) -> PropertyListValue {
        guard !keyPath.components.contains(.key("")), let found = document.value(at: resolved()) else {
            throw problem("no value at this key path")
        }
        return found
    }

    /// Writes `document` back to the file in the file's own form, only over
    /// the file that was read (`stamp`).
    ///
    /// - Throws: `Problem` when the form is read only, the file cannot be
    ///   written, or another program changed it since it was read (it is
    ///   then as that program left it).
    func save() throws(Problem) {
        let bytes: [UInt8]
        do throws(PropertyListError) {
            switch format {
            case .binary: bytes = try BinaryPropertyListWriter().encode(document)
            case .xml: bytes = try XMLPropertyListWriter().encode(document)
            case .json: bytes = try JSONPropertyListWriter().encode(document)
            case .openStep:
                throw PropertyListError(
                    .unsupportedValue, at: .none,
                    "the OpenStep form is read only; convert the file first (ict convert FILE --format xml1 -o FILE)")
            }
        } catch {
            throw problem(error.message)
        }
        do {
            // An entry is replaced, never written through: had it become a link since it was read, the link goes.
            try OutputFile.write(bytes, to: filePath, expecting: stamp, followingLink: entry == nil)
        } catch {
            throw problem(error.description)
        }
    }

    /// `PropertyListKeyPathError`'s sentence, as a problem about this target.
    func problem(_ error: PropertyListKeyPathError) -> Problem {
        problem(error.message)
    }
}

/// The typed value `set` and `insert` take, named as `plutil` names them:
/// `-string S` (or `--string S`), `-integer N`, `-float X`, `-bool B`,
/// `-date D`, `-data BASE64`, `-xml PLIST`, `-json JSON` (or
/// `--json-value`; `--json` asks for the report), `-array`, `-dictionary`.
/// Each takes the next argument as its value whatever it is (`-integer -12`).
struct TypedValueOptions: ParsableArguments {
    @Option(name: [.customLong("string", withSingleDash: true), .customLong("string")], parsing: .unconditional, help: "A string.")
    var string: String?
    @Option(name: [.customLong("integer", withSingleDash: true), .customLong("integer")], parsing: .unconditional, help: "An integer (Int64.min…UInt64.max).")
    var integer: String?
    @Option(name: [.customLong("float", withSingleDash: true), .customLong("float")], parsing: .unconditional, help: "A 64-bit real.")
    var float: String?
    @Option(name: [.customLong("bool", withSingleDash: true), .customLong("bool")], parsing: .unconditional, help: "true, false, yes or no.")
    var bool: String?
    @Option(name: [.customLong("date", withSingleDash: true), .customLong("date")], parsing: .unconditional, help: "A date such as 2004-10-26T10:33:33Z.")
    var date: String?
    @Option(name: [.customLong("data", withSingleDash: true), .customLong("data")], parsing: .unconditional, help: "Bytes in base64.")
    var data: String?
    @Option(
        name: [.customLong("xml", withSingleDash: true), .customLong("xml")], parsing: .unconditional,
        help: "A property list (XML or any form), for arrays and dictionaries.")
    var xml: String?
    @Option(
        name: [.customLong("json", withSingleDash: true), .customLong("json-value")], parsing: .unconditional,
        help: "A value in ict's JSON form (Schemas/property-list.schema.json).")
    var jsonValue: String?
    @Flag(name: [.customLong("array", withSingleDash: true), .customLong("array")], help: "An empty array.")
    var array = false
    @Flag(name: [.customLong("dictionary", withSingleDash: true), .customLong("dictionary")], help: "An empty dictionary.")
    var dictionary = false

    /// The spellings of the options with one dash, which `UsageCheck` lets through.
    static let singleDashNames: Set<String> = ["-string", "-integer", "-float", "-bool", "-date", "-data", "-xml", "-json", "-array", "-dictionary"]

    var isEmpty: Bool { given.isEmpty }

    private var given: [(type: String, text: String?)] {
        var result: [(String, String?)] = []
        for (type, text) in [
            ("string", string), ("integer", integer), ("float", float), ("bool", bool), ("date", date),
            ("data", data), ("xml", xml), ("json", jsonValue),
        ] where text != nil {
            result.append((type, text))
        }
        if array { result.append(("array", nil)) }
        if dictionary { result.append(("dictionary", nil)) }
        return result
    }

    func validate() throws {
        guard given.count <= 1 else { throw ValidationError("give one value, not \(given.map { "-" + $0.type }.joined(separator: " and "))") }
        if given.count == 1 { _ = try value() }
    }

    /// The value given.
    ///
    /// - Throws: `ValidationError` when none is given or its text is not of its type.
    func value() throws -> PropertyListValue {
        guard let (type, text) = given.first else {
            throw ValidationError(
                "give a value: -string S, -integer N, -float X, -bool B, -date D, -data BASE64, -xml PLIST, -json JSON, -array or -dictionary")
        }
        let bad = { ValidationError("'\(text ?? "")' is not a valid \(type)") }
        switch type {
        case "array": return .array([])
        case "dictionary": return .dictionary([:])
        case "string": return .string(text!)
        case "integer":
            if let signed = Int64(text!) { return .integer(PropertyListInteger(signed)) }
            if let unsigned = UInt64(text!) { return .integer(PropertyListInteger(unsigned)) }
            throw bad()
        case "float":
            guard let real = Double(text!) else { throw bad() }
            return .real(real)
        case "bool":
            switch text!.lowercased() {
            case "true", "yes": return .bool(true)
            case "false", "no": return .bool(false)
            default: throw bad()
            }
        case "date":
            guard let date = PropertyListDateFormat.parse(text!) else { throw ValidationError("'\(text!)' is not a date such as 2004-10-26T10:33:33Z") }
            return .date(date)
        case "data":
            guard let bytes = Data(base64Encoded: text!) else { throw ValidationError("'\(text!)' is not base64") }
            return .data(bytes)
        case "xml":
            do { return try PropertyListReader().read(Data(text!.utf8)).value } catch { throw ValidationError("-xml: \(error.description)") }
        default:
            do { return try JSONPropertyListReader().read(Data(text!.utf8)) } catch { throw ValidationError("-json: \(error.description)") }
        }
    }
}

/// The file and key path every key-path command takes, and its input options.
struct KeyPathArguments: ParsableArguments {
    @Argument(help: "A property list, keyed archive or .ict document.")
    var file: String

    @Argument(
        help: ArgumentHelp(
            "The key path: a.b.2 (\\. is a dot in a key); $top.… follows an archive's references; ENTRY:PATH in an .ict document.",
            valueName: "keypath"))
    var keyPath: String

    @OptionGroup var input: InputOptions

    @Flag(help: "Print one JSON document for programs (Schemas/cli/COMMAND.schema.json).")
    var json = false

    /// Reads the target, or fails the report.
    func target(_ report: Report) throws -> KeyPathTarget {
        try KeyPathTarget.open(file, keyPath: keyPath, limits: input.limits, report: report)
    }
}


/// `plutil`'s name of a value's type: bool, integer, float, string, date, data, array, dictionary.
enum ValueTypeName {
    static func of(_ value: PropertyListValue) -> String {
        switch value {
        case .uid: "uid"
        default: Plutil.ValueType(of: value).rawValue
        }
    }
}
