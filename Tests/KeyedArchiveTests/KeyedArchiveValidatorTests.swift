import KeyedArchive
import OrderedCollections
import PropertyList
import TestSupport
import Testing

/// `KeyedArchiveValidator` reports what Apple's `NSKeyedUnarchiver` refuses, and only that.
struct KeyedArchiveValidatorTests {
    /// `{$version, $archiver, $top, $objects: ["$null", {$class: UID(2)}, DESCRIPTION]}`.
    static func archive(
        classDescription: OrderedDictionary<String, PropertyListValue>,
        top: OrderedDictionary<String, PropertyListValue> = ["root": .uid(1)]
    ) -> PropertyListValue {
        .dictionary([
            "$version": 100_000, "$archiver": "NSKeyedArchiver", "$top": .dictionary(top),
            "$objects": ["$null", .dictionary(["$class": .uid(2)]), .dictionary(classDescription)],
        ])
    }

    static func problems(_ propertyList: PropertyListValue) -> [String] {
        var validator = KeyedArchiveValidator()
        _ = validator.check(propertyList)
        return validator.problems.map(\.description)
    }

    @Test func acceptsAClassDescriptionWithoutClasses() {
        #expect(Self.problems(Self.archive(classDescription: ["$classname": "TestDummy"])) == [])
    }

    @Test func acceptsATopWithoutRoot() {
        #expect(Self.problems(Self.archive(classDescription: ["$classname": "TestDummy"], top: ["DATA": .uid(1)])) == [])
        #expect(Self.problems(Self.archive(classDescription: ["$classname": "TestDummy"], top: [:])) == [])
    }

    @Test func reportsClassesThatAreNoListOfNames() {
        #expect(
            Self.problems(Self.archive(classDescription: ["$classname": "TestDummy", "$classes": "TestDummy"]))
                == ["$classes is a string, not a list of class names (at $objects[2].$classes, object 2)"])
        #expect(
            Self.problems(Self.archive(classDescription: ["$classname": "TestDummy", "$classes": ["TestDummy", 7]]))
                == ["$classes holds a integer, not a class name (at $objects[2].$classes[1], object 2)"])
    }

    @Test func reportsADescriptionWithoutClassName() {
        #expect(
            Self.problems(Self.archive(classDescription: ["$classes": ["TestDummy"]]))
                == [
                    "$class refers to object 2, which is not a class description (at $objects[1].$class, object 1)",
                    "a class description needs a $classname string (at $objects[2].$classname, object 2)",
                ])
    }

    /// The validator over real archives (the corpus, or its slice in a clone
    /// alone): every archive Foundation, Cocoa, plistlib and rust-plist wrote
    /// is valid; each of bpylist2's malformed ones is refused at the key path
    /// its tests name (MANIFEST.md), except `no_root_archive`: a `$top`
    /// without `root` is valid, as NSKeyedUnarchiver reads it.
    @Test
    func judgesEveryRealArchiveAsAppleDoes() throws {
        var refused = CorpusTests.rejected.mapValues(\.1)
        refused["bpylist2/no_root_archive.plist"] = nil
        let files = Fixtures.corpusFiles(under: "keyedarchive")
        #expect(files.count >= 60)
        for file in files {
            let value = try PropertyListReader().read(try Fixtures.interopBytes(file)).value
            var validator = KeyedArchiveValidator()
            _ = validator.check(value)
            let name = String(file.dropFirst("keyedarchive/".count))
            if let keyPath = refused[name] {
                #expect(validator.problems.first?.keyPath.description == keyPath, "\(name): \(validator.problems)")
            } else {
                #expect(validator.problems.isEmpty, "\(name): \(validator.problems)")
            }
        }
    }
}
