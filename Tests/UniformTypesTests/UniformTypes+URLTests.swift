import Foundation
import PropertyList
import SystemPackage
import TestSupport
import Testing
import UniformTypes

/// The `URL`, `FilePath` and `Data` forms of reading declarations and
/// identifying items: the same results as the `String` and buffer forms, on
/// copies named `Ünïcode copy…` in a folder whose name holds a space and a
/// literal `%20`, checked against Python's plistlib and ElementTree.
struct UniformTypesURLTests {
    static let cotEditorInfoPlist = Fixtures.utiApps.appendingPathComponent("CotEditor/Info.plist")
    static let mimeXML = Repository.root.appendingPathComponent("Schemas/ict.mime.xml")
    static let sampleDocument = Repository.root.appendingPathComponent("SampleDocs/Chelsea.ict")

    /// A scratch folder `url overloads %20 <UUID>`, removed with the value.
    final class Scratch {
        let folder: String

        init() throws {
            folder = FileManager.default.temporaryDirectory.path + "/url overloads %20 \(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }

        /// Copies `source` into the folder as `name`; returns its path.
        func copy(_ source: URL, as name: String) throws -> String {
            try FileManager.default.copyItem(atPath: source.path, toPath: folder + "/" + name)
            return folder + "/" + name
        }

        deinit { try? FileManager.default.removeItem(atPath: folder) }
    }

    /// What `python3 -c script argument` prints, lines split.
    static func python(_ script: String, _ argument: String) throws -> [String] {
        try PythonScript.text(script, arguments: [argument]).split(separator: "\n").map(String.init)
    }

    @Test(.interopCorpus)
    func infoPlistByURLAndFilePathMatchesPathAndPlistlib() throws {
        let scratch = try Scratch()
        let path = try scratch.copy(Self.cotEditorInfoPlist, as: "Ünïcode copy.plist")
        let expected = try Self.python(
            "import plistlib, sys; [print(t['UTTypeIdentifier']) for t in plistlib.load(open(sys.argv[1], 'rb'))['UTExportedTypeDeclarations']]",
            path)
        let byPath = try TypeDeclarationSet.read(contentsOf: path)
        #expect(byPath.exported.map(\.identifier) == expected)
        for set in [
            try TypeDeclarationSet.read(contentsOf: URL(fileURLWithPath: path)),
            try TypeDeclarationSet.read(contentsOf: FilePath(path)),
        ] {
            #expect(set == byPath)
            #expect(set.file == FilePath(path))
        }
    }

    @Test func sharedMimeInfoByURLFilePathAndDataMatchesPathAndElementTree() throws {
        let scratch = try Scratch()
        let path = try scratch.copy(Self.mimeXML, as: "Ünïcode copy.xml")
        let expected = try Self.python(
            "import sys, xml.etree.ElementTree as E; [print(m.get('type')) for m in E.parse(sys.argv[1]).getroot()]", path)
        let byPath = try SharedMimeInfoReader.read(contentsOf: path)
        #expect(byPath.map(\.mimeType) == expected)
        #expect(try SharedMimeInfoReader.read(contentsOf: URL(fileURLWithPath: path)) == byPath)
        #expect(try SharedMimeInfoReader.read(contentsOf: FilePath(path)) == byPath)
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let byData = try SharedMimeInfoReader.read(data, file: FilePath(path))
        #expect(byData == byPath)
        #expect(byData == (try data.withUnsafeBytes { buffer throws(UniformTypeError) in try SharedMimeInfoReader.read(buffer, file: FilePath(path)) }))
    }

    @Test func sharedMimeInfoDataRejectsBadXMLAsBytesDo() throws {
        let data = Data("<mime-info><mime-type type=\"a/b\">".utf8)
        let byData = try #require(throws: UniformTypeError.self) { _ = try SharedMimeInfoReader.read(data, file: "bad.xml") }
        #expect(byData.code == .malformedSharedMimeInfo)
        #expect(byData.path == "bad.xml")
    }

    @Test func addSharedMimeInfoByURLAndFilePathListsTheFolder() throws {
        let scratch = try Scratch()
        let path = try scratch.copy(Self.mimeXML, as: "Ünïcode copy.xml")
        _ = try scratch.copy(Self.sampleDocument.appendingPathComponent("ctdocument.data"), as: "not mime info.data")
        var byURL = TypeRegistry()
        #expect(try byURL.addSharedMimeInfo(directory: URL(fileURLWithPath: scratch.folder)) == [URL(fileURLWithPath: path)])
        var byFilePath = TypeRegistry()
        #expect(try byFilePath.addSharedMimeInfo(directory: FilePath(scratch.folder)) == [FilePath(path)])
        var byPath = TypeRegistry()
        #expect(try byPath.addSharedMimeInfo(directory: scratch.folder) == [path])
        let byURLType = byURL.preferredType(forTag: "application/x-icloudtest-doc", tagClass: .mimeType)
        #expect(byURLType != nil)
        #expect(byURLType == byPath.preferredType(forTag: "application/x-icloudtest-doc", tagClass: .mimeType))
    }

    @Test func identifyItemByURLAndFilePathMatchesPath() throws {
        let scratch = try Scratch()
        let registry = TypeRegistry.builtIn
        // A binary plist (its bytes start `bplist00`) named .plist, and a package directory.
        let plist = try scratch.copy(Self.sampleDocument.appendingPathComponent("ctdocument.data"), as: "Ünïcode copy.plist")
        let head = try FileHandle(forReadingFrom: URL(fileURLWithPath: plist)).read(upToCount: 8)
        #expect(head == Data("bplist00".utf8))
        let document = try scratch.copy(Self.sampleDocument, as: "Ünïcode copy.ict")
        for path in [plist, document] {
            let byPath = try registry.identifyItem(atPath: path)
            #expect(try registry.identifyItem(at: URL(fileURLWithPath: path)) == byPath)
            #expect(try registry.identifyItem(at: FilePath(path)) == byPath)
        }
        #expect(try registry.identifyItem(at: URL(fileURLWithPath: plist)).identifier == "com.apple.binary-property-list")
    }

    /// A `FilePath` whose name is not UTF-8 (`bad` 0xFF `.plist`) names that very file: its binary plist bytes
    /// are sniffed as `bplist00` ones (the `.string` decoding put U+FFFD in the name and found no file).
    @Test func identifyItemByFilePathOpensANameThatIsNotUTF8() throws {
        let scratch = try Scratch()
        let contents = try Data(contentsOf: Self.sampleDocument.appendingPathComponent("ctdocument.data"))
        let pathBytes = Array(scratch.folder.utf8) + Array("/bad".utf8) + [0xFF] + Array(".plist".utf8)
        let platformPath = pathBytes.map { CChar(bitPattern: $0) } + [0]
        let descriptor = platformPath.withUnsafeBufferPointer { open($0.baseAddress!, O_WRONLY | O_CREAT | O_EXCL, 0o644) }
        try #require(descriptor >= 0)
        _ = contents.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        let type = try TypeRegistry.builtIn.identifyItem(at: FilePath(platformString: platformPath))
        #expect(type.identifier == "com.apple.binary-property-list")
    }

    @Test func missingFileErrorNamesThePath() throws {
        let scratch = try Scratch()
        let missing = scratch.folder + "/Nöt here.plist"
        for attempt in [
            { _ = try TypeDeclarationSet.read(contentsOf: URL(fileURLWithPath: missing)) },
            { _ = try TypeDeclarationSet.read(contentsOf: FilePath(missing)) },
            { _ = try SharedMimeInfoReader.read(contentsOf: URL(fileURLWithPath: missing)) },
            { _ = try TypeRegistry.builtIn.identifyItem(at: FilePath(missing)) },
        ] as [() throws -> Void] {
            let error = try #require(throws: UniformTypeError.self, performing: attempt)
            #expect(error.code == .io)
            #expect(error.path == FilePath(missing))
            #expect(error.message.contains(missing), "\(error.message)")
        }
    }

    @Test func nonFileURLIsRefusedNamingIt() throws {
        let url = try #require(URL(string: "https://example.com/Info.plist"))
        var registry = TypeRegistry()
        for attempt in [
            { _ = try TypeDeclarationSet.read(contentsOf: url) },
            { _ = try SharedMimeInfoReader.read(contentsOf: url) },
            { _ = try TypeRegistry.builtIn.identifyItem(at: url) },
            { _ = try registry.addSharedMimeInfo(directory: url) },
        ] as [() throws -> Void] {
            let error = try #require(throws: UniformTypeError.self, performing: attempt)
            #expect(error.code == .io)
            #expect(error.message == "https://example.com/Info.plist is not a file URL")
        }
    }
}
