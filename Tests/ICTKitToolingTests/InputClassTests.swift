import DocumentFormats
import Foundation
import TestSupport
import Testing

@testable import ICTKitTooling

/// `InputClass`: the one classifier every command asks which reader an
/// input goes to, run in process on the sample documents and on inputs made
/// here by other programs (Python's sqlite3 and zipfile) or by hand (a
/// NIBArchive file's magic, a store package's entry), each with the kind its
/// maker gave it; and a command asking fewer readers gets what `InputKind`
/// says instead, with nothing on disk changed.
@Suite struct InputClassTests {
    private let folder: String

    init() throws {
        folder = try ScratchFolder.make("ict-input-class").path
    }

    private static func sample(_ name: String) -> String { Repository.root.appendingPathComponent("SampleDocs/\(name)").path }

    /// A SQLite database made by Python's sqlite3 module.
    private func sqliteFile(_ name: String) throws -> String {
        let path = folder + "/" + name
        _ = try PythonScript.run(
            "import sqlite3, sys\nc = sqlite3.connect(sys.argv[1])\nc.execute('create table t (x)')\nc.commit()\nc.close()\n",
            arguments: [path])
        return path
    }

    @Test func theSampleDocumentsGoToTheirReaders() {
        #expect(InputClass(classifying: Self.sample("Coffee.ptk")) == .document(.ptk))
        #expect(InputClass(classifying: Self.sample("Shopping List.icfnote")) == .document(.icfnote))
        #expect(InputClass(classifying: Self.sample("Tutorial Note.dox")) == .document(.dox))
        // An .ict document is InputKind's to tell from a package without metadata.
        #expect(InputClass(classifying: Self.sample("Rocket.ict")) == .other(.document))
        #expect(InputClass(classifying: Self.sample("Info.plist")) == .other(.file))
        #expect(InputClass(classifying: "-") == .other(.standardInput))
        // Not there: a file, which reading then says is missing.
        #expect(InputClass(classifying: folder + "/missing.plist") == .other(.file))
    }

    @Test func aCommandAskingFewerReadersGetsWhatInputKindSays() throws {
        let before = try FolderSnapshot.take(Self.sample(""))
        // convert --format xml1 asks none: a .ptk package is a directory, a note a file.
        #expect(InputClass(classifying: Self.sample("Coffee.ptk"), readers: []) == .other(.package))
        #expect(InputClass(classifying: Self.sample("Shopping List.icfnote"), readers: [.coreDataStores]) == .other(.file))
        #expect(InputClass.specialReader(of: Self.sample("Coffee.ptk"), among: [.coreDataStores, .nibArchives]) == nil)
        #expect(InputClass.specialReader(of: Self.sample("Coffee.ptk"), among: .documents) == .document(.ptk))
        #expect(try FolderSnapshot.take(Self.sample("")) == before)
    }

    @Test func aSQLiteFileIsAStoreWhateverItsName() throws {
        let store = try sqliteFile("notes.icfnote")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: store))
        #expect(InputClass(classifying: store) == .coreDataStore)
        // Without the store reader: a note by its name, else a file.
        #expect(InputClass(classifying: store, readers: .documents) == .document(.icfnote))
        #expect(InputClass(classifying: store, readers: []) == .other(.file))
        #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == bytes)
    }

    /// A folder named as a model that is also a managed document's package
    /// (it holds `StoreContent/persistentStore`): the store reader is asked
    /// first, as `inspect`, `get` and `convert` always asked it.
    @Test func aStorePackageNamedAsAModelIsAStore() throws {
        let package = folder + "/Model.xcdatamodel"
        try FileManager.default.createDirectory(atPath: package + "/StoreContent", withIntermediateDirectories: true)
        _ = try sqliteFile("Model.xcdatamodel/StoreContent/persistentStore")
        #expect(InputClass(classifying: package) == .coreDataStore)
        #expect(InputClass(classifying: package, readers: .models) == .model(.modelSource))
        #expect(InputClass(classifying: package, readers: []) == .other(.package))
    }

    @Test func aNIBArchiveIsANibByItsFirstBytes() throws {
        let nib = folder + "/view.bin"
        // NIBArchive's magic, then its two version words and the header's counts (all zero here).
        try Data(Array("NIBArchive".utf8) + [UInt8](repeating: 0, count: 40)).write(to: URL(fileURLWithPath: nib))
        #expect(InputClass(classifying: nib) == .nibArchive)
        #expect(InputClass(classifying: nib, readers: [.coreDataStores, .documents, .models]) == .other(.file))
        let notNib = folder + "/other.bin"
        try Data(Array("NIBArchivX".utf8) + [UInt8](repeating: 0, count: 40)).write(to: URL(fileURLWithPath: notNib))
        #expect(InputClass(classifying: notNib) == .other(.file))
    }

    @Test func aZipArchiveAndAFolderAreTheirInputKinds() throws {
        let zip = folder + "/package.zip"
        try PythonZip.create(zip, entries: [(path: "a.plist", kind: .file, contents: "<plist/>")])
        #expect(InputClass(classifying: zip) == .other(.zipArchive))
        let plain = folder + "/Plain.bundle"
        try FileManager.default.createDirectory(atPath: plain, withIntermediateDirectories: true)
        #expect(InputClass(classifying: plain) == .other(.package))
        // An .ict folder without its metadata entry.
        let bare = folder + "/Bare.ict"
        try FileManager.default.createDirectory(atPath: bare, withIntermediateDirectories: true)
        #expect(InputClass(classifying: bare) == .other(.documentWithoutMetadata))
    }
}
