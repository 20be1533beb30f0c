import AppleCompatibility
import Foundation

/// A ported document class, as the tools drive it.
@MainActor
public protocol PortedDocument: UIDocument {
    /// The last error `handleError(_:userInteractionPermitted:)` was given.
    var lastError: Error? { get }
    /// What the document holds, for people, one line per field.
    func summary() throws -> [String]
    /// Makes the tool's edit, as a user would, and records it (`updateChangeCount(.done)`).
    func edit() throws
}

/// Runs a ported document class over the documents named on the command line.
@MainActor
public enum PortedDocumentRun {
    /// For each path: opens the document (printing what it holds, its state
    /// and its conflict versions), edits it, saves it as a new document in a
    /// scratch folder (`.forCreating`, so the sample is never changed),
    /// closes it, and opens the saved one again to show the edit was kept.
    /// Exits 1 when a document cannot be opened or saved, with the error
    /// (which says where), and 64 without a path.
    public static func main(tool: String, make: @MainActor (URL) -> any PortedDocument) async {
        let paths = CommandLine.arguments.dropFirst()
        guard !paths.isEmpty else {
            print("usage: \(tool) DOCUMENT…")
            exit(64)
        }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("\(tool)-\(UUID().uuidString)")
        var failed = false
        for path in paths {
            do {
                try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
                try await run(path, savingInto: scratch, make: make)
            } catch {
                print("\(path): error: \(error)")
                failed = true
            }
        }
        // exit() runs no defer: the scratch folder is removed here, or every run would leave one in /tmp.
        try? FileManager.default.removeItem(at: scratch)
        exit(failed ? 1 : 0)
    }

    private static func run(_ path: String, savingInto scratch: URL, make: @MainActor (URL) -> any PortedDocument) async throws {
        let url = URL(fileURLWithPath: path)
        let document = make(url)
        guard await document.open() else { throw document.lastError ?? CocoaError(.fileReadUnknown) }
        print("\(path): \(document.localizedName)")
        for line in try document.summary() { print("  \(line)") }
        print("  state: \(document.documentState)")
        for version in NSFileVersion.unresolvedConflictVersionsOfItem(at: url) ?? [] {
            print("  conflict version: \(version.localizedName ?? "?") from \(version.localizedNameOfSavingComputer ?? "an unknown device")")
        }

        try document.edit()
        let saved = scratch.appendingPathComponent(url.lastPathComponent)
        guard await document.save(to: saved, for: .forCreating) else { throw document.lastError ?? CocoaError(.fileWriteUnknown) }
        guard await document.close() else { throw document.lastError ?? CocoaError(.fileWriteUnknown) }
        print("  edited, saved as a new document, closed: state \(document.documentState)")

        let reopened = make(saved)
        guard await reopened.open() else { throw reopened.lastError ?? CocoaError(.fileReadUnknown) }
        for line in try reopened.summary() { print("  reopened: \(line)") }
        _ = await reopened.close()
    }
}
