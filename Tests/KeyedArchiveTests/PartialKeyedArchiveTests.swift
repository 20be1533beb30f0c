import Foundation
import KeyedArchive
import PropertyList
import TestSupport
import Testing

/// `PartialKeyedArchive`: the same top objects, classes and fields as the
/// whole-archive reader, read object by object from the file.
struct PartialKeyedArchiveTests {
    static func path(_ relativePath: String) -> String {
        Fixtures.sharedInteropRoot.appendingPathComponent(relativePath).path
    }

    /// The binary archives of the corpus that the whole-archive reader accepts.
    static let readable: [String] = Fixtures.corpusFiles(under: "keyedarchive").filter { file in
        guard let bytes = try? Fixtures.interopBytes(file), bytes.starts(with: Array("bplist00".utf8)) else { return false }
        return (try? KeyedArchiveReader().read(bytes)) != nil
    }

    /// A field as the whole archive holds it, in the partial reader's terms.
    static func expectedField(_ value: PropertyListValue, in archive: KeyedArchiveObjectGraph) -> PartialKeyedArchive.Field? {
        switch value {
        case .uid(0): return .null
        case .uid(let uid):
            switch archive.objects[Int(uid)] {
            case .string(let text): return .reference(index: Int(uid), .string(text))
            case .integer(let integer): return .reference(index: Int(uid), .integer(integer))
            case .bool(let flag): return .reference(index: Int(uid), .bool(flag))
            default: return nil  // Containers and data: compared by kind below.
            }
        case .integer(let integer): return .inline(.integer(integer))
        case .real(let real): return .inline(.real(real))
        case .real32(let real): return .inline(.real(Double(real)))
        case .bool(let flag): return .inline(.bool(flag))
        default: return nil
        }
    }

    @Test(arguments: readable)
    func readsTheSameTopObjectsClassesAndFields(_ file: String) throws {
        let whole = try Fixtures.archive(file)
        let partial = try PartialKeyedArchive(propertyList: PartialBinaryPropertyList(path: Self.path(file)))
        #expect(partial.objectCount == whole.objects.count, "\(file)")
        for key in whole.top.keys {
            let index = try partial.topObjectIndex(forKey: key)
            #expect(index == whole.topObjectIndex(forKey: key), "\(file): $top.\(key)")
            guard let index, case .instance(let instance) = whole.object(at: index) else { continue }
            let read = try partial.instance(at: index)
            #expect(try partial.className(of: read) == instance.classDescription, "\(file): class of $top.\(key)")
            for (field, value) in instance.fields {
                let found = try partial.field(field, of: read)
                if let expected = Self.expectedField(value, in: whole) {
                    #expect(found == expected, "\(file): \(field)")
                } else if case .uid(let uid) = value, case .reference(let target, _)? = found {
                    #expect(target == Int(uid), "\(file): \(field)")
                } else if case .uid = value {
                    Issue.record("\(file): \(field) is \(String(describing: found)), not a reference")
                }
            }
            #expect(try partial.field("no such field", of: read) == nil)
        }
        #expect(try partial.topObjectIndex(forKey: "no such key") == nil)
    }

    /// MANIFEST's rejected archives: the same code and key path as the
    /// whole-archive reader, for the checks the partial reader makes — except
    /// that a class description without `$classname` is named itself.
    @Test(
        arguments: [
            ("bpylist2/invalid_type_archive.plist", KeyedArchiveError.Code.wrongArchiver, "$archiver"),
            ("bpylist2/invalid_version_archive.plist", .unsupportedVersion, "$version"),
            ("bpylist2/no_objects_archive.plist", .missingObjects, ""),
            ("bpylist2/no_top_archive.plist", .missingTop, ""),
            ("bpylist2/invalid_uid_archive.plist", .danglingReference, "$top.root"),
            ("bpylist2/no_class_meta_archive.plist", .invalidClass, "$objects[1].$class"),
            ("bpylist2/no_class_name_archive.plist", .invalidClass, "$objects[3].$classname"),
        ])
    func rejectsLikeTheWholeReader(_ file: String, _ code: KeyedArchiveError.Code, _ keyPath: String) throws {
        let error = #expect(throws: KeyedArchiveError.self) {
            let archive = try PartialKeyedArchive(propertyList: PartialBinaryPropertyList(path: Self.path("keyedarchive/" + file)))
            guard let root = try archive.topObjectIndex(forKey: "root") else { return }
            _ = try archive.className(of: archive.instance(at: root))
        }
        #expect(error?.code == code, "\(file): \(String(describing: error))")
        #expect(error?.keyPath.description == keyPath, "\(file): \(String(describing: error))")
    }

    @Test func refusesAPropertyListThatIsNoArchive() throws {
        let file = ScratchFolder.filePath("partial", extension: "plist")
        try Data(BinaryPropertyListWriter().encode(["just": "a dictionary"])).write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        #expect { try PartialKeyedArchive(propertyList: PartialBinaryPropertyList(path: file)) } throws: { error in
            (error as? KeyedArchiveError)?.code == .wrongArchiver
        }
        try Data(BinaryPropertyListWriter().encode([1, 2])).write(to: URL(fileURLWithPath: file))
        #expect { try PartialKeyedArchive(propertyList: PartialBinaryPropertyList(path: file)) } throws: { error in
            (error as? KeyedArchiveError)?.code == .notAnArchive
        }
    }

    /// A class description with `$classname` alone (`ClassNameOnlyArchive`):
    /// the chain is the name, as the whole-archive reader has it.
    @Test func readsAClassDescriptionWithoutClasses() throws {
        let file = ScratchFolder.filePath("partial", extension: "plist")
        try Data(ClassNameOnlyArchive.bytes).write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        let archive = try PartialKeyedArchive(propertyList: PartialBinaryPropertyList(path: file))
        let root = try #require(try archive.topObjectIndex(forKey: "root"))
        #expect(root == 1)
        #expect(try archive.className(of: archive.instance(at: root)) == KeyedArchiveClass(name: "TestDummy", chain: ["TestDummy"]))
    }
}
