import DocumentFormats
import SystemSupport

/// Where a command may write, decided in one place for every command and
/// checked before anything is written:
/// - no output inside the package being read (`ict thumbnail Doc.ict -o
///   Doc.ict/ctdocument.data`), by whatever name (links, `..`) reaches it;
/// - no page or folder of outputs inside any package (`ict list --html
///   Doc.ict/index.html`);
/// - no side file (the images of a document's JSON export) beside a
///   device, pipe or socket: `-o /dev/null` would make `/dev/null.photo.png`;
/// - no existing side file replaced unless asked (`--force`), and none
///   that is not a regular file even then.
package enum OutputPlacement {
    /// Why `output` may not be written while `input` is read: `input` is a
    /// directory (a package) and `output` is in it, or is it; else nil.
    /// Costs resolving both paths (`realpath`).
    package static func insideInputProblem(_ output: String, reading input: String) -> Problem? {
        guard output != "-", let folder = resolved(input) else { return nil }
        guard (try? FileInfo.of(path: input))?.kind == .directory, let target = resolvedOutput(output)
        else { return nil }
        guard target == folder || target.starts(with: folder + [UInt8(ascii: "/")]) else { return nil }
        return Problem(path: output, "is inside \(input), the package being read; write the output outside it")
    }

    /// The `.ict` package that `path` is or lies inside, as the start of
    /// `path` naming it (or, reached through a symbolic link, its resolved
    /// path); nil when no folder on the way is one. A writer checks an
    /// output against it: a package's contents are its document's own, so
    /// nothing else is written in it (`ict list --html Doc.ict/page.html`).
    ///
    /// Reads the status of each folder on the way whose name is a package
    /// name, and resolves the nearest one that exists (`realpath`).
    package static func enclosingPackage(ofPath path: String) -> String? {
        if let package = packageOnTheWay(path) { return package }
        // Through a link (`-o Link/x` with `Link -> Doc.ict`): the folder the path really is in.
        var existing = PathName.trimmingTrailingSlashes(path)
        while !existing.isEmpty, (try? FileInfo.of(path: existing)) == nil {
            let folder = PathName.folder(of: existing)
            guard !PathName.same(folder, existing) else { break }  // `.` or `/`, which is as far as it goes.
            existing = folder
        }
        guard let resolved = try? SymbolicLink.resolvedPath(existing.isEmpty ? "." : existing) else { return nil }
        return packageOnTheWay(resolved)
    }

    /// The first folder on the way of `path`, by its parts as written, that is a package.
    private static func packageOnTheWay(_ path: String) -> String? {
        var prefix = path.utf8.first == UInt8(ascii: "/") ? "/" : ""
        for part in PathName.components(path) {
            prefix += prefix.isEmpty || prefix == "/" ? part : "/" + part
            if ICTDocumentFormat.isPackageName(part), ICTDocumentFormat.isPackage(atPath: prefix) { return prefix }
        }
        return nil
    }

    /// Why `output` (a page, a folder of outputs) may not be written: it is
    /// an `.ict` package or inside one (`enclosingPackage(ofPath:)`),
    /// whose contents are its document's; else nil.
    package static func insidePackageProblem(_ output: String) -> Problem? {
        guard output != "-", let package = enclosingPackage(ofPath: output) else { return nil }
        return Problem(path: output, "is inside the package \(package), whose contents are its document's; write the output outside it")
    }

    /// The files a document's JSON export writes beside the JSON: `BASE.photo.png`, `BASE.thumbnail.png`.
    package struct SideFiles {
        /// The folder they go in: ending in `/`, or empty for the current directory.
        package let folder: String
        /// The start of their names in `folder`: `out` for `out.json`.
        package let base: String

        /// The side files of the JSON written to `destination`: beside it, or
        /// for standard output (`-`) beside the document `document` (`NAME.ict`, `NAME.ptk`).
        ///
        /// - Throws: `Problem` when `destination` exists and is not a regular
        ///   file (a device such as `/dev/null`, a pipe, a directory): no file
        ///   is ever made beside one.
        package init(beside destination: String, document: String) throws(Problem) {
            if destination == "-" {
                folder = ""
                base = String(document.dropLast(".ict".count))
                return
            }
            if let kind = (try? FileInfo.of(path: destination))?.kind, kind != .regular {
                throw Problem(
                    path: destination,
                    "is \(InputFile.kindName(kind)), not a regular file: the photo and thumbnail files "
                        + "would go beside it, and none is made beside a device or pipe; use --embed, or -o - "
                        + "(they then go beside the document)")
            }
            folder = PathName.folderPrefix(of: destination)
            let name = PathName.split(destination).name
            base = name.hasSuffix(".json") ? String(name.dropLast(".json".count)) : name
        }

        /// Checks that each of `names` (relative to `folder`) may be written
        /// while `document` is read: not inside it, and not there already
        /// unless `replacing` — then only over a regular file.
        ///
        /// - Throws: `Problem` naming the first side file that may not be written.
        package func check(_ names: [String], replacing: Bool, reading document: String) throws(Problem) {
            for name in names {
                let path = folder + name
                if let problem = OutputPlacement.insideInputProblem(path, reading: document) { throw problem }
                guard (try? FileInfo.of(path: path, followingLink: false)) != nil else { continue }
                guard replacing else { throw Problem(path: path, "already exists; --force replaces it") }
                if let kind = (try? FileInfo.of(path: path))?.kind, kind != .regular {
                    throw Problem(
                        path: path, "is \(InputFile.kindName(kind)), not a regular file: it is not replaced, even with --force")
                }
            }
        }
    }

    /// The absolute path `path` names, links and `..` resolved; nil when it does not exist.
    private static func resolved(_ path: String) -> [UInt8]? {
        guard let resolved = try? SymbolicLink.resolvedPath(path) else { return nil }
        return RawFileName.bytes(resolved)
    }

    /// Where writing `output` would land: the file it resolves to when it
    /// exists, else its resolved folder and its name; nil when neither exists.
    private static func resolvedOutput(_ output: String) -> [UInt8]? {
        if let existing = resolved(output) { return existing }
        let (parent, name) = PathName.split(output)
        guard let folder = resolved(parent) else { return nil }
        return (folder == [UInt8(ascii: "/")] ? folder : folder + [UInt8(ascii: "/")]) + RawFileName.bytes(name)
    }
}
