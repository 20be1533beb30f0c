import EmbeddedLayers
import Foundation
import KeyedArchive
import PropertyList
import TestSupport
import Testing

/// `EmbeddedArchives` on a Terminal.app profile from a public repository
/// (`Tests/KeyedArchiveTests/Fixtures/embedded/`, provenance in its SOURCES.md): its `Font` and
/// colours are binary keyed archives in `<data>`, its ANSI colours typed
/// streams. Expected values are as Python's plistlib reads the file:
/// `plistlib.loads(profile["Font"])["$objects"]` is
/// `['$null', {'$class': UID(3), 'NSName': UID(2), 'NSSize': 11.0, 'NSfFlags': 16}, 'Menlo-Regular', {'$classname': 'NSFont', …}]`.
struct EmbeddedArchivesTests {
    static let profilePath = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../KeyedArchiveTests/Fixtures/embedded/Solarized Dark ansi.terminal").path

    static func profile() throws -> PropertyListValue {
        try PropertyListReader().read(Data(contentsOf: URL(fileURLWithPath: profilePath))).value
    }

    @Test func stepsIntoAKeyedArchiveInData() throws {
        let profile = try Self.profile()
        let archives = EmbeddedArchives()
        #expect(try archives.value(in: profile, at: EmbeddedKeyPath(parsing: "Font!.$top.root.NSName")) == "Menlo-Regular")
        #expect(try archives.value(in: profile, at: EmbeddedKeyPath(parsing: "Font!.$objects.1.NSSize")) == .real(11))
        #expect(try archives.value(in: profile, at: EmbeddedKeyPath(parsing: "Font!.$top.root.$class.$classname")) == "NSFont")
        let root = try archives.value(in: profile, at: EmbeddedKeyPath(parsing: "Font!"))
        #expect(KeyedArchiveKeyPath.isArchive(root))
    }

    @Test func findsEveryArchiveWithItsFormAndKeyPath() throws {
        let found = try EmbeddedArchives().find(in: try Self.profile())
        let byPath = Dictionary(uniqueKeysWithValues: found.map { ($0.keyPath.description, $0.form) })
        // plistlib: 6 data values start b'bplist00' and hold $archiver; 16 start b'\x04\x0bstreamtyped'.
        #expect(found.count == 22)
        #expect(byPath["Font"] == .keyedArchive(.binary))
        #expect(byPath["BackgroundColor"] == .keyedArchive(.binary))
        #expect(byPath["blackColour"] == .typedStream)
        #expect(found.allSatisfy { $0.error == nil && $0.nested.isEmpty })
    }

    /// Setting a value inside writes the data back as a binary keyed
    /// archive still; only the edited data value changes.
    @Test func editWritesTheDataBackInItsOwnForm() throws {
        var profile = try Self.profile()
        let before = profile
        try EmbeddedArchives().edit(&profile, at: EmbeddedKeyPath(parsing: "Font!.$top.root.NSSize"), followingLast: true) {
            value, path throws(PropertyListKeyPathError) in
            try value.setValue(.real(14), at: path, mode: .replace)
        }
        guard case .data(let bytes)? = profile.value(at: [.key("Font")]) else { Issue.record("Font is not data"); return }
        #expect(bytes.starts(with: Array("bplist00".utf8)))
        let inner = try PropertyListReader().read(bytes)
        #expect(inner.format == .binary)
        #expect(inner.value.value(at: PropertyListKeyPath(plutilSyntax: "$objects.1.NSSize")) == .real(14))
        #expect(inner.value.value(at: PropertyListKeyPath(plutilSyntax: "$objects.2")) == "Menlo-Regular")
        var rest = profile, restBefore = before
        try rest.removeValue(at: [.key("Font")])
        try restBefore.removeValue(at: [.key("Font")])
        #expect(rest == restBefore)
    }

    @Test func anUnchangedEditKeepsTheBytes() throws {
        var profile = try Self.profile()
        let before = profile
        try EmbeddedArchives().edit(&profile, at: EmbeddedKeyPath(parsing: "Font!.$top.root.NSSize"), followingLast: true) {
            value, path throws(PropertyListKeyPathError) in
            try value.setValue(.real(11), at: path, mode: .replace)
        }
        #expect(profile == before)
    }

    @Test func stepsThatCannotBeTakenSayWhyAndWhere() throws {
        let profile = try Self.profile()
        let archives = EmbeddedArchives()
        func failure(_ text: String) -> EmbeddedKeyPathError? {
            do {
                _ = try archives.value(in: profile, at: EmbeddedKeyPath(parsing: text))
                return nil
            } catch { return error }
        }
        let notData = failure("name!.x")
        #expect(notData?.code == .notData)
        #expect(notData?.message == "'name' holds a string, not data, so '!' cannot read a property list from it")
        let missing = failure("Font!.$top.nothing")
        #expect(missing?.code == .keyPath)
        #expect(missing?.keyPathError?.code == .missing)
    }

    /// A data value that starts as a binary property list but is cut short,
    /// and one of garbage after `bplist00`: refused with the key path and
    /// the byte offset inside the data, the outer value untouched.
    @Test func brokenEmbeddedDataIsRefusedWithItsByteOffset() throws {
        guard case .data(let font)? = try Self.profile().value(at: [.key("Font")]) else { Issue.record("Font is not data"); return }
        let truncated = font.prefix(100)  // the 32-byte trailer is gone
        let garbage = Data("bplist00".utf8) + Data(repeating: 0xFF, count: 40)
        for bytes in [truncated, garbage] {
            var outer: PropertyListValue = ["Font": .data(bytes)]
            let before = outer
            do {
                try EmbeddedArchives().edit(&outer, at: EmbeddedKeyPath(parsing: "Font!.$top.root.NSSize"), followingLast: true) {
                    value, path throws(PropertyListKeyPathError) in
                    try value.setValue(1, at: path, mode: .replace)
                }
                Issue.record("broken data was read")
            } catch {
                #expect(error.code == .unreadable)
                #expect(error.message.hasPrefix("the data at 'Font' does not read as a property list: "), "\(error.message)")
                #expect(error.message.contains("byte "), "\(error.message)")
                #expect(error.propertyListError != nil)
            }
            #expect(outer == before)
            let found = try EmbeddedArchives().find(in: outer)
            #expect(found.count == 1)
            #expect(found.first?.error != nil)
        }
    }

    /// A property list holding itself, 1000 levels deep in data values: the
    /// walk stops at the nesting limit with an error naming the key path,
    /// and a key path with as many steps is refused before any is taken.
    @Test func aDepthBombStopsAtTheNestingLimit() throws {
        var value: PropertyListValue = ["leaf": true]
        for _ in 0..<1000 { value = ["a": .data(Data(try BinaryPropertyListWriter().encode(value)))] }
        let archives = EmbeddedArchives()
        do {
            _ = try archives.find(in: value)
            Issue.record("1000 levels were read")
        } catch {
            #expect(error.code == .nestingLimit)
            #expect(error.keyPath.segments.count == archives.maximumNesting + 1)
            #expect(error.message == "archives nest in data values more than 16 deep")
        }
        let deep = EmbeddedKeyPath(parsing: String(repeating: "a!.", count: 1000) + "leaf")
        do {
            _ = try archives.value(in: value, at: deep)
            Issue.record("1000 steps were taken")
        } catch {
            #expect(error.code == .nestingLimit)
            #expect(error.message == "the key path steps into 1000 data values, more than the limit of 16")
        }
        let within = EmbeddedKeyPath(parsing: String(repeating: "a!.", count: 16) + "a")
        guard case .data = try archives.value(in: value, at: within) else { Issue.record("not data at 16 steps"); return }
    }

    /// Text that is no property list is not taken for one; XML is only
    /// when it names a plist.
    @Test func recognisesFormsByTheirFirstBytes() throws {
        let archives = EmbeddedArchives()
        #expect(archives.form(of: Data("hello".utf8)) == nil)
        #expect(archives.form(of: Data("123".utf8)) == nil)
        #expect(archives.form(of: Data("<html><body/></html>".utf8)) == nil)
        #expect(archives.form(of: Data("{ a = 1; }".utf8)) == .propertyList(.openStep))
        #expect(archives.form(of: Data(#"{"a": 1}"#.utf8)) == .propertyList(.json))
        #expect(archives.form(of: Data("{ a = ".utf8)) == nil)
        let xml = try XMLPropertyListWriter().encode(["a": 1])
        #expect(archives.form(of: Data(xml)) == .propertyList(.xml))
    }
}

/// Typed streams and NIB archives as layers: real bytes Apple's programs wrote
/// (an iMessage `attributedBody` from imessage-exporter's test data,
/// `Tests/TypedStreamTests/Fixtures/SOURCES.md`; a storyboard's NIB archive
/// compiled by Xcode, `Tests/NIBArchiveTests/Fixtures/SOURCES.md`), held as
/// data values in a property list the test makes (the wrapping is ours, the
/// layer Apple's). Expected values from pytypedstream and nibarchive (PyPI).
struct EmbeddedTypedStreamAndNibLayerTests {
    static let body = Repository.path("Tests/TypedStreamTests/Fixtures/AttributedBodyTextOnly")
    static let nib = Repository.path("Tests/NIBArchiveTests/Fixtures/UIViewController-01J-lp-oVM.nib")

    static func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    /// pytypedstream's reading of the attributed string's text.
    static func pythonText(_ path: String) throws -> String {
        let script = "import sys, typedstream\nprint(typedstream.unarchive_from_file(sys.argv[1]).contents[0].value.value, end='')"
        return String(decoding: try PythonScript.run(script, arguments: [path]), as: UTF8.self)
    }

    /// nibarchive's class name of each object, in order (through the NIBArchive tests' peer).
    static func pythonClassNames(_ path: String) throws -> [String] {
        let peer = Repository.path("Tests/NIBArchiveTests/Fixtures/nibarchive_peer.py")
        let script = """
            import json, subprocess, sys
            form = json.loads(subprocess.run([sys.executable, sys.argv[1], sys.argv[2]], capture_output=True, check=True).stdout)
            print(json.dumps([o['className'] for o in form['file']['objects']]))
            """
        return try JSONDecoder().decode([String].self, from: try PythonScript.run(script, arguments: [peer, path]))
    }

    @Test(.externalTools(["/usr/bin/env"]))
    func aTypedStreamInDataIsSteppedIntoAndFound() throws {
        let text = try Self.pythonText(Self.body)
        #expect(text == "Noter test")
        let root: PropertyListValue = ["attributedBody": .data(try Self.bytes(Self.body))]
        let archives = EmbeddedArchives()
        #expect(try archives.value(in: root, at: EmbeddedKeyPath(parsing: "attributedBody!.string")) == .string(text))
        #expect(try archives.value(in: root, at: EmbeddedKeyPath(parsing: "attributedBody!.class")) == "NSAttributedString")
        // One run over the 10 characters (pytypedstream's (1, 10) group).
        #expect(try archives.value(in: root, at: EmbeddedKeyPath(parsing: "attributedBody!.runs.0.length")) == 10)
        let found = try archives.find(in: root)
        #expect(found.count == 1)
        #expect(found.first?.form == .typedStream)
        #expect(found.first?.value?.value(at: [.key("string")]) == .string(text))
        #expect(found.first?.typedStream?.classes.map(\.name).contains("NSMutableAttributedString") == true)
        guard case .dictionary(let form)? = found.first?.jsonForm else { Issue.record("no JSON form"); return }
        #expect(form["kind"] == "typedStream")
        #expect(form["length"] == .integer(PropertyListInteger(try Self.bytes(Self.body).count)))
        #expect(form["value"]?.value(at: [.key("string")]) == .string(text))
        #expect(form["typedStream"]?.value(at: [.key("format")]) == "typedstream")
    }

    /// The Terminal profile's 16 ANSI colours, typed streams Terminal.app wrote in `<data>` values: each
    /// `KEY!` is its `NSColor` decoded, with the components pytypedstream reads from the same bytes.
    @Test(.externalTools(["/usr/bin/env"]))
    func aTerminalProfilesTypedStreamColoursAreSteppedInto() throws {
        let script = """
            import json, plistlib, sys, typedstream
            profile = plistlib.load(open(sys.argv[1], 'rb'))
            colours = {}
            for key, value in profile.items():
                if isinstance(value, bytes) and value.startswith(b'\\x04\\x0bstreamtyped'):
                    colour = typedstream.unarchive_from_data(value)
                    colours[key] = [colour.value.red, colour.value.green, colour.value.blue, colour.value.alpha]
            print(json.dumps(colours))
            """
        let expected = try JSONDecoder().decode(
            [String: [Double]].self, from: try PythonScript.run(script, arguments: [EmbeddedArchivesTests.profilePath]))
        #expect(expected.count == 16)
        let profile = try EmbeddedArchivesTests.profile()
        let archives = EmbeddedArchives()
        for (key, components) in expected {
            let colour = try archives.value(in: profile, at: EmbeddedKeyPath(parsing: "\(key)!"))
            #expect(colour.value(at: [.key("class")]) == "NSColor", "\(key)")
            #expect(colour.value(at: [.key("components")]) == .array(components.map { .real($0) }), "\(key)")
        }
    }

    @Test(.externalTools(["/usr/bin/env"]))
    func aNibArchiveInDataIsSteppedIntoAndFound() throws {
        let names = try Self.pythonClassNames(Self.nib)
        #expect(names.count == 18)
        let root: PropertyListValue = ["nib": .data(try Self.bytes(Self.nib))]
        let archives = EmbeddedArchives()
        for (index, name) in names.enumerated() {
            #expect(try archives.value(in: root, at: EmbeddedKeyPath(parsing: "nib!.objects.\(index).className")) == .string(name))
        }
        let found = try archives.find(in: root)
        #expect(found.map(\.form) == [.nibArchive])
        #expect(found.first?.value?.value(at: PropertyListKeyPath(plutilSyntax: "objects.13.className")) == "UIViewController")
        guard case .dictionary(let form)? = found.first?.jsonForm else { Issue.record("no JSON form"); return }
        #expect(form["kind"] == "nibArchive")
        #expect(form["format"] == "nibArchive")
    }

    /// Layers nest: the typed stream gzipped (Python's gzip), then inside a
    /// binary property list's data value, itself data in the outer one.
    @Test(.externalTools(["/usr/bin/env"]))
    func aTypedStreamInsideGzipInsideAPropertyListIsReached() throws {
        let gzipped = try PythonScript.run(
            "import gzip, sys; sys.stdout.buffer.write(gzip.compress(open(sys.argv[1], 'rb').read()))", arguments: [Self.body])
        let inner: PropertyListValue = ["body": .data(gzipped)]
        let root: PropertyListValue = ["outer": .data(Data(try BinaryPropertyListWriter().encode(inner)))]
        let archives = EmbeddedArchives()
        #expect(try archives.value(in: root, at: EmbeddedKeyPath(parsing: "outer!.body!.string")) == "Noter test")
        let found = try archives.find(in: root)
        let gzip = try #require(found.first?.nested.first)
        #expect(gzip.form == .compressed(.gzip))
        #expect(gzip.nested.first?.form == .typedStream)
        #expect(gzip.nested.first?.value?.value(at: [.key("string")]) == "Noter test")
    }

    /// `set` through a typed stream or NIB archive is refused (they are
    /// read, not written), and the value is unchanged.
    @Test func anEditInsideATypedStreamOrNibIsRefusedWithNothingChanged() throws {
        for (key, path, inner) in [("attributedBody", Self.body, "string"), ("nib", Self.nib, "objects.1.string")] {
            var root: PropertyListValue = [key: .data(try Self.bytes(path))]
            let before = root
            do {
                try EmbeddedArchives().edit(&root, at: EmbeddedKeyPath(parsing: "\(key)!.\(inner)"), followingLast: true) {
                    value, path throws(PropertyListKeyPathError) in
                    try value.setValue("changed", at: path, mode: .replace)
                }
                Issue.record("\(key): an edit was written")
            } catch {
                #expect(error.code == .readOnlyForm, "\(error)")
                #expect(error.message.hasPrefix("the data at '\(key)' is "), "\(error.message)")
                #expect(error.message.hasSuffix(": what it holds is read, not written back"), "\(error.message)")
            }
            #expect(root == before)
        }
    }

    /// Cut short or corrupt: refused with the key path, the layer and the
    /// byte offset inside it; `find(in:)` keeps the error beside the bytes,
    /// but for a limit passed, which it throws (as for a gzip bomb).
    @Test func aTypedStreamOrNibCutShortSaysWhere() throws {
        let body = try Self.bytes(Self.body)
        let nib = try Self.bytes(Self.nib)
        let cases: [(key: String, bytes: Data, layer: String, limit: Bool)] = [
            ("attributedBody", body.prefix(body.count / 2), "the NSArchiver typed stream at 'attributedBody' does not read: ", false),
            ("nib", nib.prefix(nib.count / 2), "the NIB archive at 'nib' does not read: ", false),
            // The header's object count made huge: 0x7FFFFFFF objects (bytes 18-21, little-endian; the format's header is 10
            // bytes of magic, two 32-bit versions, then each table's count and offset).
            ("nib", nib.prefix(18) + Data([0xFF, 0xFF, 0xFF, 0x7F]) + nib.dropFirst(22), "the NIB archive at 'nib' does not read: ", true),
        ]
        for (key, bytes, layer, limit) in cases {
            let root: PropertyListValue = [key: .data(bytes)]
            do {
                _ = try EmbeddedArchives().value(in: root, at: EmbeddedKeyPath(parsing: "\(key)!"))
                Issue.record("\(key): broken bytes were read")
            } catch {
                #expect(error.code == (limit ? .layerLimit : .unreadable), "\(error)")
                #expect(error.message.hasPrefix(layer), "\(error.message)")
                #expect(error.message.contains("(at byte "), "\(error.message)")
                #expect(error.message.contains(" of its \(bytes.count))"), "\(error.message)")
                #expect(error.description.hasSuffix("(at \(key)!)"))
                #expect(error.typedStreamError != nil || error.nibArchiveError != nil)
            }
            guard !limit else {
                #expect(throws: EmbeddedKeyPathError.self) { try EmbeddedArchives().find(in: root) }
                continue
            }
            let found = try EmbeddedArchives().find(in: root)
            #expect(found.count == 1)
            #expect(found.first?.value == nil)
            #expect(found.first?.typedStreamError != nil || found.first?.nibArchiveError != nil)
        }
    }

    /// The typed stream 20 data values deep (each a binary property list's
    /// data): the walk stops at the nesting limit, naming the key path.
    @Test func aTypedStreamPastTheNestingLimitIsRefused() throws {
        var value: PropertyListValue = ["body": .data(try Self.bytes(Self.body))]
        for _ in 0..<20 { value = ["a": .data(Data(try BinaryPropertyListWriter().encode(value)))] }
        do {
            _ = try EmbeddedArchives().find(in: value)
            Issue.record("20 levels were read")
        } catch {
            #expect(error.code == .nestingLimit)
            #expect(error.message == "archives nest in data values more than 16 deep")
        }
        let within = EmbeddedArchives(maximumNesting: 21)
        let path = EmbeddedKeyPath(parsing: String(repeating: "a!.", count: 20) + "body!.string")
        #expect(try within.value(in: value, at: path) == "Noter test")
    }
}
