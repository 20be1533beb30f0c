import Foundation
import TestSupport
import Testing

/// Names and values holding escape sequences, newlines and carriage returns
/// (from documents, keys, entry and file names) reach the terminal escaped in
/// output for people (`TerminalText`: `\n`, `\r`, `\u{1B}`, …), on standard
/// output and standard error alike, so they cannot clear the screen, retitle
/// the terminal or forge lines; `--json` keeps them exactly.
struct TerminalOutputTests {
    /// Retitles the terminal (OSC 0 … BEL), clears the screen, forges a line
    /// and overwrites it, starts a C1 control sequence, reverses the text.
    static let hostile = "Ada\u{1B}]0;pwned\u{7}\u{1B}[2J\nforged row\rX\u{9B}31m\u{202E}gnp.exe"
    /// `hostile` as people see it.
    static let shown = #"Ada\u{1B}]0;pwned\u{07}\u{1B}[2J\nforged row\rX\u{9B}31m\u{202E}gnp.exe"#

    private let folder: String

    init() throws {
        folder = try ScratchFolder.make("ict-terminal").path
    }

    /// The control characters in `text` other than the line feeds that end lines.
    private func rawControls(_ text: String) -> [Unicode.Scalar] {
        text.unicodeScalars.filter { scalar in
            let value = scalar.value
            return (value < 0x20 && value != 0x0A) || (0x7F...0x9F).contains(value) || value == 0x202E
        }
    }

    /// Every file below `folder` with its bytes, to show a run changed nothing.
    private func snapshot() throws -> [String: Data] {
        var files: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(atPath: folder)
        while let name = enumerator?.nextObject() as? String {
            let path = folder + "/" + name
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
                files[name] = FileManager.default.contents(atPath: path)
            } else {
                files[name] = Data()
            }
        }
        return files
    }

    private func json(_ text: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// A document named `Doc.ict` with `hostile` as its display name, renamed to hold it in its file name too.
    private func hostileDocument() throws -> String {
        let created = try ICTRunner.run(["create", "--display-name", Self.hostile, "--name", "Doc", "-o", folder])
        try #require(created.status == 0, "\(created.stderr)")
        let path = folder + "/Doc\n\u{1B}[2J.ict"
        try FileManager.default.moveItem(atPath: folder + "/Doc.ict", toPath: path)
        return path
    }

    @Test func listShowsNamesAndPathsEscapedAndJSONExactly() throws {
        let document = try hostileDocument()
        let before = try snapshot()
        let run = try ICTRunner.run(["list", folder])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(rawControls(run.stdout).isEmpty, "a raw control character reached the terminal: \(run.stdout.debugDescription)")
        let lines = run.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 3, "the header, one row, and the end of the last line: \(lines)")
        #expect(lines[1].hasPrefix(Self.shown + "  "))
        #expect(lines[1].hasSuffix(#"/Doc\n\u{1B}[2J.ict"#))
        let listed = try ICTRunner.run(["list", "--json", folder])
        #expect(listed.status == 0)
        let documents = try #require(try json(listed.stdout)["documents"] as? [[String: Any]])
        #expect(documents.first?["displayName"] as? String == Self.hostile)
        #expect(documents.first?["path"] as? String == document)
        #expect(try snapshot() == before)
    }

    @Test func inspectShowsDocumentsKeysValuesAndEntriesEscaped() throws {
        let document = try hostileDocument()
        let inspect = try ICTRunner.run(["inspect", document])
        #expect(inspect.status == 0, "\(inspect.stderr)")
        #expect(rawControls(inspect.stdout).isEmpty, "\(inspect.stdout.debugDescription)")
        #expect(inspect.stdout.contains("  display name: \(Self.shown)\n"))
        let exact = try ICTRunner.run(["inspect", "--json", document])
        let fields = try #require(try json(exact.stdout)["document"] as? [String: Any])
        #expect(fields["displayName"] as? String == Self.hostile)

        // A property list's keys and strings: the tree quotes them, escaping quotes and backslashes too.
        let plist = folder + "/values.plist"
        let xmlHostile = Self.hostile.replacingOccurrences(of: "\u{1B}", with: "&#x1B;").replacingOccurrences(of: "\u{7}", with: "&#x7;")
        try Data("<plist><dict><key>\(xmlHostile)</key><string>\"\\\(xmlHostile)</string></dict></plist>".utf8).write(to: URL(fileURLWithPath: plist))
        let tree = try ICTRunner.run(["inspect", plist])
        #expect(tree.status == 0, "\(tree.stderr)")
        #expect(rawControls(tree.stdout).isEmpty, "\(tree.stdout.debugDescription)")
        #expect(tree.stdout == "{\n  \"\(Self.shown)\" => \"\\\"\\\\\(Self.shown)\"\n}\n")

        // A package's entry names.
        let package = folder + "/Thing.pkg"
        try FileManager.default.createDirectory(atPath: package, withIntermediateDirectories: true)
        try Data("x".utf8).write(to: URL(fileURLWithPath: package + "/a\nb\u{1B}[2J.txt"))
        let entries = try ICTRunner.run(["inspect", package])
        #expect(entries.status == 0, "\(entries.stderr)")
        #expect(rawControls(entries.stdout).isEmpty, "\(entries.stdout.debugDescription)")
        #expect(entries.stdout.contains(#"  a\nb\u{1B}[2J.txt  1 B  "#))
        let entriesJSON = try ICTRunner.run(["inspect", "--json", package])
        let listed = try #require((try json(entriesJSON.stdout)["package"] as? [String: Any])?["entries"] as? [[String: Any]])
        #expect(listed.first?["path"] as? String == "a\nb\u{1B}[2J.txt")
    }

    @Test func problemsOnStandardErrorShowFileNamesEscaped() throws {
        let missing = folder + "/x\u{1B}]0;pwned\u{7}\n.plist"
        let run = try ICTRunner.run(["inspect", missing])
        #expect(run.status == 1)
        #expect(run.stderr == folder + #"/x\u{1B}]0;pwned\u{07}\n.plist: error: cannot open: No such file or directory"# + "\n")
        let json = try ICTRunner.run(["inspect", "--json", missing])
        #expect(json.status == 1)
        let problems = try #require(try self.json(json.stdout)["problems"] as? [[String: Any]])
        #expect(problems.first?["path"] as? String == missing)
        #expect(try snapshot().isEmpty)
    }

    @Test func validateDiffAndVersionsShowNamesEscaped() throws {
        let name = folder + "/a\nb\u{1B}[2J.plist"
        try Data("<plist><dict><key>k\u{1B}[2J</key><integer>1</integer></dict></plist>".utf8).write(to: URL(fileURLWithPath: name))
        let other = folder + "/other.plist"
        try Data("<plist><dict><key>k\u{1B}[2J</key><integer>2</integer></dict></plist>".utf8).write(to: URL(fileURLWithPath: other))
        let before = try snapshot()
        let shownName = folder + #"/a\nb\u{1B}[2J.plist"#

        let validate = try ICTRunner.run(["validate", name])
        #expect(validate.status == 0, "\(validate.stderr)")
        #expect(validate.stdout == shownName + ": valid XML property list\n")

        let diff = try ICTRunner.run(["diff", name, other])
        #expect(diff.status == 1)
        #expect(diff.stdout == #"~ k\u{1B}[2J: 1 → 2"# + "\n")
        let diffJSON = try ICTRunner.run(["diff", "--json", name, other])
        let differences = try #require(try json(diffJSON.stdout)["differences"] as? [[String: Any]])
        #expect(differences.first?["keyPath"] as? String == "k\u{1B}[2J")

        let versions = try ICTRunner.run(["versions", name])
        #expect(versions.status == 0, "\(versions.stderr)")
        #expect(rawControls(versions.stdout).isEmpty, "\(versions.stdout.debugDescription)")
        #expect(versions.stdout.contains("\n    \(shownName)\n"))
        #expect(try snapshot() == before)
    }
}
