import DocumentFormats
import Foundation
import PropertyList
import TestSupport
import Testing

@testable import ICTKitTooling

/// `ComparablePackage`: two copies of a sample document, one changed here
/// entry by entry with FileManager and plistlib; the differences expected
/// are the changes made.
struct PackageComparisonTests {
    static let coffee = Repository.root.appendingPathComponent("SampleDocs/Coffee.ict").path

    @Test func packagesDifferEntryByEntry() throws {
        let folder = try ScratchFolder()
        let old = folder.path + "/old", new = folder.path + "/new"
        let files = FileManager.default
        try files.createDirectory(atPath: old, withIntermediateDirectories: false)
        try Data("one".utf8).write(to: URL(fileURLWithPath: old + "/gone.txt"))
        try Data("same".utf8).write(to: URL(fileURLWithPath: old + "/same.txt"))
        try Data("<plist><dict><key>a</key><integer>1</integer></dict></plist>".utf8).write(to: URL(fileURLWithPath: old + "/p.plist"))
        try files.copyItem(atPath: old, toPath: new)
        try files.removeItem(atPath: new + "/gone.txt")
        try Data("<plist><dict><key>a</key><integer>2</integer></dict></plist>".utf8).write(to: URL(fileURLWithPath: new + "/p.plist"))
        try files.createDirectory(atPath: new + "/added", withIntermediateDirectories: false)
        let differences = try ComparablePackage(packageAt: new).differences(from: ComparablePackage(packageAt: old))
        #expect(
            differences == [
                PackageDifference(entry: "gone.txt", change: PropertyListDifference(.removed, at: [], old: .data(Data("one".utf8)), new: nil)),
                PackageDifference(entry: "p.plist", change: PropertyListDifference(.changed, at: [.key("a")], old: 1, new: 2)),
                PackageDifference(entry: "added", change: PropertyListDifference(.added, at: [], old: nil, new: "folder")),
            ])
    }

    @Test func documentsDifferFieldByField() throws {
        let folder = try ScratchFolder()
        let copy = folder.path + "/Copy.ict"
        try FileManager.default.copyItem(atPath: Self.coffee, toPath: copy)
        let document = try ICTDocumentFile(contentsOf: copy)
        _ = try document.setFirstName("Tea")
        try document.save(to: copy)
        let differences = try ComparablePackage(documentAt: copy).differences(from: ComparablePackage(documentAt: Self.coffee))
        #expect(
            differences == [
                PackageDifference(entry: "ctdocument.data", change: PropertyListDifference(.changed, at: [.key("FIRST_NAME")], old: "Coffee", new: "Tea"))
            ])
    }

    @Test func aPackageThatCannotBeReadIsNamed() {
        #expect { try ComparablePackage(packageAt: "/nonexistent/folder") } throws: { error in
            (error as? ICTDocumentError)?.packageError?.fileSystemPathText.hasPrefix("/nonexistent") == true
        }
    }

    @Test func documentsDifferInKeysTheModelDoesNotKnow() throws {
        let folder = try ScratchFolder()
        let old = folder.path + "/Old.ict", new = folder.path + "/New.ict"
        try FileManager.default.copyItem(atPath: Self.coffee, toPath: old)
        try FileManager.default.copyItem(atPath: Self.coffee, toPath: new)
        try UnknownArchiveKeys.add(toEntryAt: new + "/ctdocument.metadata", topKey: "DATA")
        let added = try ComparablePackage(documentAt: new).differences(from: ComparablePackage(documentAt: old))
        #expect(added.map { "\($0.entry ?? "-") \($0.change.keyPath)" } == UnknownArchiveKeys.keys.sorted().map { "ctdocument.metadata \($0)" })
        let note = added.first { "\($0.change.keyPath)" == "NOTE" }?.change
        #expect(note == PropertyListDifference(.added, at: [.key("NOTE")], old: nil, new: "a newer app's note"))

        try UnknownArchiveKeys.add(toEntryAt: old + "/ctdocument.metadata", topKey: "DATA")
        #expect(try ComparablePackage(documentAt: new).differences(from: ComparablePackage(documentAt: old)).isEmpty)
    }
}
