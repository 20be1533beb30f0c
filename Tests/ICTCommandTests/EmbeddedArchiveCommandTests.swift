import Foundation
import TestSupport
import Testing

/// Key paths through data values that hold property lists and keyed
/// archives (`KEY!`, as the Go tool `ply` spells it) for `get`, `type`,
/// `set`, `insert` and `remove`, and `inspect --expand`, run as the built
/// binary on a Terminal.app profile from a public repository
/// (Tests/KeyedArchiveTests/Fixtures/embedded, provenance in its SOURCES.md)
/// and on files Python's plistlib writes; every result is read back by
/// plistlib, not by ICTKit.
struct EmbeddedArchiveCommandTests {
    static let profile = Repository.path("Tests/KeyedArchiveTests/Fixtures/embedded/Solarized Dark ansi.terminal")

    static func scratch() throws -> String {
        let folder = try ScratchFolder.make("embedded").path
        return folder
    }

    /// Runs a Python script with `arguments`; its standard output, trimmed.
    static func python(_ script: String, _ arguments: [String]) throws -> String {
        let run = try ProgramRunner.run("python3", ["-c", script] + arguments)
        try #require(run.status == 0, "python3: \(run.stderr)")
        return run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Acceptance 3 of issue 24, on the Terminal profile: `get` through the
    /// embedded binary keyed archive in `Font`, `set` into it; plistlib then
    /// finds the outer file still XML, `Font` still a binary keyed archive
    /// with the new size, and every other key as it was.
    @Test func getAndSetThroughAKeyedArchiveInATerminalProfile() throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = folder + "/profile.terminal"
        try FileManager.default.copyItem(atPath: Self.profile, toPath: file)
        let name = try ICTRunner.run(["get", file, "Font!.$top.root.NSName"])
        #expect(name.status == 0, "\(name.stderr)")
        #expect(name.stdout == "Menlo-Regular\n")  // plistlib: loads(p['Font'])['$objects'][2]
        // The font object itself read by its class, as `get` prints one in a file: NSName and NSSize
        // (plistlib: loads(p['Font'])['$objects'][1]['NSSize'] == 11.0).
        let font = try ICTRunner.run(["get", Self.profile, "Font!.$top.root"])
        #expect(font.stdout == "\"Menlo-Regular\" 11 pt\n", "\(font.stderr)")
        let type = try ICTRunner.run(["type", file, "Font!.$top.root.NSSize"])
        #expect(type.stdout == "float\n", "\(type.stderr)")
        let set = try ICTRunner.run(["set", file, "Font!.$top.root.NSSize", "-float", "14"])
        #expect(set.status == 0, "\(set.stderr)")
        let check = """
            import plistlib, sys
            old = plistlib.load(open(sys.argv[1], 'rb'))
            raw = open(sys.argv[2], 'rb').read()
            new = plistlib.loads(raw)
            inner = new['Font']
            archive = plistlib.loads(inner)
            root = archive['$objects'][archive['$top']['root'].data]
            print(raw.startswith(b'<?xml'), inner.startswith(b'bplist00'), root['NSSize'],
                  archive['$objects'][root['NSName'].data], archive['$archiver'],
                  {k: v for k, v in old.items() if k != 'Font'} == {k: v for k, v in new.items() if k != 'Font'})
            """
        #expect(try Self.python(check, [Self.profile, file]) == "True True 14.0 Menlo-Regular NSKeyedArchiver True")
    }

    /// A binary property list holding an XML one in `Inner`: each verb
    /// through `Inner!`; the outer stays binary, the inner XML, and plistlib
    /// reads the inner value as the edits left it.
    @Test func everyVerbThroughAnXMLPropertyListInABinaryOne() throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = folder + "/outer.plist"
        let make = """
            import plistlib, sys
            inner = plistlib.dumps({'name': 'Ada', 'n': [1, 2]}, fmt=plistlib.FMT_XML)
            open(sys.argv[1], 'wb').write(plistlib.dumps({'Inner': inner, 'other': 'kept'}, fmt=plistlib.FMT_BINARY))
            """
        _ = try Self.python(make, [file])
        #expect(try ICTRunner.run(["get", file, "Inner!.name"]).stdout == "Ada\n")
        #expect(try ICTRunner.run(["type", file, "Inner!.n"]).stdout == "array\n")
        #expect(try ICTRunner.run(["get", file, "Inner!"]).stdout == "n\nname\n")  // plistlib writes keys sorted
        for arguments in [
            ["set", file, "Inner!.name", "-string", "Grace"], ["insert", file, "Inner!.n.2", "-integer", "3"],
            ["remove", file, "Inner!.n.0"], ["insert", file, "Inner!.n", "-integer", "4", "--append"],
        ] {
            let run = try ICTRunner.run(arguments)
            #expect(run.status == 0, "\(arguments): \(run.stderr)")
            #expect(run.stdout == file + ": saved\n")
        }
        let check = """
            import plistlib, sys
            raw = open(sys.argv[1], 'rb').read()
            outer = plistlib.loads(raw)
            print(raw.startswith(b'bplist00'), outer['Inner'].startswith(b'<?xml'), plistlib.loads(outer['Inner']), outer['other'])
            """
        #expect(try Self.python(check, [file]) == "True True {'n': [2, 3, 4], 'name': 'Grace'} kept")
    }

    /// Steps that cannot be taken: exit status 1, the file's bytes as they
    /// were, and a message with the file, the key path and (for data that
    /// does not read) the byte offset inside the data.
    @Test func badStepsAreRefusedAndTheFileIsKept() throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = folder + "/bad.plist"
        let make = """
            import plistlib, sys
            good = plistlib.dumps({'x': 1}, fmt=plistlib.FMT_BINARY)
            open(sys.argv[1], 'wb').write(plistlib.dumps({'Cut': good[:-20], 'Junk': b'bplist00' + b'\\xff' * 40,
                'Text': 'hello', 'Typed': b'\\x04\\x0bstreamtyped\\x81\\xe8\\x03\\x84\\x01@\\x84\\x84\\x84\\x08NSString\\x01\\x84\\x84\\x08NSObject\\x00\\x85\\x84\\x01+\\x01a\\x86'},
                fmt=plistlib.FMT_XML))
            """
        _ = try Self.python(make, [file])
        let before = try Data(contentsOf: URL(fileURLWithPath: file))
        let cases: [([String], String)] = [
            (["get", file, "Text!.x"], "'Text' holds a string, not data, so '!' cannot read a property list from it"),
            (["set", file, "Cut!.x", "-integer", "2"], "the data at 'Cut' does not read as a property list: "),
            (["get", file, "Junk!.x"], "the data at 'Junk' does not read as a property list: "),
            (["set", file, "Typed!", "-string", "b"], "the data at 'Typed' is an NSArchiver typed stream: what it holds is read, not written back"),
            (["get", file, "Missing!.x"], "no value at this key path"),
        ]
        for (arguments, message) in cases {
            let run = try ICTRunner.run(arguments)
            #expect(run.status == 1, "\(arguments)")
            #expect(run.stderr.hasPrefix(file + ":"), "\(run.stderr)")
            #expect(run.stderr.contains(message), "\(run.stderr)")
            #expect(run.stderr.contains(arguments[2]), "the key path as typed: \(run.stderr)")
            if arguments[2].hasPrefix("Cut") || arguments[2].hasPrefix("Junk") { #expect(run.stderr.contains("byte "), "\(run.stderr)") }
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == before)
    }

    /// `inspect --expand`: the archive in `Font` decoded in place in the
    /// tree, marked embedded; with `--json`, each archive listed with its
    /// key path, kind, format and length (plistlib's `len(p[key])`), the
    /// data itself kept in `value`.
    @Test func inspectExpandShowsEmbeddedArchivesInPlace() throws {
        let tree = try ICTRunner.run(["inspect", "--expand", Self.profile])
        #expect(tree.status == 0, "\(tree.stderr)")
        let font = #""Font" => {length = 266, bytes = 0x62706c6973743030d401020304050618...} embedded keyed archive (binary) => "#
        #expect(tree.stdout.contains(font + "NSKeyedArchiver archive, 4 objects {\n"), "\(tree.stdout)")
        // The font read by name (issue 24 item 3): the file's NSName and NSSize.
        #expect(tree.stdout.contains(#""root" => NSFont #1 = "Menlo-Regular" 11 pt"#), "\(tree.stdout)")
        let black = #""blackColour" => {length = 71, bytes = 0x040b73747265616d747970656481e803...} embedded NSArchiver typed stream {"#
        #expect(tree.stdout.contains(black))
        let plain = try ICTRunner.run(["inspect", Self.profile])
        #expect(!plain.stdout.contains("embedded"))
        let json = try ICTRunner.run(["inspect", "--expand", "--json", Self.profile])
        #expect(json.status == 0, "\(json.stderr)")
        let check = """
            import json, plistlib, sys, base64
            report = json.load(open(sys.argv[2]))
            profile = plistlib.load(open(sys.argv[1], 'rb'))
            font = next(e for e in report['embedded'] if e['keyPath'] == 'Font')
            print(len(report['embedded']), font['kind'], font['format'], font['length'] == len(profile['Font']),
                  font['archive']['objectCount'], sorted({e['kind'] for e in report['embedded']}))
            """
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data(json.stdout.utf8).write(to: URL(fileURLWithPath: folder + "/report.json"))
        #expect(try Self.python(check, [Self.profile, folder + "/report.json"]) == "22 keyedArchive binary True 4 ['keyedArchive', 'typedStream']")
    }

    /// A property list holding itself 1000 levels deep in data values:
    /// `inspect --expand` and a 1000-step `get` fail cleanly, naming the
    /// limit, with nothing printed on standard output.
    @Test func aDepthBombIsRefusedCleanly() throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = folder + "/bomb.plist"
        let make = """
            import plistlib, sys
            value = {'leaf': True}
            for _ in range(1000):
                value = {'a': plistlib.dumps(value, fmt=plistlib.FMT_BINARY)}
            open(sys.argv[1], 'wb').write(plistlib.dumps(value, fmt=plistlib.FMT_BINARY))
            """
        _ = try Self.python(make, [file])
        let inspect = try ICTRunner.run(["inspect", "--expand", file])
        #expect(inspect.status == 1)
        #expect(inspect.stdout.isEmpty)
        #expect(inspect.stderr.contains("archives nest in data values more than 16 deep"), "\(inspect.stderr)")
        let get = try ICTRunner.run(["get", file, String(repeating: "a!.", count: 1000) + "leaf"])
        #expect(get.status == 1)
        #expect(get.stderr.contains("more than the limit of 16"), "\(get.stderr)")
        let shallow = try ICTRunner.run(["get", file, String(repeating: "a!.", count: 3) + "a", "--format", "json"])
        #expect(shallow.status == 0, "\(shallow.stderr)")
    }

    /// A real Apple Notes note's data (gzip of a protocol buffer; Tests/DataLayersTests/Fixtures/AppleNotes)
    /// in a property list plistlib writes: `inspect --expand` shows each
    /// layer, the protocol buffer as `protoc --decode_raw` prints it; the
    /// JSON form keeps the raw bytes and adds the layers; `get` reads the
    /// note's text through them; `set` through them is refused, the file unchanged.
    @Test(.externalTools(["/usr/bin/protoc"]))
    func inspectExpandAndGetStepThroughGzipIntoANotesProtocolBuffer() throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let blob = Repository.path("Tests/DataLayersTests/Fixtures/AppleNotes/simple_note_protobuf_gzipped.bin")
        let file = folder + "/note.plist"
        let protoc = try Self.python(
            """
            import gzip, plistlib, subprocess, sys
            data = open(sys.argv[1], 'rb').read()
            open(sys.argv[2], 'wb').write(plistlib.dumps({'ZTITLE': 'Title', 'ZDATA': data}, fmt=plistlib.FMT_BINARY))
            print(subprocess.run(['protoc', '--decode_raw'], input=gzip.decompress(data), capture_output=True, check=True).stdout.decode())
            """, [blob, file])
        let tree = try ICTRunner.run(["inspect", "--expand", file])
        #expect(tree.status == 0, "\(tree.stderr)")
        #expect(tree.stdout.contains("embedded gzip data => inflated {length = 117, bytes = 0x"), "\(tree.stdout)")
        #expect(tree.stdout.contains("embedded protocol buffer (no schema) {\n"), "\(tree.stdout)")
        // protoc's lines, each indented one level inside "ZDATA".
        let indented = protoc.split(separator: "\n").map { "    " + $0 }.joined(separator: "\n")
        #expect(tree.stdout.contains(indented), "\(tree.stdout)")

        let json = try ICTRunner.run(["inspect", "--expand", "--json", file])
        #expect(json.status == 0, "\(json.stderr)")
        try Data(json.stdout.utf8).write(to: URL(fileURLWithPath: folder + "/report.json"))
        let check = """
            import base64, gzip, json, plistlib, sys
            report = json.load(open(sys.argv[1]))
            data = plistlib.load(open(sys.argv[2], 'rb'))['ZDATA']
            layer = report['embedded'][0]
            inner = layer['embedded'][0]
            doc = next(f for f in inner['fields'] if f['number'] == 2)
            note = next(f for f in doc['fields'] if f['number'] == 3)
            text = next(f for f in note['fields'] if f['number'] == 2)
            print(layer['keyPath'], layer['kind'], layer['format'], layer['length'] == len(data),
                  layer['inflatedLength'] == len(gzip.decompress(data)), inner['kind'], text['wireType'], text['text'])
            """
        #expect(try Self.python(check, [folder + "/report.json", file]) == "ZDATA compressed gzip True True protocolBuffer 2 Title")

        let get = try ICTRunner.run(["get", file, "ZDATA!.2.3.2"])
        #expect(get.status == 0 && get.stdout == "Title\n", "\(get.stderr)")
        let before = try Data(contentsOf: URL(fileURLWithPath: file))
        let set = try ICTRunner.run(["set", file, "ZDATA!.2.3.2", "-string", "Changed"])
        #expect(set.status == 1 && set.stderr.contains("compressed"), "\(set.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == before)
    }

    /// Issue 41, acceptance 2: a cycle through keyed-archive references
    /// inside a layer. bpylist2's `circular_archive.plist` (an object whose
    /// "recursive" is itself; ../shared/interop/MANIFEST.md) held as data in
    /// a property list plistlib writes, bare and gzipped (the wrapping is
    /// ours): `inspect --expand` shows the archive in both layers with the
    /// cycle marked once, its JSON report says `cycle`, a key path may walk
    /// round the cycle, and nothing is written. Expected values from
    /// plistlib reading the archive: the root's UID, its "recursive" UID
    /// (the same), its title.
    @Test(.interopCorpus)
    func aKeyedArchiveCycleInsideALayerIsMarkedAndTheFileKept() throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let archive = InteropCorpus.url("keyedarchive/bpylist2/circular_archive.plist").path
        let file = folder + "/cycle.plist"
        let expected = try Self.python(
            """
            import gzip, plistlib, sys
            data = open(sys.argv[1], 'rb').read()
            open(sys.argv[2], 'wb').write(plistlib.dumps({'bare': data, 'zipped': gzip.compress(data, mtime=0)}, fmt=plistlib.FMT_BINARY))
            archive = plistlib.loads(data)
            objects = archive['$objects']
            root = archive['$top']['root'].data
            print(root, objects[root]['recursive'].data, objects[objects[root]['title'].data])
            """, [archive, file])
        let parts = expected.split(separator: " ")
        try #require(parts.count == 3 && parts[0] == parts[1], "plistlib: the root refers to itself: \(expected)")
        let before = try Data(contentsOf: URL(fileURLWithPath: file))

        let tree = try ICTRunner.run(["inspect", "--expand", file])
        #expect(tree.status == 0, "\(tree.stderr)")
        #expect(tree.stdout.components(separatedBy: "\"recursive\" => crap.Foo #\(parts[0]) (cycle, shown above)").count == 3, "\(tree.stdout)")
        #expect(tree.stdout.contains("embedded gzip data => inflated {length = 309"), "\(tree.stdout)")
        let json = try ICTRunner.run(["inspect", "--expand", "--json", file])
        #expect(json.status == 0 && json.stdout.components(separatedBy: "\"cycle\": \(parts[0])").count == 3, "\(json.stdout)")
        for keyPath in ["bare!.$top.root.recursive.recursive.title", "zipped!.$top.root.recursive.title"] {
            let get = try ICTRunner.run(["get", file, keyPath])
            #expect(get.status == 0 && get.stdout == parts[2] + "\n", "\(keyPath): \(get.stderr)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == before, "nothing is written")
    }

    /// Issue 41 item 3's typed stream and NIB archive layers, on real bytes Apple's programs wrote (an
    /// iMessage `attributedBody`, Tests/TypedStreamTests/Fixtures/SOURCES.md; a NIB archive Xcode compiled,
    /// Tests/NIBArchiveTests/Fixtures/SOURCES.md) held as data in a property list plistlib writes (the
    /// wrapping is ours): `get` steps into each, `inspect --expand` shows each decoded in place and in its
    /// JSON report; `set` inside is refused with the file unchanged. Expected values: pytypedstream's text
    /// of the string, nibarchive's objects (the NIBArchive tests' peer).
    @Test(.externalTools(["/usr/bin/env"]))
    func typedStreamAndNibLayersAreShownAndSteppedIntoReadOnly() throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = folder + "/layers.plist"
        let body = Repository.path("Tests/TypedStreamTests/Fixtures/AttributedBodyTextOnly")
        let nib = Repository.path("Tests/NIBArchiveTests/Fixtures/UIViewController-01J-lp-oVM.nib")
        let make = """
            import plistlib, sys
            body, nib = open(sys.argv[2], 'rb').read(), open(sys.argv[3], 'rb').read()
            open(sys.argv[1], 'wb').write(plistlib.dumps({'attributedBody': body, 'nib': nib, 'cut': body[:40]}, fmt=plistlib.FMT_BINARY))
            """
        _ = try Self.python(make, [file, body, nib])
        let text = try Self.python("import sys, typedstream\nprint(typedstream.unarchive_from_file(sys.argv[1]).contents[0].value.value)", [body])
        let peer = """
            import json, subprocess, sys
            form = json.loads(subprocess.run([sys.executable, sys.argv[1], sys.argv[2]], capture_output=True, check=True).stdout)
            print(len(form['file']['objects']), len(form['topLevelObjects']), len(form['connections']), form['file']['objects'][13]['className'])
            """
        let nibFacts = try Self.python(peer, [Repository.path("Tests/NIBArchiveTests/Fixtures/nibarchive_peer.py"), nib])
        #expect(text == "Noter test")
        #expect(nibFacts == "18 4 2 UIViewController")
        let counts = nibFacts.split(separator: " ")
        let before = try Data(contentsOf: URL(fileURLWithPath: file))

        #expect(try ICTRunner.run(["get", file, "attributedBody!.string"]).stdout == text + "\n")
        #expect(try ICTRunner.run(["get", file, "nib!.objects.13.className"]).stdout == "\(counts[3])\n")

        let tree = try ICTRunner.run(["inspect", "--expand", file])
        #expect(tree.status == 0, "\(tree.stderr)")
        #expect(tree.stdout.contains("embedded NSArchiver typed stream {"), "\(tree.stdout)")
        #expect(tree.stdout.contains("\"\(text)\""), "\(tree.stdout)")
        #expect(tree.stdout.contains("embedded NIB archive {"), "\(tree.stdout)")
        #expect(tree.stdout.contains("\(counts[0]) objects, \(counts[1]) top-level, \(counts[2]) connections"), "\(tree.stdout)")
        #expect(tree.stdout.contains("embedded NSArchiver typed stream that does not read: byte offset "), "\(tree.stdout)")

        let json = try ICTRunner.run(["inspect", "--expand", "--json", file])
        #expect(json.status == 0, "\(json.stderr)")
        try Data(json.stdout.utf8).write(to: URL(fileURLWithPath: folder + "/report.json"))
        let check = """
            import json, sys
            report = {e['keyPath']: e for e in json.load(open(sys.argv[1]))['embedded']}
            body, nib, cut = report['attributedBody'], report['nib'], report['cut']
            print(body['kind'], body['typedStream']['decoded']['string'], nib['kind'], nib['format'], len(nib['nibArchive']['objects']),
                  cut['kind'], cut['error']['location'].startswith('byte '))
            """
        #expect(try Self.python(check, [folder + "/report.json"]) == "typedStream \(text) nibArchive nibArchive \(counts[0]) typedStream True")

        for arguments in [
            ["set", file, "attributedBody!.string", "-string", "changed"], ["set", file, "nib!.objects.13.className", "-string", "UIView"],
        ] {
            let run = try ICTRunner.run(arguments)
            #expect(run.status == 1, "\(arguments)")
            #expect(run.stderr.hasPrefix(file + ":"), "\(run.stderr)")
            #expect(run.stderr.contains("what it holds is read, not written back"), "\(run.stderr)")
        }
        let cut = try ICTRunner.run(["get", file, "cut!.string"])
        #expect(cut.status == 1)
        #expect(cut.stderr.hasPrefix(file + ":"), "\(cut.stderr)")
        #expect(cut.stderr.contains("the NSArchiver typed stream at 'cut' does not read: "), "\(cut.stderr)")
        #expect(cut.stderr.contains("(at byte "), "\(cut.stderr)")
        #expect(cut.stderr.contains("cut!.string"), "\(cut.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == before)
    }
}
