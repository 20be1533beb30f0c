#if canImport(UIKit)
import UIKit
#else
import AppleCompatibility
import Foundation
#endif

// The photo app's conflict resolution (its last tutorial), as written for
// iOS: only the import block above differs.

/// The versions of a document in conflict, to show the user, and keeping the one picked.
struct ConflictResolution {
    let documentURL: URL

    /// The current version first, then each conflict version not yet resolved.
    var versions: [NSFileVersion] {
        var versions: [NSFileVersion] = []
        if let current = NSFileVersion.currentVersionOfItem(at: documentURL) {
            versions.append(current)
        }
        versions += NSFileVersion.unresolvedConflictVersionsOfItem(at: documentURL) ?? []
        return versions
    }

    /// What the chooser shows for a version: where it was saved, and when.
    func label(for version: NSFileVersion) -> String {
        let device = version.localizedNameOfSavingComputer ?? "This device"
        let date = version.modificationDate.map { ISO8601DateFormatter().string(from: $0) } ?? "unknown date"
        return "\(device), \(date)"
    }

    /// Keeps `version`: puts it in the document's place unless it is the
    /// current one, marks every conflict resolved and removes the others.
    func keep(_ version: NSFileVersion) throws {
        var coordinationError: NSError?
        var resolutionError: Error?
        let coordinator = NSFileCoordinator(filePresenter: nil)
        coordinator.coordinate(writingItemAt: documentURL, options: .forReplacing, error: &coordinationError) { url in
            do {
                if version != NSFileVersion.currentVersionOfItem(at: url) {
                    _ = try version.replaceItem(at: url, options: [])
                }
                for conflict in NSFileVersion.unresolvedConflictVersionsOfItem(at: url) ?? [] {
                    conflict.isResolved = true
                }
                try NSFileVersion.removeOtherVersionsOfItem(at: url)
            } catch {
                resolutionError = error
            }
        }
        if let error = coordinationError ?? resolutionError {
            throw error
        }
    }
}
