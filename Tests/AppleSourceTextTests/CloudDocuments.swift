#if canImport(UIKit)
import UIKit
#else
import AppleCompatibility
import Foundation
#endif

// The photo app's "move to iCloud" and "move to this device", as written for
// iOS: only the import block above differs.

/// Moves documents into the app's iCloud container and back out.
enum CloudDocuments {
    enum Failure: Error {
        case iCloudUnavailable
    }

    /// The `Documents` folder of the app's default container; nil when iCloud is off.
    static var ubiquitousDocumentsURL: URL? {
        FileManager.default.url(forUbiquityContainerIdentifier: nil)?.appendingPathComponent("Documents")
    }

    /// Moves the document at `localURL` into iCloud; returns its new URL.
    static func moveToCloud(_ localURL: URL) throws -> URL {
        guard let documents = ubiquitousDocumentsURL else { throw Failure.iCloudUnavailable }
        try FileManager.default.createDirectory(at: documents, withIntermediateDirectories: true)
        let cloudURL = documents.appendingPathComponent(localURL.lastPathComponent)
        try FileManager.default.setUbiquitous(true, itemAt: localURL, destinationURL: cloudURL)
        return cloudURL
    }

    /// Moves the document at `cloudURL` out of iCloud into `folder`; returns its new URL.
    static func moveToDevice(_ cloudURL: URL, folder: URL) throws -> URL {
        let localURL = folder.appendingPathComponent(cloudURL.lastPathComponent)
        try FileManager.default.setUbiquitous(false, itemAt: cloudURL, destinationURL: localURL)
        return localURL
    }

    /// Whether the document is in iCloud, for the "move" button's title.
    static func isInCloud(_ url: URL) -> Bool {
        FileManager.default.isUbiquitousItem(at: url)
    }
}
