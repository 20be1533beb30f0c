import Foundation

/// Zips made and read by Python's `zipfile` module: a zip implementation
/// independent of ICTKit's, for tests that check what ICTKit writes and
/// feed it what an attacker could write (names with `..`, links, any order).
public enum PythonZip {
    /// What a zip entry is, from its name and its Unix mode.
    public enum Kind: String, Sendable, Equatable {
        case file, directory, symlink
    }

    /// One entry as `zipfile` lists it.
    public struct Entry: Sendable, Equatable {
        /// The entry's name, as stored.
        public var path: String
        /// File, directory (a name ending in `/`) or symbolic link (mode `S_IFLNK`).
        public var kind: Kind
        /// The uncompressed size the entry declares.
        public var size: Int
    }

    /// The entries of the zip at `path`, in central-directory order.
    public static func entries(of path: String) throws -> [Entry] {
        let script = """
            import json, stat, sys, zipfile
            out = []
            with zipfile.ZipFile(sys.argv[1]) as z:
                for i in z.infolist():
                    mode = i.external_attr >> 16
                    kind = "symlink" if stat.S_ISLNK(mode) else "directory" if i.is_dir() else "file"
                    out.append([i.filename, kind, i.file_size])
            json.dump(out, sys.stdout)
            """
        let output = try run(script, arguments: [path], input: Data())
        guard let rows = try JSONSerialization.jsonObject(with: output) as? [[Any]] else {
            throw Failure(message: "zipfile listed \(path) as something other than rows")
        }
        return try rows.map { row in
            guard row.count == 3, let name = row[0] as? String, let kind = (row[1] as? String).flatMap(Kind.init(rawValue:)),
                let size = row[2] as? Int
            else { throw Failure(message: "zipfile listed a row of \(path) as \(row)") }
            return Entry(path: name, kind: kind, size: size)
        }
    }

    /// Writes a zip at `path` holding exactly `entries`, names as given (no
    /// checks), stored, with Unix modes: 0644 files, 0755 directories, and
    /// links whose contents are their targets.
    public static func create(_ path: String, entries: [(path: String, kind: Kind, contents: String)]) throws {
        let script = """
            import json, sys, zipfile
            spec = json.load(sys.stdin)
            with zipfile.ZipFile(sys.argv[1], "w") as z:
                for name, kind, contents in spec:
                    info = zipfile.ZipInfo(name)
                    info.create_system = 3
                    if kind == "symlink":
                        info.external_attr = 0o120777 << 16
                    elif kind == "directory":
                        info.external_attr = (0o40755 << 16) | 0x10
                    else:
                        info.external_attr = 0o100644 << 16
                    z.writestr(info, b"" if kind == "directory" else contents.encode())
            """
        let spec = entries.map { [$0.path, $0.kind.rawValue, $0.contents] }
        _ = try run(script, arguments: [path], input: try JSONSerialization.data(withJSONObject: spec))
    }

    /// A zipfile run that failed.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong.
        public var message: String
        public var description: String { message }
    }

    private static func run(_ script: String, arguments: [String], input: Data) throws -> Data {
        do {
            return try PythonScript.run(script, arguments: arguments, input: input)
        } catch let failure as PythonScript.Failure {
            throw Failure(message: "python3 zipfile \(failure.message)")
        }
    }
}
