import ConflictVersions
import Foundation
import PackageFormat
import SystemPackage

/// Row v (issue 14, acceptance 5): finding the conflict versions of 10,000
/// documents in one folder holding 1,000 conflicts — 500 Syncthing copies
/// beside documents and 500 entry copies inside them — with
/// `DocumentVersion.otherVersionsOfItems(inFolder:)`, in a child process,
/// against `ls -R` of the same folder (which lists the folder and every
/// package in it, as finding entry conflicts must).
struct VersionFinding {
    static let documentCount = 10_000
    static let conflictCount = 1_000

    let processRuns: Stopwatch
    let folder: String

    func run() -> Row {
        let benchmark = "v. find versions, \(Self.documentCount) documents, \(Self.conflictCount) conflicts"
        let peerName = "ls -R"
        let target = Target.atMostSlower(by: 2)
        do {
            try generateUnlessPresent()
            log("v. find versions vs ls -R")
            let ours = [currentExecutable, ChildMode.versions.rawValue, folder]
            let peer = ["/bin/ls", "-R", folder]
            let (ourTime, peerTime) = try processRuns.compare(
                reported: { try runChildChecked(ours, standardOutput: "/dev/null").sample },
                { try runChildChecked(peer, standardOutput: "/dev/null").sample })
            var row = Row.timed(benchmark, ours: ourTime, peer: peerName, peerTime: peerTime, target: target)
            row.note =
                "wall time from spawn to exit, page cache warm: this executable in child mode calling "
                + "DocumentVersion.otherVersionsOfItems(inFolder:) (one listing of the folder, one of each package, "
                + "an lstat only for folders of unknown type and for conflict copies) and checking it found "
                + "\(Self.conflictCount) versions, vs `/bin/ls -R FOLDER` to /dev/null"
            return row
        } catch {
            return .notMeasured(benchmark, peer: peerName, target: target, reason: "\(error)")
        }
    }

    /// The child's work: 0 when exactly the generated conflicts are found.
    static func findAll(in folder: String) -> Int32 {
        do {
            let versions = try DocumentVersion.otherVersionsOfItems(inFolder: FilePath(folder))
            let found = versions.values.reduce(0) { $0 + $1.count }
            guard found == conflictCount else {
                log("error: found \(found) versions, expected \(conflictCount)")
                return 1
            }
            return 0
        } catch {
            log("error: \(error)")
            return 1
        }
    }

    /// Small packages (two entries of a few bytes: the row is about names,
    /// not bytes); every tenth document has a conflict, alternately a
    /// Syncthing copy beside it and a Syncthing copy of its data entry.
    private func generateUnlessPresent() throws {
        let complete = folder + "/.complete"
        guard !FileManager.default.fileExists(atPath: complete) else { return }
        try? FileManager.default.removeItem(atPath: folder)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        log("v. generating \(Self.documentCount) documents with \(Self.conflictCount) conflicts in \(folder)")
        let options = PackageSaveOptions(replacingExisting: false, flushingToDisk: false)
        for index in 0..<Self.documentCount {
            let name = String(format: "Document %05d", index)
            let package = try PackageWrapper(directoryWithChildren: [
                "ctdocument.data": PackageWrapper(regularFileWithContents: Data("data \(index)".utf8)),
                "ctdocument.metadata": PackageWrapper(regularFileWithContents: Data("metadata \(index)".utf8)),
            ])
            try package.save(to: URL(filePath: "\(folder)/\(name).ict"), options: options)
            if index % 20 == 10 {
                // Written beside the entries after the save, as Syncthing writes a copy: the package's manifest does
                // not list it (a copy saved as one of the package's own entries is a different case: the versions
                // rebuilt from the manifest's saves are found besides it).
                try Data("other data".utf8).write(
                    to: URL(filePath: "\(folder)/\(name).ict/ctdocument.sync-conflict-20261123-101500-ABCDEF7.data"))
            }
            if index % 20 == 0 {
                try package.save(to: URL(filePath: "\(folder)/\(name).sync-conflict-20261123-101500-ABCDEF7.ict"), options: options)
            }
        }
        FileManager.default.createFile(atPath: complete, contents: Data())
    }
}
