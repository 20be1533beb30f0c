import KeyedArchive
import OrderedCollections
import PropertyList
import Testing

/// `KeyedArchiveValidator` reports what Apple's `NSKeyedUnarchiver` refuses, and only that.
struct KeyedArchiveValidatorTests {
    /// `{$version, $archiver, $top, $objects: ["$null", {$class: UID(2)}, DESCRIPTION]}`.
    static func archive(classDescription: OrderedDictionary<String, PropertyListValue>,
                        top: OrderedDictionary<String, PropertyListValue> = ["root": .uid(1)]) -> PropertyListValue {
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
        #expect(Self.problems(Self.archive(classDescription: ["$classname": "TestDummy", "$classes": "TestDummy"]))
            == ["$classes is a string, not a list of class names (at $objects[2].$classes, object 2)"])
        #expect(Self.problems(Self.archive(classDescription: ["$classname": "TestDummy", "$classes": ["TestDummy", 7]]))
            == ["$classes holds a integer, not a class name (at $objects[2].$classes[1], object 2)"])
    }

    @Test func reportsADescriptionWithoutClassName() {
        #expect(Self.problems(Self.archive(classDescription: ["$classes": ["TestDummy"]]))
            == ["$class refers to object 2, which is not a class description (at $objects[1].$class, object 1)",
                "a class description needs a $classname string (at $objects[2].$classname, object 2)"])
    }
}
