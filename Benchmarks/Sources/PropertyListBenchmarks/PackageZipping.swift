import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The package-zip rows (issue 10), whole processes, on one package of
/// 100,000 small entries (100 folders of 999 files of a dozen bytes):
///
/// - z1. `ict convert PKG --format zip` against `zip -r -q`;
/// - z2. `ict convert X.zip --format package` against `unzip -q`, both
///   restoring the zip `ict` made in z1.
///
/// The package is made once and kept under the data directory. Before the
/// clock starts, each zip run's output is removed and each restore gets a
/// new folder, and the file system is synced; the restored trees are removed
/// at the end.
struct PackageZipping {
    static let folderCount = 100
    static let filesPerFolder = 999
    static var entryCount: Int { folderCount * (filesPerFolder + 1) }
    static let markerName = ".parameters"
    static var parameters: String { "folders=\(folderCount) files=\(filesPerFolder) generator=1\n" }

    let processRuns: Stopwatch
    /// The release build of `ict`, or nil when none was given.
    let ict: String?
    let workDirectory: String

    private var packagePath: String { workDirectory + "/Bench.pkg" }

    func run() throws -> [Row] {
        let zipBenchmark = "z1. zip a package of \(Self.entryCount.formatted()) small entries"
        let restoreBenchmark = "z2. restore it"
        let zipPeer = "zip -r -q (Info-ZIP)"
        let restorePeer = "unzip -q (Info-ZIP)"
        let target = Target.atMostSlower(by: 2)
        guard let ict else {
            return [
                .notMeasured(zipBenchmark, peer: zipPeer, target: target, reason: "no `ict` given (--ict PATH)"),
                .notMeasured(restoreBenchmark, peer: restorePeer, target: target, reason: "no `ict` given (--ict PATH)"),
            ]
        }
        try generateUnlessPresent()
        let ourZip = workDirectory + "/ict.zip"
        let theirZip = workDirectory + "/zip.zip"
        let ourRestore = workDirectory + "/ict-restored"
        let theirRestore = workDirectory + "/unzip-restored"
        defer {
            for path in [ourZip, theirZip, ourRestore, theirRestore] { try? FileManager.default.removeItem(atPath: path) }
        }

        let zipCommand = [ict, "convert", packagePath, "--format", "zip", "-o", ourZip]
        let zipPeerCommand = ["/bin/sh", "-c", "cd \"$0\" && exec zip -r -q \"$1\" Bench.pkg", workDirectory, theirZip]
        log("z1. zip \(Self.entryCount) entries: ict convert vs zip -r -q")
        let (ourZipTime, peerZipTime) = try processRuns.compare(
            reported: {
                try clear(ourZip)
                return try runChildChecked(zipCommand, standardOutput: "/dev/null").sample
            },
            {
                try clear(theirZip)
                return try runChildChecked(zipPeerCommand, standardOutput: "/dev/null").sample
            })
        // Info-ZIP reads ict's zip back, every entry's checksum checked.
        _ = try runChildChecked(["unzip", "-tq", ourZip], standardOutput: "/dev/null")
        var zipRow = Row.timed(zipBenchmark, ours: ourZipTime, peer: zipPeer, peerTime: peerZipTime, target: target)
        zipRow.note =
            "wall time from spawn to exit, page cache warm: `ict convert PKG --format zip -o X.zip` vs "
            + "`sh -c 'cd DIR && exec zip -r -q Y.zip Bench.pkg'`; `unzip -tq` then checks every entry of ict's zip"

        // Each run restores into a new folder: removing 100,000 files just before a run made the next
        // run's journal commits wait on the removal's (both sides' times swelled from 5 s to 40 s and more).
        var round = 0
        func freshFolder(_ prefix: String) throws -> String {
            round += 1
            let folder = "\(prefix)/\(round)"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            sync()
            return folder
        }
        log("z2. restore \(Self.entryCount) entries: ict convert vs unzip -q")
        let (ourRestoreTime, peerRestoreTime) = try processRuns.compare(
            reported: {
                let folder = try freshFolder(ourRestore)
                return try runChildChecked(
                    [ict, "convert", ourZip, "--format", "package", "-o", folder + "/Bench.pkg"],
                    standardOutput: "/dev/null"
                ).sample
            },
            {
                let folder = try freshFolder(theirRestore)
                return try runChildChecked(
                    ["/bin/sh", "-c", "cd \"$0\" && exec unzip -q \"$1\"", folder, ourZip],
                    standardOutput: "/dev/null"
                ).sample
            })
        for prefix in [ourRestore, theirRestore] {
            let restored = prefix + "/" + (try FileManager.default.contentsOfDirectory(atPath: prefix).sorted().first ?? "")
            // The entries, not the manifest a package save writes beside them (`.ictkit-manifest.plist`).
            let count = try FileManager.default.subpathsOfDirectory(atPath: restored + "/Bench.pkg").filter { $0 != ".ictkit-manifest.plist" }.count
            try expect(count == Self.entryCount, "\(restored) holds \(count) entries, not \(Self.entryCount)")
        }
        var restoreRow = Row.timed(restoreBenchmark, ours: ourRestoreTime, peer: restorePeer, peerTime: peerRestoreTime, target: target)
        restoreRow.note =
            "both restore ict's zip of z1, wall time from spawn to exit: `ict convert X.zip --format package -o DIR` "
            + "(checks the whole central directory first, writes beside, flushes to disk with one syncfs, "
            + "then renames into place) vs `sh -c 'cd DIR && exec unzip -q X.zip'` (flushes nothing)"
        return [zipRow, restoreRow]
    }

    /// Removes the file at `path` and syncs, so no run pays for the previous one's writes.
    private func clear(_ path: String) throws {
        if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
        sync()
    }

    /// Makes the package, unless the marker says the one there was made with these parameters.
    private func generateUnlessPresent() throws {
        let marker = workDirectory + "/" + Self.markerName
        if (try? String(contentsOfFile: marker, encoding: .utf8)) == Self.parameters {
            log("z. reusing the package in \(packagePath)")
            return
        }
        log("z. making a package of \(Self.entryCount) entries in \(packagePath)")
        try? FileManager.default.removeItem(atPath: workDirectory)
        try FileManager.default.createDirectory(atPath: packagePath, withIntermediateDirectories: true)
        for folder in 0..<Self.folderCount {
            let folderPath = packagePath + "/" + String(format: "%02d", folder)
            try FileManager.default.createDirectory(atPath: folderPath, withIntermediateDirectories: false)
            for file in 0..<Self.filesPerFolder {
                let descriptor = open(folderPath + "/page-\(file).txt", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
                guard descriptor >= 0 else { throw BenchmarkFailure("cannot create a file in \(folderPath)") }
                let text = Array("page \(folder)-\(file)\n".utf8)
                let written = write(descriptor, text, text.count)
                close(descriptor)
                guard written == text.count else { throw BenchmarkFailure("cannot write a file in \(folderPath)") }
            }
        }
        try Self.parameters.write(toFile: marker, atomically: true, encoding: .utf8)
    }
}
