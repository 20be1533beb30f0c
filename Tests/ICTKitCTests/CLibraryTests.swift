import Foundation
import TestSupport
import Testing

/// The C interface (Sources/ICTKitC/include/ictkit.h) used from C: CProgram/plist_client.c compiled with clang against
/// the header and the built libICTKitC.so, run under valgrind (every block freed, no invalid read or write).
///
/// valgrind 3.x cannot read the DWARF 5 debug information Swift 6.3 writes, so the test runs a copy of the library
/// with its debug sections removed (objcopy --strip-debug); the code is the same. "Possibly lost" blocks are the
/// Swift runtime's type-metadata caches, made once per type and kept for the life of the process (interior
/// pointers): definite and indirect leaks fail the run, as every invalid access does.
@Suite(.externalTools(["/usr/bin/valgrind", "/usr/bin/objcopy"]))
struct CLibraryTests {
    /// The folder of the built products (libICTKitC.so), beside the test bundle.
    static let products: URL = {
        var folders = Bundle.allBundles.map { $0.bundleURL.deletingLastPathComponent() }
        folders.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        return folders.first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("libICTKitC.so").path) }
            ?? Repository.root.appendingPathComponent(".build/debug")
    }()

    /// A scratch folder holding the compiled client, its stripped library and the inputs.
    struct Client {
        let folder: URL
        let executable: URL

        /// Compiles CProgram/`program`.c (plist_client, or archive_client for ArchiveExportsTests).
        init(program: String = "plist_client") throws {
            folder = try ScratchFolder.make("ictkitc")
            let library = products.appendingPathComponent("libICTKitC.so").path
            let stripped = folder.appendingPathComponent("libICTKitC.so").path
            executable = folder.appendingPathComponent(program)
            try CLibraryTests.check(try CLibraryTests.run(["/usr/bin/objcopy", "--strip-debug", library, stripped]))
            try CLibraryTests.check(
                try CLibraryTests.run([
                    "/usr/bin/env", "clang", "-Wall", "-Wextra", "-Werror",
                    "-I", Repository.path("Sources/ICTKitC/include"),
                    Repository.path("Tests/ICTKitCTests/CProgram/\(program).c"),
                    "-L", folder.path, "-lICTKitC", "-Wl,-rpath,\(folder.path)", "-o", executable.path,
                ]))
        }

        /// Runs the client under valgrind, killed after 300 s (a hang fails, never waits forever).
        func run(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
            try CLibraryTests.run(
                [
                    "/usr/bin/timeout", "-s", "KILL", "300", "/usr/bin/valgrind", "-q", "--leak-check=full",
                    "--errors-for-leak-kinds=definite,indirect", "--show-leak-kinds=definite,indirect", "--error-exitcode=99",
                    executable.path,
                ] + arguments)
        }
    }

    /// Runs a program with its output in files (no pipe can fill up).
    static func run(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let run = try ProgramRunner.run(arguments[0], Array(arguments.dropFirst()))
        return (run.status, run.stdout, run.stderr)
    }

    /// A build step (objcopy, clang) that failed, with its status and standard error.
    struct StepFailure: Error, CustomStringConvertible {
        var description: String
    }

    static func check(_ result: (status: Int32, stdout: String, stderr: String)) throws {
        guard result.status == 0 else { throw StepFailure(description: "status \(result.status): \(result.stderr)") }
    }

    @Test func readsEveryFormatAndSaysWhereMalformedInputFails() throws {
        let client = try Client()
        defer { try? FileManager.default.removeItem(at: client.folder) }
        let path = { (name: String) in client.folder.appendingPathComponent(name).path }
        // The inputs, written by Python's plistlib (binary) and by hand (XML, OpenStep).
        _ = try PythonScript.run(
            """
            import plistlib, sys
            data = plistlib.dumps({'a': [1, 2, {'b': 'x'}]}, fmt=plistlib.FMT_BINARY)
            assert len(data) == 68, len(data)
            open(sys.argv[1] + '/good.bplist', 'wb').write(data)
            open(sys.argv[1] + '/truncated.bplist', 'wb').write(data[:-10])
            # Three members or more: the client reads it in chunks too (ictkit_plist_read_flat_chunks).
            open(sys.argv[1] + '/array.bplist', 'wb').write(plistlib.dumps([1, 'x', [2], {'y': 3.5}], fmt=plistlib.FMT_BINARY))
            """, arguments: [client.folder.path])
        try Data("<plist><dict><key>a</key><integer>x1</integer></dict></plist>".utf8).write(to: URL(fileURLWithPath: path("bad.xml")))
        try Data(#"{a = (1, 2); b = "c";}"#.utf8).write(to: URL(fileURLWithPath: path("openstep.plist")))
        try Data().write(to: URL(fileURLWithPath: path("empty.plist")))

        let result = try client.run([
            "read", path("good.bplist"), path("truncated.bplist"), path("bad.xml"), path("openstep.plist"), path("empty.plist"),
            path("array.bplist"),
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout.split(separator: "\n").map(String.init) == [
                // {a: [1, 2, {b: x}]}: the dictionary, key a, the array, 1, 2, the inner dictionary, key b, "x" = 8 nodes;
                // format 1 = ICTKIT_FORMAT_BINARY, root 8 = ICTKIT_TYPE_DICT.
                "\(path("good.bplist")): format 1, 8 nodes, root 8",
                // 58 bytes left: the last 32 (the trailer as read) start at byte 26; its offset-size byte is 26 + 6 = 32.
                "\(path("truncated.bplist")): error invalidTrailer at byte 32: byte 32: the trailer's offset size is 19; it must be 1 to 8",
                // `<plist><dict><key>a</key>` is 25 characters: <integer> starts at line 1, column 26.
                "\(path("bad.xml")): error invalidValue at line 1 column 26 key path a: 1:26: \"x1\" is not an integer (at a)",
                // The dictionary, key a, the array, 1, 2, key b, "c" = 7 nodes; format 3 = ICTKIT_FORMAT_OPENSTEP.
                "\(path("openstep.plist")): format 3, 7 nodes, root 8",
                "\(path("empty.plist")): error truncated at byte 0: byte 0: the input is empty (0 bytes); an empty file is not a property list",
                // The array, 1, "x", the inner array, 2, the dictionary, key y, 3.5 = 8 nodes; root 7 = ICTKIT_TYPE_ARRAY.
                "\(path("array.bplist")): format 1, 8 nodes, root 7",
            ])
    }

    @Test func readsTheSampleDocumentsAndRefusesTheExpansionBomb() throws {
        let client = try Client()
        defer { try? FileManager.default.removeItem(at: client.folder) }
        let info = Repository.path("SampleDocs/Info.plist")
        let bomb = Repository.path("SampleDocs/malformed/expansion-bomb.plist")
        // The node count of Info.plist as Python's plistlib reads it: each value, and each dictionary key.
        let count = try PythonScript.run(
            """
            import plistlib, sys
            def count(value):
                if isinstance(value, dict): return 1 + sum(1 + count(item) for item in value.values())
                if isinstance(value, list): return 1 + sum(count(item) for item in value)
                return 1
            print(count(plistlib.load(open(sys.argv[1], 'rb'))), end='')
            """, arguments: [info])
        let result = try client.run(["read", info, bomb])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "\(info): format 2, \(String(decoding: count, as: UTF8.self)) nodes, root 8")
        // SampleDocs/malformed/README.md: 59 arrays each holding the one before twice expand to 2^60 - 1 values,
        // over the object-count limit, refused with the place where the limit was hit.
        #expect(lines.last?.hasPrefix("\(bomb): error limitExceeded(objectCount) at byte ") == true, "\(lines)")
    }

    @Test func buildsWritesAndFindsByKeyPath() throws {
        let client = try Client()
        defer { try? FileManager.default.removeItem(at: client.folder) }
        let output = client.folder.appendingPathComponent("built.plist").path
        let result = try client.run(["build", output])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout.split(separator: "\n").map(String.init) == [
                "openstep: error unsupportedValue: the OpenStep form is read only; write xml, binary or json",
                "inner.name = café",
                "list[1] = two",
                "inner.big = 18446744073709551615 unsigned 1",
            ])
        // What Python's plistlib reads from the XML the library wrote (86400 s after 2001-01-01 is 2001-01-02).
        let read = try PythonScript.run("import plistlib, sys; print(plistlib.load(open(sys.argv[1], 'rb')))", arguments: [output])
        #expect(
            String(decoding: read, as: UTF8.self)
                == "{'inner': {'name': 'café', 'count': -42, 'big': 18446744073709551615, 'ratio': 0.5, 'done': True, "
                + "'when': datetime.datetime(2001, 1, 2, 0, 0), 'bytes': b'\\x00\\x01\\x02', 'ref': {'CF$UID': 7}, 'list': [1, 'two']}, "
                + "'list': [1, 'two']}\n")
    }

    @Test func writesTheFlatFormAndSaysWhereMalformedFlatBytesFail() throws {
        let client = try Client()
        defer { try? FileManager.default.removeItem(at: client.folder) }
        let output = client.folder.appendingPathComponent("flat.plist").path
        let result = try client.run(["flat", output])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout.split(separator: "\n").map(String.init) == [
                "empty: error truncated at byte 0",
                // Tag 13 follows ICTKIT_FLAT_DICT (12): no flat value starts with it.
                "unknown tag: error invalidObject at byte 0",
                // The tag (byte 0) and the length 5 (bytes 1-4): the string's bytes start at byte 5, and 2 are left.
                "short string: error truncated at byte 5",
                // The DICT tag and its count take bytes 0-4: the key, an INT64, starts at byte 5.
                "number key: error invalidKey at byte 5",
                // The string's length starts at byte 1, after its tag; 0xFF is no UTF-8.
                "not UTF-8: error invalidString at byte 1",
                // One TRUE is the whole value: the second, at byte 1, is left over.
                "two values: error invalidObject at byte 1",
            ])
        // The hand-made flat value {"a": [-1, "é"]}, written as binary, read by Python's plistlib.
        let read = try PythonScript.run("import plistlib, sys; print(plistlib.load(open(sys.argv[1], 'rb')))", arguments: [output])
        #expect(String(decoding: read, as: UTF8.self) == "{'a': [-1, 'é']}\n")
    }
}
