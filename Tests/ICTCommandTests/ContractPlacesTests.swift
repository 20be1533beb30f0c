import Foundation
import PropertyList
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The contract (exit status, `PATH:LOCATION: severity: message`, one JSON
/// document with `--json`, the path as the user gave it) at each place it
/// once broke, each run against the built `ict` with real files, links and
/// FIFOs, checking what is on disk before and after.
@Suite("Contract, each place it broke")
struct ContractPlacesTests {
    /// `PATH:LOCATION: severity: message (at KEY.PATH)`, as ContractTests checks it.
    static let problemLine = #"^.+?(:(\d+:\d+|byte \d+|[^:]+))?: (error|warning): .+$"#

    private func scratchFolder() throws -> String {
        let folder = try ScratchFolder.make("places").path
        return folder
    }

    /// Every item under `folder` with its kind, bytes (or link destination), owner and mode.
    private func snapshot(_ folder: String) throws -> [String: String] {
        var items: [String: String] = [:]
        let enumerator = FileManager.default.enumerator(atPath: folder)!
        while let relative = enumerator.nextObject() as? String {
            let path = folder + "/" + relative
            var status = stat()
            guard lstat(path, &status) == 0 else { continue }
            let owner = "\(status.st_uid):\(status.st_gid) \(String(status.st_mode, radix: 8))"
            switch status.st_mode & S_IFMT {
            case S_IFLNK: items[relative] = "link \(try FileManager.default.destinationOfSymbolicLink(atPath: path)) \(owner)"
            case S_IFREG: items[relative] = "file \(FileManager.default.contents(atPath: path)!.base64EncodedString()) \(owner)"
            default: items[relative] = "other \(owner)"
            }
        }
        return items
    }

    private func objectReference(_ index: Int) -> PropertyListValue { .uid(UInt64(index)) }

    /// A binary keyed archive whose root is a chain of `depth` objects, each
    /// the `child` of the one before, the last holding `innermost` as `value`.
    private func chainArchive(depth: Int, innermost: PropertyListValue? = nil) throws -> [UInt8] {
        let classIndex = depth + 1
        var objects: [PropertyListValue] = ["$null"]
        for index in 1...depth {
            let classReference = objectReference(classIndex)
            if index < depth {
                objects.append(["$class": classReference, "child": objectReference(index + 1)])
            } else {
                objects.append(innermost.map { ["$class": classReference, "value": $0] } ?? ["$class": classReference])
            }
        }
        objects.append(["$classname": "Node", "$classes": ["Node", "NSObject"]])
        let archive: PropertyListValue = [
            "$archiver": "NSKeyedArchiver", "$version": 100000, "$top": ["root": objectReference(1)], "$objects": .array(objects),
        ]
        return try BinaryPropertyListWriter().encode(archive)
    }

    // MARK: inspect --json of a deep archive

    /// A 10,000-deep chain of objects is shown to the JSON form's depth, as
    /// the tree shows it, the rest marked `notShown`: one JSON document, exit 0.
    @Test func inspectJSONOfATenThousandDeepArchivePrintsOneDocument() throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/deep.plist"
        try Data(try chainArchive(depth: 10_000)).write(to: URL(fileURLWithPath: path))
        let before = try snapshot(folder)

        let run = try ICTRunner.run(["inspect", "--json", path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.isEmpty)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(document["ok"] as? Bool == true)
        #expect(document["kind"] as? String == "keyedArchive")
        let archive = try #require(document["archive"] as? [String: Any])
        #expect(archive["objectCount"] as? Int == 10_002)
        #expect(run.stdout.contains("\"notShown\""))

        let tree = try ICTRunner.run(["inspect", path])
        #expect(tree.status == 0, "\(tree.stderr)")
        #expect(tree.stdout.contains("(nested too deep, not shown)"))
        #expect(try snapshot(folder) == before)
    }

    /// A value JSON cannot hold (nested past the JSON writer's limit) still
    /// gives one JSON document, the field null and `ok` false, and the
    /// problem in the one form, its key path shortened.
    @Test func aFieldTooDeepForJSONIsAProblemInTheOneFormAndTheDocumentIsStillPrinted() throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/deep-value.plist"
        var nested: PropertyListValue = "bottom"
        for _ in 0..<150 { nested = ["a": nested] }
        try Data(try chainArchive(depth: 190, innermost: nested)).write(to: URL(fileURLWithPath: path))

        let run = try ICTRunner.run(["inspect", "--json", path])
        #expect(run.status == 1)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(document["ok"] as? Bool == false)
        #expect(document["archive"] is NSNull)
        let problems = try #require(document["problems"] as? [[String: Any]])
        #expect(problems.count == 1)
        #expect(problems.first?["path"] as? String == path)
        let keyPath = try #require(problems.first?["keyPath"] as? String)
        #expect(keyPath.hasPrefix("archive.top.root.fields.child.fields"), "\(keyPath)")
        #expect(keyPath.contains("more steps)…"), "\(keyPath)")
        #expect(keyPath.count < 200)

        let lines = run.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(run.stderr)")
        #expect(run.stderr.hasPrefix(path + ": error: containers nest more than 512 deep (at archive.top.root."), "\(run.stderr)")
        for line in lines { #expect(line.range(of: Self.problemLine, options: .regularExpression) != nil, "\(line)") }
    }

    // MARK: paths as the user gave them

    /// Relative paths stay relative in errors: neither made absolute nor the
    /// package's path said twice; nothing is written.
    @Test func packageAndZipErrorsNameThePathsAsGiven() throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.copyItem(atPath: Repository.root.path + "/SampleDocs/Coffee.ict", toPath: folder + "/D.ict")
        #expect(mkfifo(folder + "/D.ict/fifo", 0o644) == 0)
        let before = try snapshot(folder)

        let withFIFO = try ProgramRunner.run(
            ICTRunner.executable.path, ["convert", "D.ict", "--format", "zip", "-o", "D.zip"], in: URL(fileURLWithPath: folder))
        #expect(withFIFO.status == 1)
        #expect(withFIFO.stderr == "D.ict:fifo: error: not a directory, regular file or symbolic link\n")

        try FileManager.default.removeItem(atPath: folder + "/D.ict/fifo")
        let noFolder = try ProgramRunner.run(
            ICTRunner.executable.path, ["convert", "D.ict", "--format", "zip", "-o", "nowhere/D.zip"], in: URL(fileURLWithPath: folder))
        #expect(noFolder.status == 1)
        #expect(noFolder.stderr == "nowhere/D.zip: error: cannot create the file: No such file or directory\n")

        try Data("not a zip at all, but long enough to hold an end record".utf8).write(to: URL(fileURLWithPath: folder + "/bad.zip"))
        let badZip = try ProgramRunner.run(
            ICTRunner.executable.path, ["convert", "bad.zip", "--format", "package", "-o", "R.ict"], in: URL(fileURLWithPath: folder))
        #expect(badZip.status == 1)
        #expect(badZip.stderr.hasPrefix("bad.zip: error: "), "\(badZip.stderr)")
        #expect(!badZip.stderr.contains(folder))

        var after = try snapshot(folder)
        after["bad.zip"] = nil
        var expected = before
        expected["D.ict/fifo"] = nil
        #expect(after == expected)
    }

    // MARK: standard input

    /// `-` is `<stdin>` in every command's problems and reports.
    @Test(arguments: [
        ["get", "-", "missing"], ["get", "--json", "-", "missing"], ["type", "-", "missing"], ["inspect", "-"], ["validate", "-"],
        ["convert", "-", "--format", "json"],
    ])
    func standardInputIsNamedStdinEverywhere(_ arguments: [String]) throws {
        let input = arguments.contains("missing") ? "{\"a\" = 1;}" : "<plist><dict><key>a</key><integer>x</integer></dict></plist>"
        let run = try ICTRunner.run(arguments, stdin: Data(input.utf8))
        #expect(run.status == 1)
        let lines = run.stderr.split(separator: "\n")
        #expect(!lines.isEmpty)
        for line in lines {
            #expect(line.hasPrefix("<stdin>:"), "\(line)")
            #expect(line.range(of: Self.problemLine, options: .regularExpression) != nil, "\(line)")
        }
        if arguments.contains("--json") {
            let document = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
            #expect(document["path"] as? String == "<stdin>")
        }
    }

    // MARK: keyed-archive errors

    /// A dangling UID is reported at its byte by every command that reads
    /// the archive, not by `validate` alone.
    @Test func keyedArchiveErrorsCarryTheirByteInEveryCommand() throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/dangling.plist"
        let archive: PropertyListValue = [
            "$archiver": "NSKeyedArchiver", "$version": 100000, "$top": ["root": .uid(1)],
            "$objects": ["$null", ["$class": .uid(2), "name": .uid(9)], ["$classname": "Node", "$classes": ["Node", "NSObject"]]],
        ]
        try Data(try BinaryPropertyListWriter().encode(archive)).write(to: URL(fileURLWithPath: path))
        let before = try snapshot(folder)

        let validate = try ICTRunner.run(["validate", path])
        #expect(validate.status == 1)
        let expected = try #require(validate.stderr.split(separator: "\n").first.map(String.init))
        #expect(expected.range(of: #":byte \d+: error: UID 9 refers past the 3 objects"#, options: .regularExpression) != nil, "\(expected)")
        for arguments in [
            ["inspect", path], ["inspect", "--json", path], ["convert", path, "--format", "json", "-o", folder + "/out.json"],
            ["diff", path, path],
        ] {
            let run = try ICTRunner.run(arguments)
            #expect(run.status == 1, "\(arguments)")
            #expect(run.stderr == expected + "\n", "\(arguments)")
        }
        #expect(try snapshot(folder) == before)
    }

    /// The same in a document's keyed-archive entry: the entry's path and
    /// the byte in it, from every command that reads the entry.
    @Test func keyedArchiveErrorsInADocumentCarryTheirByteInEveryCommand() throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let document = folder + "/Dangling.ict"
        try FileManager.default.copyItem(atPath: Repository.root.path + "/SampleDocs/Coffee.ict", toPath: document)
        let entry = document + "/ctdocument.data"
        let read = try PropertyListReader().read(try #require(FileManager.default.contents(atPath: entry))).value
        guard case .dictionary(var top) = read, case .array(var objects)? = top["$objects"], case .dictionary(var data) = objects[1] else {
            Issue.record("Coffee.ict's data entry is not the archive expected")
            return
        }
        data["FIRST_NAME"] = .uid(999)
        objects[1] = .dictionary(data)
        top["$objects"] = .array(objects)
        try Data(try BinaryPropertyListWriter().encode(.dictionary(top))).write(to: URL(fileURLWithPath: entry))
        let before = try snapshot(folder)

        var bytes: Set<String> = []
        for arguments in [
            ["validate", document], ["inspect", "--data", document], ["convert", document, "--format", "json", "-o", folder + "/out.json"],
            ["diff", document, Repository.root.path + "/SampleDocs/Coffee.ict"],
        ] {
            let run = try ICTRunner.run(arguments)
            #expect(run.status == 1, "\(arguments)")
            let line = String(run.stderr.split(separator: "\n").first ?? "")
            let pattern = #"^.*/Dangling\.ict/ctdocument\.data:byte (\d+): error: .*UID 999 refers past the \d+ objects.* \(at \$objects\[1\]\.FIRST_NAME\)$"#
            let match = try #require(line.firstMatch(of: try Regex(pattern)), "\(arguments): \(line)")
            bytes.insert(String(match.output[1].substring ?? ""))
        }
        #expect(bytes.count == 1, "the same byte from every command: \(bytes)")
        #expect(try snapshot(folder) == before)
    }

    // MARK: owner and group

    static var isRoot: Bool { geteuid() == 0 }

    /// As root, an edit keeps the file's owner, group and mode, as Apple's
    /// `plutil` does with the same edit.
    @Test(.enabled(if: isRoot, "only root can give a file to another owner"))
    func editsKeepTheOwnerAndGroupAsApplesPlutilDoes() throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let text = "<plist version=\"1.0\"><dict><key>a</key><string>b</string></dict></plist>"
        for name in ["set.plist", "ours.plist", "apple.plist"] {
            let path = folder + "/" + name
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            #expect(chown(path, 1234, 5678) == 0)
            #expect(chmod(path, 0o640) == 0)
        }
        let set = try ICTRunner.run(["set", folder + "/set.plist", "a", "-string", "x"])
        #expect(set.status == 0, "\(set.stderr)")
        let ours = try ICTRunner.run(["plutil", "-replace", "a", "-string", "x", folder + "/ours.plist"])
        #expect(ours.status == 0, "\(ours.stderr)")
        var names = ["set.plist", "ours.plist"]
        if PlutilDifferentialTests.applePlutilExists {
            let apple = try ProgramRunner.run(PlutilDifferentialTests.applePlutil, ["-replace", "a", "-string", "x", folder + "/apple.plist"])
            #expect(apple.status == 0, "\(apple.stderr)")
            names.append("apple.plist")
        }
        for name in names {
            var status = stat()
            #expect(stat(folder + "/" + name, &status) == 0)
            #expect(status.st_uid == 1234 && status.st_gid == 5678, "\(name): \(status.st_uid):\(status.st_gid)")
            #expect(status.st_mode & 0o7777 == 0o640, "\(name)")
            let value = try PropertyListReader().read(try #require(FileManager.default.contents(atPath: folder + "/" + name))).value
            #expect(value == ["a": "x"], "\(name)")
        }
    }

    /// As root, saving a document package keeps the package's owner and
    /// group on everything written anew.
    @Test(.enabled(if: isRoot, "only root can give a file to another owner"))
    func documentSavesKeepTheOwnerAndGroup() throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let package = folder + "/Friend.ict"
        try FileManager.default.copyItem(atPath: Repository.root.path + "/SampleDocs/Coffee.ict", toPath: package)
        for path in [package] + (try FileManager.default.contentsOfDirectory(atPath: package)).map({ package + "/" + $0 }) {
            #expect(lchown(path, 1234, 5678) == 0)
        }
        let run = try ICTRunner.run(["set", package, "--first-name", "Ada"])
        #expect(run.status == 0, "\(run.stderr)")
        let items = try snapshot(package)
        #expect(!items.isEmpty)
        for (name, item) in items {
            let fields = item.split(separator: " ")
            #expect(fields[fields.count - 2] == "1234:5678", "\(name): \(item)")
        }
        var status = stat()
        #expect(stat(package, &status) == 0)
        #expect(status.st_uid == 1234 && status.st_gid == 5678)
        let get = try ICTRunner.run(["get", package, "ctdocument.data:FIRST_NAME"])
        #expect(get.stdout == "Ada\n", "\(get.stderr)")
    }

    // MARK: zips with links

    /// `convert --format zip` refuses, naming it, a link that restoring the
    /// zip would refuse (absolute, or leaving the package), before writing
    /// anything; with links that stay inside, the zip restores to the same tree.
    @Test func zipsAreMadeOnlyOfWhatRestores() throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let package = folder + "/Links.ict"
        try FileManager.default.copyItem(atPath: Repository.root.path + "/SampleDocs/Coffee.ict", toPath: package)
        try FileManager.default.createDirectory(atPath: package + "/sub", withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: package + "/data-link", withDestinationPath: "ctdocument.data")
        try FileManager.default.createSymbolicLink(atPath: package + "/sub/up-inside", withDestinationPath: "../ctdocument.metadata")
        let inward = try snapshot(package)

        for (name, destination, reason) in [
            ("out", "../../outside.txt", "the link points outside the package (../../outside.txt)"),
            ("abs", "/etc/passwd", "the link points to an absolute path, outside the package"),
        ] {
            try FileManager.default.createSymbolicLink(atPath: package + "/sub/" + name, withDestinationPath: destination)
            let before = try snapshot(folder)
            let refused = try ICTRunner.run(["convert", package, "--format", "zip", "-o", folder + "/Links.zip"])
            #expect(refused.status == 1)
            #expect(refused.stderr == "\(package):sub/\(name): error: \(reason); a zip of it could not be restored, so none is written\n")
            #expect(try snapshot(folder) == before)
            try FileManager.default.removeItem(atPath: package + "/sub/" + name)
        }

        let zipped = try ICTRunner.run(["convert", package, "--format", "zip", "-o", folder + "/Links.zip"])
        #expect(zipped.status == 0, "\(zipped.stderr)")
        let restored = try ICTRunner.run(["convert", folder + "/Links.zip", "--format", "package", "-o", folder + "/Restored.ict"])
        #expect(restored.status == 0, "\(restored.stderr)")
        let original = try snapshot(package), copy = try snapshot(folder + "/Restored.ict")
        // Beside the entries, the restored package holds the manifest its save wrote.
        #expect(Set(copy.keys).subtracting([".ictkit-manifest.plist"]) == Set(original.keys))
        for (name, item) in original where item.hasPrefix("link ") || item.hasPrefix("file ") {
            #expect(copy[name]?.split(separator: " ").prefix(2) == item.split(separator: " ").prefix(2), "\(name)")
        }
        #expect(original == inward)
    }

    // MARK: files whose size says 0

    /// A `/proc` file states a size of 0 yet has content: it is read to its end.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/self/status"), "needs Linux's /proc"))
    func procFilesAreReadToTheirEnd() throws {
        let status = try ICTRunner.run(["validate", "/proc/self/status"])
        #expect(status.status == 1)
        #expect(!status.stderr.contains("empty"), "\(status.stderr)")
        #expect(status.stderr.hasPrefix("/proc/self/status:"), "\(status.stderr)")
        #expect(status.stderr.range(of: #"^/proc/self/status:\d+:\d+: error: "#, options: .regularExpression) != nil, "\(status.stderr)")

        // "Linux\n": an OpenStep property list of one string.
        let ostype = try ICTRunner.run(["inspect", "--json", "/proc/sys/kernel/ostype"])
        #expect(ostype.status == 0, "\(ostype.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(ostype.stdout.utf8)) as? [String: Any])
        #expect(document["value"] as? String == "Linux")
    }
}
