import Foundation
import TestSupport
import Testing

/// The archive calls of the C interface (ArchiveExports.swift) used from C: CProgram/archive_client.c compiled against
/// the header and the built libICTKitC.so, run under valgrind as CLibraryTests runs plist_client (every block freed,
/// no invalid read or write; see CLibraryTests for why the library's debug sections are removed).
@Suite(.externalTools(["/usr/bin/valgrind", "/usr/bin/objcopy"]))
struct ArchiveExportsTests {
    /// A keyed archive decoded (both forms), a truncated one and one with a dangling reference refused with their
    /// places; the value counts are nska-deserialize's reading of the same file, counted in Python.
    @Test func decodesKeyedArchivesAndSaysWhereBrokenOnesFail() throws {
        let client = try CLibraryTests.Client(program: "archive_client")
        defer { try? FileManager.default.removeItem(at: client.folder) }
        let path = { (name: String) in client.folder.appendingPathComponent(name).path }
        let good = Repository.path("Tests/KeyedArchiveTests/Fixtures/foundation-linux/url-relative.plist")
        // Written by Python's plistlib: a string archive cut short, and an NSString whose NS.string names object 9 of 3.
        let count = try PythonScript.run(
            """
            import plistlib, sys
            import nska_deserialize
            UID = plistlib.UID
            def archive(objects):
                return plistlib.dumps({'$version': 100000, '$archiver': 'NSKeyedArchiver', '$top': {'root': UID(1)},
                                       '$objects': objects}, fmt=plistlib.FMT_BINARY)
            open(sys.argv[1] + '/truncated.plist', 'wb').write(archive(['$null', 'text'])[:-5])
            open(sys.argv[1] + '/dangling.plist', 'wb').write(archive(['$null', {'$class': UID(2), 'NS.string': UID(9)},
                {'$classname': 'NSString', '$classes': ['NSString', 'NSObject']}]))
            def count(value):
                if isinstance(value, dict): return 1 + sum(1 + count(item) for item in value.values())
                if isinstance(value, list): return 1 + sum(count(item) for item in value)
                return 1
            # The stream is {"root": value}: the mapping and its key, then the value. Then the truncated file's
            # trailer as read (its last 32 bytes) and in it the offset-size byte, at 6.
            truncated = len(archive(['$null', 'text'])) - 5
            print(2 + count(nska_deserialize.deserialize_plist(sys.argv[2])), truncated - 32 + 6, end='')
            """, arguments: [client.folder.path, good])
        let numbers = String(decoding: count, as: UTF8.self).split(separator: " ").map(String.init)
        let result = try client.run(["keyed", good, path("truncated.plist"), path("dangling.plist")])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines.first == "\(good): \(numbers.first ?? "") values, root m")
        #expect(
            lines.dropFirst().first?.hasPrefix("\(path("truncated.plist")): error propertyList(invalidTrailer) at byte \(numbers.last ?? ""): ")
                == true, "\(lines)")
        #expect(
            lines.last
                == "\(path("dangling.plist")): error danglingReference at key path $objects[1].NS.string: "
                + "UID 9 refers past the 3 objects (at $objects[1].NS.string, object 1)",
            "\(lines)")

        let graph = try client.run(["graph", good])
        #expect(graph.status == 0, "\(graph.stderr)")
        #expect(graph.stdout.hasPrefix("\(good): ") && graph.stdout.hasSuffix(" values, root m\n"), "\(graph.stdout)")
    }

    /// A typed stream and a NIB archive decoded; each cut short refused with its byte offset.
    @Test func decodesTypedStreamsAndNIBArchives() throws {
        let client = try CLibraryTests.Client(program: "archive_client")
        defer { try? FileManager.default.removeItem(at: client.folder) }
        let body = Repository.path("Tests/TypedStreamTests/Fixtures/AttributedBodyTextOnly")
        let nib = Repository.path("Tests/NIBArchiveTests/Fixtures/PackageListHeader.nib")
        let shortBody = client.folder.appendingPathComponent("short-body").path
        let shortNib = client.folder.appendingPathComponent("short.nib").path
        try Data(try Data(contentsOf: URL(fileURLWithPath: body)).prefix(40)).write(to: URL(fileURLWithPath: shortBody))
        try Data(try Data(contentsOf: URL(fileURLWithPath: nib)).prefix(60)).write(to: URL(fileURLWithPath: shortNib))

        let typed = try client.run(["typedstream", body, shortBody])
        #expect(typed.status == 0, "\(typed.stderr)")
        let typedLines = typed.stdout.split(separator: "\n").map(String.init)
        #expect(typedLines.first?.hasPrefix("\(body): ") == true && typedLines.first?.hasSuffix(" values, root m") == true, "\(typedLines)")
        #expect(typedLines.last?.hasPrefix("\(shortBody): error ") == true && typedLines.last?.contains(" at byte ") == true, "\(typedLines)")

        // An old nib's objects name each other (a view its window and superview): decoded to Foundation values,
        // each is given once and named again by its slot, which the client checks is already defined.
        let oldNib = Repository.path("Tests/TypedStreamTests/Fixtures/PathDemo-MainMenu.objects.nib")
        let values = try client.run(["typedvalue", oldNib, body])
        #expect(values.status == 0, "\(values.stderr)")
        let valueLines = values.stdout.split(separator: "\n").map(String.init)
        #expect(valueLines.first?.hasPrefix("\(oldNib): ") == true && valueLines.first?.contains(" values, root D, ") == true, "\(valueLines)")
        #expect(valueLines.first?.contains(" shared objects named again ") == true, "\(valueLines)")
        // An attributedBody's root is an attributed string: one object, no object named twice.
        #expect(
            valueLines.last?.hasPrefix("\(body): ") == true && valueLines.last?.hasSuffix(", 1 shared objects named again 0 times") == true, "\(valueLines)")

        let nibs = try client.run(["nib", nib, shortNib])
        #expect(nibs.status == 0, "\(nibs.stderr)")
        let nibLines = nibs.stdout.split(separator: "\n").map(String.init)
        #expect(nibLines.first?.hasPrefix("\(nib): ") == true && nibLines.first?.hasSuffix(" values, root m") == true, "\(nibLines)")
        #expect(nibLines.last?.hasPrefix("\(shortNib): error ") == true && nibLines.last?.contains(" at byte ") == true, "\(nibLines)")
    }
}
