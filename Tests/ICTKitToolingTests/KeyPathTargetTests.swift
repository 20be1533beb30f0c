import DocumentFormats
import Foundation
import PropertyList
import TestSupport
import Testing

@testable import ICTKitTooling

/// `KeyPathAddress` and `KeyPathTarget` on the sample documents, with the
/// values Python's plistlib reads from the same entries (following the
/// archive's UIDs by hand), and on real links and folders inside a copy.
struct KeyPathTargetTests {
    static let coffee = Repository.root.appendingPathComponent("SampleDocs/Coffee.ict").path

    /// What plistlib finds at `$top.DATA.KEY` of an entry, as text (`repr` of a str or float).
    private func plistlibField(_ entry: String, _ key: String) throws -> String {
        try PythonScript.text(
            "import plistlib, sys; d = plistlib.load(open(sys.argv[1], 'rb')); o = d['$objects']; "
                + "v = o[d['$top']['DATA']][sys.argv[2]]; v = o[v] if isinstance(v, plistlib.UID) else v; print(v, end='')",
            arguments: [Self.coffee + "/" + entry, key])
    }

    private func target(_ path: String, _ keyPath: String) throws -> KeyPathTarget {
        let address = try KeyPathAddress(path: path, keyPath: keyPath)
        let file = try MappedFile(path: address.filePath)
        let (value, format) = try PropertyListReader().read(file.bytes)
        return KeyPathTarget(address: address, propertyList: value, format: format)
    }

    @Test func anEntrysKeyPathStartsAtTheArchivesRootObject() throws {
        let address = try KeyPathAddress(path: Self.coffee + "/", keyPath: "ctdocument.data:FIRST_NAME")
        #expect(address.entry == "ctdocument.data")
        #expect(address.filePath == Self.coffee + "/ctdocument.data")
        let found = try target(Self.coffee, "ctdocument.data:FIRST_NAME")
        #expect(found.keyPath.description == "$top.DATA.FIRST_NAME")
        #expect(try found.value() == .string(try plistlibField("ctdocument.data", "FIRST_NAME")))
        // Stored as a 32-bit real, as the app stores it (plistlib reads it as a double).
        #expect(try target(Self.coffee, "ctdocument.data:FAVORITE_NUMBER").value() == .real32(Float(try plistlibField("ctdocument.data", "FAVORITE_NUMBER"))!))
    }

    @Test func aDocumentsKeyPathMustNameAnEntry() {
        #expect { try KeyPathAddress(path: Self.coffee, keyPath: "FIRST_NAME") } throws: { error in
            (error as? ICTDocumentError)?.code == .invalidKeyPath && (error as? ICTDocumentError)?.entry == ""
        }
        #expect { try KeyPathAddress(path: Self.coffee, keyPath: "../x:FIRST_NAME") } throws: { error in
            (error as? ICTDocumentError)?.code == .invalidKeyPath && (error as? ICTDocumentError)?.keyPath == "../x:FIRST_NAME"
        }
    }

    @Test func anEntryThatIsALinkOrAFolderIsRefused() throws {
        let folder = try ScratchFolder()
        let copy = folder.path + "/Copy.ict"
        try FileManager.default.copyItem(atPath: Self.coffee, toPath: copy)
        try FileManager.default.createSymbolicLink(atPath: copy + "/linked", withDestinationPath: "/etc/hostname")
        try FileManager.default.createDirectory(atPath: copy + "/inner", withIntermediateDirectories: false)
        #expect { try KeyPathAddress(path: copy, keyPath: "linked:A") } throws: { error in
            let error = error as? ICTDocumentError
            return error?.code == .unreadableFile && error?.entry == "linked" && error?.message.contains("/etc/hostname") == true
        }
        #expect { try KeyPathAddress(path: copy, keyPath: "inner:A") } throws: { error in
            (error as? ICTDocumentError)?.message == "the entry is a folder, not a file"
        }
        #expect(KeyPathAddress.lockPath(copy + "/") == copy)
    }

    @Test func nothingThereAndAnOpenStepFileAreErrorsOfTheirOwn() throws {
        let missing = try target(Self.coffee, "ctdocument.data:NO_SUCH_KEY")
        #expect { try missing.value() } throws: { error in (error as? ICTDocumentError)?.code == .missingValue }
        let folder = try ScratchFolder()
        try Data("{ a = 1; }".utf8).write(to: URL(fileURLWithPath: folder.path + "/old.plist"))
        let openStep = try target(folder.path + "/old.plist", "a")
        #expect(openStep.format == .openStep)
        #expect(try openStep.value() == .string("1"))
        #expect { try openStep.encoded() } throws: { error in (error as? ICTDocumentError)?.code == .unwritableValue }
    }

    @Test func anEditedValueIsEncodedInTheFilesOwnForm() throws {
        var edited = try target(Self.coffee, "ctdocument.data:FIRST_NAME")
        try edited.propertyList.setValue(.string("Tea"), at: edited.resolved(), mode: .replace)
        let bytes = try edited.encoded()
        #expect(bytes.starts(with: Array("bplist00".utf8)))
        #expect(try PropertyListReader().read(Data(bytes)).value == edited.propertyList)
    }
}
