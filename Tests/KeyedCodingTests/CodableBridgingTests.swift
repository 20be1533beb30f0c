import Foundation
import KeyedArchive
import KeyedCoding
import Testing

/// A nested Codable value with every property-list kind.
struct Expedition: Codable, Equatable {
    struct Leg: Codable, Equatable {
        var from: String
        var to: String
        var kilometres: Double
        var supplies: [String: Int]
    }

    var name: String
    var members: Int
    var ratio: Float
    var done: Bool
    var started: Date
    var log: Data
    var legs: [Leg]
    var note: String?
}

/// `encodeEncodable`/`decodeDecodable` against Foundation. Apple's overlay
/// (swift/stdlib/public/Darwin/Foundation/NSCoder.swift) archives
/// `PropertyListEncoder().encodeToTopLevelContainer(value)` with
/// `encode(_:forKey:)`; swift-corelibs-foundation has no `encodeEncodable`,
/// so the oracle does the same with public API: the encoder's property list,
/// read back as Foundation objects, archived by `NSKeyedArchiver`.
@Suite struct CodableBridgingTests {
    static let expedition = Expedition(
        name: "Terra Nova", members: 65, ratio: 0.75, done: false,
        started: Date(timeIntervalSinceReferenceDate: -2_862_000_000), log: Data([1, 2, 3, 250]),
        legs: [
            .init(from: "Cardiff", to: "Hobart", kilometres: 17_500.5, supplies: ["ponies": 19, "dogs": 33]),
            .init(from: "Hobart", to: "Ross Island", kilometres: 3_400, supplies: [:]),
        ],
        note: nil)

    @Test func weDecodeWhatFoundationArchives() throws {
        let propertyList = try PropertyListSerialization.propertyList(from: try PropertyListEncoder().encode(Self.expedition), format: nil)
        let archiver = NSKeyedArchiver(requiringSecureCoding: false)
        archiver.encode(propertyList, forKey: "expedition")
        archiver.finishEncoding()

        let unarchiver = try KeyedObjectUnarchiver(forReadingFrom: archiver.encodedData)
        #expect(unarchiver.decodeDecodable(Expedition.self, forKey: "expedition") == Self.expedition)
        #expect(unarchiver.error == nil)
    }

    @Test func foundationDecodesWhatWeArchive() throws {
        let archiver = KeyedObjectArchiver(requiringSecureCoding: true)
        try archiver.encodeEncodable(Self.expedition, forKey: "expedition")
        let data = archiver.encodedData

        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
        unarchiver.requiresSecureCoding = false
        let object = try #require(unarchiver.decodeObject(forKey: "expedition"))
        let propertyList = try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0)
        #expect(try PropertyListDecoder().decode(Expedition.self, from: propertyList) == Self.expedition)
    }

    @Test func containersAreTheMutableClassesOfThePropertyListEncoder() throws {
        // Apple's __PlistDictionaryEncoder (swift-foundation, FOUNDATION_FRAMEWORK)
        // builds NSMutableDictionary and NSMutableArray containers.
        let archiver = KeyedObjectArchiver(requiringSecureCoding: true)
        try archiver.encodeEncodable(Self.expedition, forKey: "root")
        let root = try Fixtures.plistlibRoot(ofArchive: archiver.encodedData)
        #expect(root.classes == ["NSMutableDictionary", "NSDictionary", "NSObject"])
        let plistlibKeys = root.fields["NS.keys"] as? [String] ?? []
        #expect(Set(plistlibKeys) == ["name", "members", "ratio", "done", "started", "log", "legs"], "nil properties are left out")
    }

    @Test func roundTripsThroughOurArchiver() throws {
        let archiver = KeyedObjectArchiver()
        try archiver.encodeEncodable(Self.expedition, forKey: "expedition")
        try archiver.encodeEncodable([1, 2, 3], forKey: "numbers")
        let unarchiver = try KeyedObjectUnarchiver(forReadingFrom: archiver.encodedData)
        #expect(unarchiver.decodeDecodable(Expedition.self, forKey: "expedition") == Self.expedition)
        #expect(unarchiver.decodeDecodable([Int].self, forKey: "numbers") == [1, 2, 3])
        #expect(unarchiver.decodeDecodable(Expedition.self, forKey: "absent") == nil)
        #expect(unarchiver.error == nil, "an absent key is not an error")
    }

    @Test func valueOfAnotherShapeRecordsTheDecodingError() throws {
        let archiver = KeyedObjectArchiver()
        try archiver.encodeEncodable(["name": "only a name"], forKey: "expedition")
        let unarchiver = try KeyedObjectUnarchiver(forReadingFrom: archiver.encodedData)
        #expect(unarchiver.decodeDecodable(Expedition.self, forKey: "expedition") == nil)
        #expect(unarchiver.error is DecodingError)
        #expect(throws: DecodingError.self) { _ = try unarchiver.decodeTopLevelDecodable(Expedition.self, forKey: "expedition") }
    }

    @Test func objectThatIsNotAPropertyListIsRefusedAtItsKeyPath() throws {
        // bpylist2's simple_archive: root is a crap.Foo (MANIFEST).
        let unarchiver = try KeyedObjectUnarchiver(forReadingFrom: try Fixtures.interop("keyedarchive/bpylist2/simple_archive.plist"))
        let error = try #require(throws: KeyedArchiveError.self) { _ = try unarchiver.decodeTopLevelDecodable(Expedition.self, forKey: "root") }
        #expect(error.code == .disallowedClass)
        #expect("\(error.keyPath)" == "$top.root")
        #expect(error.message.contains("crap.Foo"))
    }
}
