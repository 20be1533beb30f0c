import Foundation
import PackageFormat
import SystemPackage
import TestSupport
import Testing

/// The manifest every save writes (`.ictkit-manifest.plist`), read back by
/// Python's `plistlib` and held against the tree as `os.lstat` and
/// `hashlib` see it; and the reader's refusals of manifests that are
/// garbage, huge, links or FIFOs.
struct PackageManifestTests {
    /// What Python sees: the tree (every entry but the manifest, with kind,
    /// size, SHA-256, modification time in nanoseconds, link destination) and
    /// the manifest decoded by `plistlib` into the same form, with its counter,
    /// generation (hex) and the top-level keys.
    struct PythonView: Decodable {
        var tree: [String: [String: String]]
        var manifest: [String: [String: String]]
        var counter: Int
        var generation: String
        var keys: [String]
    }

    static func pythonView(of package: String) throws -> PythonView {
        let script = """
            import hashlib, json, os, plistlib, stat, sys
            root = sys.argv[1]
            tree = {}
            for folder, folders, files in os.walk(root):
                for name in folders + files:
                    path = os.path.join(folder, name)
                    rel = os.path.relpath(path, root)
                    if rel == '.ictkit-manifest.plist':
                        continue
                    st = os.lstat(path)
                    mtime = str(st.st_mtime_ns)
                    if stat.S_ISDIR(st.st_mode):
                        tree[rel] = {'kind': 'folder', 'mtime': mtime}
                    elif stat.S_ISLNK(st.st_mode):
                        tree[rel] = {'kind': 'link', 'mtime': mtime, 'destination': os.readlink(path)}
                    else:
                        digest = hashlib.sha256(open(path, 'rb').read()).hexdigest()
                        tree[rel] = {'kind': 'file', 'mtime': mtime, 'size': str(st.st_size), 'sha256': digest}
            with open(os.path.join(root, '.ictkit-manifest.plist'), 'rb') as f:
                raw = f.read()
            assert raw.startswith(b'bplist00'), 'not a binary property list'
            top = plistlib.loads(raw)
            manifest = {}
            for rel, entry in top['Entries'].items():
                shown = {'kind': entry['Kind'], 'mtime': str(entry['ModifiedSeconds'] * 10**9 + entry['ModifiedNanoseconds'])}
                if entry['Kind'] == 'file':
                    shown['size'] = str(entry['Size'])
                    shown['sha256'] = entry['SHA256'].hex()
                if entry['Kind'] == 'link':
                    shown['destination'] = entry['Destination']
                manifest[rel] = shown
            print(json.dumps({'tree': tree, 'manifest': manifest, 'counter': top['Counter'],
                              'generation': top['Generation'].hex(), 'keys': sorted(top.keys())}))
            """
        let output = try PythonScript.run(script, arguments: [package])
        return try JSONDecoder().decode(PythonView.self, from: output)
    }

    /// A package with a nested folder, an empty folder, a link and a 2 MB file (more than one read piece).
    static func makePackage(at path: String) throws {
        try writeFile(path + "/ctdocument.data", "data v1")
        try writeFile(path + "/ctdocument.metadata", "metadata")
        try writeFile(path + "/Pages/07/page.bin", String(repeating: "p", count: 2 << 20))
        try FileManager.default.createDirectory(atPath: path + "/Empty", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: path + "/latest", withDestinationPath: "Pages/07/page.bin")
        try PackageWrapper(readingFrom: path).save(to: path)
    }

    @Test func everySaveWritesAManifestOfTheTreeAsPythonSeesIt() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.appending("Doc.ict")
        try Self.makePackage(at: path)
        let first = try Self.pythonView(of: path)
        #expect(first.keys == ["Counter", "Entries", "Format", "Generation", "Saved", "SavingComputer"])
        #expect(first.tree.count == 7, "data, metadata, Pages, Pages/07, its file, Empty, latest")
        #expect(first.manifest == first.tree)
        #expect(first.generation.count == 32, "16 random bytes")

        // A whole save (a change at the root), then a save of one folder (a change inside Pages/07).
        let package = try PackageWrapper(readingFrom: path)
        #expect(package.child(named: PackageManifest.fileName) == nil, "the manifest is not an entry")
        package.child(named: "ctdocument.data")!.setContents(Data("data v2".utf8))
        try package.save(to: path)
        let second = try Self.pythonView(of: path)
        #expect(second.manifest == second.tree)
        #expect(second.counter == first.counter + 1)
        #expect(second.generation != first.generation)
        #expect(second.tree["ctdocument.data"]?["sha256"] != first.tree["ctdocument.data"]?["sha256"])

        let rootInode = inode(path)
        package.descendant(atPath: "Pages/07/page.bin")!.setContents(Data("short".utf8))
        try package.save(to: path)
        #expect(inode(path) == rootInode, "saved by exchanging Pages/07 alone")
        let third = try Self.pythonView(of: path)
        #expect(third.manifest == third.tree)
        #expect(third.counter == second.counter + 1)
        #expect(!package.hasChangedOnDisk(), "the manifest's replacement left the root as recorded")
        #expect(try FileManager.default.contentsOfDirectory(atPath: path).filter { $0.hasPrefix(".") } == [PackageManifest.fileName])

        let read = try #require(try PackageManifest.read(fromPackageAt: path))
        #expect(read.generation.counter == Int64(third.counter))
        #expect(read.entries.count == third.tree.count)
        #expect(read.savingComputer == ProcessInfo.processInfo.hostName)
    }

    @Test func aPackageWithoutAManifestHasNone() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try writeFile(directory.appending("Plain.ict/ctdocument.data"), "x")
        #expect(try PackageManifest.read(fromPackageAt: directory.appending("Plain.ict")) == nil)
    }

    /// Hand-built manifests: each refusal names the manifest, and a save over
    /// such a package writes a good one (counting from 1).
    @Test func garbageHugeLinkedAndFIFOManifestsAreRefusedByName() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.appending("Doc.ict")
        let manifestPath = path + "/" + PackageManifest.fileName
        try writeFile(path + "/ctdocument.data", "x")

        try writeFile(manifestPath, "garbage, not a property list")
        var error = try #require(throws: DocumentPackageError.self) { try PackageManifest.read(fromPackageAt: path) }
        #expect(error.code == .invalidManifest)
        #expect(error.pathInPackage == PackageManifest.fileName)
        #expect(error.fileSystemPath == FilePath(manifestPath))

        // A property list, but the wrong one: the key is named.
        try PropertyListSerialization.data(fromPropertyList: ["Format": 1, "Generation": Data(count: 3)], format: .binary, options: 0)
            .write(to: URL(fileURLWithPath: manifestPath))
        error = try #require(throws: DocumentPackageError.self) { try PackageManifest.read(fromPackageAt: path) }
        #expect(error.code == .invalidManifest)
        #expect(error.message.contains("Generation"), "\(error.message)")

        // 17 MiB, sparse: refused by its size, before a byte is read.
        try FileManager.default.removeItem(atPath: manifestPath)
        #expect(FileManager.default.createFile(atPath: manifestPath, contents: nil))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: manifestPath))
        try handle.truncate(atOffset: UInt64(PackageManifest.maximumFileSize) + 1)
        try handle.close()
        error = try #require(throws: DocumentPackageError.self) { try PackageManifest.read(fromPackageAt: path) }
        #expect(error.code == .limitExceeded(.entrySize))

        // A link to a good manifest elsewhere: never followed.
        try FileManager.default.removeItem(atPath: manifestPath)
        try writeFile(directory.appending("Other.ict/ctdocument.data"), "y")
        try PackageWrapper(readingFrom: directory.appending("Other.ict")).save(to: directory.appending("Other.ict"))
        try FileManager.default.createSymbolicLink(
            atPath: manifestPath, withDestinationPath: directory.appending("Other.ict/" + PackageManifest.fileName))
        error = try #require(throws: DocumentPackageError.self) { try PackageManifest.read(fromPackageAt: path) }
        #expect(error.code == .wrongKind)

        // A FIFO: refused by its type, without waiting for a writer.
        try FileManager.default.removeItem(atPath: manifestPath)
        #expect(mkfifo(manifestPath, 0o644) == 0)
        error = try #require(throws: DocumentPackageError.self) { try PackageManifest.read(fromPackageAt: path) }
        #expect(error.code == .wrongKind)
        try FileManager.default.removeItem(atPath: manifestPath)

        // Over garbage, a save writes a manifest of its own, counting from 1.
        try writeFile(manifestPath, "garbage")
        let package = try PackageWrapper(readingFrom: path)
        package.child(named: "ctdocument.data")!.setContents(Data("z".utf8))
        try package.save(to: path)
        #expect(try PackageManifest.read(fromPackageAt: path)?.generation.counter == 1)
        #expect(try PackageManifest.read(fromPackageAt: path)?.entries.keys.sorted() == ["ctdocument.data"])
    }

    @Test func aManifestListingMoreEntriesThanTheLimitsAllowIsRefused() throws {
        var entries: [String: PackageManifest.Entry] = [:]
        for index in 0..<11 { entries["f\(index)"] = PackageManifest.Entry(kind: .folder) }
        let manifest = PackageManifest(
            generation: .init(identifier: Array(repeating: 1, count: 16), counter: 1), savingComputer: "here", savedDate: Date(),
            entries: entries)
        var limits = DocumentPackageLimits.default
        limits.maximumEntryCount = 10
        let error = try #require(throws: DocumentPackageError.self) { try PackageManifest(decoding: manifest.encoded(), limits: limits) }
        #expect(error.code == .limitExceeded(.entryCount))
        limits.maximumEntryCount = 11
        #expect(try PackageManifest(decoding: manifest.encoded(), limits: limits) == manifest)
    }
}
