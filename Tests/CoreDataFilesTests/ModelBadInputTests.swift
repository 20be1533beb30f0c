import CoreDataFiles
import Foundation
import SystemPackage
import Testing

/// Models that cannot be read: each refused with a clear message and its place, never a crash or a loop.
@Suite struct ModelBadInputTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var fixture: String
        /// The file the error names, relative to the fixtures.
        var file: String
        var place: CoreDataError.Place
        var message: String
        var testDescription: String { fixture }
    }

    static let cases: [Case] = [
        Case(
            fixture: "bad/cycle.xcdatamodel", file: "bad/cycle.xcdatamodel/contents", place: .line(6),
            message: "entity A inherits from itself: A → C → B → A"),
        Case(
            fixture: "bad/unknown-type.xcdatamodel", file: "bad/unknown-type.xcdatamodel/contents", place: .line(5),
            message: "attribute Note.size has an unknown type \"Integer 128\""),
        Case(
            fixture: "bad/not-a-model.xcdatamodel", file: "bad/not-a-model.xcdatamodel/contents", place: .line(2),
            message: "the root element is <plist>, not <model>: not an .xcdatamodel's contents"),
        Case(
            fixture: "bad/unknown-type.mom", file: "bad/unknown-type.mom", place: .keyPath("$objects[26].NSAttributeType"),
            message: "attribute id has an unknown type code 150"),
        Case(
            fixture: "bad/cycle.mom", file: "bad/cycle.mom", place: .entity("CDCart", property: nil),
            message: "entity CDCart inherits from itself: CDCart → CDCartItem → CDCart"),
        Case(
            fixture: "bad/not-a-model.mom", file: "bad/not-a-model.mom", place: .keyPath("$top.root"),
            message: "object 1 is NSMutableString, not NSManagedObjectModel"),
    ]

    @Test(arguments: cases)
    func isRefusedWithItsPlace(_ testCase: Case) {
        #expect(throws: CoreDataError(path: FilePath(ModelFixtures.path(testCase.file)), place: testCase.place, message: testCase.message)) {
            try ManagedObjectModelReader().read(atPath: ModelFixtures.path(testCase.fixture))
        }
    }

    /// Truncated XML: libxml2's complaint, at the line where the text stops (13 of the first 1,200 bytes).
    @Test func truncatedXMLSaysWhereItStops() throws {
        let error = try #require(throws: CoreDataError.self) {
            try ManagedObjectModelReader().read(atPath: ModelFixtures.path("bad/truncated.xcdatamodel"))
        }
        #expect(error.place == .line(13))
        #expect(error.message.hasPrefix("the XML is not well-formed: "))
    }

    /// A truncated compiled model: the property list's own error, at its byte offset.
    @Test func truncatedArchiveSaysWhichByte() throws {
        let error = try #require(throws: CoreDataError.self) {
            try ManagedObjectModelReader().read(atPath: ModelFixtures.path("bad/truncated.mom"))
        }
        guard case .byte(let offset) = error.place else {
            Issue.record("expected a byte offset, got \(error.place)")
            return
        }
        #expect((0..<3000).contains(offset))
        #expect(error.message.hasPrefix("not a compiled model: "))
    }

    /// Found by the coredata-model-xml fuzz target (a misspelt <entity>): a fetch index element or a uniqueness
    /// constraint outside an entity was added to the last entity, or crashed when there was none. Now skipped.
    @Test func indexesAndConstraintsOutsideAnEntityAreSkipped() throws {
        let xml = """
            <?xml version="1.0"?>
            <model><evtity name="A"><fetchIndex name="i"><fetchIndexElement property="a"/></fetchIndex></evtity>
            <configuration name="c"><uniquenessConstraints><uniquenessConstraint><constraint value="x"/>\
            </uniquenessConstraint></uniquenessConstraints></configuration><entity name="B"/></model>
            """
        let model = try ManagedObjectModelReader().read(modelContents: Array(xml.utf8), path: nil)
        #expect(model.entities == [EntityDescription(name: "B")])
        #expect(model.configurations == ["c": []])
    }

    @Test func aFolderThatIsNoModelIsRefused() {
        let folder = ModelFixtures.path("bad")
        #expect(throws: CoreDataError.self) { try ManagedObjectModelReader().read(atPath: folder) }
        #expect(throws: CoreDataError.self) { try ManagedObjectModelReader().read(atPath: folder + "/missing.momd") }
    }

    /// Every prefix of a real model (in steps), and every one of its bytes flipped in turn at a few positions,
    /// either reads or throws a CoreDataError: never a crash, never a hang.
    @Test(arguments: ["CartStorage.momd/CartStorage.mom", "CartStorage.xcdatamodeld/CartStorage.xcdatamodel/contents"])
    func cutAndGarbledInputIsAnErrorNotACrash(_ file: String) throws {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: ModelFixtures.path(file))))
        let reader = ManagedObjectModelReader()
        let compiled = file.hasSuffix(".mom")
        func attempt(_ input: [UInt8]) {
            do {
                _ = compiled ? try reader.read(compiledModel: input, path: "x") : try reader.read(modelContents: input, path: "x")
            } catch {
                #expect(error.path == "x")
                #expect(!error.message.isEmpty)
            }
        }
        for length in stride(from: 0, to: bytes.count, by: 37) { attempt(Array(bytes[..<length])) }
        for position in stride(from: 0, to: bytes.count, by: 53) {
            var garbled = bytes
            garbled[position] ^= 0x5A
            attempt(garbled)
        }
    }
}
