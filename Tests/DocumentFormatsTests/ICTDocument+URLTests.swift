import DocumentFormats
import Foundation
import PackageFormat
import SystemPackage
import TestSupport
import Testing

/// The `URL` and `FilePath` forms of opening, saving, summarising and
/// validating documents and of `freeFileName`, on copies of the sample
/// document `Chelsea.ict` named `Ünïcode copy.ict` in a folder whose name
/// holds a space and a literal `%20`: the same results as the `String`
/// forms, and the display name and thumbnail Python's plistlib reads.
struct ICTDocumentURLTests {
    static let sample = Repository.root.appendingPathComponent("SampleDocs/Chelsea.ict")

    /// A scratch folder `url overloads %20` holding a copy of the sample as `Ünïcode copy.ict`.
    struct Scratch {
        let root: ScratchFolder
        let folder: String
        var document: String { folder + "/Ünïcode copy.ict" }
        var documentURL: URL { URL(fileURLWithPath: document) }

        init() throws {
            root = try ScratchFolder()
            folder = root.path + "/url overloads %20"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: ICTDocumentURLTests.sample.path, toPath: document)
        }
    }

    /// The display name, thumbnail byte count and thumbnail width and height
    /// that Python's plistlib and the PNG's IHDR give for the document at `path`.
    static func plistlibMetadata(of path: String) throws -> [String] {
        let script = """
            import plistlib, struct, sys
            d = plistlib.load(open(sys.argv[1] + '/ctdocument.metadata', 'rb'))
            o = d['$objects']
            r = o[d['$top']['DATA'].data]
            def value(key):
                v = o[r[key].data]
                return v if isinstance(v, (str, bytes)) else v.get('NS.string', v.get('NS.data'))
            t = value('THUMBNAIL')
            print(value('DISPLAY NAME')); print(len(t)); print(*struct.unpack('>II', t[16:24]))
            """
        return try PythonScript.text(script, arguments: [path]).split(separator: "\n").map(String.init)
    }

    @Test func openingByURLAndFilePathMatchesPathAndPlistlib() throws {
        let scratch = try Scratch()
        let expected = try Self.plistlibMetadata(of: scratch.document)
        let byPath = try ICTDocumentFile(contentsOf: scratch.document)
        #expect(try byPath.displayName() == expected[0])
        for document in [try ICTDocumentFile(contentsOf: scratch.documentURL), try ICTDocumentFile(contentsOf: FilePath(scratch.document))] {
            #expect(document.path == FilePath(scratch.document))
            #expect(document.fileURL == scratch.documentURL)
            #expect(try document.displayName() == expected[0])
            #expect(try document.metadata().thumbnail == (try byPath.metadata().thumbnail))
        }
        #expect(ICTDocumentFile().fileURL == nil)
    }

    @Test func percentEncodedURLStringOpensTheDocument() throws {
        let scratch = try Scratch()
        // Spelled out by hand: `%` as `%25`, spaces as `%20`, Ü and ï in UTF-8.
        let text = "file://" + scratch.root.path + "/url%20overloads%20%2520/%C3%9Cn%C3%AFcode%20copy.ict"
        let document = try ICTDocumentFile(contentsOf: try #require(URL(string: text)))
        #expect(document.path == FilePath(scratch.document))
        #expect(try document.displayName() == (try Self.plistlibMetadata(of: scratch.document))[0])
    }

    @Test func savingByURLAndFilePathIsReadByPlistlib() throws {
        let scratch = try Scratch()
        let document = try ICTDocumentFile(contentsOf: scratch.documentURL)
        try document.setDisplayName("Zoë by URL")
        let byURL = scratch.folder + "/Saved by URL ü.ict"
        try document.save(to: URL(fileURLWithPath: byURL))
        #expect(try Self.plistlibMetadata(of: byURL)[0] == "Zoë by URL")
        #expect(document.path == FilePath(byURL))
        try document.setDisplayName("Zoë by FilePath")
        let byFilePath = scratch.folder + "/Saved by FilePath ü.ict"
        try document.save(to: FilePath(byFilePath))
        #expect(try Self.plistlibMetadata(of: byFilePath)[0] == "Zoë by FilePath")
        #expect(try Self.plistlibMetadata(of: scratch.document)[0] == "Chelsea")
    }

    @Test func summaryByURLAndFilePathMatchesPathAndPlistlib() throws {
        let scratch = try Scratch()
        let expected = try Self.plistlibMetadata(of: scratch.document)
        let byPath = try ICTDocumentSummary(ofDocumentAt: scratch.document)
        for summary in [
            try ICTDocumentSummary(ofDocumentAt: scratch.documentURL),
            try ICTDocumentSummary(ofDocumentAt: FilePath(scratch.document)),
        ] {
            #expect(summary == byPath)
            #expect(summary.displayName == expected[0])
            #expect(summary.thumbnailByteCount.map(String.init) == expected[1])
            #expect(summary.thumbnailSize.map { "\($0.width) \($0.height)" } == expected[2])
        }
    }

    @Test func validationByURLAndFilePathMatchesPath() throws {
        let scratch = try Scratch()
        let validator = DocumentValidator()
        #expect(validator.validate(packageAt: scratch.documentURL) == validator.validate(packageAt: scratch.document))
        #expect(validator.validate(packageAt: FilePath(scratch.document)) == validator.validate(packageAt: scratch.document))
        let damaged = Repository.root.appendingPathComponent("SampleDocs/malformed/damaged-png.ict")
        let findings = validator.validate(packageAt: damaged.path)
        #expect(!findings.isEmpty)
        #expect(validator.validate(packageAt: damaged) == findings)
        #expect(validator.validate(packageAt: FilePath(damaged.path)) == findings)
    }

    @Test func freeFileNameByURLAndFilePathMatchesPath() throws {
        let scratch = try Scratch()
        let byPath = try ICTDocumentFile.freeFileName(for: "Ünïcode copy", in: scratch.folder)
        #expect(byPath == "Ünïcode copy 1.ict")
        #expect(try ICTDocumentFile.freeFileName(for: "Ünïcode copy", in: URL(fileURLWithPath: scratch.folder)) == byPath)
        #expect(try ICTDocumentFile.freeFileName(for: "Ünïcode copy", in: FilePath(scratch.folder)) == byPath)
    }

    @Test func missingDocumentErrorNamesThePath() throws {
        let scratch = try Scratch()
        let missing = scratch.folder + "/Nöt here.ict"
        for attempt in [
            { _ = try ICTDocumentFile(contentsOf: URL(fileURLWithPath: missing)) },
            { _ = try ICTDocumentFile(contentsOf: FilePath(missing)) },
        ] as [() throws -> Void] {
            let error = try #require(throws: ICTDocumentError.self, performing: attempt)
            #expect(error.code == .package)
            #expect(error.packageError?.fileSystemPath == FilePath(missing))
        }
        let summaryError = try #require(throws: ICTDocumentError.self) {
            _ = try ICTDocumentSummary(ofDocumentAt: URL(fileURLWithPath: missing))
        }
        #expect(summaryError.message.contains(missing), "\(summaryError.message)")
        let listingError = try #require(throws: ICTDocumentError.self) {
            _ = try ICTDocumentFile.freeFileName(for: "x", in: FilePath(missing))
        }
        #expect(listingError.message.contains(missing), "\(listingError.message)")
    }

    /// The `FilePath` forms on names that are not UTF-8 (`Caf` 0xE9 `.ict`, a
    /// Latin-1 é, made by Python's `os.rename` on bytes): each names that very
    /// item, not one with U+FFFD in its place. What Python's plistlib reads
    /// of the sample, and the names Python lists as bytes, are the expected values.
    @Test func filePathFormsNameItemsThatAreNotUTF8ByteForByte() throws {
        let scratch = try Scratch()
        let expected = try Self.plistlibMetadata(of: scratch.document)
        let findings = DocumentValidator().validate(packageAt: FilePath(scratch.document))
        func rawPath(_ name: [UInt8]) -> FilePath {
            FilePath(platformString: (Array(scratch.folder.utf8) + [UInt8(ascii: "/")] + name).map { CChar(bitPattern: $0) } + [0])
        }
        let listing = """
            import os, sys
            print(' '.join(sorted(name.hex() for name in os.listdir(os.fsencode(sys.argv[1])))))
            """
        _ = try PythonScript.run(
            "import os, sys; os.rename(sys.argv[1], os.fsencode(sys.argv[2]) + b'/Caf\\xe9.ict')", arguments: [scratch.document, scratch.folder])
        let package = rawPath(Array("Caf".utf8) + [0xE9] + Array(".ict".utf8))
        #expect(ICTDocumentFormat.isPackage(atPath: package) && ICTDocumentFormat.isDocument(atPath: package))
        #expect(DocumentKind.of(itemAtPath: package) == .ict)
        #expect(DocumentKind.ict.fileDisplayName(ofPath: package) == "Caf\u{10FFE9}")
        #expect(try ICTDocumentSummary(ofDocumentAt: package).displayName == expected[0])
        #expect(DocumentValidator().validate(packageAt: package) == findings)
        let document = try ICTDocumentFile(contentsOf: package)
        #expect(document.path == package)
        #expect(try document.displayName() == expected[0])
        let copy = rawPath(Array("Copy ".utf8) + [0xE9] + Array(".ict".utf8))
        try document.save(to: copy)
        #expect(document.path == copy)
        #expect(try ICTDocumentFile(package: try PackageWrapper(readingFrom: scratch.folder + "/Copy \u{10FFE9}.ict"), path: copy).path == copy)
        let note = rawPath(Array("Note ".utf8) + [0xE9] + Array(".icfnote".utf8))
        try TextNoteFile.write("tea\n", to: note, replacingExisting: false)
        #expect(try TextNoteFile(contentsOf: note).text == "tea\n")
        // "Caf\xe9.ict", "Copy \xe9.ict", "Note \xe9.icfnote" in hex, by hand.
        #expect(
            try PythonScript.text(listing, arguments: [scratch.folder]).trimmingCharacters(in: .whitespacesAndNewlines)
                == "436166e92e696374 436f707920e92e696374 4e6f746520e92e6963666e6f7465")
    }

    @Test func nonFileURLIsRefusedNamingIt() throws {
        let scratch = try Scratch()
        let url = try #require(URL(string: "https://example.com/Chelsea.ict"))
        let document = try ICTDocumentFile(contentsOf: scratch.document)
        try document.setDisplayName("Not saved")
        for attempt in [
            { _ = try ICTDocumentFile(contentsOf: url) }, { try document.save(to: url) },
            { _ = try ICTDocumentSummary(ofDocumentAt: url) },
            { _ = try ICTDocumentFile.freeFileName(for: "x", in: url) },
        ] as [() throws -> Void] {
            let error = try #require(throws: ICTDocumentError.self, performing: attempt)
            #expect(error.code == .package)
            #expect(error.packageError?.fileSystemPath == "https://example.com/Chelsea.ict")
            #expect(error.message == "https://example.com/Chelsea.ict: not a file URL")
        }
        #expect(DocumentValidator().validate(packageAt: url).map(\.message) == ["https://example.com/Chelsea.ict: not a file URL"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.folder) == ["Ünïcode copy.ict"])
    }
}
