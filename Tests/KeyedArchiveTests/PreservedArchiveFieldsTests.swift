import KeyedArchive
import OrderedCollections
import PropertyList
import Testing

/// `KeyedArchiveDecoder.preservedFields(excludingKeys:)` and
/// `KeyedArchiveEncoder.encode(_:)`: a type that knows one key keeps the
/// others through a decode and an encode. The archives are built by hand;
/// the archive expected after the encode is numbered by hand (written out
/// in each test).
struct PreservedArchiveFieldsTests {
    /// An object that knows only `name` and keeps every other key.
    struct Person: KeyedArchiveCodable {
        var name: String?
        var rest: PreservedArchiveFields

        static let archivedClassNames: Set<String> = ["Person"]
        var archivedClassChain: [String] { ["Person", "NSObject"] }

        init(from decoder: inout KeyedArchiveDecoder) throws(KeyedArchiveError) {
            name = try decoder.decodeObject(of: String.self, forKey: "name")
            rest = try decoder.preservedFields(excludingKeys: ["name"])
        }

        func encode(to encoder: inout KeyedArchiveEncoder) throws(KeyedArchiveError) {
            try encoder.encode(name, forKey: "name")
            encoder.encode(rest)
        }
    }

    /// `Person` with `name` "Ada" and, unknown to it: `note` the same string
    /// object as `name`, `list` an `NSMutableArray` holding a 32-bit real,
    /// itself and `$null`, `flag` an integer in the object itself, `me` the
    /// object itself and `none` `$null`.
    static let archive = KeyedArchiveObjectGraph(
        top: ["root": .uid(1)],
        objects: [
            "$null",
            .dictionary([
                "$class": .uid(2), "name": .uid(3), "note": .uid(3), "list": .uid(4), "flag": 5, "me": .uid(1), "none": .uid(0),
            ]),
            ["$classname": "Person", "$classes": ["Person", "NSObject"]],
            "Ada",
            .dictionary(["$class": .uid(5), "NS.objects": [.uid(6), .uid(4), .uid(0)]]),
            ["$classname": "NSMutableArray", "$classes": ["NSMutableArray", "NSArray", "NSObject"]],
            .real32(1.5),
        ])

    @Test func unknownKeysAreKeptWithTheirObjectsThroughAnEdit() throws {
        var person = try #require(try KeyedUnarchiver(archive: Self.archive).decodeTopLevelObject(of: Person.self))
        #expect(person.rest.keys == ["note", "list", "flag", "me", "none"])
        person.name = "Bea"
        var archiver = KeyedArchiver()
        try archiver.encodeTopLevelObject(person)
        // By hand: Person is 1, its new name 2; then the kept objects in the order first reached
        // (note's "Ada" 3, list's array 4, the array's class 5, its real 6); Person's class last, 7.
        let expected: [PropertyListValue] = [
            "$null",
            .dictionary([
                "name": .uid(2), "note": .uid(3), "list": .uid(4), "flag": 5, "me": .uid(1), "none": .uid(0), "$class": .uid(7),
            ]),
            "Bea",
            "Ada",
            .dictionary(["$class": .uid(5), "NS.objects": [.uid(6), .uid(4), .uid(0)]]),
            ["$classname": "NSMutableArray", "$classes": ["NSMutableArray", "NSArray", "NSObject"]],
            .real32(1.5),
            ["$classname": "Person", "$classes": ["Person", "NSObject"]],
        ]
        #expect(archiver.archive.objects == expected)
        #expect(archiver.archive.top == ["root": .uid(1)])
        // Written and read again: the 32-bit real stays 32-bit.
        let reread = try KeyedArchiveReader().read(try archiver.encodedArchive())
        #expect(reread.objects.contains(.real32(1.5)))
        #expect(try KeyedUnarchiver(archive: reread).decodeTopLevelObject(of: Person.self)?.rest == person.rest)
    }

    @Test func aTypeThatKnowsEveryKeyKeepsNothing() throws {
        var objects = Self.archive.objects
        objects[1] = .dictionary(["$class": .uid(2), "name": .uid(3)])
        let person = try KeyedUnarchiver(archive: KeyedArchiveObjectGraph(top: ["root": .uid(1)], objects: objects)).decodeTopLevelObject(of: Person.self)
        #expect(person?.rest.isEmpty == true)
        #expect(person?.rest == PreservedArchiveFields())
    }

    @Test func unknownKeysCompareByTheirObjectsNotTheirNumbers() throws {
        let person = try #require(try KeyedUnarchiver(archive: Self.archive).decodeTopLevelObject(of: Person.self))
        let comparable = try person.rest.comparableFields
        #expect(comparable["note"] == "Ada")
        #expect(comparable["flag"] == 5)
        #expect(comparable["none"] == "$null")
        #expect(comparable["me"] == ["$class": "Person"])
        let cycle: PropertyListValue = ["$class": "NSMutableArray", "$reference": "cycle"]
        #expect(comparable["list"] == ["$class": "NSMutableArray", "NS.objects": [.real32(1.5), cycle, "$null"]])
    }

    @Test func aReferencePastTheObjectsIsAnErrorAtItsField() throws {
        var objects = Self.archive.objects
        // The array's second element refers to object 9 of 7.
        objects[4] = .dictionary(["$class": .uid(5), "NS.objects": [.uid(6), .uid(9)]])
        let error = try #require(throws: KeyedArchiveError.self) {
            _ = try KeyedUnarchiver(archive: KeyedArchiveObjectGraph(top: ["root": .uid(1)], objects: objects)).decodeTopLevelObject(of: Person.self)
        }
        #expect(error.code == .danglingReference)
        #expect("\(error.keyPath)" == "$top.root.list")
        #expect(error.objectIndex == 4)
        #expect(error.message == "UID 9 refers past the 7 objects")
    }
}
