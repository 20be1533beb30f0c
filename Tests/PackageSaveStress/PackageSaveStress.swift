import Foundation
import PackageFormat

/// Saves one package over and over, each save the next version of a known
/// sequence, until killed. The crash-safety test (`CrashSafetyTests`) kills
/// it with SIGKILL at random moments and checks that the package on disk is
/// always exactly one version of the sequence.
///
/// Usage: `PackageSaveStress PACKAGE [SAVES]` — SAVES defaults to unlimited.
/// Writes one byte to standard output when it starts saving (`s`) and one
/// after each save (`v`), so the test can time its kill from a moment it
/// chooses, however fast or loaded the machine is, rather than from a slow
/// process start.
@main
enum PackageSaveStress {
    static func main() throws {
        let arguments = CommandLine.arguments
        guard arguments.count >= 2 else {
            FileHandle.standardError.write(Data("usage: PackageSaveStress PACKAGE [SAVES]\n".utf8))
            exit(64)
        }
        let path = arguments[1]
        let saves = arguments.count > 2 ? Int(arguments[2]) ?? 0 : Int.max
        FileHandle.standardOutput.write(Data("s".utf8))
        for _ in 0..<saves {
            try saveNextVersion(at: path)
            FileHandle.standardOutput.write(Data("v".utf8))
        }
    }

    /// Reads the package at `path` (lazily) and saves it as the next version;
    /// saves version 0 when there is none.
    static func saveNextVersion(at path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else {
            try StressVersion.package(0).save(to: path)
            return
        }
        let package = try PackageWrapper(readingFrom: path)
        let current = try StressVersion.number(of: package)
        try StressVersion.advance(package, to: current + 1)
        try package.save(to: path)
    }
}

/// Version `n` of the stress package; every version differs from the one
/// before in several entries of `data/`, while `data/stable.bin` stays (and
/// so is hard-linked by incremental saves). Odd versions also change
/// `notes/`, so their saves write the whole package anew; even versions
/// change only `data/`, so their saves swap in that directory alone.
enum StressVersion {
    static let bigSize = 512 * 1024

    /// The whole package of version `n`, made in memory.
    static func package(_ n: Int) throws -> PackageWrapper {
        let package = try PackageWrapper(directoryWithChildren: [
            "data": PackageWrapper(directoryWithChildren: [
                "stable.bin": PackageWrapper(regularFileWithContents: Data((0..<65_536).map { UInt8(truncatingIfNeeded: $0 &* 7) }))
            ]),
            "notes": PackageWrapper(directoryWithChildren: [:]),
            "link": PackageWrapper(symbolicLinkWithDestination: "data/stable.bin"),
            "escape": PackageWrapper(symbolicLinkWithDestination: "/etc/passwd"),
        ])
        try advance(package, to: n)
        return package
    }

    /// Turns `package` (any version) into version `n`, changing only what differs.
    static func advance(_ package: PackageWrapper, to n: Int) throws {
        let data = package.child(named: "data")!
        try data.replaceChild(named: "version", with: PackageWrapper(regularFileWithContents: Data("\(n)".utf8)))
        try data.replaceChild(named: "big.bin", with: PackageWrapper(regularFileWithContents: bigContents(n)))
        try data.replaceChild(
            named: "mode.txt",
            with: PackageWrapper(regularFileWithContents: Data("mode".utf8), permissions: n % 2 == 0 ? 0o600 : 0o640))
        let notes = package.child(named: "notes")!
        let noted = n % 2 == 1 ? n : n - 1
        guard notes.child(named: "note-\(noted % 3).txt").map({ try? $0.contents() }) != Data("note for \(noted)".utf8) else { return }
        for child in notes.children { notes.removeChild(named: child.fileName!) }
        try notes.addChild(PackageWrapper(regularFileWithContents: Data("note for \(noted)".utf8)), named: "note-\(noted % 3).txt")
    }

    /// The version number stored in the package.
    static func number(of package: PackageWrapper) throws -> Int {
        guard let file = package.descendant(atPath: "data/version"), let n = Int(String(decoding: try file.contents(), as: UTF8.self)) else {
            throw DocumentPackageError(.notFound, pathInPackage: "data/version", "no version number")
        }
        return n
    }

    static func bigContents(_ n: Int) -> Data {
        var bytes = [UInt8](repeating: 0, count: bigSize)
        let seed = UInt8(truncatingIfNeeded: n)
        for index in bytes.indices { bytes[index] = UInt8(truncatingIfNeeded: index >> 8) ^ seed }
        return Data(bytes)
    }
}
