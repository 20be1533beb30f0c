import Foundation
import TestSupport
import Testing

/// Issue 11's acceptance over `../shared/interop/realworld/`: files that
/// Xcode, Interface Builder and Apple's archiver wrote in real projects.
/// Which of them are property lists is Apple's `plutil -lint`'s answer (the
/// oracle, run here); for each, `ict validate` exits 0, `ict convert
/// --format json` succeeds, and converting it to its own form gives back its
/// bytes, binary and keyed archives always, XML unless the file is named
/// below with what another tool or an older CoreFoundation wrote differently.
/// Each file that is not a property list is refused with its format named or
/// its place given. The counts are printed.
@Suite(.tags(.slow), .enabled(if: SlowTests.enabled, SlowTests.skipped))
struct RealWorldCorpusTests {
    static let folder = InteropCorpus.root.appendingPathComponent("realworld")
    static let plutil = "/opt/swift/usr/bin/plutil"
    static var plutilExists: Bool { FileManager.default.isExecutableFile(atPath: plutil) }

    /// XML files whose bytes ict does not give back, and what differs. Each
    /// was written by a person, another tool or an older Interface Builder,
    /// not by today's CoreFoundation, which writes tabs, no comments, `<dict/>`,
    /// only `&amp; &lt; &gt;` as entities and reals with 17 digits.
    static let xmlNotAsCocoaWritesIt: [String: String] = [
        "CocoaPods-Xcodeproj/spec/fixtures/CommonBuildSettings/Project/Objc_OSX_Native/Objc_OSX_Native.entitlements": "indented with spaces",
        "macvim-dev-macvim/src/MacVim/MacVim.entitlements": "indented with spaces",
        "tuist-XcodeProj/Fixtures/WorkspaceSettings/OriginalAbsoluteDerivedData.xcsettings": "indented with spaces",
        "tuist-XcodeProj/Fixtures/WithoutWorkspace/WithoutWorkspace.xcodeproj/WithoutWorkspace_Info.plist": "indented with spaces, no DOCTYPE",
        "quicksilver-Quicksilver/Quicksilver/PlugIns-Main/QSCorePlugIn/Resources/cs.lproj/QSAction.description.strings": "indented with spaces",
        "quicksilver-Quicksilver/Quicksilver/PlugIns-Main/QSCorePlugIn/Resources/en_GB.lproj/QSObjectSource.name.strings": "indented with spaces",
        "quicksilver-Quicksilver/Quicksilver/PlugIns-Main/QSCorePlugIn/Resources/es-ES.lproj/QSAction.name.strings": "indented with spaces",
        "quicksilver-Quicksilver/Quicksilver/PlugIns-Main/QSCorePlugIn/Resources/fr.lproj/QSParser.name.strings": "indented with spaces",
        "quicksilver-Quicksilver/Quicksilver/PlugIns-Main/QSCorePlugIn/Resources/id.lproj/QSAction.description.strings": "indented with spaces",
        "macvim-dev-macvim/src/MacVim/Info.plist": "holds comments",
        "macvim-dev-macvim/src/MacVim/KeyBinding.plist": "holds comments",
        "apple-oss-distributions-configd/EventFactory/Info.plist": "writes quotes as &quot;",
        "quicksilver-Quicksilver/Quicksilver/PropertyLists/Quicksilver-Info.plist": "writes apostrophes as &apos;",
        "quicksilver-Quicksilver/Quicksilver/Scripting/Automator/Send to Quicksilver/Info.plist": "writes apostrophes as &apos;",
        "adium-adium/Plugins/Purple Service/Resources/hu.lproj/ESPurpleNovellAccountView.nib/info.nib":
            "an empty dictionary as <dict></dict> (old Interface Builder)",
        "adium-adium/Resources/Dock Icons/Adiumy Blue.AdiumIcon/IconPack.plist": "a real in its shortest form (0.2), as an older CoreFoundation wrote it",
    ]

    /// An older CoreFoundation named the DTD `-//Apple Computer//DTD PLIST
    /// 1.0//EN`; today's, and ICTKit, `-//Apple//DTD PLIST 1.0//EN`. Files
    /// that differ only there count as given back, and are counted apart.
    static func withTodaysDTDName(_ bytes: Data) -> Data {
        let old = Data("-//Apple Computer//DTD PLIST 1.0//EN".utf8), new = Data("-//Apple//DTD PLIST 1.0//EN".utf8)
        guard let range = bytes.prefix(400).range(of: old) else { return bytes }
        var result = bytes
        result.replaceSubrange(range, with: new)
        return result
    }

    /// The files listed in `files.tsv`, relative to `realworld/`.
    static func files() throws -> [String] {
        let index = try String(contentsOf: folder.appendingPathComponent("files.tsv"), encoding: .utf8)
        return index.split(separator: "\n").dropFirst().compactMap { $0.split(separator: "\t").first.map(String.init) }
    }

    /// Apple's answer: does `plutil -lint` read it?
    static func plutilReads(_ path: String) throws -> Bool {
        try ProgramRunner.run(plutil, ["-lint", "-s", path]).status == 0
    }

    @Test(.interopCorpus, .enabled(if: plutilExists, "needs Apple's plutil (/opt/swift/usr/bin/plutil)"))
    func everyPropertyListReadsConvertsAndRoundTrips() throws {
        let scratch = try ScratchFolder.make("realworld").path
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        var propertyLists: [String] = [], others: [String] = []
        for file in try Self.files() {
            try Self.plutilReads(Self.folder.appendingPathComponent(file).path) ? propertyLists.append(file) : others.append(file)
        }
        // One `ict validate` over all property lists; its report says which are valid.
        let validate = try ICTRunner.run(["validate", "--json"] + propertyLists.map { Self.folder.appendingPathComponent($0).path })
        let report = try JSONSerialization.jsonObject(with: Data(validate.stdout.utf8)) as? [String: Any]
        let results = report?["files"] as? [[String: Any]] ?? []
        #expect(results.count == propertyLists.count)
        let invalid = results.filter { $0["valid"] as? Bool != true }.compactMap { $0["path"] as? String }
        #expect(invalid.isEmpty, "refused by ict validate:\n\(invalid.joined(separator: "\n"))\n\(validate.stderr)")

        var converted = 0, sameBytes = 0, sameButOldDTDName = 0, namedDifferences = 0, roundTripped = 0, keyedArchives = 0, sameArchives = 0
        var failures: [String] = []
        for (index, file) in propertyLists.enumerated() {
            let path = Self.folder.appendingPathComponent(file).path
            let original = try Data(contentsOf: URL(fileURLWithPath: path))
            let json = "\(scratch)/\(index).json"
            let toJSON = try ICTRunner.run(["convert", path, "--format", "json", "-o", json])
            guard toJSON.status == 0 else { failures.append("\(file): convert --format json: \(toJSON.stderr)"); continue }
            converted += 1
            let isBinary = original.starts(with: Data("bplist".utf8))
            let isXML = !isBinary && String(decoding: original.prefix(200), as: UTF8.self).contains("<plist")
            guard isBinary || isXML else { continue }  // OpenStep (.strings, .pbxproj): read only.
            roundTripped += 1
            let again = "\(scratch)/\(index).again"
            let rewrite = try ICTRunner.run(["convert", path, "--format", isBinary ? "binary1" : "xml1", "-o", again])
            let rewritten = try? Data(contentsOf: URL(fileURLWithPath: again))
            if rewrite.status == 0, rewritten == original {
                sameBytes += 1
                if Self.xmlNotAsCocoaWritesIt[file] != nil { failures.append("\(file): named as not Cocoa's, but given back whole") }
            } else if rewrite.status == 0, !isBinary, rewritten == Self.withTodaysDTDName(original) {
                sameButOldDTDName += 1
            } else if isBinary || Self.xmlNotAsCocoaWritesIt[file] == nil {
                failures.append("\(file): \(isBinary ? "binary1" : "xml1") round trip differs \(rewrite.stderr)")
            } else {
                namedDifferences += 1
            }
            // A keyed archive also goes through its JSON form and back.
            guard String(decoding: try Data(contentsOf: URL(fileURLWithPath: json)).prefix(4096), as: UTF8.self).contains("\"archiver\": \"NSKeyedArchiver\"")
            else { continue }
            keyedArchives += 1
            let archive = "\(scratch)/\(index).archive"
            let back = try ICTRunner.run(["convert", json, "--format", isBinary ? "keyed-archive" : "keyed-archive-xml", "-o", archive])
            let rebuilt = try? Data(contentsOf: URL(fileURLWithPath: archive))
            if back.status == 0, rebuilt == original || (!isBinary && rebuilt == Self.withTodaysDTDName(original)) {
                sameArchives += 1
            } else if isBinary || Self.xmlNotAsCocoaWritesIt[file] == nil {
                failures.append("\(file): keyed archive through JSON differs \(back.stderr)")
            }
        }
        print(
            """
            realworld: \(propertyLists.count) property lists by plutil -lint (\(others.count) other files); \
            ict validate: \(results.count - invalid.count) valid; convert --format json: \(converted); \
            same bytes in their own form: \(sameBytes) of \(roundTripped) binary/XML, \(sameButOldDTDName) more but for the \
            older DTD name, \(namedDifferences) named as not written by today's Cocoa; \
            keyed archives through JSON: \(sameArchives) of \(keyedArchives)
            """)
        #expect(failures.isEmpty, "\(failures.count) failures:\n\(failures.joined(separator: "\n"))")
    }

    /// What ict names a compiled nib or a typed stream as, told by the file's
    /// first bytes (`NIBArchive`; a length byte, then `streamtyped` or
    /// `typedstream`), or nil for other files.
    static func archiveBesidePropertyLists(_ path: String) -> String? {
        let head = [UInt8]((try? Data(contentsOf: URL(fileURLWithPath: path)))?.prefix(13) ?? Data())
        if head.starts(with: Array("NIBArchive".utf8)) { return "compiled nib (NIBArchive)" }
        guard head.count == 13, head[1] == 0x0B else { return nil }
        let name = String(decoding: head[2...], as: UTF8.self)
        return name == "streamtyped" || name == "typedstream" ? "typed stream" : nil
    }

    /// Files Apple's plutil does not read: ict refuses them too, naming the
    /// format when it is one it knows, else saying where it stopped — but for
    /// the archives ICTKit reads beside property lists (compiled nibs and
    /// NSArchiver typed streams, told here by their first bytes), which it
    /// validates and names.
    @Test(.interopCorpus, .enabled(if: plutilExists, "needs Apple's plutil (/opt/swift/usr/bin/plutil)"))
    func everyOtherFileIsRefusedAndSaysWhatItIs() throws {
        var named = 0, located = 0, readAsArchives = 0
        var failures: [String] = []
        for file in try Self.files() {
            let path = Self.folder.appendingPathComponent(file).path
            guard try !Self.plutilReads(path) else { continue }
            let run = try ICTRunner.run(["validate", path])
            if file.hasSuffix(".json") {
                // JSON (asset catalogs' Contents.json) is not Apple's, but ICTKit reads its JSON form.
                if run.status != 0 { failures.append("\(file): \(run.stderr)") }
                continue
            }
            let archiveName = Self.archiveBesidePropertyLists(path)
            if let archiveName {
                if run.status == 0, run.stdout.contains("valid \(archiveName)") {
                    readAsArchives += 1
                } else {
                    failures.append("\(file): a \(archiveName), not read: \(run.stderr)")
                }
                continue
            }
            guard run.status == 1 else { failures.append("\(file): accepted"); continue }
            if run.stderr.contains(", not a property list") {
                named += 1
            } else if run.stderr.range(of: #":([0-9]+:[0-9]+|byte [0-9]+): error: "#, options: .regularExpression) != nil {
                located += 1
            } else {
                failures.append("\(file): \(run.stderr)")
            }
        }
        print(
            "realworld: files plutil refuses: \(readAsArchives) read as compiled nibs or typed streams, "
                + "\(named) named as another format, \(located) refused with a place")
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }
}
