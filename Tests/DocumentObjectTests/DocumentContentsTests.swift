import ConflictVersions
import DocumentObject
import Foundation
import PackageFormat
import SystemPackage
import Testing

/// A package document over a package a sync engine left mixed: it opens as
/// the version rebuilt whole, in conflict; a save over it is refused and
/// changes nothing; resolving leaves one whole package and `normal`.
/// (Hand-built here: this device's safe save, the other's edit in place;
/// `SyncedPackageConflictTests` makes it with real Syncthing.)
@MainActor
struct DocumentContentsTests {
    /// Every file below `path` with its bytes, by relative path.
    static func files(_ path: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for case let relative as String in FileManager.default.enumerator(atPath: path)! {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: path + "/" + relative, isDirectory: &isFolder), !isFolder.boolValue {
                files[relative] = try Data(contentsOf: URL(fileURLWithPath: path + "/" + relative))
            }
        }
        return files
    }

    @Test func aMixedPackageOpensRebuiltInConflictRefusesSavesAndResolves() throws {
        let folder = try ScratchFolder()
        let path = folder.path + "/Friend.ict"
        let package = try PackageWrapper(directoryWithChildren: [
            "ctdocument.data": PackageWrapper(regularFileWithContents: Data("data".utf8)),
            "ctdocument.metadata": PackageWrapper(regularFileWithContents: Data("meta".utf8)),
        ])
        try package.save(to: path)
        package.child(named: "ctdocument.data")!.setContents(Data("mine".utf8))
        try package.save(to: path)
        // The other device's edit in place of the entry this save kept.
        try Data("theirs, in place".utf8).write(to: URL(fileURLWithPath: path + "/ctdocument.metadata"))
        #expect(try PackageConsistency(ofPackageAt: path).state == .mixed)

        let document = PackageDocument(path: FilePath(path), scheduler: ManualScheduler())
        try document.open()
        #expect(document.documentState == .inConflict)
        #expect(document.package?.child(named: PackageManifest.fileName) == nil)
        #expect(try document.package!.child(named: "ctdocument.data")!.contents() == Data("mine".utf8))
        #expect(try document.package!.child(named: "ctdocument.metadata")!.contents() == Data("theirs, in place".utf8))

        let before = try Self.files(path)
        try document.package!.replaceChild(named: "ctdocument.data", with: PackageWrapper(regularFileWithContents: Data("edited".utf8)))
        document.updateChangeCount(.done)
        #expect { try document.save() } throws: { ($0 as? DocumentError)?.code == .versions }
        #expect(try Self.files(path) == before, "nothing on disk changed")
        #expect(document.documentState == [.inConflict, .savingError])

        // Resolved by keeping the package as it is; the refused edit is dropped by reading it again.
        try document.resolveConflict()
        try document.revert()
        #expect(document.documentState == .normal)
        #expect(try document.package!.child(named: "ctdocument.data")!.contents() == Data("mine".utf8))
        #expect(try PackageConsistency(ofPackageAt: path, readingEveryFile: true).isWholeWithoutConflicts)
        #expect(try String(contentsOfFile: path + "/ctdocument.metadata", encoding: .utf8) == "theirs, in place")
        try document.close()
    }
}
