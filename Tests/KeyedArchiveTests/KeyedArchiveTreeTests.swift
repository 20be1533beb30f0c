import Foundation
import KeyedArchive
import PropertyList
import TestSupport
import Testing

/// The walk `ict inspect` and `ict diff` show counts what it shows: a value
/// of `$objects` reached through many references is written at each, so it
/// counts at each against the property-list limits (issue 38, item 5).
struct KeyedArchiveTreeTests {
    private func graph(_ bytes: Data) throws -> KeyedArchiveObjectGraph {
        try KeyedArchiveObjectGraph(propertyList: try BinaryPropertyListReader().read(bytes))
    }

    @Test func aSharedStringIsShownAtEachReferenceAndCountedAtEach() throws {
        // Three references to "aaaaa": 3 × 5 = 15 bytes; the nodes are the
        // NSArray, its list and the three strings (the class is `seen`): 5.
        let archive = try graph(BinaryPropertyListBytes.archiveOfOneSharedString(references: 3, length: 5))
        var tree = KeyedArchiveTree(archive: archive, limits: PropertyListLimits(maximumObjectCount: 5, maximumExpandedSize: 15))
        let nodes = try tree.topNodes()
        guard case .object(1, "NSArray", _, let fields)? = nodes.first?.1, case .list(let elements)? = fields.first?.1 else {
            Issue.record("not the NSArray of the archive: \(nodes)")
            return
        }
        #expect(elements.count == 3)
        for element in elements {
            guard case .value(.string("aaaaa")) = element else {
                Issue.record("\(element)")
                continue
            }
        }

        var tighter = KeyedArchiveTree(archive: archive, limits: PropertyListLimits(maximumExpandedSize: 14))
        let bytes = try #require(throws: KeyedArchiveError.self) { try tighter.topNodes() }
        #expect(bytes.code == .propertyList(.limitExceeded(.expandedSize)))
        #expect(bytes.keyPath.description == "$top.root")
        #expect(bytes.objectIndex == 3)
        #expect(bytes.message.contains("maximumExpandedSize"))
        var fewer = KeyedArchiveTree(archive: archive, limits: PropertyListLimits(maximumObjectCount: 4))
        let values = try #require(throws: KeyedArchiveError.self) { try fewer.topNodes() }
        #expect(values.code == .propertyList(.limitExceeded(.objectCount)))
    }

    @Test func aLargeArchiveOfOneSharedStringIsRefusedBeforeAnythingIsShown() throws {
        // 40,000 references to a 64 KB string: 2.6 GB shown, from a 106 KB file
        // that reads as a property list (the string is stored once, the
        // references are to one UID object, which holds no bytes).
        let bytes = BinaryPropertyListBytes.archiveOfOneSharedString(references: 40_000, length: 65536)
        #expect(bytes.count < 110_000)
        let archive = try graph(bytes)
        var tree = KeyedArchiveTree(archive: archive)
        let error = try #require(throws: KeyedArchiveError.self) { try tree.topNodes() }
        #expect(error.code == .propertyList(.limitExceeded(.expandedSize)))
        let compared = try #require(throws: KeyedArchiveError.self) { try KeyedArchiveTree.comparableValue(archive) }
        #expect(compared.code == .propertyList(.limitExceeded(.expandedSize)))
    }
}
