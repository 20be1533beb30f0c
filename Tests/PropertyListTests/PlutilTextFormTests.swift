import Foundation
import PropertyList
import TestSupport
import Testing

/// Where the toolchain's `plutil` is, apart from the suite (its trait cannot name the suite's own members).
enum ApplePlutil {
    static let path = "/opt/swift/usr/bin/plutil"
    static var exists: Bool { FileManager.default.isExecutableFile(atPath: path) }
}

/// `PlutilTextForm` against Apple's own `plutil` (swift-corelibs-foundation's
/// Linux build, shipped with the toolchain): each expected text is what that
/// `plutil` writes for the same small fixture, not text written here.
@Suite(.enabled(if: ApplePlutil.exists, "Apple's plutil is not at /opt/swift/usr/bin/plutil: these tests compare with it"))
struct PlutilTextFormTests {

    /// Keys that differ in case and in digit runs, a `/` to escape, a real and an array.
    static let keys = """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0">
        <dict>
        <key>b</key><string>x/y</string>
        <key>a10</key><integer>10</integer>
        <key>B</key><real>1.5</real>
        <key>a9</key><array><true/><string>s "q"</string></array>
        </dict>
        </plist>
        """

    /// A date and data, which JSON and Objective-C literals cannot hold, and a nested dictionary.
    static let mixed = """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0">
        <dict>
        <key>when</key><date>2004-10-26T10:33:33Z</date>
        <key>bytes</key><data>AAEC/w==</data>
        <key>n</key><integer>-7</integer>
        <key>inner</key><dict><key>z</key><false/><key>Y</key><string>q</string></dict>
        </dict>
        </plist>
        """

    /// An array, whose compact JSON has no keys for the Linux build to write in hash order.
    static let list = """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0">
        <array><string>x/y "q"</string><real>1.5</real><integer>10</integer><true/><dict><key>k</key><real>2</real></dict></array>
        </plist>
        """

    /// A temporary folder holding one fixture, removed by `remove()`.
    struct Fixture {
        let folder: URL
        let path: String
        let value: PropertyListValue

        init(_ text: String, name: String) throws {
            folder = try ScratchFolder.make("plutil-text-form")
            let url = folder.appendingPathComponent(name)
            try Data(text.utf8).write(to: url)
            path = url.path
            value = try PropertyListReader().read(Data(text.utf8)).value
        }

        func remove() { try? FileManager.default.removeItem(at: folder) }
    }

    struct Run {
        var stdout: String
        var stderr: String
        var status: Int32
    }

    /// Apple's `plutil` with `arguments`, in `folder`.
    static func plutil(_ arguments: [String], in folder: URL) throws -> Run {
        let run = try ProgramRunner.run(ApplePlutil.path, arguments, in: folder)
        return Run(stdout: run.stdout, stderr: run.stderr, status: run.status)
    }

    @Test func keyOrderIsPlutilsOrder() throws {
        let fixture = try Fixture(Self.keys, name: "keys.plist")
        defer { fixture.remove() }
        let listing = try Self.plutil(["-p", fixture.path], in: fixture.folder)
        // The top level's keys, in the order -p lists them: `  "KEY" => …`.
        let appleOrder = listing.stdout.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("  \""), !line.hasPrefix("   "), let end = line.range(of: "\" => ") else { return nil }
            return String(line[line.index(line.startIndex, offsetBy: 3)..<end.lowerBound])
        }
        #expect(appleOrder == ["a9", "a10", "b", "B"])
        #expect(["a10", "B", "b", "a9"].sorted(by: PlutilTextForm.areKeysInIncreasingOrder) == appleOrder)
    }

    @Test func sortingKeysByLessThanIsXMLOrder() throws {
        let fixture = try Fixture(Self.mixed, name: "mixed.plist")
        defer { fixture.remove() }
        let apple = try Self.plutil(["-convert", "xml1", "-o", "-", fixture.path], in: fixture.folder)
        let ours = try XMLPropertyListWriter().encode(PlutilTextForm.sortingKeys(fixture.value, by: <))
        #expect(String(decoding: ours, as: UTF8.self) == apple.stdout)
    }

    @Test func prettyPrintedIsDashP() throws {
        for (text, name) in [(Self.keys, "keys.plist"), (Self.mixed, "mixed.plist"), (Self.list, "list.plist")] {
            let fixture = try Fixture(text, name: name)
            defer { fixture.remove() }
            let apple = try Self.plutil(["-p", fixture.path], in: fixture.folder)
            #expect(PlutilTextForm.prettyPrinted(fixture.value) == apple.stdout, "\(name)")
        }
    }

    @Test func jsonIsConvertJSON() throws {
        let keys = try Fixture(Self.keys, name: "keys.plist"), list = try Fixture(Self.list, name: "list.plist")
        defer { keys.remove(); list.remove() }
        // -r sorts keys; compact JSON of a dictionary the Linux build writes in hash order, so an array here.
        let readable = try Self.plutil(["-convert", "json", "-r", "-o", "-", keys.path], in: keys.folder)
        #expect(readable.status == 0)
        #expect(PlutilTextForm.isValidJSON(keys.value))
        #expect(PlutilTextForm.json(keys.value, readable: true) == readable.stdout)
        let compact = try Self.plutil(["-convert", "json", "-o", "-", list.path], in: list.folder)
        #expect(compact.status == 0)
        #expect(PlutilTextForm.isValidJSON(list.value))
        #expect(PlutilTextForm.json(list.value) == compact.stdout)
    }

    @Test func dateOrDataIsNotValidJSON() throws {
        let fixture = try Fixture(Self.mixed, name: "mixed.plist")
        defer { fixture.remove() }
        let apple = try Self.plutil(["-convert", "json", "-o", "-", fixture.path], in: fixture.folder)
        #expect(apple.status != 0)
        #expect(apple.stderr.contains("Invalid object in plist for JSON format"))
        #expect(!PlutilTextForm.isValidJSON(fixture.value))
        // A scalar at the top is refused too.
        #expect(!PlutilTextForm.isValidJSON(.string("s")))
    }

    @Test func rawIsExtractRaw() throws {
        let keys = try Fixture(Self.keys, name: "keys.plist"), mixed = try Fixture(Self.mixed, name: "mixed.plist")
        defer { keys.remove(); mixed.remove() }
        for (fixture, keyPath) in [(keys, "a9"), (keys, "B"), (keys, "b"), (keys, "a10"), (mixed, "when"), (mixed, "bytes"), (mixed, "n"), (mixed, "inner")] {
            let apple = try Self.plutil(["-extract", keyPath, "raw", "-n", "-o", "-", fixture.path], in: fixture.folder)
            guard case .dictionary(let dictionary) = fixture.value, let value = dictionary[keyPath] else {
                Issue.record("no \(keyPath) in the fixture")
                continue
            }
            #expect(apple.status == 0)
            #expect(PlutilTextForm.raw(value) == apple.stdout, "\(keyPath)")
        }
    }

    @Test func swiftLiteralIsConvertSwift() throws {
        for (text, name) in [(Self.keys, "keys.plist"), (Self.mixed, "mixed.plist"), (Self.list, "my list.plist")] {
            let fixture = try Fixture(text, name: name)
            defer { fixture.remove() }
            let apple = try Self.plutil(["-convert", "swift", "-o", "-", fixture.path], in: fixture.folder)
            #expect(PlutilTextForm.swiftLiteral(fixture.value, sourcePath: fixture.path) == apple.stdout, "\(name)")
        }
    }

    @Test func objcLiteralAndHeaderAreConvertObjC() throws {
        let fixture = try Fixture(Self.keys, name: "keys.plist")
        defer { fixture.remove() }
        #expect(PlutilTextForm.isValidObjC(fixture.value))
        let toStandardOutput = try Self.plutil(["-convert", "objc", "-o", "-", fixture.path], in: fixture.folder)
        #expect(PlutilTextForm.objcLiteral(fixture.value, sourcePath: fixture.path, outputPath: "-") == toStandardOutput.stdout)
        let output = fixture.folder.appendingPathComponent("out.m")
        let toFile = try Self.plutil(["-convert", "objc", "-header", "-o", output.path, fixture.path], in: fixture.folder)
        #expect(toFile.status == 0)
        let file = try String(contentsOf: output, encoding: .utf8)
        let header = try String(contentsOf: fixture.folder.appendingPathComponent("out.h"), encoding: .utf8)
        #expect(PlutilTextForm.objcLiteral(fixture.value, sourcePath: fixture.path, outputPath: output.path) == file)
        #expect(PlutilTextForm.objcHeader(fixture.value, sourcePath: fixture.path) == header)
    }

    @Test func dateOrDataIsNotValidObjC() throws {
        let fixture = try Fixture(Self.mixed, name: "mixed.plist")
        defer { fixture.remove() }
        let apple = try Self.plutil(["-convert", "objc", "-o", "-", fixture.path], in: fixture.folder)
        #expect(apple.status != 0)
        #expect(apple.stderr.contains("cannot be represented in Obj-C literal syntax"))
        #expect(!PlutilTextForm.isValidObjC(fixture.value))
    }
}
