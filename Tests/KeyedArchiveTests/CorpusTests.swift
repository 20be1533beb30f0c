import Foundation
import KeyedArchive
import PropertyList
import TestSupport
import Testing

/// Acceptance 1 and 2: every archive of `../shared/interop/keyedarchive/`
/// decodes to what MANIFEST.md states, and every malformed one fails cleanly.
@Suite struct CorpusTests {
    static func int(_ value: Int64) -> ArchivedValue { .integer(PropertyListInteger(value)) }

    /// Expected fields of each archive's root object, by path from the root
    /// (`a/b/0`: field `a`, then field `b`, then element 0), per MANIFEST.md.
    static let expectations: [String: (topKey: String, className: String?, fields: [(String, ArchivedValue)])] = [
        "bpylist2/circular_archive.plist": ("root", "crap.Foo", [("title", .string("hello")), ("recursive", .cycle(1))]),
        "bpylist2/complex_archive.plist": (
            "root", "crap.Foo",
            [
                ("title", .string("yo")), ("count", int(42)), ("categories", .array([.string("banana"), .string("apple")])),
                ("metadata", .dictionary([.init(key: .string("fruit"), value: .string("kiwi")), .init(key: .string("veg"), value: .string("asparagus"))])),
            ]
        ),
        "bpylist2/data_archive.plist": ("root", "crap.Foo", [("title", .string("yo")), ("stamp", .data(Data()))]),
        "bpylist2/dataclass_archive.plist": (
            "root", "FooDataclass",
            [
                ("int_field", int(5)), ("str_field", .string("hello")), ("float_field", .real(3.15)),
                ("list_field", .array([.string("foo"), .string("bar"), .string("baz")])),
            ]
        ),
        "bpylist2/date_archive.plist": (
            "root", "crap.Foo", [("title", .string("hello")), ("stamp", .date(Date(timeIntervalSinceReferenceDate: 509523358.684097)))]
        ),
        "bpylist2/empty_archive.plist": ("root", "crap.Foo", []),
        "bpylist2/fullChangeLog.bplist": ("root", nil, [("tableID", .string("fullChangeLog")), ("rowHeader", int(2))]),
        "bpylist2/nsmutabledata_archive.plist": ("root", nil, [("", .data(Data("hello".utf8)))]),
        "bpylist2/null_archive.plist": ("root", "crap.Foo", [("title", .string("yo")), ("empty", .null)]),
        "bpylist2/recursive_archive.plist": (
            "root", "crap.Foo", [("title", .string("hello")), ("recursive/title", .string("yo")), ("recursive/recursive", .null)]
        ),
        "bpylist2/simple_archive.plist": ("root", "crap.Foo", [("title", .string("yo")), ("count", int(42)), ("active", .bool(true))]),
        "cpython-plistlib/TESTDATA_KEYED_ARCHIVE.bplist": ("root", nil, [("", .string("KeyArchive UID Test"))]),
        "rust-plist/binary_NSKeyedArchiver.plist": ("foundItems", "NSMutableIndexSet", [("NSRangeCount", int(42))]),
        "swift-corelibs-foundation/NSKeyedUnarchiver-ArrayTest.plist": (
            "root", nil, [("", .array(["baa", "baa", "black", "sheep"].map(ArchivedValue.string)))]
        ),
        "swift-corelibs-foundation/NSKeyedUnarchiver-ComplexTest.plist": (
            "root", nil,
            [
                ("string", .string("hello")),
                ("array", .array([.nsNull, .string("hello"), int(34545), .dictionary([.init(key: .string("key"), value: .string("val"))])])),
                ("url", .url(relative: "index.xml", base: "https://www.swift.org")),
                ("uuid", .uuid(UUID(uuidString: "71DC068E-3420-45FF-919E-3A267D55EC22")!)),
            ]
        ),
        "swift-corelibs-foundation/NSKeyedUnarchiver-ConcreteValueTest.plist": (
            "root", nil, [("", .nsValue(.cArray(objCType: "[3i]", elements: [int(1), int(2), int(3)])))]
        ),
        "swift-corelibs-foundation/NSKeyedUnarchiver-EdgeInsetsTest.plist": ("root", nil, [("", .nsValue(.edgeInsets(top: 1, left: 2, bottom: 3, right: 4)))]),
        "swift-corelibs-foundation/NSKeyedUnarchiver-NotificationTest.plist": (
            "root", "NSNotification",
            [
                ("NS.name", .string("notification-name")), ("NS.object", .string("notification-object")),
                ("NS.userinfo", .dictionary([.init(key: .string("notification-key"), value: .string("notification-val"))])),
            ]
        ),
        "swift-corelibs-foundation/NSKeyedUnarchiver-OrderedSetTest.plist": (
            "root", "NSOrderedSet",
            [
                ("NS.object.0", .string("valgeir")), ("NS.object.1", .string("nico")), ("NS.object.2", .string("puzzle")),
            ]
        ),
        "swift-corelibs-foundation/NSKeyedUnarchiver-RangeTest.plist": ("root", nil, [("", .nsValue(.range(location: 97345, length: 98345)))]),
        "swift-corelibs-foundation/NSKeyedUnarchiver-RectTest.plist": (
            "root", nil, [("", .nsValue(.geometry(.rect(x: 400, y: 300, width: 200, height: 300), text: "{{400, 300}, {200, 300}}")))]
        ),
        "swift-corelibs-foundation/NSKeyedUnarchiver-URLTest.plist": ("root", nil, [("", .url(relative: "foo.xml", base: "https://www.example.com"))]),
        "swift-corelibs-foundation/NSKeyedUnarchiver-UUIDTest.plist": ("root", nil, [("", .uuid(UUID(uuidString: "0AD863BA-7584-40CF-8896-BD87B3280C34")!))]),
    ]

    /// MANIFEST's objects for the macOS 10.14 fixtures, field by field.
    static let foundationFixtures: [String: (className: String, fields: [(String, ArchivedValue)])] = {
        let numbers = [int(3), int(2), int(5), int(1), int(4)]
        let orderedNumbers: [(String, ArchivedValue)] = (0..<5).map { ("NS.object.\($0)", int(Int64($0 + 1))) }
        let countedOnce: [(String, ArchivedValue)] = [("NS.count", int(5))] + (0..<5).map { ("NS.count\($0)", int(1)) }
        let countedFive: [(String, ArchivedValue)] = [("NS.count", int(5))] + (0..<5).map { ("NS.count\($0)", int(5)) }
        func measurement(_ value: Double, _ unit: String, _ symbol: String, _ coefficient: Double) -> (String, [(String, ArchivedValue)]) {
            (
                "NSMeasurement",
                [("NS.value", .real(value)), ("NS.unit/NS.symbol", .string(symbol)), ("NS.unit/NS.converter/NS.coefficient", .real(coefficient))]
            )
        }
        func regex(_ className: String, _ pattern: String, _ length: Int64) -> (String, [(String, ArchivedValue)]) {
            (
                className,
                [
                    ("NSRegularExpression/NSPattern", .string(pattern)), ("NSRangeLength", int(length)), ("NSRangeLocation", int(0)),
                    ("NSRangeArray/0", .nsValue(.range(location: 0, length: length))),
                ]
            )
        }
        return [
            "ByteCountFormatter-AllFieldsSet": (
                "NSByteCountFormatter",
                [
                    ("NSUnits", int(3)), ("NSKBSize", int(2)), ("NSFormattingContext", int(4)), ("NSZeroPad", .bool(true)),
                    ("NSNoNonnumeric", .bool(true)), ("NSNoUnit", .bool(true)), ("NSNoCount", .bool(true)), ("NSNoAdaptive", .bool(true)),
                ]
            ),
            "ByteCountFormatter-Default": ("NSByteCountFormatter", []),
            "DateIntervalFormatter-Default": (
                "NSDateIntervalFormatter", [("NS.timeZone/NS.name", .string("GMT")), ("NS.calendar/NS.identifier", .string("gregorian"))]
            ),
            "DateIntervalFormatter-ValuesSetWithTemplate": (
                "NSDateIntervalFormatter",
                [
                    ("NS.dateTemplate", .string("dd mm yyyy HH:MM")), ("NS.timeZone/NS.name", .string("GMT+0100")),
                    ("NS.locale/NS.identifier", .string("ja-JP")),
                ]
            ),
            "DateIntervalFormatter-ValuesSetWithoutTemplate": (
                "NSDateIntervalFormatter",
                [
                    ("NS.dateStyle", int(3)), ("NS.timeStyle", int(0)), ("NS.timeZone/NS.name", .string("GMT+0100")),
                    ("NS.locale/NS.identifier", .string("ja-JP")),
                ]
            ),
            "ISO8601DateFormatter-Default": ("NSISO8601DateFormatter", [("NS.formatOptions", int(1907)), ("NS.timeZone/NS.name", .string("GMT"))]),
            "ISO8601DateFormatter-OptionsSet": ("NSISO8601DateFormatter", [("NS.formatOptions", int(1366))]),
            "NSAttributedString": ("NSAttributedString", [("NSString", .string("0123456789"))]),
            "NSMutableAttributedString": (
                "NSMutableAttributedString",
                [
                    ("NSString", .string("0123456789")),
                    ("NSAttributes/1", .dictionary([.init(key: .string("Size"), value: int(123)), .init(key: .string("Font"), value: .string("Helvetica"))])),
                ]
            ),
            "NSCountedSet-Empty": ("NSCountedSet", [("NS.count", int(0))]),
            "NSCountedSet-NumbersAppearingOnce": ("NSCountedSet", countedOnce),
            "NSCountedSet-NumbersAppearingSeveralTimes": ("NSCountedSet", countedFive),
            "NSIndexPath-Empty": ("NSIndexPath", [("NSIndexPathLength", int(0))]),
            "NSIndexPath-ManyIndices": ("NSIndexPath", [("NSIndexPathLength", int(6)), ("NSIndexPathData", .data(Data([4, 8, 15, 16, 23, 42])))]),
            "NSIndexPath-OneIndex": ("NSIndexPath", [("NSIndexPathLength", int(1)), ("NSIndexPathValue", int(52))]),
            "NSIndexSet-Empty": ("NSIndexSet", [("NSRangeCount", int(0))]),
            "NSIndexSet-ManyRanges": ("NSIndexSet", [("NSRangeCount", int(4))]),
            "NSIndexSet-OneRange": ("NSIndexSet", [("NSRangeCount", int(1)), ("NSLocation", int(0)), ("NSLength", int(50))]),
            "NSMutableIndexSet-Empty": ("NSMutableIndexSet", [("NSRangeCount", int(0))]),
            "NSMutableIndexSet-ManyRanges": ("NSMutableIndexSet", [("NSRangeCount", int(4))]),
            "NSMutableIndexSet-OneRange": ("NSMutableIndexSet", [("NSRangeCount", int(1)), ("NSLocation", int(0)), ("NSLength", int(50))]),
            "NSMeasurement-Angle": measurement(90, "NSUnitAngle", "°", 1),
            "NSMeasurement-Frequency": measurement(1400, "NSUnitFrequency", "MHz", 1_000_000),
            "NSMeasurement-Length": measurement(45, "NSUnitLength", "mi", 1609.34),
            "NSMeasurement-Zero": ("NSMeasurement", [("NS.value", .real(0)), ("NS.unit/NS.symbol", .string(""))]),
            "NSMutableOrderedSet-Empty": ("NSMutableOrderedSet", []),
            "NSMutableOrderedSet-Numbers": ("NSMutableOrderedSet", orderedNumbers),
            "NSOrderedSet-Empty": ("NSOrderedSet", []),
            "NSOrderedSet-Numbers": ("NSOrderedSet", orderedNumbers),
            "NSMutableSet-Empty": ("", [("", .set([]))]),
            "NSMutableSet-Numbers": ("", [("", .set(numbers))]),
            "NSSet-Empty": ("", [("", .set([]))]),
            "NSSet-Numbers": ("", [("", .set(numbers))]),
            "NSTextCheckingResult-ComplexRegex": regex("NSComplexRegularExpressionCheckingResult", "a(a(a(a(a(a(a(a(a))))))))", 9),
            "NSTextCheckingResult-ExtendedRegex": regex("NSExtendedRegularExpressionCheckingResult", "a(a(a(a(a(a)))))", 6),
            "NSTextCheckingResult-SimpleRegex": regex("NSSimpleRegularExpressionCheckingResult", "aaa", 3),
        ]
    }()

    /// The value at `path` below `value`: object fields, array/set elements and dictionary values by key.
    static func value(_ value: ArchivedValue, at path: String) -> ArchivedValue? {
        var current = value
        for step in path.split(separator: "/").map(String.init) {
            switch current {
            case .object(let object): guard let next = object.fields[step] else { return nil }; current = next
            case .array(let elements), .set(let elements):
                guard let position = Int(step), elements.indices.contains(position) else { return nil }
                current = elements[position]
            case .dictionary(let entries):
                guard let entry = entries.first(where: { $0.key == .string(step) }) else { return nil }
                current = entry.value
            // Foundation's classes decoded by name: the field each key the archive holds became.
            case .orderedSet(let elements):
                guard step.hasPrefix("NS.object."), let position = Int(step.dropFirst(10)), elements.indices.contains(position) else { return nil }
                current = elements[position]
            case .indexSet(let set):
                switch step {
                case "NSRangeCount": current = int(Int64(set.ranges.count))
                case "NSLocation" where set.ranges.count == 1: current = int(Int64(set.ranges[0].location))
                case "NSLength" where set.ranges.count == 1: current = int(Int64(set.ranges[0].length))
                default: return nil
                }
            case .attributedString(let text) where step == "NSString": current = .string(text.string)
            case .attributedString(let text) where step == "NSAttributes":
                // The runs' attribute dictionaries, each once, in the order the runs first use them (as NSAttributeInfo numbers them).
                var dictionaries: [[ArchivedDictionaryEntry]] = []
                for run in text.runs where !dictionaries.contains(run.attributes) { dictionaries.append(run.attributes) }
                current = .array(dictionaries.map(ArchivedValue.dictionary))
            case .timeZone(let zone) where step == "NS.name": current = .string(zone.name)
            case .locale(let locale) where step == "NS.identifier": current = .string(locale.identifier)
            default: return nil
            }
        }
        return current
    }

    /// The class name of the object under `$top.key`, as the archive names it.
    static func className(_ archive: KeyedArchiveObjectGraph, topKey key: String) -> String? {
        guard let index = archive.topObjectIndex(forKey: key), case .instance(let instance) = archive.object(at: index) else { return nil }
        return instance.classDescription.name
    }

    static let decodablePaths = expectations.keys.sorted()

    @Test(arguments: decodablePaths)
    func decodesAsManifestStates(_ file: String) throws {
        let expected = try #require(Self.expectations[file])
        let archive = try Fixtures.archive("keyedarchive/" + file)
        let root = try archive.decodeValue(forTopKey: expected.topKey)
        if let className = expected.className {
            #expect(Self.className(archive, topKey: expected.topKey) == className, "\(file)")
        }
        for (path, value) in expected.fields {
            #expect(Self.value(root, at: path) == value, "\(file): \(path)")
        }
    }

    static let foundationFiles = foundationFixtures.keys.sorted()

    @Test(arguments: foundationFiles)
    func foundationFixtureMatchesManifestFieldByField(_ name: String) throws {
        let expected = try #require(Self.foundationFixtures[name])
        let archive = try Fixtures.archive("keyedarchive/swift-corelibs-foundation/macOS-10.14/\(name).archive")
        let root = try archive.decodeValue(forTopKey: "root")
        if !expected.className.isEmpty {
            #expect(Self.className(archive, topKey: "root") == expected.className, "\(name)")
        }
        for (path, value) in expected.fields {
            #expect(Self.value(root, at: path) == value, "\(name): \(path) is \(String(describing: Self.value(root, at: path)))")
        }
    }

    @Test
    func everyCorpusArchiveHasAnExpectation() {
        let listed = Set(Self.expectations.keys.map { "keyedarchive/" + $0 })
            .union(Self.foundationFixtures.keys.map { "keyedarchive/swift-corelibs-foundation/macOS-10.14/\($0).archive" })
            .union(Self.rejected.keys.map { "keyedarchive/" + $0 })
        let present = Set(Fixtures.corpusFiles(under: "keyedarchive"))
        #expect(present.subtracting(listed).sorted() == [])
    }

    /// The archives MANIFEST says to reject, with the error each gets.
    static let rejected: [String: (KeyedArchiveError.Code, String)] = [
        "bpylist2/invalid_type_archive.plist": (.wrongArchiver, "$archiver"),
        "bpylist2/invalid_uid_archive.plist": (.danglingReference, "$top.root"),
        "bpylist2/invalid_version_archive.plist": (.unsupportedVersion, "$version"),
        "bpylist2/missing_uid_archive.plist": (.invalidObject, "$objects[1]"),
        "bpylist2/no_class_meta_archive.plist": (.invalidClass, "$objects[1].$class"),
        "bpylist2/no_class_name_archive.plist": (.invalidClass, "$objects[1].$class"),
        "bpylist2/no_objects_archive.plist": (.missingObjects, ""),
        "bpylist2/no_root_archive.plist": (.missingValue, "$top.root"),
        "bpylist2/no_top_archive.plist": (.missingTop, ""),
    ]

    static let rejectedPaths = rejected.keys.sorted()

    @Test(arguments: rejectedPaths)
    func rejectsMalformedArchiveWithKeyPath(_ file: String) throws {
        let (code, path) = try #require(Self.rejected[file])
        let error = #expect(throws: KeyedArchiveError.self) {
            _ = try Fixtures.archive("keyedarchive/" + file).decodeValue(forTopKey: "root")
        }
        #expect(error?.code == code, "\(file): \(String(describing: error))")
        #expect(error?.keyPath.description == path, "\(file): \(String(describing: error))")
    }

    static let malformedFiles = Fixtures.corpusFiles(under: "malformed")

    /// Acceptance 2: nothing under malformed/ is an archive; each fails with a
    /// typed error that says where (a byte offset, a line, or a key path).
    @Test(.interopCorpus)
    func malformedFilesFailCleanly() throws {
        #expect(!Self.malformedFiles.isEmpty)
        for file in Self.malformedFiles {
            let bytes = try Fixtures.interopBytes(file)
            do {
                let archive = try KeyedArchiveReader().read(bytes)
                _ = try archive.decodeValue(forTopKey: "root")
                Issue.record("\(file) decoded as an archive")
            } catch {
                let saysWhere =
                    !error.keyPath.components.isEmpty || error.underlying.map { $0.location != .none } ?? false
                    || [.notAnArchive, .wrongArchiver].contains(error.code)
                #expect(saysWhere, "\(file): \(error)")
            }
        }
    }
}
