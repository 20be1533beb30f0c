import Foundation
import TestSupport
import Testing

/// `ict diff` on each kind of input: what differs, by key path, with exit
/// status 0 for equal inputs and 1 for different ones (expected lines
/// written by hand from the inputs each test makes).
struct DiffCommandTests {
    private let folder: String

    init() throws {
        folder = try ScratchFolder.make("ict-diff").path
    }

    private func write(_ text: String, _ name: String) throws -> String {
        let path = folder + "/" + name
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func propertyListsDifferByValueWhateverTheirForm() throws {
        let xml = try write("<plist><dict><key>a</key><integer>1</integer><key>b</key><array><string>x</string></array></dict></plist>", "a.plist")
        let binary = folder + "/a.bplist"
        #expect(try ICTRunner.run(["convert", xml, "--format", "binary1", "-o", binary]).status == 0)
        let same = try ICTRunner.run(["diff", xml, binary])
        #expect(same.status == 0)
        #expect(same.stdout == "")
        let json = try write(#"{"a": 2, "b": ["x", "y"], "c": true}"#, "c.json")
        let run = try ICTRunner.run(["diff", xml, json])
        #expect(run.status == 1)
        #expect(run.stdout == "~ a: 1 → 2\n+ b[1]: \"y\"\n+ c: true\n")
        #expect(run.stderr == "")
    }

    @Test func keyedArchivesDifferByObjectGraphNotByObjectNumbers() throws {
        // The same graph numbered two ways: the root's string is object 2 in one, 1 in the other.
        let first = try write(
            """
            <plist><dict><key>$archiver</key><string>NSKeyedArchiver</string><key>$version</key><integer>100000</integer>
            <key>$top</key><dict><key>root</key><dict><key>CF$UID</key><integer>2</integer></dict></dict>
            <key>$objects</key><array><string>$null</string><string>unused</string><string>hello</string></array></dict></plist>
            """, "one.plist")
        let second = try write(
            """
            <plist><dict><key>$archiver</key><string>NSKeyedArchiver</string><key>$version</key><integer>100000</integer>
            <key>$top</key><dict><key>root</key><dict><key>CF$UID</key><integer>1</integer></dict></dict>
            <key>$objects</key><array><string>$null</string><string>hello</string></array></dict></plist>
            """, "two.plist")
        #expect(try ICTRunner.run(["diff", first, second]).status == 0)
        let third = try write(try String(contentsOfFile: second, encoding: .utf8).replacingOccurrences(of: "hello", with: "bye"), "three.plist")
        let run = try ICTRunner.run(["diff", first, third])
        #expect(run.status == 1)
        #expect(run.stdout == "~ root: \"hello\" → \"bye\"\n")
    }

    @Test func packagesDifferEntryByEntryThenByValue() throws {
        let a = folder + "/A.pkg", b = folder + "/B.pkg"
        for package in [a, b] { try FileManager.default.createDirectory(atPath: package + "/Resources", withIntermediateDirectories: true) }
        _ = try write("<plist><dict><key>n</key><integer>1</integer></dict></plist>", "A.pkg/settings.plist")
        _ = try write("<plist><dict><key>n</key><integer>3</integer></dict></plist>", "B.pkg/settings.plist")
        _ = try write("same", "A.pkg/Resources/same.txt")
        _ = try write("same", "B.pkg/Resources/same.txt")
        _ = try write("old", "A.pkg/notes.txt")
        _ = try write("newer", "B.pkg/notes.txt")
        _ = try write("only here", "B.pkg/extra.txt")
        let run = try ICTRunner.run(["diff", a, b])
        #expect(run.status == 1)
        #expect(
            run.stdout == """
                ~ notes.txt: <3 bytes of data> → <5 bytes of data>
                ~ settings.plist:n: 1 → 3
                + extra.txt: <9 bytes of data>

                """)
    }

    @Test func documentsDifferFieldByField() throws {
        let a = folder + "/A.ict", b = folder + "/B.ict"
        try FileManager.default.copyItem(atPath: Repository.root.path + "/SampleDocs/Coffee.ict", toPath: a)
        try FileManager.default.copyItem(atPath: a, toPath: b)
        #expect(try ICTRunner.run(["set", b, "--first-name", "Zed", "--favorite-number", "7"]).status == 0)
        let run = try ICTRunner.run(["diff", a, b])
        #expect(run.status == 1)
        // Coffee's favourite number is 3.5 (scripts/make-sample-docs.sh).
        #expect(run.stdout == "~ ctdocument.data:FIRST_NAME: \"Coffee\" → \"Zed\"\n~ ctdocument.data:FAVORITE_NUMBER: 3.5 → 7.0\n")
        let json = try ICTRunner.run(["diff", "--json", a, b])
        let report = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let differences = report?["differences"] as? [[String: Any]]
        #expect(differences?.first?["entry"] as? String == "ctdocument.data")
        #expect(differences?.first?["keyPath"] as? String == "FIRST_NAME")
    }

    @Test func gitsExternalDiffArgumentsCompareTheTwoFiles() throws {
        let old = try write("<plist><string>a</string></plist>", "old.plist")
        let new = try write("<plist><string>b</string></plist>", "new.plist")
        let run = try ICTRunner.run(["diff", "Settings.plist", old, "1111111", "100644", new, "2222222", "100644"])
        #expect(run.status == 1)
        #expect(run.stdout == "ict diff Settings.plist\n~ (the whole value): \"a\" → \"b\"\n")
    }

    @Test func anUnreadableSideIsAnErrorNamingIt() throws {
        let good = try write("<plist><true/></plist>", "good.plist")
        let bad = try write("<plist><true></plist>", "bad.plist")
        let run = try ICTRunner.run(["diff", good, bad])
        #expect(run.status == 1)
        #expect(run.stdout == "")
        #expect(run.stderr.hasPrefix(bad + ":1:"))
        let mixed = try ICTRunner.run(["diff", good, folder])
        #expect(mixed.stderr == "\(good): error: is a file and the other is a folder; compare two files or two packages\n")
    }
}

/// `--sort-keys` on `inspect` and `convert`: every dictionary's keys sorted,
/// at every depth and in every form; without it, the file's order.
struct SortKeysCommandTests {
    @Test func sortsEveryDictionaryInEveryFormAndKeepsOrderOtherwise() throws {
        let source = Data(
            "<plist><dict><key>z</key><integer>1</integer><key>a</key><array><dict><key>y</key><true/><key>b</key><false/></dict></array></dict></plist>".utf8)
        let json = try ICTRunner.run(["convert", "-", "--format", "json", "--sort-keys"], stdin: source)
        #expect(json.stdout == "{\n  \"a\": [\n    {\n      \"b\": false,\n      \"y\": true\n    }\n  ],\n  \"z\": 1\n}\n")
        let kept = try ICTRunner.run(["convert", "-", "--format", "json"], stdin: source)
        #expect(kept.stdout == "{\n  \"z\": 1,\n  \"a\": [\n    {\n      \"y\": true,\n      \"b\": false\n    }\n  ]\n}\n")
        let xml = try ICTRunner.run(["convert", "-", "--format", "xml1", "--sort-keys"], stdin: source)
        let keys = xml.stdout.split(separator: "\n").filter { $0.contains("<key>") }.map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(keys == ["<key>a</key>", "<key>b</key>", "<key>y</key>", "<key>z</key>"])
        let tree = try ICTRunner.run(["inspect", "--sort-keys", "-"], stdin: source)
        #expect(tree.stdout == "{\n  \"a\" => [\n    0 => {\n      \"b\" => false\n      \"y\" => true\n    }\n  ]\n  \"z\" => 1\n}\n")
    }
}
