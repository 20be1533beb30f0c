import Foundation
import SystemPackage
import TestSupport
import Testing
import UbiquityContainers

/// The `FilePath` forms of the container calls name a container folder
/// whose name is not UTF-8 (`box` 0xFF) byte for byte: Python makes the
/// folders and reads the configuration written to a name that is not UTF-8,
/// and what comes back is the same bytes, not U+FFFD in their place.
struct UbiquityContainersFilePathTests {
    /// A scratch folder (its links resolved, as the containers resolve theirs), removed by the caller.
    private func scratch() throws -> String {
        let folder = try ScratchFolder.make("containers").path
        return try FileManager.default.destinationOfSymbolicLinkOrSelf(folder)
    }

    /// `folder` + `/` + `name`'s bytes, as a `FilePath`.
    private func filePath(_ folder: String, _ name: [UInt8]) -> FilePath {
        FilePath(platformString: (Array(folder.utf8) + [UInt8(ascii: "/")] + name).map { CChar(bitPattern: $0) } + [0])
    }

    @Test func aContainerWhoseFolderIsNotUTF8IsFoundByItsBytes() throws {
        let folder = try scratch()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // box\xff/Documents/a.txt, made by Python by its bytes.
        _ = try PythonScript.run(
            "import os, sys; d = os.fsencode(sys.argv[1]) + b'/box\\xff/Documents'; os.makedirs(d); open(d + b'/a.txt', 'wb').write(b'a')",
            arguments: [folder])
        let box = filePath(folder, Array("box".utf8) + [0xFF])
        let item = filePath(folder, Array("box".utf8) + [0xFF] + Array("/Documents/a.txt".utf8))
        let containers = UbiquityContainers(configurationPath: nil, environmentFolder: box)
        #expect(containers.environmentFolder == box)
        let container = try #require(try containers.container(containing: item))
        #expect(container.folder == box)
        #expect(container.documentsFolder == filePath(folder, Array("box".utf8) + [0xFF] + Array("/Documents".utf8)))
        #expect(container.contains(item))
        #expect(!container.contains(filePath(folder, Array("box".utf8) + [0xFE] + Array("/Documents/a.txt".utf8))))
        #expect(containers.isUbiquitousItem(item))
        try containers.startDownloadingItem(at: item)
        let missing = filePath(folder, Array("box".utf8) + [0xFF] + Array("/Documents/b.txt".utf8))
        #expect(throws: UbiquityContainerError.self) { try containers.startDownloadingItem(at: missing) }
        do {
            try containers.evictItem(at: item)
            Issue.record("evicted")
        } catch {
            #expect(error.code == .unsupported)
            // The error's place is the kit's text for the name: 0xFF as U+10FF00 + 0xFF.
            #expect(error.pathText == folder + "/box\u{10FFFF}/Documents/a.txt")
            #expect(error.path == filePath(folder, Array("box".utf8) + [0xFF] + Array("/Documents/a.txt".utf8)))  // And its FilePath the bytes.
        }
        #expect(containers.syncState(ofItemAt: item) == .notTracked)  // A plain folder engine keeps no per-item state.
    }

    @Test func aConfigurationWrittenToANameThatIsNotUTF8ReadsBack() throws {
        let folder = try scratch()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let box = filePath(folder, Array("box".utf8) + [0xFF])
        let path = filePath(folder, Array("containers".utf8) + [0xFE] + Array(".plist".utf8))
        let configuration = UbiquityContainerConfiguration(
            containers: [UbiquityContainer(identifier: "iCloud.a", folder: box)], defaultIdentifier: "iCloud.a")
        try configuration.write(to: path)
        // plistlib reads the file by its bytes; the folder's 0xFF is carried as U+10FFFF in the property list's text.
        let read = try PythonScript.text(
            "import os, plistlib, sys; print(ascii(plistlib.load(open(os.fsencode(sys.argv[1]) + b'/containers\\xfe.plist', 'rb'))['Containers']['iCloud.a']['Path']))",
            arguments: [folder])
        #expect(read == "'\(folder)/box\\U0010ffff'\n")
        let back = try UbiquityContainerConfiguration.read(from: path)
        #expect(back.containers.map(\.folder) == [box])
        #expect(UbiquityContainers(configurationPath: path, environmentFolder: nil).configurationPath == path)
    }

    @Test func aPathRelativeToASyncthingFolderIsAFilePath() {
        let folder = FilePath("/srv/sync")
        #expect(SyncthingFolderStatus.relativePath(of: "/srv/sync/Documents/a.txt", in: folder) == "Documents/a.txt")
        #expect(SyncthingFolderStatus.relativePath(of: "/srv/sync", in: folder) == FilePath())
        #expect(SyncthingFolderStatus.relativePath(of: "/srv/synced/a.txt", in: folder) == nil)
    }
}
