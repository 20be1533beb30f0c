import Foundation
import KeyedArchive
import TestSupport
import Testing

/// `KeyedUnarchiver.topLevelDecoder()` and the closure-based
/// `decodeObject(forKey:using:)`, on bpylist2's simple archive, whose
/// MANIFEST row states: crap.Foo title "yo", count 42.
@Suite
struct KeyedUnarchiverTests {
    static func simpleArchive() throws -> KeyedUnarchiver {
        try KeyedUnarchiver(bytes: Array(try Fixtures.interopBytes("keyedarchive/bpylist2/simple_archive.plist")))
    }

    @Test func topLevelDecoderReadsTopKeysAsFields() throws {
        let top = try Self.simpleArchive().topLevelDecoder()
        #expect(top.containsValue(forKey: "root") && !top.containsValue(forKey: "DATA"))
        let title = try top.decodeObject(forKey: "root") { (root: inout KeyedArchiveDecoder) throws(KeyedArchiveError) -> String? in
            #expect(root.className == "crap.Foo" && root.objectIndex == 1)
            #expect("\(root.keyPath)" == "$top.root")
            #expect(try root.decodeInt(forKey: "count") == 42)
            return try root.decodeObject(of: String.self, forKey: "title")
        }
        #expect(title == "yo")
    }

    @Test func errorsThrownByTheClosureCarryTheObjectsKeyPath() throws {
        let top = try Self.simpleArchive().topLevelDecoder()
        let error = try #require(throws: KeyedArchiveError.self) {
            _ = try top.decodeObject(forKey: "root") { (root: inout KeyedArchiveDecoder) throws(KeyedArchiveError) -> Int in
                throw root.error(.disallowedClass, forKey: "title", "refused")
            }
        }
        #expect(error.code == .disallowedClass && "\(error.keyPath)" == "$top.root.title" && error.objectIndex == 1)
    }

    @Test func topLevelValueOfTheWrongKindNamesNoObject() throws {
        let top = try Self.simpleArchive().topLevelDecoder()
        let error = try #require(throws: KeyedArchiveError.self) { _ = try top.decodeInt(forKey: "root") }
        #expect(error.code == .invalidObject && "\(error.keyPath)" == "$top.root" && error.objectIndex == nil)
    }
}
