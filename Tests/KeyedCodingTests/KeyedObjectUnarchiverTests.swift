import Foundation
import KeyedArchive
import KeyedCoding
import Testing

/// `crap.Foo` of bpylist2's archives, ported to `ArchiveCoding`.
final class Foo: ArchivableObject, ArchiveSecureCoding {
    static var supportsSecureCoding: Bool { true }
    var title: String?
    var count = 0
    var categories: [String]?
    var metadata: [String: String]?
    var stamp: Date?
    var recursive: Foo?

    override init() { super.init() }

    required init?(coder: ArchiveCoder) {
        title = coder.decodeObject(of: String.self, forKey: "title")
        count = coder.decodeInteger(forKey: "count")
        categories = coder.decodeObject(of: [[Any].self, String.self], forKey: "categories") as? [String]
        metadata = coder.decodeObject(of: [[AnyHashable: Any].self, String.self], forKey: "metadata") as? [String: String]
        stamp = coder.decodeObject(of: Date.self, forKey: "stamp")
        recursive = coder.decodeObject(of: Foo.self, forKey: "recursive")
        super.init()
    }

    func encode(with coder: ArchiveCoder) {
        coder.encode(title, forKey: "title")
        coder.encode(count, forKey: "count")
    }
}

/// A class that does not decode securely.
final class Insecure: ArchivableObject, ArchiveCoding {
    override init() { super.init() }
    required init?(coder: ArchiveCoder) { super.init() }
    func encode(with coder: ArchiveCoder) {}
}

/// Decoding with `KeyedObjectUnarchiver`: archives made by Apple's Foundation
/// (swift-corelibs-foundation's macOS fixtures), Cocoa via PyObjC and
/// bpylist2, with the values their MANIFEST.md rows state; and bad input.
@Suite struct KeyedObjectUnarchiverTests {
    static func unarchiver(_ path: String) throws -> KeyedObjectUnarchiver {
        let unarchiver = try KeyedObjectUnarchiver(forReadingFrom: try Fixtures.interop(path))
        unarchiver.setClass(Foo.self, forClassName: "crap.Foo")
        return unarchiver
    }

    @Test func arrayArchivedByFoundationOnMacOS() throws {
        // MANIFEST: NSArray ["baa","baa","black","sheep"].
        let data = try Fixtures.interop("keyedarchive/swift-corelibs-foundation/NSKeyedUnarchiver-ArrayTest.plist")
        let array = try KeyedObjectUnarchiver.unarchivedObject(ofClasses: [[Any].self, String.self], from: data) as? [String]
        #expect(array == ["baa", "baa", "black", "sheep"])
    }

    @Test(.enabled(if: Fixtures.hasInterop("keyedarchive/swift-corelibs-foundation/NSKeyedUnarchiver-UUIDTest.plist")))
    func uuidArchivedByFoundationOnMacOS() throws {
        // MANIFEST: NSUUID 0AD863BA-7584-40CF-8896-BD87B3280C34.
        let data = try Fixtures.interop("keyedarchive/swift-corelibs-foundation/NSKeyedUnarchiver-UUIDTest.plist")
        #expect(try KeyedObjectUnarchiver.unarchivedObject(ofClass: UUID.self, from: data) == UUID(uuidString: "0AD863BA-7584-40CF-8896-BD87B3280C34"))
    }

    @Test(.enabled(if: Fixtures.hasInterop("keyedarchive/swift-corelibs-foundation/NSKeyedUnarchiver-ComplexTest.plist")))
    func dictionaryOfFoundationValuesArchivedByFoundationOnMacOS() throws {
        // MANIFEST: NSDictionary {uuid: NSUUID 71DC068E-3420-45FF-919E-3A267D55EC22,
        // url: URL("index.xml", relativeTo: https://www.swift.org), string: "hello",
        // array: [NSNull, "hello", 34545, {"key":"val"}]}, decoded with secure coding.
        let data = try Fixtures.interop("keyedarchive/swift-corelibs-foundation/NSKeyedUnarchiver-ComplexTest.plist")
        let allowed: [Any.Type] = [[AnyHashable: Any].self, [Any].self, URL.self, UUID.self, ArchivedNull.self, String.self, ArchivedNumber.self]
        let dictionary = try #require(try KeyedObjectUnarchiver.unarchivedObject(ofClasses: allowed, from: data) as? [String: Any])
        #expect(dictionary["uuid"] as? UUID == UUID(uuidString: "71DC068E-3420-45FF-919E-3A267D55EC22"))
        let url = try #require(dictionary["url"] as? URL)
        #expect(url.relativeString == "index.xml" && url.baseURL?.absoluteString == "https://www.swift.org")
        #expect(url.absoluteString == "https://www.swift.org/index.xml")
        #expect(dictionary["string"] as? String == "hello")
        let array = try #require(dictionary["array"] as? [Any])
        #expect(array.count == 4)
        #expect(array.first is ArchivedNull)
        #expect(array.dropFirst().first as? String == "hello")
        #expect(array.dropFirst(2).first as? ArchivedNumber == ArchivedNumber(value: 34545))
        #expect(array.last as? [String: String] == ["key": "val"])

        let withoutNull = allowed.filter { $0 != ArchivedNull.self }
        let error = try #require(throws: KeyedArchiveError.self) { try KeyedObjectUnarchiver.unarchivedObject(ofClasses: withoutNull, from: data) }
        #expect(error.code == .disallowedClass && error.message.contains("NSNull"))
        #expect("\(error.keyPath)" == "$top.root.NS.objects[0].NS.objects[0]")
    }

    @Test func stringSubclassDecodesThroughItsClassChain() throws {
        // MANIFEST: root string "KeyArchive UID Test", class OC_BuiltinPythonUnicode → … → NSString (Cocoa-made).
        let data = try Fixtures.interop("keyedarchive/cpython-plistlib/TESTDATA_KEYED_ARCHIVE.bplist")
        #expect(try KeyedObjectUnarchiver.unarchivedObject(ofClass: String.self, from: data) == "KeyArchive UID Test")
    }

    @Test func mappedClassWithCollections() throws {
        // MANIFEST: title "yo", count 42, categories ["banana","apple"], metadata {fruit:"kiwi", veg:"asparagus"}.
        let unarchiver = try Self.unarchiver("keyedarchive/bpylist2/complex_archive.plist")
        let foo = try #require(unarchiver.decodeObject(of: Foo.self, forKey: "root"))
        #expect(unarchiver.error == nil)
        #expect(foo.title == "yo")
        #expect(foo.count == 42)
        #expect(foo.categories == ["banana", "apple"])
        #expect(foo.metadata == ["fruit": "kiwi", "veg": "asparagus"])
    }

    @Test func dateField() throws {
        // MANIFEST: stamp NSDate NS.time 509523358.684097.
        let unarchiver = try Self.unarchiver("keyedarchive/bpylist2/date_archive.plist")
        let foo = try #require(unarchiver.decodeObject(of: Foo.self, forKey: "root"))
        #expect(foo.stamp == Date(timeIntervalSinceReferenceDate: 509523358.684097))
        #expect(foo.title == "hello")
    }

    @Test func nestedObjectOfTheSameClass() throws {
        // MANIFEST: outer title "hello", recursive → inner Foo title "yo".
        let unarchiver = try Self.unarchiver("keyedarchive/bpylist2/recursive_archive.plist")
        let foo = try #require(unarchiver.decodeObject(of: Foo.self, forKey: "root"))
        #expect(foo.title == "hello")
        #expect(foo.recursive?.title == "yo")
    }

    @Test func objectReferringToItselfIsACycleError() throws {
        // MANIFEST: an object whose "recursive" points to itself.
        let unarchiver = try Self.unarchiver("keyedarchive/bpylist2/circular_archive.plist")
        #expect(unarchiver.decodeObject(of: Foo.self, forKey: "root") == nil)
        let error = try #require(unarchiver.error as? KeyedArchiveError)
        #expect(error.code == .cycle)
        #expect("\(error.keyPath)" == "$top.root.recursive")
    }

    @Test func objectsNestedPastTheDepthLimitAreAnErrorNotAStackOverflow() throws {
        let folder = try ScratchFolder()
        let url = folder.url.appendingPathComponent("deep.plist")
        try Fixtures.makeArchive("foos-nested-100000", at: url)
        let unarchiver = try KeyedObjectUnarchiver(forReadingFrom: try Data(contentsOf: url))
        unarchiver.setClass(Foo.self, forClassName: "crap.Foo")
        #expect(unarchiver.decodeObject(of: Foo.self, forKey: "root") == nil)
        let error = try #require(unarchiver.error as? KeyedArchiveError)
        #expect(error.code == .depthLimitExceeded)
        #expect(error.keyPath.components.count == 2 + KeyedArchiveLimits.default.maximumDepth, "$top.root, then one recursive per level")
    }

    @Test func malformedArchivesAreRefusedWhenRead() throws {
        // MANIFEST: REJECT $version 10000; REJECT $archiver "NSArchiver"; REJECT no $top.
        for (file, code) in [
            ("invalid_version_archive", KeyedArchiveError.Code.unsupportedVersion),
            ("invalid_type_archive", .wrongArchiver), ("no_top_archive", .missingTop),
        ] {
            let error = try #require(throws: KeyedArchiveError.self) { try Self.unarchiver("keyedarchive/bpylist2/\(file).plist") }
            #expect(error.code == code, "\(file)")
        }
    }

    @Test func unmappedClassIsAnErrorNotACrash() throws {
        let unarchiver = try KeyedObjectUnarchiver(forReadingFrom: try Fixtures.interop("keyedarchive/bpylist2/simple_archive.plist"))
        unarchiver.requiresSecureCoding = false
        #expect(unarchiver.decodeObject(forKey: "root") == nil)
        let error = try #require(unarchiver.error as? KeyedArchiveError)
        #expect(error.code == .disallowedClass)
        #expect(error.message.contains("crap.Foo"))
        #expect("\(error.keyPath)" == "$top.root")
    }

    @Test func classOfAnotherTypeThanAskedIsDisallowed() throws {
        // The root is a string (MANIFEST); asking for an array must fail.
        let data = try Fixtures.interop("keyedarchive/cpython-plistlib/TESTDATA_KEYED_ARCHIVE.bplist")
        let error = try #require(throws: KeyedArchiveError.self) { try KeyedObjectUnarchiver.unarchivedObject(ofClass: [Any].self, from: data) }
        #expect(error.code == .disallowedClass)
        #expect(error.message.contains("NSArray"))
    }

    @Test func insecureClassIsRefusedUnderSecureCoding() throws {
        let archiver = KeyedObjectArchiver(requiringSecureCoding: false)
        archiver.setClassName("Insecure", for: Insecure.self)
        archiver.encode(Insecure(), forKey: "root")
        let unarchiver = try KeyedObjectUnarchiver(forReadingFrom: archiver.encodedData)
        unarchiver.setClass(Insecure.self, forClassName: "Insecure")
        #expect(unarchiver.decodeObject(of: Insecure.self, forKey: "root") == nil)
        #expect("\(unarchiver.error.map { "\($0)" } ?? "")".contains("does not support secure coding"))

        let lenient = try KeyedObjectUnarchiver(forReadingFrom: archiver.encodedData)
        lenient.requiresSecureCoding = false
        lenient.setClass(Insecure.self, forClassName: "Insecure")
        #expect(lenient.decodeObject(of: Insecure.self, forKey: "root") != nil)
    }

    @Test func missingKeysReadAsZeroAndNil() throws {
        let unarchiver = try Self.unarchiver("keyedarchive/bpylist2/simple_archive.plist")
        let foo = try #require(unarchiver.decodeObject(of: Foo.self, forKey: "root"))
        // MANIFEST: crap.Foo title "yo", count 42 — and nothing else.
        #expect(foo.title == "yo" && foo.count == 42)
        #expect(foo.categories == nil && foo.stamp == nil && foo.recursive == nil)
        #expect(unarchiver.error == nil)
        #expect(unarchiver.decodeObject(of: Foo.self, forKey: "absent") == nil)
        #expect(!unarchiver.containsValue(forKey: "absent") && unarchiver.containsValue(forKey: "root"))
    }

    @Test func wrongTypeSetsTheErrorAndLaterCallsReturnNothing() throws {
        final class Probe: ArchivableObject, ArchiveSecureCoding {
            static var supportsSecureCoding: Bool { true }
            var count = -1
            var titleAsNumber = -1
            var titleAfterError: String?
            required init?(coder: ArchiveCoder) {
                titleAsNumber = coder.decodeInteger(forKey: "title")
                titleAfterError = coder.decodeObject(of: String.self, forKey: "title")
                count = coder.decodeInteger(forKey: "count")
                super.init()
            }
            func encode(with coder: ArchiveCoder) {}
        }
        let unarchiver = try KeyedObjectUnarchiver(forReadingFrom: try Fixtures.interop("keyedarchive/bpylist2/simple_archive.plist"))
        unarchiver.setClass(Probe.self, forClassName: "crap.Foo")
        #expect(unarchiver.decodeObject(of: Probe.self, forKey: "root") == nil)
        let error = try #require(unarchiver.error as? KeyedArchiveError)
        // "title" refers to the string "yo" (MANIFEST), a reference where an integer belongs.
        #expect(error.code == .invalidObject)
        #expect("\(error.keyPath)" == "$top.root.title")
    }

    @Test func sharedInstanceDecodesOnce() throws {
        let shared = Foo()
        shared.title = "shared"
        let archiver = KeyedObjectArchiver(requiringSecureCoding: true)
        archiver.setClassName("Foo", for: Foo.self)
        archiver.encode([shared, shared], forKey: "root")
        let unarchiver = try KeyedObjectUnarchiver(forReadingFrom: archiver.encodedData)
        unarchiver.setClass(Foo.self, forClassName: "Foo")
        let pair = try #require(unarchiver.decodeObject(of: [[Any].self, Foo.self], forKey: "root") as? [Foo])
        #expect(pair.count == 2 && pair[0] === pair[1] && pair[0].title == "shared")
    }

    @Test func processWideClassMappingIsUsed() throws {
        // A name no other test uses: tests run in parallel and the mapping is process-wide.
        let foo = Foo()
        foo.title = "mapped for everyone"
        let archiver = KeyedObjectArchiver(requiringSecureCoding: true)
        archiver.setClassName("ProcessWideFoo", for: Foo.self)
        archiver.encode(foo, forKey: "root")
        let data = archiver.encodedData
        #expect(throws: KeyedArchiveError.self) { try KeyedObjectUnarchiver.unarchivedObject(ofClass: [Any].self, from: data) }

        KeyedObjectUnarchiver.setClass(Foo.self, forClassName: "ProcessWideFoo")
        defer { KeyedObjectUnarchiver.setClass(nil, forClassName: "ProcessWideFoo") }
        #expect(KeyedObjectUnarchiver.class(forClassName: "ProcessWideFoo") == Foo.self)
        let decoded = try KeyedObjectUnarchiver.unarchivedObject(ofClasses: [Foo.self], from: data) as? Foo
        #expect(decoded?.title == "mapped for everyone")
    }
}
