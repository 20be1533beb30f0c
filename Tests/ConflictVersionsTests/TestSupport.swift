import Foundation
import PackageFormat
import TestSupport

/// A scratch folder (`ScratchFolder.make`) with this suite's helpers; `remove()` removes it.
struct TemporaryDirectory {
    let path: String

    init() throws { path = try ScratchFolder.make("ConflictVersionsTests").path }

    func remove() { _ = try? FileManager.default.removeItem(atPath: path) }

    func appending(_ relative: String) -> String { path + "/" + relative }

    /// Writes `text` at `relative`, making its folders.
    func write(_ text: String, at relative: String) throws {
        let url = URL(fileURLWithPath: appending(relative))
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    func read(_ relative: String) throws -> String {
        String(decoding: try Data(contentsOf: URL(fileURLWithPath: appending(relative))), as: UTF8.self)
    }

    /// The names in `relative` (the directory itself by default), sorted,
    /// but the manifest a package save writes (`.ictkit-manifest.plist`, not
    /// an entry; `PackageConsistencyTests` check it).
    func names(_ relative: String = "") throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: relative.isEmpty ? path : appending(relative))
            .filter { $0 != ".ictkit-manifest.plist" }.sorted()
    }
}

/// Packages as a sync engine leaves them after two devices saved while
/// apart, built by hand from two real saves of ICTKit: one package is each
/// device's, and entries are moved between them with `rename` (which keeps
/// their modification times, as Syncthing keeps a losing file's as its
/// conflict copy's).
enum HandSynced {
    /// The conflict tag Syncthing would give a copy made by device ABCDEF7.
    static let copyTag = "sync-conflict-20261206-101500-ABCDEF7"

    /// Saves a package of flat text entries at `path` with ICTKit.
    static func save(_ entries: [String: String], at path: String) throws {
        let package = try PackageWrapper(directoryWithChildren: [:])
        for (name, text) in entries { try package.addChild(PackageWrapper(regularFileWithContents: Data(text.utf8)), named: name) }
        try package.save(to: path)
    }

    /// Re-saves the package at `path` with ICTKit, `entry` given `text`.
    static func saveEdit(_ path: String, _ entry: String, _ text: String) throws {
        let package = try PackageWrapper(readingFrom: path)
        if let file = package.child(named: entry) {
            file.setContents(Data(text.utf8))
        } else {
            try package.addChild(PackageWrapper(regularFileWithContents: Data(text.utf8)), named: entry)
        }
        try package.save(to: path)
    }

    /// A copy of the package with every time kept (`cp -a`), as the other device's.
    static func copy(_ from: String, to: String) throws {
        let run = try ProgramRunner.run("/bin/cp", ["-a", from, to])
        guard run.status == 0 else { throw POSIXError(.EIO, userInfo: [NSLocalizedDescriptionKey: "cp -a \(from) \(to): \(run.stderr)"]) }
    }

    /// `rename(2)`, keeping the item's times.
    static func move(_ from: String, to: String) throws {
        guard rename(from, to) == 0 else { throw POSIXError(.EIO) }
    }

    /// Each regular file of a package wrapper (folders walked) as text, by path.
    static func texts(of package: PackageWrapper, below prefix: String = "") throws -> [String: String] {
        var texts: [String: String] = [:]
        for child in package.children {
            let path = prefix.isEmpty ? child.fileName! : prefix + "/" + child.fileName!
            switch child.kind {
            case .regularFile: texts[path] = String(decoding: try child.contents(), as: UTF8.self)
            case .directory: texts.merge(try Self.texts(of: child, below: path)) { $1 }
            case .symbolicLink: texts[path] = "-> " + (child.symbolicLinkDestination?.string ?? "")
            }
        }
        return texts
    }
}
