import KeyedArchive
import PropertyList
import Testing

/// `KeyedArchiveReader` and the classification of what it read (`KeyedArchiveObjectGraph.object(at:)`).
struct KeyedArchiveReaderTests {
    /// `ClassNameOnlyArchive`: the class description without `$classes` is
    /// read, its chain being the class name alone.
    @Test func readsAClassDescriptionWithoutClasses() throws {
        let archive = try KeyedArchiveReader().read(ClassNameOnlyArchive.bytes)
        #expect(archive.top == ["root": .uid(1)])
        #expect(archive.objects == ["$null", .dictionary(["$class": .uid(2)]), .dictionary(["$classname": "TestDummy"])])
        #expect(archive.object(at: 2) == .classDescription(KeyedArchiveClass(name: "TestDummy", chain: ["TestDummy"])))
        guard case .instance(let instance) = archive.object(at: 1) else {
            Issue.record("object 1 is \(archive.object(at: 1)), not an instance")
            return
        }
        #expect(instance.classDescription.name == "TestDummy")
        #expect(instance.fields.isEmpty)
        let root = try archive.decodeValue(forTopKey: "root")
        #expect(root == .object(ArchivedObject(index: 1, classDescription: KeyedArchiveClass(name: "TestDummy", chain: ["TestDummy"]), fields: [:])))
    }
}
