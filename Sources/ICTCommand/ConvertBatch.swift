import ArgumentParser
import ICTKitTooling
import SystemSupport
import UniformTypes

/// `ict convert --files-from LIST -o DIR`: many inputs, each converted as
/// one `ict convert INPUT -o DIR/INPUT'` would be, its output at the input's
/// own path below DIR.
extension Ict.Convert {
    /// The command-line rules of a batch (`--files-from` given).
    func validateBatch() throws {
        if json { throw ValidationError("--json is the report of one conversion; with --files-from use --jsonl, a line for each input") }
        guard let output, output != "-" else { throw ValidationError("with --files-from, -o names the folder the outputs are written in") }
        if inputArgument == "-" { throw ValidationError("with --files-from every input is a file: standard input has no name to write its output under") }
        switch format {
        case .jsonl:
            throw ValidationError("--format jsonl writes one Core Data store's objects; convert stores one at a time")
        case .zip, .package, .ict:
            throw ValidationError(
                "--files-from converts property lists and keyed archives (and .ict documents to json); convert packages, zips and JSON exports one at a time")
        case .text:
            throw ValidationError("--files-from does not write --format text; convert a typed stream to its text one at a time")
        case .xml1, .binary1, .json, .keyedArchive, .keyedArchiveXML:
            break
        }
    }

    func runBatch() throws {
        let report = Self.report(json: false, jsonLines: batch.jsonl)
        let folder = DocumentSupport.trimmingTrailingSlashes(output ?? "")
        guard ContentSniffer.typeIdentifier(ofItemAtPath: folder) == "public.directory" else {
            throw report.fail(Problem(path: folder, "with --files-from, -o names the folder the outputs are written in; this is not a folder"))
        }
        if let problem = OutputPlacement.insidePackageProblem(folder) { throw report.fail(problem) }
        var names: InputNames
        do throws(CommandFailure) {
            names = try batch.names(after: inputArgument.map { [$0] } ?? [])
        } catch {
            throw report.fail(error.problem)
        }
        var folders = FolderMaker(root: folder)
        var progress = ProgressReporter("convert", total: nil, unit: "files")
        while let path = names.next(reportingTo: report, clearing: &progress) {
            progress.clear()
            let fileReport = TypedReport<Fields>(command: Self.reportName, json: false, keepsProblems: true)
            if let destination = Self.batchDestination(for: path, format: format, in: folder) {
                try convertOne(path, to: destination, folders: &folders, fileReport)
            } else {
                fileReport.fields.input = path
                fileReport.fields.format = format.rawValue
                fileReport.add(Problem(path: path, "a name with .. would be written outside the folder -o names; name the input without .."))
            }
            report.absorb(fileReport)
            try report.line(path: path, fileReport.fields)
            progress.advance()
        }
        progress.clear()
        try report.finish()
    }

    /// Converts `path` to `destination` as one `ict convert` would, its problems in `fileReport`.
    private func convertOne(_ path: String, to destination: String, folders: inout FolderMaker, _ fileReport: TypedReport<Fields>) throws {
        do throws(CommandFailure) {
            try folders.makeParent(of: destination)
            try FolderMaker.checkNotALink(destination)
        } catch {
            fileReport.fields.input = path
            fileReport.fields.format = format.rawValue
            fileReport.add(error.problem)
            return
        }
        do {
            try job(input: path, output: destination).convert(fileReport)
        } catch is ReportFailure {
            // A problem of this input: in fileReport, and printed already.
        }
    }

    /// Where a batch writes the output of `input`: at the input's path below
    /// `folder` (a leading `/` or `./` left out), named for the format: its
    /// extension `.json` for json; else the name kept, but `.plist` for a
    /// `.json` one. Nil for a name with `..`, which could lead out of `folder`.
    static func batchDestination(for input: String, format: OutputFormat, in folder: String) -> String? {
        var components = PathName.components(input).filter { $0 != "." }.map(String.init)
        guard let name = components.popLast(), !components.contains(".."), name != ".." else { return nil }
        let dot = name.lastIndex(of: ".").flatMap { $0 > name.startIndex ? $0 : nil }
        let stem = dot.map { String(name[..<$0]) } ?? name
        let outputName = format == .json ? stem + ".json" : name.hasSuffix(".json") ? stem + ".plist" : name
        return ([folder] + components + [outputName]).joined(separator: "/")
    }

    /// Makes the folders below the batch's output folder as outputs need
    /// them, remembering the last one made (inputs come folder by folder).
    struct FolderMaker {
        let root: String
        private var made: String

        init(root: String) {
            self.root = root
            made = root
        }

        mutating func makeParent(of path: String) throws(CommandFailure) {
            let parent = PathName.folder(of: path)
            guard !PathName.same(parent, made), let below = PathName.relative(parent, to: root) else { return }
            // Each level below the root in turn; a folder that exists already is fine.
            var level = root
            for component in PathName.components(String(below)) {
                level += "/" + component
                do throws(SystemCallError) {
                    try Directory.make(atPath: level)
                    continue
                } catch {
                    guard error.isAlreadyExisting else { throw CommandFailure(path: level, "cannot make the folder: \(error.reason)") }
                }
                // A link there is not followed: the outputs below it would land outside the folder -o names.
                try Self.checkNotALink(level)
                guard (try? FileInfo.of(path: level, followingLink: false))?.kind == .directory else {
                    throw CommandFailure(path: level, "is in the way: not a folder")
                }
            }
            made = parent
        }

        /// Throws when `path` is a symbolic link: an output (or a folder of
        /// outputs) is written only inside the folder -o names, never through a link.
        static func checkNotALink(_ path: String) throws(CommandFailure) {
            guard (try? FileInfo.of(path: path, followingLink: false))?.kind == .symbolicLink else { return }
            throw CommandFailure(path: path, "is a symbolic link; outputs are written only inside the folder -o names, so it is not followed")
        }
    }
}
