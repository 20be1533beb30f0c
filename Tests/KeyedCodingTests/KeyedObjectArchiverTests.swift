import Foundation
import KeyedArchive
import KeyedCoding
import Testing

/// A person as Foundation's `NSSecureCoding` class: the oracle's side.
final class FoundationFriend: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    var name: String?
    var age = 0
    var score = 0.0
    var likesTea = false
    var favorite: Float = 0
    var tags: [String] = []
    var born: Date?
    var id: UUID?
    var photo: Data?
    var best: FoundationFriend?
    var mentor: FoundationFriend?

    init(name: String) {
        self.name = name
        super.init()
    }

    required init?(coder: NSCoder) {
        name = coder.decodeObject(of: NSString.self, forKey: "name") as String?
        age = coder.decodeInteger(forKey: "age")
        score = coder.decodeDouble(forKey: "score")
        likesTea = coder.decodeBool(forKey: "likesTea")
        favorite = coder.decodeObject(of: NSNumber.self, forKey: "favorite")?.floatValue ?? 0
        tags = coder.decodeObject(of: [NSArray.self, NSString.self], forKey: "tags") as? [String] ?? []
        born = coder.decodeObject(of: NSDate.self, forKey: "born") as Date?
        id = coder.decodeObject(of: NSUUID.self, forKey: "id") as UUID?
        photo = coder.decodeObject(of: NSData.self, forKey: "photo") as Data?
        best = coder.decodeObject(of: FoundationFriend.self, forKey: "best")
        mentor = coder.decodeObject(of: FoundationFriend.self, forKey: "mentor")
        super.init()
    }

    func encode(with coder: NSCoder) {
        coder.encode(name, forKey: "name")
        coder.encode(age, forKey: "age")
        coder.encode(score, forKey: "score")
        coder.encode(likesTea, forKey: "likesTea")
        coder.encode(NSNumber(value: favorite), forKey: "favorite")
        coder.encode(tags, forKey: "tags")
        coder.encode(born, forKey: "born")
        coder.encode(id, forKey: "id")
        coder.encode(photo, forKey: "photo")
        coder.encode(best, forKey: "best")
        coder.encode(mentor, forKey: "mentor")
    }
}

/// The same person as an `ArchiveSecureCoding` class: the side under test.
final class Friend: ArchivableObject, ArchiveSecureCoding {
    static var supportsSecureCoding: Bool { true }
    var name: String?
    var age = 0
    var score = 0.0
    var likesTea = false
    var favorite: Float = 0
    var tags: [String] = []
    var born: Date?
    var id: UUID?
    var photo: Data?
    var best: Friend?
    var mentor: Friend?

    init(name: String) {
        self.name = name
        super.init()
    }

    required init?(coder: ArchiveCoder) {
        name = coder.decodeObject(of: String.self, forKey: "name")
        age = coder.decodeInteger(forKey: "age")
        score = coder.decodeDouble(forKey: "score")
        likesTea = coder.decodeBool(forKey: "likesTea")
        favorite = coder.decodeObject(of: ArchivedNumber.self, forKey: "favorite")?.floatValue ?? 0
        tags = coder.decodeObject(of: [[Any].self, String.self], forKey: "tags") as? [String] ?? []
        born = coder.decodeObject(of: Date.self, forKey: "born")
        id = coder.decodeObject(of: UUID.self, forKey: "id")
        photo = coder.decodeObject(of: Data.self, forKey: "photo")
        best = coder.decodeObject(of: Friend.self, forKey: "best")
        mentor = coder.decodeObject(of: Friend.self, forKey: "mentor")
        super.init()
    }

    func encode(with coder: ArchiveCoder) {
        coder.encode(name, forKey: "name")
        coder.encode(age, forKey: "age")
        coder.encode(score, forKey: "score")
        coder.encode(likesTea, forKey: "likesTea")
        coder.encode(ArchivedNumber(value: favorite), forKey: "favorite")
        coder.encode(tags, forKey: "tags")
        coder.encode(born, forKey: "born")
        coder.encode(id, forKey: "id")
        coder.encode(photo, forKey: "photo")
        coder.encode(best, forKey: "best")
        coder.encode(mentor, forKey: "mentor")
    }
}

/// The values both sides archive: chosen by hand, and the same on both sides.
enum FriendValues {
    static let name = "Ada"
    static let age = 36
    static let score = 7.25
    static let favorite: Float = 3.5
    static let tags = ["math", "poetry"]
    static let born = Date(timeIntervalSinceReferenceDate: -5_000_000_000)
    static let id = UUID(uuidString: "0AD863BA-7584-40CF-8896-BD87B3280C34")!
    static let photo = Data([0x89, 0x50, 0x4E, 0x47, 0, 1, 2, 255])
    static let bestName = "Charles"

    static func ours() -> Friend {
        let friend = Friend(name: name)
        (friend.age, friend.score, friend.likesTea, friend.favorite) = (age, score, true, favorite)
        (friend.tags, friend.born, friend.id, friend.photo) = (tags, born, id, photo)
        let best = Friend(name: bestName)
        (friend.best, friend.mentor) = (best, best)
        return friend
    }

    static func foundations() -> FoundationFriend {
        let friend = FoundationFriend(name: name)
        (friend.age, friend.score, friend.likesTea, friend.favorite) = (age, score, true, favorite)
        (friend.tags, friend.born, friend.id, friend.photo) = (tags, born, id, photo)
        let best = FoundationFriend(name: bestName)
        (friend.best, friend.mentor) = (best, best)
        return friend
    }
}

/// Encoding with `KeyedObjectArchiver`, checked by Foundation's
/// `NSKeyedUnarchiver` (swift-corelibs-foundation, the oracle for
/// well-formed input), by python3's plistlib and by archives Apple's
/// Foundation made on macOS.
@Suite struct KeyedObjectArchiverTests {
    @Test func foundationReadsWhatWeWrite() throws {
        let archiver = KeyedObjectArchiver(requiringSecureCoding: true)
        archiver.setClassName("Friend", for: Friend.self)
        archiver.encode(FriendValues.ours(), forKey: NSKeyedArchiveRootObjectKey)
        archiver.encode(42, forKey: "answer")
        let data = archiver.encodedData
        #expect(archiver.error == nil)

        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
        unarchiver.setClass(FoundationFriend.self, forClassName: "Friend")
        let friend = try #require(unarchiver.decodeObject(of: FoundationFriend.self, forKey: NSKeyedArchiveRootObjectKey))
        #expect(unarchiver.error == nil)
        #expect(friend.name == FriendValues.name && friend.age == FriendValues.age && friend.score == FriendValues.score)
        #expect(friend.likesTea && friend.favorite == FriendValues.favorite)
        #expect(friend.tags == FriendValues.tags && friend.born == FriendValues.born)
        #expect(friend.id == FriendValues.id && friend.photo == FriendValues.photo)
        #expect(friend.best?.name == FriendValues.bestName && friend.best === friend.mentor, "one shared object, stored once")
        #expect(unarchiver.decodeInteger(forKey: "answer") == 42)
    }

    @Test func weReadWhatFoundationWrites() throws {
        let archiver = NSKeyedArchiver(requiringSecureCoding: true)
        archiver.encode(FriendValues.foundations(), forKey: NSKeyedArchiveRootObjectKey)
        archiver.finishEncoding()
        let data = archiver.encodedData
        let archivedName = try #require(try Fixtures.plistlibRoot(ofArchive: data).classes.first)

        let unarchiver = try KeyedObjectUnarchiver(forReadingFrom: data)
        unarchiver.setClass(Friend.self, forClassName: archivedName)
        let friend = try #require(unarchiver.decodeObject(of: Friend.self, forKey: "root"))
        #expect(unarchiver.error == nil)
        #expect(friend.name == FriendValues.name && friend.age == FriendValues.age && friend.score == FriendValues.score)
        #expect(friend.likesTea && friend.favorite == FriendValues.favorite)
        #expect(friend.tags == FriendValues.tags && friend.born == FriendValues.born)
        #expect(friend.id == FriendValues.id && friend.photo == FriendValues.photo)
        #expect(friend.best?.name == FriendValues.bestName && friend.best === friend.mentor)
    }

    @Test func fieldsHaveTheClassesFoundationWrites() throws {
        let ours = KeyedObjectArchiver(requiringSecureCoding: true)
        ours.setClassName("Friend", for: Friend.self)
        ours.encode(FriendValues.ours(), forKey: "root")
        let foundation = NSKeyedArchiver(requiringSecureCoding: true)
        foundation.encode(FriendValues.foundations(), forKey: NSKeyedArchiveRootObjectKey)
        foundation.finishEncoding()

        let ourRoot = try Fixtures.plistlibRoot(ofArchive: ours.encodedData)
        let theirRoot = try Fixtures.plistlibRoot(ofArchive: foundation.encodedData)
        #expect(ourRoot.classes == ["Friend", "NSObject"])
        #expect(Set(ourRoot.fields.keys) == Set(theirRoot.fields.keys))
        for key in ["name", "age", "score", "likesTea", "favorite", "born", "id", "photo"] {
            #expect("\(ourRoot.fields[key] ?? "absent")" == "\(theirRoot.fields[key] ?? "absent")", "field \(key)")
        }
    }

    @Test func collectionsAndUUIDHaveTheClassesAppleWritesOnMacOS() throws {
        // NSKeyedUnarchiver-ArrayTest.plist, made on macOS: NSArray → NSObject.
        let apple = try Fixtures.plistlibRoot(
            of: Fixtures.interopRoot.appendingPathComponent(
                "keyedarchive/swift-corelibs-foundation/NSKeyedUnarchiver-ArrayTest.plist"))
        let ours = try Fixtures.plistlibRoot(
            ofArchive: try KeyedObjectArchiver.archivedData(
                withRootObject: ["baa", "baa", "black", "sheep"], requiringSecureCoding: true))
        #expect(ours.classes == apple.classes)
        #expect(ours.fields["NS.objects"] as? [String] == apple.fields["NS.objects"] as? [String])
    }

    @Test(.enabled(if: Fixtures.hasInterop("keyedarchive/swift-corelibs-foundation/NSKeyedUnarchiver-ComplexTest.plist")))
    func dictionaryHasTheClassesAppleWritesOnMacOS() throws {
        // NSKeyedUnarchiver-ComplexTest.plist, binary, made on macOS: the root is an NSDictionary (MANIFEST).
        let apple = try Fixtures.plistlibRoot(
            of: Fixtures.interopRoot.appendingPathComponent(
                "keyedarchive/swift-corelibs-foundation/NSKeyedUnarchiver-ComplexTest.plist"))
        let ours = try Fixtures.plistlibRoot(
            ofArchive: try KeyedObjectArchiver.archivedData(
                withRootObject: ["string": "hello"], requiringSecureCoding: true))
        #expect(ours.classes == apple.classes)
        #expect(ours.fields["NS.keys"] as? [String] == ["string"] && ours.fields["NS.objects"] as? [String] == ["hello"])
    }

    @Test func urlAndNullAsFoundationReadsThem() throws {
        let url = URL(string: "index.xml", relativeTo: URL(string: "https://www.swift.org"))!
        let data = try KeyedObjectArchiver.archivedData(withRootObject: [url, ArchivedNull(), "end"], requiringSecureCoding: true)
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
        let array = try #require(unarchiver.decodeObject(of: [NSArray.self, NSURL.self, NSNull.self, NSString.self], forKey: "root") as? [Any])
        #expect(unarchiver.error == nil)
        // swift-corelibs-foundation resolves a relative URL when it decodes it (and
        // archives only the absolute string), so only the absolute URL is compared here.
        #expect((array.first as? URL)?.absoluteString == "https://www.swift.org/index.xml")
        #expect(array.dropFirst().first is NSNull)
        #expect(array.last as? String == "end")
    }

    @Test func relativeURLAsAppleWritesItOnMacOS() throws {
        // NSKeyedUnarchiver-ComplexTest.plist, made on macOS, holds this URL as an
        // NSURL whose NS.relative is "index.xml" and whose NS.base is an NSURL
        // (NS.relative "https://www.swift.org", NS.base $null): its objects 16–20 as plistlib reads them.
        let url = URL(string: "index.xml", relativeTo: URL(string: "https://www.swift.org"))!
        let root = try Fixtures.plistlibRoot(ofArchive: try KeyedObjectArchiver.archivedData(withRootObject: url, requiringSecureCoding: true))
        #expect(root.classes == ["NSURL", "NSObject"])
        #expect(root.fields["NS.relative"] as? String == "index.xml")
        #expect((root.fields["NS.base"] as? [String: Any])?["classes"] as? [String] == ["NSURL", "NSObject"])
    }

    @Test func scalarsAsFoundationWritesAndReadsThem() throws {
        let ours = KeyedObjectArchiver()
        ours.encode(Int32(-7), forKey: "int32")
        ours.encode(Int64.min, forKey: "int64")
        ours.encode(Float(0.1), forKey: "float")
        ours.encode(2.5e300, forKey: "double")
        ours.encode(true, forKey: "bool")
        let foundation = try NSKeyedUnarchiver(forReadingFrom: ours.encodedData)
        #expect(foundation.decodeInt32(forKey: "int32") == -7 && foundation.decodeInt64(forKey: "int64") == Int64.min)
        #expect(foundation.decodeFloat(forKey: "float") == Float(0.1) && foundation.decodeDouble(forKey: "double") == 2.5e300)
        #expect(foundation.decodeBool(forKey: "bool"))

        let theirs = NSKeyedArchiver(requiringSecureCoding: false)
        theirs.encode(Int32(-7), forKey: "int32")
        theirs.encode(Int64.min, forKey: "int64")
        theirs.encode(Float(0.1), forKey: "float")
        theirs.encode(2.5e300, forKey: "double")
        theirs.encode(true, forKey: "bool")
        theirs.finishEncoding()
        let unarchiver = try KeyedObjectUnarchiver(forReadingFrom: theirs.encodedData)
        #expect(unarchiver.decodeInt32(forKey: "int32") == -7 && unarchiver.decodeInt64(forKey: "int64") == Int64.min)
        #expect(unarchiver.decodeFloat(forKey: "float") == Float(0.1) && unarchiver.decodeDouble(forKey: "double") == 2.5e300)
        #expect(unarchiver.decodeBool(forKey: "bool") && !unarchiver.decodeBool(forKey: "absent"))
        #expect(unarchiver.decodeInt32(forKey: "int64") == 0, "Int64.min does not fit 32 bits")
        #expect((unarchiver.error as? KeyedArchiveError)?.code == .invalidObject)
    }

    @Test(.enabled(if: Fixtures.hasInterop("keyedarchive/swift-corelibs-foundation/NSKeyedUnarchiver-UUIDTest.plist")))
    func uuidAsAppleWritesItOnMacOS() throws {
        let apple = try Fixtures.plistlibRoot(
            of: Fixtures.interopRoot.appendingPathComponent(
                "keyedarchive/swift-corelibs-foundation/NSKeyedUnarchiver-UUIDTest.plist"))
        let ours = try Fixtures.plistlibRoot(
            ofArchive: try KeyedObjectArchiver.archivedData(
                withRootObject: UUID(uuidString: "0AD863BA-7584-40CF-8896-BD87B3280C34")!, requiringSecureCoding: true))
        #expect(ours.classes == apple.classes)
        #expect("\(ours.fields)" == "\(apple.fields)")
    }

    @Test func classNamesComeFromTheArchiverThenTheProcessThenTheModule() throws {
        // A class no other test archives: tests run in parallel and the mapping is process-wide.
        final class Named: ArchivableObject, ArchiveSecureCoding {
            static var supportsSecureCoding: Bool { true }
            override init() { super.init() }
            required init?(coder: ArchiveCoder) { super.init() }
            func encode(with coder: ArchiveCoder) {}
        }
        let moduleName = try Fixtures.plistlibRoot(ofArchive: try KeyedObjectArchiver.archivedData(withRootObject: Named(), requiringSecureCoding: true))
        #expect(moduleName.classes.first?.hasPrefix("KeyedCodingTests.") == true, "as Foundation names a Swift class without @objc")
        #expect(moduleName.classes.last == "NSObject" && moduleName.classes.count == 2)

        KeyedObjectArchiver.setClassName("EveryonesName", for: Named.self)
        defer { KeyedObjectArchiver.setClassName(nil, for: Named.self) }
        #expect(KeyedObjectArchiver.className(for: Named.self) == "EveryonesName")
        #expect(
            try Fixtures.plistlibRoot(ofArchive: try KeyedObjectArchiver.archivedData(withRootObject: Named(), requiringSecureCoding: true))
                .classes == ["EveryonesName", "NSObject"])

        let archiver = KeyedObjectArchiver(requiringSecureCoding: true)
        archiver.setClassName("MyName", for: Named.self)
        archiver.encode(Named(), forKey: "root")
        #expect(try Fixtures.plistlibRoot(ofArchive: archiver.encodedData).classes == ["MyName", "NSObject"])
    }

    @Test func conditionalReferenceIsKeptOnlyToAnObjectEncodedElsewhere() throws {
        // Each partner is encoded conditionally; b is also in the list, d is not.
        final class Partnered: ArchivableObject, ArchiveSecureCoding {
            static var supportsSecureCoding: Bool { true }
            let name: String
            var partner: Partnered?
            init(_ name: String, partner: Partnered? = nil) {
                self.name = name
                self.partner = partner
                super.init()
            }
            required init?(coder: ArchiveCoder) { nil }
            func encode(with coder: ArchiveCoder) {
                coder.encode(name, forKey: "name")
                coder.encodeConditionalObject(partner, forKey: "partner")
            }
        }
        final class FoundationPartnered: NSObject, NSSecureCoding {
            static var supportsSecureCoding: Bool { true }
            var name: String?
            var partner: FoundationPartnered?
            required init?(coder: NSCoder) {
                name = coder.decodeObject(of: NSString.self, forKey: "name") as String?
                partner = coder.decodeObject(of: FoundationPartnered.self, forKey: "partner")
                super.init()
            }
            func encode(with coder: NSCoder) {}
        }
        let b = Partnered("b")
        let list = [Partnered("a", partner: b), b, Partnered("c", partner: Partnered("d"))]
        let archiver = KeyedObjectArchiver(requiringSecureCoding: true)
        archiver.setClassName("Partnered", for: Partnered.self)
        archiver.encode(list, forKey: "root")
        archiver.encodeConditionalObject(b, forKey: "b")
        archiver.encodeConditionalObject(list[2].partner, forKey: "d")

        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: archiver.encodedData)
        unarchiver.setClass(FoundationPartnered.self, forClassName: "Partnered")
        let decoded = try #require(unarchiver.decodeObject(of: [NSArray.self, FoundationPartnered.self], forKey: "root") as? [FoundationPartnered])
        #expect(unarchiver.error == nil)
        #expect(decoded.map(\.name) == ["a", "b", "c"])
        #expect(decoded[0].partner === decoded[1], "b is encoded elsewhere: the reference is kept")
        #expect(decoded[2].partner == nil, "d is encoded nowhere else: $null")
        #expect(unarchiver.decodeObject(of: FoundationPartnered.self, forKey: "b") === decoded[1])
        #expect(unarchiver.decodeObject(of: FoundationPartnered.self, forKey: "d") == nil)
    }

    @Test func insecureClassIsRefusedWhenSecureCodingIsRequired() throws {
        let error = try #require(throws: KeyedArchiveError.self) {
            try KeyedObjectArchiver.archivedData(withRootObject: Insecure(), requiringSecureCoding: true)
        }
        #expect(error.code == .unsupportedValue && error.message.contains("does not support secure coding"))
        #expect(try KeyedObjectArchiver.archivedData(withRootObject: Insecure(), requiringSecureCoding: false).count > 0)
    }

    @Test func valueOfNoArchivableTypeIsAnError() throws {
        struct NotArchivable {}
        let error = try #require(throws: KeyedArchiveError.self) {
            try KeyedObjectArchiver.archivedData(withRootObject: NotArchivable(), requiringSecureCoding: false)
        }
        #expect(error.code == .unsupportedValue && error.message.contains("NotArchivable"))
    }
}
