import Foundation
import TestSupport
import Testing

/// `ict validate` end to end: exit status, messages with locations, limits.
struct ValidateCommandTests {
    private func write(_ text: String, named name: String) throws -> URL {
        let folder = try ScratchFolder.make("validate")
        let file = folder.appendingPathComponent(name)
        try Data(text.utf8).write(to: file)
        return file
    }

    @Test func validFileExitsZeroAndSaysWhatItIs() throws {
        let sample = Repository.root.appendingPathComponent("SampleDocs/Info.plist").path
        let run = try ICTRunner.run(["validate", sample])
        #expect(run.status == 0)
        #expect(run.stdout == "\(sample): valid XML property list\n")
        #expect(run.stderr.isEmpty)
    }

    @Test func malformedXMLExitsOneWithLineAndColumn() throws {
        let file = try write(
            "<?xml version=\"1.0\"?>\n<plist>\n<dict>\n  <key>a</key>\n  <integer>12x</integer>\n</dict>\n</plist>\n",
            named: "bad.plist")
        let run = try ICTRunner.run(["validate", file.path])
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix("\(file.path):5:"))
        #expect(run.stderr.contains("(at a)"))
    }

    @Test func dtdViolationIsReportedWithItsLine() throws {
        // Well-formed, and every value readable, but <plist> holds two values: the DTD allows one.
        let file = try write(
            "<?xml version=\"1.0\"?>\n<plist version=\"1.0\">\n<string>a</string>\n<string>b</string>\n</plist>\n",
            named: "two.plist")
        let run = try ICTRunner.run(["validate", file.path])
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix("\(file.path):"))
    }

    @Test func oneInvalidFileAmongValidOnesMakesTheStatusOne() throws {
        let good = try write("{ a = b; }", named: "good.plist")
        let bad = try write("bplist00", named: "bad.plist")
        let run = try ICTRunner.run(["validate", good.path, bad.path])
        #expect(run.status == 1)
        #expect(run.stdout == "\(good.path): valid OpenStep property list\n")
        #expect(run.stderr.hasPrefix("\(bad.path):byte "))
    }

    /// Issue 39: what is left of a package deleted on one device and edited
    /// on the other (the edited entry and the manifest): never valid, each
    /// missing entry named, by `ict validate` and `ict list`.
    @Test func aPackageMissingAnEntryItsManifestListsIsInvalidWithThePath() throws {
        let folder = try ScratchFolder.make("validate").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/Friend.ict"
        try FileManager.default.copyItem(atPath: Repository.root.path + "/SampleDocs/Coffee.ict", toPath: path)
        #expect(try ICTRunner.run(["set", path, "--first-name", "Edited there"]).status == 0)
        try FileManager.default.removeItem(atPath: path + "/ctdocument.data")
        let run = try ICTRunner.run(["validate", path])
        #expect(run.status == 1)
        #expect(run.stderr.contains("\(path)"), "\(run.stderr)")
        #expect(run.stderr.contains("ctdocument.data") && run.stderr.contains("missing: the package's manifest lists it"), "\(run.stderr)")
        let list = try ICTRunner.run(["list", folder])
        #expect(list.status == 1, "\(list.stdout)")
        #expect(
            list.stderr.contains("\(path): error: the package is partial: entries are missing or still arriving; missing: \"ctdocument.data\""),
            "\(list.stderr)")
    }

    @Test func missingFileIsInvalidAndNamed() throws {
        let run = try ICTRunner.run(["validate", "/nonexistent/x.plist"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("/nonexistent/x.plist"))
        #expect(run.stderr.contains("No such file or directory"))
    }

    @Test func noFilesIsAUsageError() throws {
        let run = try ICTRunner.run(["validate"])
        #expect(run.status == 64)
        #expect(run.stderr.contains("name at least one file"))
    }

    @Test func jsonReportListsFindingsWithLocations() throws {
        let bad = try write("<plist><integer>x</integer></plist>", named: "x.plist")
        let run = try ICTRunner.run(["validate", "--json", bad.path])
        #expect(run.status == 1)
        let document = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        let files = document?["files"] as? [[String: Any]]
        #expect(files?.first?["valid"] as? Bool == false)
        let finding = (document?["problems"] as? [[String: Any]])?.first
        #expect(finding?["path"] as? String == bad.path)
        #expect(finding?["severity"] as? String == "error")
        #expect(finding?["line"] as? Int == 1)
        #expect((finding?["message"] as? String)?.isEmpty == false)
    }

    @Test(.interopCorpus)
    func cocoaNibWithRawEscapeIsValid() throws {
        // Interface Builder wrote ESC raw in <string>; libxml2 alone said "PCDATA invalid Char value 27".
        let nib = InteropCorpus.root.appendingPathComponent("realworld/adium-adium/Frameworks/Adium/Resources/nl.lproj/PasswordPrompt.nib/keyedobjects.nib")
            .path
        let run = try ICTRunner.run(["validate", nib])
        #expect(run.status == 0)
        #expect(run.stdout == "\(nib): valid keyed archive (XML property list)\n")
        #expect(run.stderr.isEmpty)
    }

    @Test(.interopCorpus)
    func utf32IsValidAsConvertReadsIt() throws {
        // The DTD check used to see the raw UTF-32 bytes and say "Document is empty".
        let file = InteropCorpus.root.appendingPathComponent("xmlplist/dd-plist/test-xml-utf-32le.plist").path
        #expect(try ICTRunner.run(["convert", file, "--format", "json"]).status == 0)
        let run = try ICTRunner.run(["validate", file])
        #expect(run.status == 0)
        #expect(run.stdout == "\(file): valid XML property list\n")
        #expect(run.stderr.isEmpty)
    }

    @Test func xcodeSchemeIsNamedNotParsed() throws {
        let file = try write("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Scheme\n   version = \"1.3\">\n</Scheme>\n", named: "App.xcscheme")
        let run = try ICTRunner.run(["validate", file.path])
        #expect(run.status == 1)
        #expect(run.stderr == "\(file.path):2:1: error: an Xcode scheme (<Scheme>), not a property list\n")
    }

    @Test func nibArchiveIsReadAsACompiledNib() throws {
        // The magic and two versions: 18 of the header's 50 bytes.
        let file = try write("NIBArchive\u{1}\0\0\0\t\0\0\0", named: "View.nib")
        let run = try ICTRunner.run(["validate", file.path])
        #expect(run.status == 1)
        #expect(run.stderr == "\(file.path):byte 18: error: the input ends inside the header (18 of 50 bytes)\n")
    }

    @Test func kindNamesTakeTheRightArticle() throws {
        let file = try write("<plist><dict><key>CFBundleDocumentTypes</key><integer>7</integer></dict></plist>", named: "Info.plist")
        let run = try ICTRunner.run(["validate", file.path])
        #expect(run.stderr.contains("CFBundleDocumentTypes is an integer, not an array"), "\(run.stderr)")
    }
}

/// `ict validate` on a large XML property list: the DTD check streams the
/// document, so memory stays near what reading the value takes.
@Suite(.tags(.slow), .enabled(if: SlowTests.enabled, SlowTests.skipped))
struct ValidateMemoryTests {
    /// Writes an XML plist of about 40 MB with python3's plistlib: a
    /// dictionary of 40,000 entries, each an array of a 1 KB string and an integer.
    private func writeLargeXMLPlist() throws -> URL {
        let folder = try ScratchFolder.make("validate-large")
        let file = folder.appendingPathComponent("large.plist")
        _ = try PythonScript.run(
            """
            import plistlib, sys
            text = "lorem ipsum dolor sit amet " * 38
            with open(sys.argv[1], "wb") as f:
                plistlib.dump({"entry%06d" % i: [text, i] for i in range(40000)}, f)
            """, arguments: [file.path])
        return file
    }

    @Test func largeXMLPlistValidatesInLessThanThreeTimesItsSize() throws {
        let file = try writeLargeXMLPlist()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let size = try #require(try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int)
        #expect(size > 38_000_000)
        let run = try ICTRunner.run(["validate", file.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.peakMemory < 3 * size, "used \(run.peakMemory >> 20) MB for \(size >> 20) MB")
    }
}

/// Every file of the malformed corpus through `ict validate`: rejected files
/// exit 1 with a located message; none crashes, runs over 1 s or 256 MB.
struct MalformedCorpusCommandTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var path: String
        var expectation: String
        var testDescription: String { path }
    }

    /// Files the MANIFEST marks REJECT that a CoreFoundation-compatible reader
    /// accepts; the MANIFEST itself says so for each.
    static let acceptedLikeCoreFoundation: Set<String> = [
        // "Python-specific: ... 36-37 datetime overflow may be accepted by CF":
        // the dates are finite, merely past Python's datetime range.
        "malformed/cpython-plistlib/invalid_binary_36_too_large_datetime_datetime_overflow.bplist",
        "malformed/cpython-plistlib/invalid_binary_37_too_large_datetime_timedelta_overflow.bplist",
    ]

    static let cases: [Case] = {
        guard let manifest = try? String(contentsOf: InteropCorpus.root.appendingPathComponent("MANIFEST.md"), encoding: .utf8) else { return [] }
        return manifest.split(separator: "\n").compactMap { line -> Case? in
            let columns = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard columns.count > 6, columns[1].hasPrefix("malformed/"), !columns[1].hasSuffix("INDEX.tsv") else { return nil }
            return Case(path: columns[1], expectation: columns[6])
        }
    }()

    @Test(.interopCorpus)
    func corpusIsListed() {
        #expect(Self.cases.count >= 200)
    }

    @Test(.interopCorpus, arguments: cases)
    func validateHandles(_ file: Case) throws {
        let fullPath = InteropCorpus.root.appendingPathComponent(file.path).path
        let run = try ICTRunner.run(["validate", fullPath])
        #expect(run.status == 0 || run.status == 1, "crashed or failed oddly: status \(run.status), \(run.stderr)")
        #expect(run.peakMemory < 256 << 20, "used \(run.peakMemory >> 20) MB")
        let mustReject = file.expectation.hasPrefix("REJECT") && !Self.acceptedLikeCoreFoundation.contains(file.path)
        if mustReject {
            #expect(run.status == 1, "accepted a file the MANIFEST says to reject: \(file.expectation)")
            let located = run.stderr.hasPrefix(fullPath + ":byte ") || run.stderr.range(of: #"^[^\n]*:[0-9]+:[0-9]+: "#, options: .regularExpression) != nil
            #expect(located, "no location in: \(run.stderr)")
        }
    }
}
