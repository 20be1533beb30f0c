import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Issue 20, items 6 and 7: a writer killed or interrupted mid-write leaves
/// nothing a later run does not remove, and names are bytes — one that is
/// not UTF-8 inside a package, or one of 250 to 255 bytes, is read and
/// written like any other.
final class LeftoverAndNameCommandTests {
    private let folder: String

    init() throws {
        folder = try ScratchFolder.make("ict-leftover").path
    }

    deinit { try? FileManager.default.removeItem(atPath: folder) }

    private func listing(_ path: String? = nil) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path ?? folder).sorted()
    }

    /// Every file below `path` (relative path → bytes), names as raw bytes in
    /// Latin-1 so any byte shows; the manifest a package save writes at the
    /// root (not an entry) left out.
    private func tree(_ path: String) throws -> [String: Data] {
        var result: [String: Data] = [:]
        let base = Array(path.utf8)
        func walk(_ directory: [UInt8]) throws {
            guard let stream = opendir(directory.map { CChar(bitPattern: $0) } + [0]) else { throw POSIXError(.ENOENT) }
            defer { closedir(stream) }
            while let entry = readdir(stream) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { [UInt8]($0.prefix { $0 != 0 }) }
                if name == [0x2E] || name == [0x2E, 0x2E] { continue }
                let full = directory + [0x2F] + name
                let relative = String(String.UnicodeScalarView(full.dropFirst(base.count + 1).map { Unicode.Scalar($0) }))
                if relative == ".ictkit-manifest.plist" { continue }
                if Int32(entry.pointee.d_type) == Int32(DT_DIR) {
                    result[relative + "/"] = Data()
                    try walk(full)
                } else {
                    let descriptor = open(full.map { CChar(bitPattern: $0) } + [0], O_RDONLY)
                    guard descriptor >= 0 else { throw POSIXError(.EIO) }
                    defer { close(descriptor) }
                    result[relative] = FileHandle(fileDescriptor: descriptor).readDataToEndOfFile()
                }
            }
        }
        try walk(base)
        return result
    }

    /// A package of `count` files of 4 MB of random bytes (deflate cannot
    /// shrink them, so zipping or restoring it takes a while).
    private func makeBigPackage(_ name: String, files count: Int) throws -> String {
        let path = folder + "/" + name
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let random = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/dev/urandom"))
        defer { try? random.close() }
        for index in 0..<count {
            try random.readData(ofLength: 4 << 20).write(to: URL(fileURLWithPath: "\(path)/part\(index)"))
        }
        return path
    }

    /// Waits (bounded: 20 s) until a name starting with `prefix` is in the folder.
    private func waitForEntry(startingWith prefix: String) throws -> Bool {
        for _ in 0..<40_000 {
            if try listing().contains(where: { $0.hasPrefix(prefix) }) { return true }
            usleep(500)
        }
        return false
    }

    /// Runs `ict ARGUMENTS`, signals it with `signal` once its temporary
    /// (`.TARGET.ict-new-…`) exists, and returns how it ended.
    private func interrupt(_ arguments: [String], temporaryOf target: String, with signal: Int32) throws -> (sawTemporary: Bool, status: Int32) {
        let pid = try ICTRunner.spawn(arguments)
        let saw = try waitForEntry(startingWith: ".\(target).ict-new-")
        kill(pid, signal)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return (saw, status)
    }

    // MARK: Leftovers after signals

    /// `convert PKG --format zip` ended by SIGKILL, SIGTERM or SIGHUP mid-write:
    /// the old zip is byte for byte as it was; SIGTERM and SIGHUP leave no
    /// temporary, and the one SIGKILL leaves is removed by the next run.
    @Test(arguments: [SIGKILL, SIGTERM, SIGHUP])
    func aSignalDuringAZipLeavesTheOldZipAndNoTemporary(signal: Int32) throws {
        let package = try makeBigPackage("Big.ict", files: 8)
        let zip = folder + "/Z.zip"
        try Data("the old zip".utf8).write(to: URL(fileURLWithPath: zip))
        let packageBefore = try tree(package)
        let (saw, status) = try interrupt(["convert", package, "--format", "zip", "-o", zip], temporaryOf: "Z.zip", with: signal)
        #expect(saw, "the zip was written before it could be interrupted")
        #expect(status & 0x7F == signal, "ended by signal \(status & 0x7F), exit status \((status >> 8) & 0xFF)")
        #expect(FileManager.default.contents(atPath: zip) == Data("the old zip".utf8))
        #expect(try tree(package) == packageBefore)
        let left = try listing().filter { $0.hasPrefix(".Z.zip.ict-new-") }
        #expect(left.count == (signal == SIGKILL ? 1 : 0), "\(left)")

        let again = try ICTRunner.run(["convert", package, "--format", "zip", "-o", zip])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try listing() == ["Big.ict", "Z.zip"])
        #expect(try PythonZip.entries(of: zip).count == 9)
    }

    /// Restoring a zip (`convert Z.zip --format package -o P.ict`) ended by a
    /// signal: no package and no `.P.ict.ict-new-…` folder of the package's
    /// size stays after SIGTERM or SIGHUP; after SIGKILL the next restore
    /// removes it and succeeds. The zip is untouched throughout.
    @Test(arguments: [SIGKILL, SIGTERM, SIGHUP])
    func aSignalDuringAZipRestoreLeavesNoFolderBehind(signal: Int32) throws {
        let package = try makeBigPackage("Big.ict", files: 8)
        let zip = folder + "/Z.zip"
        let zipped = try ICTRunner.run(["convert", package, "--format", "zip", "-o", zip])
        #expect(zipped.status == 0, "\(zipped.stderr)")
        let packageBefore = try tree(package)
        try FileManager.default.removeItem(atPath: package)
        let zipBefore = FileManager.default.contents(atPath: zip)
        let restored = folder + "/P.ict"

        let (saw, status) = try interrupt(["convert", zip, "--format", "package", "-o", restored], temporaryOf: "P.ict", with: signal)
        #expect(saw, "the package was restored before it could be interrupted")
        #expect(status & 0x7F == signal, "ended by signal \(status & 0x7F), exit status \((status >> 8) & 0xFF)")
        #expect(FileManager.default.contents(atPath: zip) == zipBefore)
        let left = try listing().filter { $0 != "Z.zip" }
        if signal == SIGKILL {
            #expect(left.count == 1 && left[0].hasPrefix(".P.ict.ict-new-"), "\(left)")
        } else {
            #expect(left.isEmpty, "\(left)")
        }

        let again = try ICTRunner.run(["convert", zip, "--format", "package", "-o", restored])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try listing() == ["P.ict", "Z.zip"])
        #expect(try tree(restored) == packageBefore)
    }

    /// Temporaries named as earlier versions of `ict` named them, left by
    /// runs that are gone (`Z.zip.partial-PID`, `.P.ict.saving-PID-HEX`), are
    /// removed by the next write of the same target; another target's are not.
    @Test func leftoversOfEarlierNamingAreRemovedByTheNextWrite() throws {
        let pidMax =
            (try? String(contentsOfFile: "/proc/sys/kernel/pid_max", encoding: .utf8)).flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            ?? 4_194_304
        let dead = pidMax + 1
        let package = folder + "/P.ict"
        try FileManager.default.createDirectory(atPath: package, withIntermediateDirectories: true)
        try Data("x".utf8).write(to: URL(fileURLWithPath: package + "/a"))
        for name in ["Z.zip.partial-\(dead)", "Y.zip.partial-\(dead)"] {
            try Data("half".utf8).write(to: URL(fileURLWithPath: folder + "/" + name))
        }
        try FileManager.default.createDirectory(atPath: folder + "/.Q.ict.saving-\(dead)-1f/inner", withIntermediateDirectories: true)
        let zipped = try ICTRunner.run(["convert", package, "--format", "zip", "-o", folder + "/Z.zip"])
        #expect(zipped.status == 0, "\(zipped.stderr)")
        #expect(try listing() == [".Q.ict.saving-\(dead)-1f", "P.ict", "Y.zip.partial-\(dead)", "Z.zip"])
        let restored = try ICTRunner.run(["convert", folder + "/Z.zip", "--format", "package", "-o", folder + "/Q.ict"])
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(try listing() == ["P.ict", "Q.ict", "Y.zip.partial-\(dead)", "Z.zip"])
    }

    // MARK: Names

    /// A package holding a file named `caf` + byte 0xFF: inspect shows it
    /// escaped and `--json` exact, validate, versions and set handle it, set
    /// keeps it, a zip carries it (without the UTF-8 flag, as Python's
    /// zipfile reads it: code page 437) back to a package byte for byte, and
    /// a conflict copy of it is a version named escaped (`--json`: exact).
    @Test func aNameThatIsNotUTF8InsideAPackageIsReadWrittenAndZipped() throws {
        let package = folder + "/R.ict"
        try FileManager.default.copyItem(atPath: Repository.root.appendingPathComponent("SampleDocs/Rocket.ict").path, toPath: package)
        let odd = Array((package + "/caf").utf8) + [0xFF]
        let descriptor = open(odd.map { CChar(bitPattern: $0) } + [0], O_WRONLY | O_CREAT | O_EXCL, 0o644)
        #expect(descriptor >= 0)
        #expect(write(descriptor, "odd", 3) == 3)
        close(descriptor)
        let before = try tree(package)
        #expect(before["caf\u{FF}"] == Data("odd".utf8))

        let inspect = try ICTRunner.run(["inspect", package])
        #expect(inspect.status == 0, "\(inspect.stderr)")
        #expect(inspect.stdout.contains("    caf\\xFF              3 bytes\n"), "\(inspect.stdout)")
        let json = try ICTRunner.run(["inspect", "--json", package])
        #expect(json.status == 0, "\(json.stderr)")
        #expect(json.stdout.contains("\"caf\u{10FFFF}\""), "\(json.stdout)")
        for command in [["validate", package], ["versions", package]] {
            let run = try ICTRunner.run(command)
            #expect(run.status == 0, "\(command): \(run.stderr)")
            #expect(run.stderr.isEmpty, "\(command): \(run.stderr)")
        }
        #expect(try tree(package) == before)

        let set = try ICTRunner.run(["set", package, "--first-name", "Zed"])
        #expect(set.status == 0, "\(set.stderr)")
        let after = try tree(package)
        #expect(after["caf\u{FF}"] == Data("odd".utf8))
        #expect(Set(after.keys) == Set(before.keys))
        #expect(after["ctdocument.data"] != before["ctdocument.data"])

        let zip = folder + "/R.zip"
        let zipped = try ICTRunner.run(["convert", package, "--format", "zip", "-o", zip])
        #expect(zipped.status == 0, "\(zipped.stderr)")
        #expect(try PythonZip.entries(of: zip).map(\.path).contains("R.ict/caf\u{A0}"))  // 0xFF in code page 437
        let restored = try ICTRunner.run(["convert", zip, "--format", "package", "-o", folder + "/Back.ict"])
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(try tree(folder + "/Back.ict") == after)

        // A Syncthing copy of that entry makes a version, named escaped for people and exactly in JSON.
        let copy = Array((folder + "/Back.ict/caf").utf8) + [0xFF] + Array(".sync-conflict-20261123-101600-QRSTUV2".utf8)
        let copyDescriptor = open(copy.map { CChar(bitPattern: $0) } + [0], O_WRONLY | O_CREAT | O_EXCL, 0o644)
        #expect(copyDescriptor >= 0)
        close(copyDescriptor)
        let versions = try ICTRunner.run(["versions", folder + "/Back.ict"])
        #expect(versions.status == 0, "\(versions.stderr)")
        #expect(versions.stdout.contains("1  Syncthing entry copies (caf\\xFF), 2026-11-23 10:16:00, device QRSTUV2\n"), "\(versions.stdout)")
        let versionsJSON = try ICTRunner.run(["versions", "--json", folder + "/Back.ict"])
        #expect(versionsJSON.status == 0, "\(versionsJSON.stderr)")
        #expect(versionsJSON.stdout.contains("\"entry\": \"caf\u{10FFFF}\""), "\(versionsJSON.stdout)")
    }

    /// A file name of 250 bytes, and one of 255 (two-byte characters), is
    /// written by `convert -o` and by a package restore (a package save):
    /// the temporary beside it fits in 255 bytes whatever the target's length.
    @Test(arguments: [250, 255])
    func longNamesAreWritten(length: Int) throws {
        let twoByte = String(repeating: "é", count: (length - 4) / 2)
        let plistName = twoByte + String(repeating: "a", count: length - 4 - twoByte.utf8.count) + ".xml"
        let packageName = String(repeating: "p", count: length - 4) + ".ict"
        let zipName = String(repeating: "z", count: length - 4) + ".zip"
        #expect([plistName, packageName, zipName].map(\.utf8.count) == [length, length, length])

        let converted = try ICTRunner.run(["convert", "-", "--format", "xml1", "-o", folder + "/" + plistName], stdin: Data("<plist><true/></plist>".utf8))
        #expect(converted.status == 0, "\(converted.stderr)")
        #expect(String(decoding: FileManager.default.contents(atPath: folder + "/" + plistName) ?? Data(), as: UTF8.self).contains("<true/>"))

        let source = folder + "/S.ict"
        try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true)
        try Data("entry".utf8).write(to: URL(fileURLWithPath: source + "/a"))
        let zipped = try ICTRunner.run(["convert", source, "--format", "zip", "-o", folder + "/" + zipName])
        #expect(zipped.status == 0, "\(zipped.stderr)")
        let restored = try ICTRunner.run(["convert", folder + "/" + zipName, "--format", "package", "-o", folder + "/" + packageName])
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(try tree(folder + "/" + packageName) == tree(source))
        #expect(try listing() == ["S.ict", plistName, packageName, zipName].sorted())
    }
}
