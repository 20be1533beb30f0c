import Foundation
import PackageFormat
import SystemPackage
import TestSupport
import Testing

struct PackageWriterTests {
    private func file(_ text: String, permissions: UInt16 = 0o644) -> PackageWrapper {
        PackageWrapper(regularFileWithContents: Data(text.utf8), permissions: permissions)
    }

    @Test func savesANewPackageWithPermissionsDatesAndLinks() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let readOnly = file("ro", permissions: 0o444)
        readOnly.modificationDate = Date(timeIntervalSince1970: 1_000_000_000.5)
        let package = try PackageWrapper(directoryWithChildren: [
            "ctdocument.data": file("data"),
            "Locked": PackageWrapper(directoryWithChildren: ["ro.txt": readOnly], permissions: 0o555),
            "alias": PackageWrapper(symbolicLinkWithDestination: "Locked/ro.txt"),
        ])
        let path = directory.appending("New.ict")
        try package.save(to: path)
        #expect(
            try snapshot(of: path) == [
                "ctdocument.data": .file(permissions: 0o644, bytes: Data("data".utf8)),
                "Locked": .directory(permissions: 0o555),
                "Locked/ro.txt": .file(permissions: 0o444, bytes: Data("ro".utf8)),
                "alias": .link(destination: "Locked/ro.txt"),
            ])
        let attributes = try FileManager.default.attributesOfItem(atPath: path + "/Locked/ro.txt")
        #expect((attributes[.modificationDate] as? Date)?.timeIntervalSince1970 == 1_000_000_000.5)
        #expect(try strayTemporaries(of: path).isEmpty)
        #expect(!package.hasChangedOnDisk())
    }

    @Test func aLinkToEtcPasswdIsWrittenOnlyAsALink() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let source = directory.appending("Source.ict")
        try writeFile(source + "/ctdocument.data", "data")
        try FileManager.default.createSymbolicLink(atPath: source + "/passwd", withDestinationPath: "/etc/passwd")
        let passwdBefore = try Data(contentsOf: URL(fileURLWithPath: "/etc/passwd"))
        for mode in [PackageReadingMode.lazy, .eager] {
            let copy = directory.appending("Copy-\(mode).ict")
            try PackageWrapper(readingFrom: source, mode: mode).save(to: copy)
            #expect(try snapshot(of: copy)["passwd"] == .link(destination: "/etc/passwd"))
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: "/etc/passwd")) == passwdBefore)
    }

    @Test func replacesAnExistingPackageWithExactlyTheNewTree() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.appending("Doc.ict")
        try writeFile(path + "/old-only.txt", "old")
        try writeFile(path + "/kept.txt", "kept")
        let package = try PackageWrapper(readingFrom: path)
        package.removeChild(named: "old-only.txt")
        try package.addChild(file("new"), named: "new.txt")
        try package.save(to: path)
        #expect(
            try snapshot(of: path) == [
                "kept.txt": .file(permissions: 0o644, bytes: Data("kept".utf8)),
                "new.txt": .file(permissions: 0o644, bytes: Data("new".utf8)),
            ])
        #expect(try strayTemporaries(of: path).isEmpty)
    }

    @Test func incrementalSaveLinksUnchangedFilesAndRewritesChangedOnes() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.appending("Doc.ict")
        try writeFile(path + "/Resources/photo.png", String(repeating: "p", count: 100_000))
        try writeFile(path + "/ctdocument.data", "v1")
        try writeFile(path + "/chmod.txt", "same bytes")
        let unchangedInode = inode(path + "/Resources/photo.png")
        let chmodInode = inode(path + "/chmod.txt")
        let package = try PackageWrapper(readingFrom: path)
        package.child(named: "ctdocument.data")!.setContents(Data("v2".utf8))
        package.child(named: "chmod.txt")!.permissions = 0o600
        try package.save(to: path)
        #expect(inode(path + "/Resources/photo.png") == unchangedInode)
        // A permission change must not touch the old version's inode: copied, not linked.
        #expect(inode(path + "/chmod.txt") != chmodInode)
        #expect(try snapshot(of: path)["chmod.txt"] == .file(permissions: 0o600, bytes: Data("same bytes".utf8)))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path + "/ctdocument.data")) == Data("v2".utf8))
        // The wrappers now refer to the saved package: a second save links again.
        try package.save(to: path)
        #expect(inode(path + "/Resources/photo.png") == unchangedInode)
        #expect(try package.descendant(atPath: "Resources/photo.png")!.contents().count == 100_000)
    }

    @Test func anUnchangedFileMovedToAnotherFolderIsStillLinked() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.appending("Doc.ict")
        try writeFile(path + "/Resources/photo.png", "photo")
        try writeFile(path + "/Pages/01/page.bin", "page")
        let photoInode = inode(path + "/Resources/photo.png")
        let pageInode = inode(path + "/Pages/01/page.bin")
        let package = try PackageWrapper(readingFrom: path)
        let photo = package.descendant(atPath: "Resources/photo.png")!
        package.child(named: "Resources")!.removeChild(named: "photo.png")
        try package.descendant(atPath: "Pages/01")!.addChild(photo, named: "photo.png")
        try package.save(to: path)
        #expect(inode(path + "/Pages/01/photo.png") == photoInode)
        #expect(inode(path + "/Pages/01/page.bin") == pageInode)
        #expect(try snapshot(of: path)["Resources/photo.png"] == nil)
    }

    @Test func theOldVersionIsRemovedThroughNestedAndReadOnlyFoldersButNotThroughLinks() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.appending("Doc.ict")
        let outside = directory.appending("Outside")
        try writeFile(outside + "/keep.txt", "not part of the package")
        try writeFile(path + "/A/B/C/deep.txt", "deep")
        try writeFile(path + "/Locked/ro.txt", "ro", permissions: 0o444)
        chmod(path + "/Locked", 0o555)
        try FileManager.default.createSymbolicLink(atPath: path + "/outside", withDestinationPath: outside)
        try PackageWrapper(directoryWithChildren: ["data": file("new")]).save(to: path)
        #expect(try snapshot(of: path) == ["data": .file(permissions: 0o644, bytes: Data("new".utf8))])
        #expect(try strayTemporaries(of: path).isEmpty)
        #expect(try String(contentsOfFile: outside + "/keep.txt", encoding: .utf8) == "not part of the package")
    }

    @Test func savingElsewhereCopiesUnchangedFilesInsteadOfLinking() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.appending("Doc.ict")
        try writeFile(path + "/data", "shared?")
        let package = try PackageWrapper(readingFrom: path)
        try package.save(to: directory.appending("Copy.ict"))
        #expect(inode(directory.appending("Copy.ict/data")) != inode(path + "/data"))
        #expect(try snapshot(of: directory.appending("Copy.ict")) == snapshot(of: path))
    }

    @Test func aLazyFileChangedOnDiskBeforeSavingIsAnErrorAndTheOldPackageStays() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.appending("Doc.ict")
        try writeFile(path + "/data", "original")
        let package = try PackageWrapper(readingFrom: path)
        try writeFile(directory.appending("elsewhere"), "x")
        try FileManager.default.removeItem(atPath: path + "/data")
        try writeFile(path + "/data", "edited by someone else")
        let before = try snapshot(of: path)
        let error = packageError { try package.save(to: path) }
        #expect(error?.code == .changedOnDisk)
        #expect(error?.pathInPackage == "data")
        #expect(try snapshot(of: path) == before)
        #expect(try strayTemporaries(of: path).isEmpty)
    }

    @Test func removesStrayTemporariesOfDeadSavesAndKeepsLiveOnes() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.appending("Doc.ict")
        let package = try PackageWrapper(directoryWithChildren: ["a": file("a")])
        try package.save(to: path)
        let deadPID = 999_999_999  // above Linux's pid_max: never a live process
        try writeFile(directory.appending(".Doc.ict.saving-\(deadPID)-1/half-written"), "x", permissions: 0o444)
        chmod(directory.appending(".Doc.ict.saving-\(deadPID)-1"), 0o555)
        try writeFile(directory.appending(".Doc.ict.replaced-\(deadPID)-2/old"), "x")
        let live = directory.appending(".Doc.ict.saving-1-3")  // pid 1 is alive
        try FileManager.default.createDirectory(atPath: live, withIntermediateDirectories: true)
        try package.save(to: path)
        #expect(try strayTemporaries(of: path) == [".Doc.ict.saving-1-3"])
    }

    @Test func putsBackAnOldVersionLeftAsideByACrashedSave() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.appending("Doc.ict")
        // A save without RENAME_EXCHANGE died between its two renames.
        try writeFile(directory.appending(".Doc.ict.replaced-999999999-1/data"), "old version")
        try writeFile(directory.appending(".Doc.ict.saving-999999999-2/da"), "half")
        let package = try PackageWrapper(directoryWithChildren: ["data": file("new version")])
        let error = packageError { try package.save(to: path, options: PackageSaveOptions(replacingExisting: false)) }
        #expect(error?.code == .alreadyExists)
        #expect(try snapshot(of: path) == ["data": .file(permissions: 0o644, bytes: Data("old version".utf8))])
        #expect(try strayTemporaries(of: path).isEmpty)
    }

    @Test func refusesToReplaceSomethingThatIsNotAPackage() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.appending("Doc.ict")
        try writeFile(path, "a flat file")
        let error = packageError { try PackageWrapper(directoryWithChildren: [:]).save(to: path) }
        #expect(error?.code == .notADirectory)
        #expect(error?.fileSystemPath == FilePath(path))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "a flat file")
    }

    /// Acceptance 4: every real package of the interop corpus reads and writes
    /// back to a tree identical in names, bytes and permissions.
    @Test(.interopCorpus)
    func realPackagesRoundTripToIdenticalTrees() throws {
        let root = InteropCorpus.url("packages").path
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var packages: [String] = []
        for group in try FileManager.default.contentsOfDirectory(atPath: root).sorted() where !group.hasSuffix(".md") {
            for name in try FileManager.default.contentsOfDirectory(atPath: root + "/" + group).sorted() {
                packages.append(group + "/" + name)
            }
        }
        #expect(packages.count >= 10)
        for (index, relative) in packages.enumerated() {
            let source = root + "/" + relative
            for mode in [PackageReadingMode.lazy, .eager] {
                let target = directory.appending("\(index)-\(mode)-" + (relative as NSString).lastPathComponent)
                try PackageWrapper(readingFrom: source, mode: mode).save(to: target)
                #expect(try snapshot(of: target) == snapshot(of: source), "\(relative) read \(mode)")
                var sourceStatus = stat(), targetStatus = stat()
                lstat(source, &sourceStatus)
                lstat(target, &targetStatus)
                #expect(sourceStatus.st_mode == targetStatus.st_mode, "\(relative): the package's own permissions")
            }
        }
    }

    /// As root, a save gives what it writes anew the replaced package's (or
    /// folder's) owner and group, as Apple's tools keep them: in a whole save
    /// and in a save of one changed folder.
    @Test(.enabled(if: geteuid() == 0, "only root can give files to another owner"))
    func savesKeepTheReplacedOwnerAndGroup() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.appending("Owned.pkg")
        try PackageSubtreeSavingTests.makePackage(at: path)
        #expect(lchown(path, 1234, 5678) == 0)
        for relative in try FileManager.default.subpathsOfDirectory(atPath: path) {
            #expect(lchown(path + "/" + relative, 1234, 5678) == 0)
        }
        func owner(_ relative: String) -> String {
            var status = stat()
            guard lstat(relative.isEmpty ? path : path + "/" + relative, &status) == 0 else { return "missing" }
            return "\(status.st_uid):\(status.st_gid)"
        }

        let oneFolder = try PackageWrapper(readingFrom: path)
        oneFolder.descendant(atPath: "Pages/07/b.bin")!.setContents(Data("b7 v2".utf8))
        try oneFolder.save(to: path)
        for relative in ["Pages/07", "Pages/07/b.bin", "Pages/07/c.bin", "Pages"] { #expect(owner(relative) == "1234:5678", "\(relative)") }

        let whole = try PackageWrapper(readingFrom: path)
        whole.descendant(atPath: "top.txt")!.setContents(Data("top v2".utf8))
        try whole.addChild(PackageWrapper(symbolicLinkWithDestination: "top.txt"), named: "alias")
        try whole.save(to: path)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path + "/top.txt")) == Data("top v2".utf8))
        for relative in ["", "top.txt", "alias", "Media", "Media/clip.bin", "Pages/07/b.bin"] { #expect(owner(relative) == "1234:5678", "'\(relative)'") }
    }
}
