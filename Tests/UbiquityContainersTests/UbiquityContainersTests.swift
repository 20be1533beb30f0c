import FileCoordination
import Foundation
import Synchronization
import SystemPackage
import TestSupport
import Testing
import UbiquityContainers

/// Issue 39, item 1: containers configured once (a property list Python's
/// plistlib writes and reads back), one process's container from
/// `ICT_UBIQUITY_CONTAINER`, Apple's ubiquity calls' meaning (is an item
/// ubiquitous, moving one in and out as one coordinated move with its
/// presenter told, downloading and evicting), an engine identity token from
/// a real Syncthing home, and every malformed configuration refused with
/// the file and the place in it.
struct UbiquityContainersTests {
    /// A scratch folder, removed by the caller.
    private func scratch() throws -> String {
        let folder = try ScratchFolder.make("containers").path
        return try FileManager.default.destinationOfSymbolicLinkOrSelf(folder)
    }

    /// Writes `value` (a Python literal) to `path` with plistlib in `format` (FMT_XML or FMT_BINARY).
    private func plistlib(_ value: String, to path: String, format: String = "FMT_XML") throws {
        _ = try PythonScript.run(
            "import plistlib, sys; open(sys.argv[1], 'wb').write(plistlib.dumps(\(value), fmt=plistlib.\(format), sort_keys=False))", arguments: [path])
    }

    @Test(arguments: ["FMT_XML", "FMT_BINARY"])
    func aConfigurationPlistlibWroteReadsInItsOrder(format: String) throws {
        let folder = try scratch()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/containers.plist"
        try plistlib(
            """
            {'DefaultContainer': 'iCloud.com.example.Notes', 'Containers': {
              'iCloud.com.example.Photos': {'Path': '/srv/photos/', 'Engine': 'folder'},
              'iCloud.com.example.Notes': {'Path': '/srv/notes', 'Engine': 'syncthing', 'EngineHome': '/srv/st', 'EngineFolderID': 'notes'}}}
            """, to: path, format: format)
        let configuration = try UbiquityContainerConfiguration.read(from: path)
        #expect(configuration.containers.map(\.identifier) == ["iCloud.com.example.Photos", "iCloud.com.example.Notes"])
        #expect(configuration.containers[0] == UbiquityContainer(identifier: "iCloud.com.example.Photos", folder: "/srv/photos", engine: .folder))
        #expect(configuration.containers[1].engine == .syncthing(home: "/srv/st", folderID: "notes"))
        #expect(configuration.container(identifier: nil)?.identifier == "iCloud.com.example.Notes")
        #expect(configuration.container(identifier: "iCloud.com.example.Photos")?.documentsFolder == "/srv/photos/Documents")
        #expect(configuration.container(identifier: "iCloud.com.example.Other") == nil)
    }

    @Test func whatIsWrittenPlistlibReadsAndItReadsBack() throws {
        let folder = try scratch()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/config/ictkit/containers.plist"
        let configuration = UbiquityContainerConfiguration(
            containers: [
                UbiquityContainer(identifier: "iCloud.a", folder: "/srv/a", engine: .syncthing(home: nil, folderID: "a")),
                UbiquityContainer(identifier: "iCloud.b", folder: "/srv/b"),
            ], defaultIdentifier: "iCloud.b")
        try configuration.write(to: path)
        #expect(try UbiquityContainerConfiguration.read(from: path) == configuration)
        let read = try PythonScript.run(
            "import plistlib, sys, json; print(json.dumps(plistlib.load(open(sys.argv[1], 'rb')), sort_keys=True))", arguments: [path])
        #expect(
            String(decoding: read, as: UTF8.self)
                == #"{"Containers": {"iCloud.a": {"Engine": "syncthing", "EngineFolderID": "a", "Path": "/srv/a"}, "iCloud.b": {"Engine": "folder", "Path": "/srv/b"}}, "DefaultContainer": "iCloud.b"}"#
                + "\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder + "/config/ictkit") == ["containers.plist"])
    }

    @Test func noConfigurationFileIsNoContainer() throws {
        let folder = try scratch()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let containers = UbiquityContainers(configurationPath: folder + "/missing.plist", environmentFolder: nil)
        #expect(try containers.container(identifier: nil) == nil)
        #expect(try containers.all().isEmpty)
        #expect(!containers.isUbiquitousItem(folder))
    }

    /// Each malformed configuration, as text, with the place the error must name and its message.
    static let malformed: [(text: String, place: String, message: String)] = [
        // Line 3, column 13: where the closing tag does not match (counted by hand).
        ("<?xml version=\"1.0\"?>\n<plist version=\"1.0\"><dict>\n  <key>a</key><string>x</strin>\n</dict></plist>\n", "line 3", ""),
        ("<plist version=\"1.0\"><array/></plist>", "the top", "is an array, not a dictionary"),
        ("<plist version=\"1.0\"><dict><key>Containers</key><string>x</string></dict></plist>", "Containers", "is a string, not a dictionary"),
        (
            "<plist version=\"1.0\"><dict><key>Containers</key><dict><key>iCloud.a</key><dict/></dict></dict></plist>", "Containers.iCloud.a",
            "has no Path (the container's folder)"
        ),
        (
            "<plist version=\"1.0\"><dict><key>Containers</key><dict><key>iCloud.a</key><dict><key>Path</key><integer>1</integer></dict></dict></dict></plist>",
            "Containers.iCloud.a.Path", "is an integer, not a string"
        ),
        (
            "<plist version=\"1.0\"><dict><key>Containers</key><dict><key>iCloud.a</key><dict><key>Path</key><string>rel/dir</string></dict></dict></dict></plist>",
            "Containers.iCloud.a.Path", "'rel/dir' is not an absolute path"
        ),
        (
            "<plist version=\"1.0\"><dict><key>Containers</key><dict><key>iCloud.a</key><dict><key>Path</key><string>/a</string><key>Engine</key><string>icloud</string></dict></dict></dict></plist>",
            "Containers.iCloud.a.Engine", "'icloud' is not an engine ICTKit knows (syncthing, folder)"
        ),
        (
            "<plist version=\"1.0\"><dict><key>DefaultContainer</key><string>iCloud.x</string><key>Containers</key><dict/></dict></plist>",
            "DefaultContainer", "names 'iCloud.x', which is not among Containers"
        ),
        ("", "", "the input is empty (0 bytes); an empty file is not a property list"),
    ]

    @Test(arguments: 0..<malformed.count)
    func aMalformedConfigurationIsRefusedNamingTheFileAndThePlace(index: Int) throws {
        let folder = try scratch()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/containers.plist"
        let (text, place, message) = Self.malformed[index]
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        let error = try #require(throws: UbiquityContainerError.self) { try UbiquityContainerConfiguration.read(from: path) }
        #expect(error.code == .configuration)
        #expect(error.path == FilePath(path))
        #expect(error.place.hasPrefix(place), "\(error)")
        if !message.isEmpty { #expect(error.message == message) }
        // Through the containers and a query's scope, the same error: never taken for "no container".
        #expect(throws: UbiquityContainerError.self) { try UbiquityContainers(configurationPath: path, environmentFolder: nil).container(identifier: nil) }
    }

    @Test func aConfigurationThatIsAFolderOrAFIFOIsRefusedWithoutWaiting() throws {
        let folder = try scratch()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/dir.plist", withIntermediateDirectories: false)
        #expect(mkfifo(folder + "/fifo.plist", 0o644) == 0)
        for name in ["dir.plist", "fifo.plist"] {
            let error = try #require(throws: UbiquityContainerError.self) { try UbiquityContainerConfiguration.read(from: folder + "/" + name) }
            #expect(error.code == .configuration, "\(error)")
        }
    }

    @Test func theEnvironmentsFolderIsTheDefaultContainerBesideTheConfiguredOnes() throws {
        let folder = try scratch()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/env", withIntermediateDirectories: false)
        try FileManager.default.createDirectory(atPath: folder + "/notes", withIntermediateDirectories: false)
        // Reached through a link: the container's folder is what the link resolves to.
        try FileManager.default.createSymbolicLink(atPath: folder + "/via", withDestinationPath: folder + "/notes")
        try UbiquityContainerConfiguration(containers: [UbiquityContainer(identifier: "iCloud.notes", folder: folder + "/via")]).write(
            to: folder + "/containers.plist")
        let containers = UbiquityContainers(configurationPath: folder + "/containers.plist", environmentFolder: folder + "/env")
        #expect(try containers.container(identifier: nil)?.folder.string == folder + "/env")
        #expect(try containers.container(identifier: "iCloud.notes")?.folder.string == folder + "/via", "as configured")
        #expect(try containers.all().map(\.folder.string) == [folder + "/env", folder + "/notes"])
        #expect(containers.isUbiquitousItem(folder + "/notes/Documents/a.icfnote"))
        #expect(containers.isUbiquitousItem(folder + "/via/Documents/a.icfnote"))
        #expect(containers.isUbiquitousItem(folder + "/env"))
        #expect(!containers.isUbiquitousItem(folder + "/notes-other/a.icfnote"), "a prefix of the name is not the folder")
        #expect(!containers.isUbiquitousItem(folder))
        let without = UbiquityContainers(configurationPath: folder + "/containers.plist", environmentFolder: nil)
        #expect(try without.container(identifier: nil)?.identifier == "iCloud.notes", "the first configured, without a default")
    }

    // MARK: Moving in and out

    /// A presenter recording where it was told its item moved.
    final class MovePresenter: FilePresenter, @unchecked Sendable {
        let moved = Mutex<[String]>([])
        func presentedItemDidMove(to path: FilePath) { moved.withLock { $0.append(path.string) } }
    }

    @Test(arguments: ["Note.icfnote", "Friend.ict"])
    func anItemMovesInAndOutAsOneCoordinatedMoveItsPresenterIsToldOf(name: String) async throws {
        let folder = try scratch()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/container/Documents", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder + "/local", withIntermediateDirectories: true)
        if name.hasSuffix(".ict") {
            try FileManager.default.copyItem(atPath: Repository.root.path + "/SampleDocs/Rocket.ict", toPath: folder + "/local/" + name)
        } else {
            try Data("text".utf8).write(to: URL(fileURLWithPath: folder + "/local/" + name))
        }
        let before = try FolderSnapshot.take(folder + "/local/" + name)
        let containers = UbiquityContainers(configurationPath: nil, environmentFolder: folder + "/container")
        let local = folder + "/local/" + name, inside = folder + "/container/Documents/" + name

        let registration = try FilePresenterRegistration(presenting: local)
        var events = registration.events.makeAsyncIterator()
        try containers.setUbiquitous(true, itemAt: local, destination: inside)
        #expect(await events.next() == .moved(to: FilePath(inside)))
        registration.remove()
        #expect(!FileManager.default.fileExists(atPath: local))
        #expect(try FolderSnapshot.take(inside) == before, "moved whole")
        #expect(containers.isUbiquitousItem(inside))

        // Wrong ways round, and over something: refused, nothing moved.
        let again = try #require(throws: UbiquityContainerError.self) { try containers.setUbiquitous(true, itemAt: inside, destination: local) }
        #expect(again.code == .alreadyInContainer && again.path == FilePath(inside))
        try Data("other".utf8).write(to: URL(fileURLWithPath: folder + "/local/taken"))
        let taken = try #require(throws: UbiquityContainerError.self) {
            try containers.setUbiquitous(false, itemAt: inside, destination: folder + "/local/taken")
        }
        #expect(taken.code == .alreadyExists && taken.path == FilePath(folder + "/local/taken"))
        let missing = try #require(throws: UbiquityContainerError.self) { try containers.setUbiquitous(true, itemAt: local, destination: inside) }
        #expect(missing.code == .notFound && missing.path == FilePath(local))
        #expect(try FolderSnapshot.take(inside) == before)

        try containers.setUbiquitous(false, itemAt: inside, destination: local)
        #expect(try FolderSnapshot.take(local) == before)
        #expect(!FileManager.default.fileExists(atPath: inside))
        let outside = try #require(throws: UbiquityContainerError.self) { try containers.setUbiquitous(false, itemAt: local, destination: inside) }
        #expect(outside.code == .notInContainer && outside.path == FilePath(local))
    }

    @Test func downloadingIsNothingToDoAndEvictingIsUnsupported() throws {
        let folder = try scratch()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/container", withIntermediateDirectories: true)
        try Data("x".utf8).write(to: URL(fileURLWithPath: folder + "/container/a.icfnote"))
        let containers = UbiquityContainers(configurationPath: nil, environmentFolder: folder + "/container")
        try containers.startDownloadingItem(at: folder + "/container/a.icfnote")
        let notYet = try #require(throws: UbiquityContainerError.self) { try containers.startDownloadingItem(at: folder + "/container/b.icfnote") }
        #expect(notYet.code == .notFound)
        let evict = try #require(throws: UbiquityContainerError.self) { try containers.evictItem(at: folder + "/container/a.icfnote") }
        #expect(evict.code == .unsupported)
        #expect(FileManager.default.fileExists(atPath: folder + "/container/a.icfnote"))
        let outside = try #require(throws: UbiquityContainerError.self) { try containers.evictItem(at: folder + "/a.icfnote") }
        #expect(outside.code == .notInContainer)
    }

    // MARK: Identity

    @Test(.enabled(if: SyncthingDevices.isInstalled, "syncthing is not installed (scripts/install-deps.sh test installs it)"))
    func theIdentityTokenIsThatOfTheEnginesKeys() throws {
        let folder = try scratch()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for home in ["one", "two"] {
            let generate = try ProgramRunner.run("/usr/bin/syncthing", ["generate", "--home=\(folder)/\(home)", "--no-default-folder"])
            #expect(generate.status == 0, "\(generate.stderr)")
        }
        let one = UbiquityContainer(identifier: "iCloud.a", folder: folder, engine: .syncthing(home: folder + "/one", folderID: nil))
        let two = UbiquityContainer(identifier: "iCloud.a", folder: folder, engine: .syncthing(home: folder + "/two", folderID: nil))
        let none = UbiquityContainer(identifier: "iCloud.a", folder: folder, engine: .syncthing(home: folder + "/none", folderID: nil))
        let token = try #require(UbiquityContainers.identityToken(of: one))
        #expect(UbiquityContainers.identityToken(of: one) == token, "stable while the identity is")
        #expect(UbiquityContainers.identityToken(of: two) != token, "another device's keys: another identity")
        #expect(UbiquityContainers.identityToken(of: none) == nil, "no engine identity here: nil, as Apple's when iCloud is off")
        let plain = UbiquityContainer(identifier: "iCloud.a", folder: folder)
        #expect(UbiquityContainers.identityToken(of: plain) == UbiquityContainers.identityToken(of: plain))
        #expect(UbiquityContainers.identityToken(of: plain) != nil)
    }
}

extension FileManager {
    /// `path` with its links resolved (`/tmp` may be one).
    func destinationOfSymbolicLinkOrSelf(_ path: String) throws -> String {
        URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    }
}
