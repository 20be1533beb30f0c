import ConflictVersions
import Foundation
import PackageFormat

/// Resolves a document's conflicts over and over, until killed. Each round
/// makes a fresh conflict set — a Syncthing copy of the package beside it and
/// Syncthing copies of its entries inside it — then resolves it, as
/// `ict resolve` does: one version replaces the document, the others are
/// removed. The crash-safety test (`VersionResolveCrashTests`) kills it with
/// SIGKILL at random moments and checks that the document is always exactly
/// one of the versions and that nothing else in the folder is lost.
///
/// Usage: `VersionResolveStress FOLDER [FIRST-ROUND]` (rounds count from 1
/// by default; the test starts each child at another, so every kind of
/// resolve is interrupted); writes one byte to standard output when it
/// starts (`s`) and one after each step of a round (`c` conflicts made, `r`
/// replaced, `d` versions removed), so the test can time its kill from a
/// step it chooses, however fast or loaded the machine is.
@main
enum VersionResolveStress {
    static func main() throws {
        let arguments = CommandLine.arguments
        guard arguments.count == 2 || arguments.count == 3 else {
            FileHandle.standardError.write(Data("usage: VersionResolveStress FOLDER [FIRST-ROUND]\n".utf8))
            exit(64)
        }
        let folder = arguments[1]
        FileHandle.standardOutput.write(Data("s".utf8))
        var round = arguments.count == 3 ? (Int(arguments[2]) ?? 1) - 1 : 0
        while true {
            round += 1
            try ResolveRound.makeConflicts(in: folder, round: round)
            FileHandle.standardOutput.write(Data("c".utf8))
            let document = folder + "/" + ResolveRound.documentName
            let versions = try DocumentVersion.otherVersionsOfItem(at: document)
            // Alternate: keep the sibling copy, the entry version, the current one.
            switch round % 3 {
            case 0: try versions.first { $0.entrySwaps.isEmpty }?.replaceItem(at: document, options: .byMoving)
            case 1: try versions.first { !$0.entrySwaps.isEmpty }?.replaceItem(at: document, options: .byMoving)
            default: break
            }
            FileHandle.standardOutput.write(Data("r".utf8))
            try DocumentVersion.removeOtherVersionsOfItem(at: document)
            FileHandle.standardOutput.write(Data("d".utf8))
        }
    }
}

/// The document and its versions in one round; each version's `data` entry
/// says which it is (`current N`, `sibling N`, `entries N`).
public enum ResolveRound {
    public static let documentName = "Friend.ict"
    public static let siblingName = "Friend.sync-conflict-20261123-101500-ABCDEF7.ict"
    public static let entryCopyName = "ctdocument.sync-conflict-20261123-101600-QRSTUV2.data"

    /// A package whose data entry says `label`.
    public static func package(_ label: String) throws -> PackageWrapper {
        try PackageWrapper(directoryWithChildren: [
            "ctdocument.data": PackageWrapper(regularFileWithContents: Data(label.utf8)),
            "ctdocument.metadata": PackageWrapper(regularFileWithContents: Data(repeating: 7, count: 4096)),
        ])
    }

    /// Makes round `round`'s conflict set: the document (saved safely, so it
    /// is never half there) as `current N`, a sibling copy `sibling N`, and
    /// an entry copy `entries N` inside the document.
    public static func makeConflicts(in folder: String, round: Int) throws {
        let document = folder + "/" + documentName
        let current = try package("current \(round)")
        try current.addChild(PackageWrapper(regularFileWithContents: Data("entries \(round)".utf8)), named: entryCopyName)
        try current.save(to: document, options: PackageSaveOptions(flushingToDisk: false))
        try package("sibling \(round)").save(to: folder + "/" + siblingName, options: PackageSaveOptions(flushingToDisk: false))
    }
}
