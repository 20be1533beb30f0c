#if !canImport(Darwin)
import Foundation
import UbiquityContainers

/// `FileManager`'s ubiquity calls, which swift-corelibs-foundation lacks,
/// over `UbiquityContainers.current`: folders a sync engine keeps on several
/// devices (Syncthing in iCloud's place), configured once in
/// `containers.plist` or, for one process, named by `ICT_UBIQUITY_CONTAINER`.
/// Failures throw `CocoaError`s in `NSCocoaErrorDomain` with the path under
/// `NSFilePathErrorKey` and the `UbiquityContainerError` under `NSUnderlyingErrorKey`.
extension FileManager {
    /// The folder of the container named `containerIdentifier` (nil: the
    /// default one), nil when none is set up — as Apple's is nil when iCloud
    /// is off, or when the configuration cannot be read. Reads the configuration.
    public func url(forUbiquityContainerIdentifier containerIdentifier: String?) -> URL? {
        _ = Self.identityWatcher
        guard let container = try? UbiquityContainers.current.container(identifier: containerIdentifier) else { return nil }
        return URL(fileURLWithPath: container.folderText, isDirectory: true)
    }

    /// An opaque token for the identity the default container's engine
    /// syncs as (`UbiquityContainers.identityToken(of:)`), equal while it is
    /// the same; nil without a container or an engine identity here.
    public var ubiquityIdentityToken: (any NSCoding & NSCopying & NSObjectProtocol)? {
        _ = Self.identityWatcher
        guard let container = try? UbiquityContainers.current.container(identifier: nil),
            let token = UbiquityContainers.identityToken(of: container)
        else { return nil }
        return NSString(string: token)
    }

    /// Whether the item at `url` is in a ubiquity container.
    public func isUbiquitousItem(at url: URL) -> Bool {
        UbiquityContainers.current.isUbiquitousItem(url.path)
    }

    /// Moves the item at `url` into a container (`flag` true) or out of one
    /// (false), to `destinationURL`, which must not exist: one coordinated
    /// move, its presenters told (`UbiquityContainers.setUbiquitous`).
    ///
    /// - Throws: `CocoaError` `.fileNoSuchFile`, `.fileWriteFileExists`,
    ///   `.fileWriteInvalidFileName` (a destination in no container, or the
    ///   other way round), `.fileWriteUnknown`; nothing is moved then.
    public func setUbiquitous(_ flag: Bool, itemAt url: URL, destinationURL: URL) throws {
        do throws(UbiquityContainerError) {
            try UbiquityContainers.current.setUbiquitous(flag, itemAt: url.path, destination: destinationURL.path)
        } catch {
            throw Self.cocoaError(error)
        }
    }

    /// Apple's call to download a placeholder: a folder sync keeps every
    /// item whole on every device, so there is nothing to start.
    ///
    /// - Throws: `CocoaError` `.fileNoSuchFile` when the item is not there
    ///   (yet), `.fileWriteInvalidFileName` when it is in no container.
    public func startDownloadingUbiquitousItem(at url: URL) throws {
        do throws(UbiquityContainerError) {
            try UbiquityContainers.current.startDownloadingItem(at: url.path)
        } catch {
            throw Self.cocoaError(error)
        }
    }

    /// Apple's call to drop the local copy of an item, which no folder
    /// sync can do.
    ///
    /// - Throws: `CocoaError` `.featureUnsupported` (or
    ///   `.fileWriteInvalidFileName` when the item is in no container).
    public func evictUbiquitousItem(at url: URL) throws {
        do throws(UbiquityContainerError) {
            try UbiquityContainers.current.evictItem(at: url.path)
        } catch {
            throw Self.cocoaError(error)
        }
    }

    /// The process's watcher of the default container's identity, started
    /// by the first container call: it posts `NSUbiquityIdentityDidChange`.
    static let identityWatcher: UbiquityIdentityWatcher? = try? UbiquityIdentityWatcher { _ in
        NotificationCenter.default.post(name: .NSUbiquityIdentityDidChange, object: nil)
    }

    /// Foundation's error for a container error.
    static func cocoaError(_ error: UbiquityContainerError) -> CocoaError {
        let code: CocoaError.Code =
            switch error.code {
            case .notFound: .fileNoSuchFile
            case .alreadyExists: .fileWriteFileExists
            case .notInContainer, .alreadyInContainer: .fileWriteInvalidFileName
            case .unsupported: .featureUnsupported
            case .configuration: .fileReadCorruptFile
            default: .fileWriteUnknown
            }
        return CocoaError(
            code,
            userInfo: [NSFilePathErrorKey: error.pathText, NSUnderlyingErrorKey: error, NSLocalizedFailureReasonErrorKey: error.description])
    }
}

extension NSNotification.Name {
    /// Apple's notification of a change of `FileManager.ubiquityIdentityToken`:
    /// posted to `NotificationCenter.default` (object nil) when the default
    /// container's engine identity changes — its keys replaced, its folder
    /// replaced, another default container configured, or none left —
    /// once the process has asked for a container or the token
    /// (`UbiquityIdentityWatcher`, on the process's file-event loop).
    public static let NSUbiquityIdentityDidChange = NSNotification.Name("NSUbiquityIdentityDidChangeNotification")
}
#endif
