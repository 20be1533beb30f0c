import ArgumentParser
import ICTKitTooling
import SystemSupport

/// The options of the commands that take many files at a time (`validate`,
/// `convert`, `list`): names read from a list, and one JSON line per file.
struct BatchOptions: ParsableArguments {
    @Option(
        name: .customLong("files-from"),
        help: ArgumentHelp(
            """
            Also take the files named in FILE (- for standard input), one a line, after those named as arguments. \
            Names are taken byte for byte: empty lines are skipped, a carriage return ending a line is dropped, \
            and no name is an option or standard input.
            """, valueName: "file"),
        completion: .file())
    var filesFrom: String?

    @Flag(
        name: [.customShort("0"), .customLong("null")],
        help: "The --files-from list ends each name with a NUL byte (as find -print0 and xargs -0), not a newline.")
    var null = false

    @Flag(help: "Print one JSON object a line for each file as it is done, for programs (Schemas/cli/COMMAND.jsonl.schema.json).")
    var jsonl = false

    func validate() throws {
        if null, filesFrom == nil { throw ValidationError("--null says how the --files-from list is separated; name the list with --files-from") }
    }

    /// The usage error of `--json` and `--jsonl` given together.
    static func checkOneJSONForm(json: Bool, jsonl: Bool) throws {
        if json, jsonl { throw ValidationError("--json prints one document and --jsonl one line per file; choose one") }
    }

    /// The names given as `arguments`, then those of the `--files-from` list,
    /// which is opened now: a list that cannot be opened fails the run before
    /// any file is touched.
    func names(after arguments: [String]) throws(CommandFailure) -> InputNames {
        let list = try filesFrom.map { name throws(CommandFailure) in try FileList(path: name, nulSeparated: null) }
        if list?.isStandardInput == true, arguments.contains("-") {
            throw CommandFailure(path: "<stdin>", "standard input is the --files-from list, so it cannot also be a file (-)")
        }
        return InputNames(arguments: arguments, list: list)
    }
}

/// The names of the files a batch command works on: the arguments, then
/// the list's, one at a time, so a list of a million names is never held whole.
struct InputNames {
    private var arguments: IndexingIterator<[String]>
    private var list: FileList?

    init(arguments: [String], list: FileList?) {
        self.arguments = arguments.makeIterator()
        self.list = list
    }

    /// Whether any names come from a list (so how many is not known up front).
    var hasList: Bool { list != nil }

    /// The next name, or nil after the last.
    ///
    /// - Throws: `CommandFailure` when the list cannot be read further.
    mutating func next() throws(CommandFailure) -> String? {
        if let argument = arguments.next() { return argument }
        return try list?.next()
    }

    /// The next name; nil after the last, or when the list cannot be read
    /// further, which is then a problem of the run (not of a file) in `report`.
    mutating func next(reportingTo report: Report, clearing progress: inout ProgressReporter) -> String? {
        do throws(CommandFailure) {
            return try next()
        } catch {
            progress.clear()
            report.add(error.problem)
            return nil
        }
    }
}

/// A `--files-from` list read as a stream: names separated by newlines (a
/// carriage return before the newline dropped, for lists written on Windows)
/// or by NUL bytes, empty names skipped (as rsync's `--files-from` does).
/// Names are bytes, carried as `RawFileName` carries them; a name is never
/// an option nor standard input: `-` in a list is the file `./-`.
struct FileList {
    /// The longest name read: longer ones cannot be opened (`ENAMETOOLONG`),
    /// and without a bound a list with no separator would fill memory.
    static let maximumNameLength = RawFileName.maximumPathLength

    let displayName: String
    let isStandardInput: Bool
    /// The list's file, open while the list is read; nil for standard input.
    private let file: OpenFile?
    private let descriptor: Int32
    private let separator: UInt8
    private var buffer: [UInt8] = []
    /// Where the next name starts in `buffer`.
    private var start = 0
    private var atEnd = false

    /// Opens the list at `path` (`-` is standard input).
    init(path: String, nulSeparated: Bool) throws(CommandFailure) {
        isStandardInput = path == "-"
        displayName = isStandardInput ? "<stdin>" : path
        separator = nulSeparated ? 0 : UInt8(ascii: "\n")
        if isStandardInput {
            file = nil
            descriptor = StandardDescriptor.input
            return
        }
        let file: OpenFile
        do throws(SystemCallError) {
            file = try OpenFile(path: path)
        } catch {
            throw CommandFailure(path: path, "cannot open the file list: \(error.reason)")
        }
        if (try? file.info())?.kind == .directory { throw CommandFailure(path: path, "is a directory, not a file list") }
        self.file = file
        descriptor = file.descriptor
    }

    /// The next name in the list, or nil after the last.
    mutating func next() throws(CommandFailure) -> String? {
        while true {
            if let end = buffer[start...].firstIndex(of: separator) {
                let name = buffer[start..<end]
                start = end + 1
                if let taken = take(name) { return taken }
                continue
            }
            if atEnd {
                let rest = buffer[start...]
                start = buffer.count
                return rest.isEmpty ? nil : take(rest)
            }
            guard buffer.count - start <= Self.maximumNameLength else {
                throw CommandFailure(path: displayName, "a name in the file list is longer than \(Self.maximumNameLength) bytes")
            }
            try readMore()
        }
    }

    /// A name as the command takes it, or nil for an empty one.
    private func take(_ bytes: ArraySlice<UInt8>) -> String? {
        var bytes = bytes
        if separator != 0, bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        guard !bytes.isEmpty else { return nil }
        let name = RawFileName.decoding(bytes)
        return name == "-" ? "./-" : name
    }

    /// Drops the names already taken and appends the next chunk of the list.
    private mutating func readMore() throws(CommandFailure) {
        buffer.removeSubrange(0..<start)
        start = 0
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        let read = chunk.withUnsafeMutableBytes { bytes in
            Result { () throws(SystemCallError) in try FileReading.read(descriptor, into: bytes, path: displayName) }
        }
        let count: Int
        do throws(SystemCallError) {
            count = try read.get()
        } catch {
            throw CommandFailure(path: displayName, "cannot read the file list: \(error.reason)")
        }
        if count == 0 { atEnd = true }
        buffer.append(contentsOf: chunk[0..<count])
    }
}
