import Foundation
import PropertyList
import TestSupport
import Testing

/// `ict inspect PACKAGE` and `ict convert` between packages and zips, end to end.
struct PackageCommandTests {
    private func scratchFolder() throws -> String {
        let folder = try ScratchFolder.make("package").path
        return folder
    }

    private func write(_ bytes: [UInt8], to path: String, permissions: Int = 0o644) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        chmod(path, mode_t(permissions))
    }

    /// A package with one entry of every kind `inspect` tells apart.
    private func makeSamplePackage(in folder: String) throws -> String {
        let package = folder + "/Friend.ict"
        let archive: PropertyListValue = [
            "$version": 100000, "$archiver": "NSKeyedArchiver", "$top": ["DATA": .uid(1)],
            "$objects": ["$null", "Ada"],
        ]
        try write(try BinaryPropertyListWriter().encode(archive), to: package + "/ctdocument.data")
        try write(try BinaryPropertyListWriter().encode(["VERSION": 1]), to: package + "/settings.plist")
        try write(try XMLPropertyListWriter().encode(["name": "Ada"]), to: package + "/Info.plist")
        try write([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 7, count: 1492), to: package + "/Resources/photo.png")
        try write(Array("Grüße, Ada\n".utf8), to: package + "/Resources/notes.txt", permissions: 0o600)
        try write([0x00, 0xFF, 0x10, 0x80], to: package + "/Resources/blob.bin")
        try FileManager.default.createSymbolicLink(atPath: package + "/passwd", withDestinationPath: "/etc/passwd")
        return package
    }

    @Test func inspectShowsEachEntryWithItsSizeAndKind() throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let package = try makeSamplePackage(in: folder)
        let archiveSize = try FileManager.default.attributesOfItem(atPath: package + "/ctdocument.data")[.size] as! Int
        let settingsSize = try FileManager.default.attributesOfItem(atPath: package + "/settings.plist")[.size] as! Int
        let infoSize = try FileManager.default.attributesOfItem(atPath: package + "/Info.plist")[.size] as! Int
        let run = try ICTRunner.run(["inspect", package])
        #expect(run.status == 0)
        #expect(run.stderr == "")
        #expect(
            run.stdout == """
                Friend.ict/  package, 8 entries, 6 files, \(Self.size(1500 + 13 + 4 + archiveSize + settingsSize + infoSize))
                  Info.plist  \(Self.size(infoSize))  property list
                  Resources/  1.5 KB
                    blob.bin  4 B  other
                    notes.txt  13 B  text
                    photo.png  1.5 KB  PNG image
                  ctdocument.data  \(Self.size(archiveSize))  keyed archive
                  passwd -> /etc/passwd  link
                  settings.plist  \(Self.size(settingsSize))  property list

                """)
    }

    private static func size(_ bytes: Int) -> String {
        bytes < 1000 ? "\(bytes) B" : "\((Double(bytes) / 100).rounded() / 10) KB"
    }

    @Test func inspectJSONListsEntriesForPrograms() throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let package = try makeSamplePackage(in: folder)
        let run = try ICTRunner.run(["inspect", "--json", package])
        #expect(run.status == 0)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(report["kind"] as? String == "package")
        let document = try #require(report["package"] as? [String: Any])
        #expect(document["path"] as? String == package)
        let entries = try #require(document["entries"] as? [[String: Any]])
        #expect(
            entries.map { $0["path"] as? String } == [
                "Info.plist", "Resources", "Resources/blob.bin", "Resources/notes.txt", "Resources/photo.png",
                "ctdocument.data", "passwd", "settings.plist",
            ])
        #expect(
            entries.map { $0["kind"] is NSNull ? nil : $0["kind"] as? String } == [
                "property-list", nil, "other", "text", "png", "keyed-archive", nil, "property-list",
            ])
        #expect(entries[6]["type"] as? String == "link")
        #expect(entries[6]["destination"] as? String == "/etc/passwd")
        #expect(entries[1]["size"] as? Int == 1517)
    }

    /// The first 4 KB of each file are enough: three 64 MB entries, one of
    /// them a "binary property list" whose trailer is read through a mapping,
    /// leave the process's peak memory far below their size.
    @Test func inspectDoesNotReadBigEntries() throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let package = folder + "/Big.pkg"
        let big = 64 << 20
        try write([], to: package + "/small.txt")
        for (name, head) in [("movie.mov", [UInt8]([0, 1, 2])), ("log.txt", Array("log\n".utf8)), ("huge.plist", Array("bplist00".utf8))] {
            _ = FileManager.default.createFile(atPath: package + "/" + name, contents: Data(head))
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: package + "/" + name))
            try handle.seekToEnd()
            let chunk = Data(repeating: name == "movie.mov" ? 0 : 0x61, count: 1 << 20)
            for _ in 0..<64 { try handle.write(contentsOf: chunk) }
            try handle.close()
        }
        let run = try ICTRunner.run(["inspect", package])
        #expect(run.status == 0)
        #expect(run.stdout.contains("movie.mov  67.1 MB  other"))
        #expect(run.stdout.contains("log.txt  67.1 MB  text"))
        #expect(run.peakMemory < big / 2, "peak memory \(run.peakMemory) bytes")
    }

    @Test func aPackageRoundTripsThroughAZipByTheCommand() throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let package = try makeSamplePackage(in: folder)
        try FileManager.default.removeItem(atPath: package + "/passwd")
        try FileManager.default.createSymbolicLink(atPath: package + "/alias", withDestinationPath: "Resources/photo.png")
        let zipped = try ICTRunner.run(["convert", package, "--format", "zip"])
        #expect(zipped.status == 0, "\(zipped.stderr)")
        #expect(FileManager.default.fileExists(atPath: package + ".zip"))
        let restored = folder + "/Restored.ict"
        let unzipped = try ICTRunner.run(["convert", package + ".zip", "--format", "package", "-o", restored])
        #expect(unzipped.status == 0, "\(unzipped.stderr)")
        #expect(try Self.tree(restored) == Self.tree(package))
        // The default output is the package's name beside the zip; it exists, and is never replaced.
        let again = try ICTRunner.run(["convert", package + ".zip", "--format", "package"])
        #expect(again.status == 1)
        #expect(again.stderr == "\(package): error: already exists\n")
    }

    /// Thousands of entries go through `ict` both ways, each once: the zip
    /// holds every entry, and the restored tree equals the original.
    @Test func aPackageOfThousandsOfEntriesRoundTripsThroughTheCommand() throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let package = folder + "/Many.ict"
        for group in 0..<30 {
            for index in 0..<99 {
                try write(Array("page \(group)-\(index)\n".utf8), to: package + "/Pages/\(group)/\(index).txt")
            }
        }
        let zip = folder + "/Many.zip"
        let zipped = try ICTRunner.run(["convert", package, "--format", "zip", "-o", zip])
        #expect(zipped.status == 0, "\(zipped.stderr)")
        let entries = try PythonZip.entries(of: zip)
        // Many.ict/, Pages/, 30 folders, 2,970 files.
        #expect(entries.count == 1 + 1 + 30 + 2970)
        #expect(entries.first { $0.path == "Many.ict/Pages/29/98.txt" }?.kind == .file)
        let unzipped = try ICTRunner.run(["convert", zip, "--format", "package", "-o", folder + "/Restored.ict"])
        #expect(unzipped.status == 0, "\(unzipped.stderr)")
        #expect(try Self.tree(folder + "/Restored.ict") == Self.tree(package))
    }

    /// Restoring inflates each entry straight to disk: a 64 MB entry does
    /// not pass through memory whole.
    @Test func restoringStreamsABigEntryToDisk() throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let package = folder + "/Big.ict"
        try Self.writeZeros(64 << 20, to: package + "/zeros.bin")
        let zip = folder + "/Big.zip"
        #expect(try ICTRunner.run(["convert", package, "--format", "zip", "-o", zip]).status == 0)
        let run = try ICTRunner.run(["convert", zip, "--format", "package", "-o", folder + "/Restored.ict"])
        #expect(run.status == 0, "\(run.stderr)")
        let size = try FileManager.default.attributesOfItem(atPath: folder + "/Restored.ict/zeros.bin")[.size] as? Int
        #expect(size == 64 << 20)
        #expect(run.peakMemory < 48 << 20, "peak memory \(run.peakMemory) bytes")
    }

    /// A zip bomb whose records claim 1,000 bytes for 256 MB of zeros: the
    /// restore stops once the entry passes its claim, says which entry, uses
    /// little memory, and leaves the folder as it was.
    @Test func aZipBombThatUnderstatesItsSizeIsRefusedAndLeavesNothing() throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let package = folder + "/Bomb.ict"
        try write(Array("fine".utf8), to: package + "/a.txt")
        try Self.writeZeros(256 << 20, to: package + "/zeros.bin")
        let zip = folder + "/Bomb.zip"
        #expect(try ICTRunner.run(["convert", package, "--format", "zip", "-o", zip]).status == 0)
        try FileManager.default.removeItem(atPath: package)
        try Self.understateSize(of: "Bomb.ict/zeros.bin", in: zip, as: 1000)
        let before = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()

        let run = try ICTRunner.run(["convert", zip, "--format", "package"])
        #expect(run.status == 1)
        // The zip, the entry and the reason, whatever the layout of the line (being reworked).
        #expect(run.stderr.contains(zip) && run.stderr.contains("Bomb.ict/zeros.bin"), "\(run.stderr)")
        #expect(run.stderr.contains("the zip entry holds more bytes than the 1000 it declares"), "\(run.stderr)")
        #expect(run.peakMemory < 48 << 20, "peak memory \(run.peakMemory) bytes")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == before, "no package, no temporary")
    }

    /// The zip step refuses a link that restoring would refuse (so every zip
    /// `ict` makes restores); a zip made elsewhere with one is refused on restoring.
    @Test func aLinkToEtcPasswdIsRefusedWhenZippingAndWhenRestoring() throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let package = try makeSamplePackage(in: folder)
        let zip = folder + "/out.zip"
        let zipping = try ICTRunner.run(["convert", package, "--format", "zip", "-o", zip])
        #expect(zipping.status == 1)
        #expect(
            zipping.stderr
                == "\(package):passwd: error: the link points to an absolute path, outside the package; a zip of it could not be restored, so none is written\n"
        )
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["Friend.ict"])
        try PythonZip.create(zip, entries: [("Friend.ict/ctdocument.data", .file, "x"), ("Friend.ict/passwd", .symlink, "/etc/passwd")])
        let link = try PythonZip.entries(of: zip).first { $0.path == "Friend.ict/passwd" }
        #expect(link?.kind == .symlink)
        let run = try ICTRunner.run(["convert", zip, "--format", "package", "-o", folder + "/Restored.ict"])
        #expect(run.status == 1)
        #expect(run.stderr == "\(zip):Friend.ict/passwd: error: the link points to an absolute path, outside the package\n")
        #expect(!FileManager.default.fileExists(atPath: folder + "/Restored.ict"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["Friend.ict", "out.zip"])
    }

    /// A slash that Unicode joins to the next character (`/` + U+0301 is one Swift `Character`) is still a
    /// slash to the file system: a link to `/\u{301}etc` is absolute and one to `../\u{301}x` climbs out of the
    /// package, and restoring refuses both, as it refuses `/etc` and `../x`. (Split by characters, both were
    /// restored as links, and the package then pointed outside itself.)
    @Test(arguments: ["/\u{301}etc", "../\u{301}x"])
    func aLinkWhoseSlashIsJoinedToACombiningMarkIsStillRefused(destination: String) throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let zip = folder + "/Evil.zip"
        try PythonZip.create(zip, entries: [("Evil.ict/ctdocument.data", .file, "x"), ("Evil.ict/link", .symlink, destination)])
        let before = try FileManager.default.subpathsOfDirectory(atPath: folder).sorted()
        let run = try ICTRunner.run(["convert", zip, "--format", "package", "-o", folder + "/Restored.ict"])
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix("\(zip):Evil.ict/link: error: the link points"), "\(run.stderr)")
        #expect(run.stderr.contains("outside the package"), "\(run.stderr)")
        #expect(try FileManager.default.subpathsOfDirectory(atPath: folder).sorted() == before)
    }

    @Test func aZipCarryingDotDotEscapeWritesNothingOutsideTheTarget() throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/inbox", withIntermediateDirectories: true)
        let zip = folder + "/inbox/Evil.ict.zip"
        try PythonZip.create(zip, entries: ["Evil.ict/ctdocument.data", "Evil.ict/../escape", "../escape"].map { ($0, .file, "pwned") })
        let before = try FileManager.default.subpathsOfDirectory(atPath: folder).sorted()
        let run = try ICTRunner.run(["convert", zip, "--format", "package"])
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix("\(zip):Evil.ict/../escape: error: the zip entry's path leaves the package with \"..\""))
        #expect(try FileManager.default.subpathsOfDirectory(atPath: folder).sorted() == before)
        #expect(!FileManager.default.fileExists(atPath: folder + "/escape"))
        #expect(!FileManager.default.fileExists(atPath: folder + "/inbox/Evil.ict"))
    }

    @Test func packageAndZipFormatsCheckTheirInput() throws {
        let folder = try scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let package = try makeSamplePackage(in: folder)
        let plist = package + "/settings.plist"
        let zipOfFile = try ICTRunner.run(["convert", plist, "--format", "zip"])
        // A file of the wrong kind is an input problem (exit status 1), not a usage error.
        #expect(zipOfFile.status == 1)
        #expect(zipOfFile.stderr == "\(plist): error: --format zip needs a package directory; this is not one\n")
        let xmlOfPackage = try ICTRunner.run(["convert", package, "--format", "xml1"])
        #expect(xmlOfPackage.status == 1)
        #expect(xmlOfPackage.stderr == "\(package): error: is a directory (a package); convert a package with --format zip\n")
        let packageOfPlist = try ICTRunner.run(["convert", plist, "--format", "package"])
        #expect(packageOfPlist.status == 1)
        // Property-list conversion is unchanged.
        let xml = try ICTRunner.run(["convert", plist, "--format", "xml1"])
        #expect(xml.status == 0)
        #expect(xml.stdout.contains("<key>VERSION</key>"))
    }

    /// A file of `count` zero bytes, written 1 MB at a time.
    private static func writeZeros(_ count: Int, to path: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        let chunk = Data(count: 1 << 20)
        for _ in 0..<(count >> 20) { try handle.write(contentsOf: chunk) }
    }

    /// Makes the zip's local header (offset 22) and central directory record
    /// (offset 24) for `entryPath` declare `size` uncompressed bytes.
    private static func understateSize(of entryPath: String, in zip: String, as size: UInt32) throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: zip)))
        let name = Array(entryPath.utf8)
        var patched = 0
        for offset in 0..<(bytes.count - 46 - name.count) where bytes[offset] == 0x50 && bytes[offset + 1] == 0x4B {
            let (headerSize, sizeField) =
                switch (bytes[offset + 2], bytes[offset + 3]) {
                case (3, 4): (30, 22)
                case (1, 2): (46, 24)
                default: (0, 0)
                }
            guard headerSize > 0, Array(bytes[offset + headerSize..<offset + headerSize + name.count]) == name else { continue }
            withUnsafeBytes(of: size.littleEndian) { bytes.replaceSubrange(offset + sizeField..<offset + sizeField + 4, with: $0) }
            patched += 1
        }
        #expect(patched == 2, "the local header and the central record of \(entryPath)")
        try Data(bytes).write(to: URL(fileURLWithPath: zip))
    }

    /// Relative path → kind, permissions, bytes or link destination; the
    /// manifest a package save writes at the root (not an entry) left out.
    private static func tree(_ root: String) throws -> [String: String] {
        var result: [String: String] = [:]
        for relative in try FileManager.default.subpathsOfDirectory(atPath: root) where relative != ".ictkit-manifest.plist" {
            let path = root + "/" + relative
            var status = stat()
            lstat(path, &status)
            let mode = String(status.st_mode, radix: 8)
            switch status.st_mode & 0o170000 {
            case 0o120000: result[relative] = "link " + (try FileManager.default.destinationOfSymbolicLink(atPath: path))
            case 0o040000: result[relative] = "dir " + mode
            default: result[relative] = "file \(mode) " + (try Data(contentsOf: URL(fileURLWithPath: path))).base64EncodedString()
            }
        }
        return result
    }
}
