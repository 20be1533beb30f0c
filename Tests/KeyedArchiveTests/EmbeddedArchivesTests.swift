import Foundation
import KeyedArchive
import PropertyList
import Testing

/// `EmbeddedArchives` on a Terminal.app profile from a public repository
/// (`Fixtures/embedded/`, provenance in its SOURCES.md): its `Font` and
/// colours are binary keyed archives in `<data>`, its ANSI colours typed
/// streams. Expected values are as Python's plistlib reads the file:
/// `plistlib.loads(profile["Font"])["$objects"]` is
/// `['$null', {'$class': UID(3), 'NSName': UID(2), 'NSSize': 11.0, 'NSfFlags': 16}, 'Menlo-Regular', {'$classname': 'NSFont', …}]`.
struct EmbeddedArchivesTests {
    static let profilePath = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/embedded/Solarized Dark ansi.terminal").path

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
        let typed = failure("blackColour!")
        #expect(typed?.code == .typedStream)
        #expect(typed?.message.contains("'blackColour' is an NSArchiver typed stream") == true)
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
