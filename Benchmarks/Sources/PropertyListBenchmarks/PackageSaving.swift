import Foundation
import PackageFormat

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The document-package rows (issue 4): a safe save of a 200 MB package
/// against `cp -r` of it, and an incremental re-save after one 4 KB entry
/// changed, in bytes written and in time against the full save.
///
/// The package: 50 files of 4 MB (10^6) in `Media/`, 100 files of 4 KB in
/// `Pages/NN/`, bytes from a fixed-seed generator (incompressible, so no file
/// system can shortcut them). Both sides work on the same disk, in a folder
/// beside the inputs.
struct PackageSaving {
    static let largeFileCount = 50
    static let largeFileSize = 4_000_000
    static let smallFileCount = 100
    static let smallFileSize = 4 << 10
    static var totalSize: Int { largeFileCount * largeFileSize + smallFileCount * smallFileSize }

    let stopwatch: Stopwatch
    let workDirectory: String

    func run() throws -> [Row] {
        try? FileManager.default.removeItem(atPath: workDirectory)
        try FileManager.default.createDirectory(atPath: workDirectory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: workDirectory) }
        log("p. building a \(megabytes(Self.totalSize)) package in memory")
        let source = workDirectory + "/Source.pkg"
        try Self.makePackage().save(to: URL(filePath: source))
        let target = workDirectory + "/Saved.pkg"
        let copy = workDirectory + "/Copied.pkg"

        /// A safe save of the whole package, made anew in memory, to a new path.
        func fullSave(flushing: Bool) throws -> Sample {
            try? FileManager.default.removeItem(atPath: target)
            let fresh = try Self.makePackage()
            sync()  // each run starts with no dirty pages of the runs before, on both sides
            return try Stopwatch.time { try fresh.save(to: URL(filePath: target), options: PackageSaveOptions(flushingToDisk: flushing)) }
        }

        var rows: [Row] = []
        for flushing in [false, true] {
            let peerName = flushing ? "cp -r && sync -f" : "cp -r"
            let peerCommand =
                flushing
                ? ["sh", "-c", "cp -r \"$0\" \"$1\" && sync -f \"$1\"", source, copy]
                : ["cp", "-r", source, copy]
            log("p1. safe save, \(flushing ? "flushed" : "not flushed"): PackageFormat vs \(peerName)")
            let (ours, peer) = try stopwatch.compare(
                reported: { try fullSave(flushing: flushing) },
                {
                    try? FileManager.default.removeItem(atPath: copy)
                    sync()
                    return try runChildChecked(peerCommand, standardOutput: "/dev/null").sample
                })
            try expect(try snapshotsEqual(source, copy), "\(peerName) did not copy the package")
            try expect(try snapshotsEqual(source, target), "the saved package differs from the source")
            var row = Row.timed(
                flushing
                    ? "p1b. safe save \(megabytes(Self.totalSize)), flushed (default)"
                    : "p1a. safe save \(megabytes(Self.totalSize)), not flushed",
                ours: ours, peer: peerName, peerTime: peer, target: .atMostSlower(by: 1.3))
            row.note =
                flushing
                ? "PackageSaveOptions() as apps get it: writes from memory beside the old package, fsyncs every file and "
                    + "directory, swaps it in; the peer copies from the page cache, then flushes the file system"
                : "PackageSaveOptions(flushingToDisk: false): written beside, swapped in, nothing flushed; "
                    + "the peer copies from the page cache and flushes nothing"
            rows.append(row)
        }

        log("p2/p3. re-save after one 4 KB change vs full save")
        let edited = workDirectory + "/Edited.pkg"
        try Self.makePackage().save(to: URL(filePath: edited))
        var written: [Int] = []
        var round = 0
        let (resave, full) = try stopwatch.compare(
            reported: {
                let package = try PackageWrapper(readingFrom: URL(filePath: edited))
                round += 1
                package.descendant(at: "Pages/07/page-0.bin")!.setContents(Self.bytes(count: Self.smallFileSize, seed: 1000 + round))
                sync()
                let before = try bytesWrittenByThisThread()
                let sample = try Stopwatch.time { try package.save(to: URL(filePath: edited)) }
                written.append(try bytesWrittenByThisThread() - before)
                return sample
            }, { try fullSave(flushing: true) })
        let maximumWritten = written.max() ?? 0
        var bytesRow = Row.share(
            "p2. re-save after one 4 KB change: bytes written",
            ours: "\(maximumWritten) B", peer: "package size", peerMeasurement: "\(Self.totalSize) B",
            share: Double(maximumWritten) / Double(Self.totalSize), target: .shareAtMost(percent: 1))
        bytesRow.note =
            "wchar of the saving thread (/proc/thread-self/io), the largest of \(written.count) saves; "
            + "unchanged entries are hard-linked"
        var timeRow = Row.share(
            "p3. re-save after one 4 KB change: time",
            ours: milliseconds(resave.median.milliseconds) + resave.fewerRunsThanAsked,
            peer: "full save (as p1b)", peerMeasurement: milliseconds(full.median.milliseconds),
            share: resave.median.milliseconds / full.median.milliseconds, target: .shareAtMost(percent: 5))
        timeRow.note =
            "re-saves and full flushed saves interleaved; the re-save reads the package lazily first (not timed), "
            + "and every change lies in Pages/07: the entries outside it are checked against what was read (a listing per folder, "
            + "an lstat per entry), then that folder alone is made anew beside the package (1 directory, its 9 unchanged "
            + "files hard-linked, 1 written, each fsynced), exchanged with the old one in one step (renameat2 RENAME_EXCHANGE), "
            + "Pages and the parent fsynced, the old folder removed; CPU time \(milliseconds(resave.medianCPU.milliseconds)) vs \(milliseconds(full.medianCPU.milliseconds)) "
            + "(\(format(resave.medianCPU.milliseconds / full.medianCPU.milliseconds * 100, decimals: 1)) %): the rest is waiting for the disk"
        return rows + [bytesRow, timeRow]
    }

    /// The benchmark package, made anew in memory (so a save writes every byte).
    static func makePackage() throws -> PackageWrapper {
        let media = try PackageWrapper(directoryWithChildren: [:])
        for index in 0..<largeFileCount {
            try media.addChild(
                PackageWrapper(regularFileWithContents: bytes(count: largeFileSize, seed: index)),
                named: "clip-\(index).bin")
        }
        let pages = try PackageWrapper(directoryWithChildren: [:])
        for group in 0..<10 {
            let folder = try PackageWrapper(directoryWithChildren: [:])
            for index in 0..<(smallFileCount / 10) {
                try folder.addChild(
                    PackageWrapper(regularFileWithContents: bytes(count: smallFileSize, seed: 100 + group * 10 + index)),
                    named: "page-\(index).bin")
            }
            try pages.addChild(folder, named: String(format: "%02d", group))
        }
        return try PackageWrapper(directoryWithChildren: ["Media": media, "Pages": pages])
    }

    /// `count` bytes from a fixed-seed xorshift generator.
    static func bytes(count: Int, seed: Int) -> Data {
        var state = UInt64(seed) &* 0x9E37_79B9_7F4A_7C15 | 1
        var data = Data(count: count)
        data.withUnsafeMutableBytes { raw in
            let words = raw.bindMemory(to: UInt64.self)
            for index in words.indices {
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                words[index] = state
            }
        }
        return data
    }

    /// The bytes this thread has written so far (Linux's per-thread `wchar`).
    private func bytesWrittenByThisThread() throws -> Int {
        let text = try String(contentsOfFile: "/proc/thread-self/io", encoding: .utf8)
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("wchar:") }),
            let value = Int(line.dropFirst("wchar:".count).trimmingCharacters(in: .whitespaces))
        else { throw BenchmarkFailure("no wchar in /proc/thread-self/io") }
        return value
    }

    /// The same entries with the same bytes, leaving out the manifest a package save writes beside them
    /// (`.ictkit-manifest.plist`), which `cp -r` of the source does not.
    private func snapshotsEqual(_ first: String, _ second: String) throws -> Bool {
        let manager = FileManager.default
        func names(_ folder: String) throws -> [String] {
            try manager.subpathsOfDirectory(atPath: folder).filter { $0 != ".ictkit-manifest.plist" }.sorted()
        }
        let firstNames = try names(first)
        guard firstNames == (try names(second)) else { return false }
        return firstNames.allSatisfy { manager.contentsEqual(atPath: first + "/" + $0, andPath: second + "/" + $0) }
    }
}
