#if !canImport(Darwin)
import ConflictVersions
import Foundation
import Synchronization
import UbiquityContainers

/// Foundation's `NSFileVersion`, which swift-corelibs-foundation lacks, with
/// Apple's Swift signatures, over ConflictVersions' `DocumentVersion`: the
/// current version is the document itself, the others are the conflict
/// copies a sync engine (Syncthing, Nextcloud, Dropbox) leaves beside it, or
/// inside a package beside its entries.
///
/// Where it differs from Apple's, because the versions are files in the
/// folder rather than in a store the system keeps:
///
/// - `isResolved = true` on a conflict version marks it resolved **in this
///   process**: it is no longer among `unresolvedConflictVersionsOfItem(at:)`
///   (nor makes a `UIDocument` of the item `inConflict`), and nothing on disk
///   changes — the copy and its data stay until `remove()` or
///   `removeOtherVersionsOfItem(at:)` removes it, as Apple keeps a resolved
///   version until it is removed. Other processes and devices still see it
///   unresolved until it is removed; a copy changed after the mark (another
///   modification date) is a new conflict, unresolved again.
/// - The class functions return nil, as Apple's do for a missing item, also
///   when the versions cannot be listed (the document is a link, a FIFO, or
///   its folder cannot be read); `DocumentVersion`'s functions throw the reason.
/// - Errors are `CocoaError`s with the path under `NSFilePathErrorKey`, the
///   `DocumentVersionError` (which names the entry of a package) under
///   `NSUnderlyingErrorKey`.
/// - Two version objects are equal (`==`, `isEqual(_:)`) when they stand for
///   the same version: the same document and the same copy (or the same
///   entry copies), whatever their modification dates; the current version
///   of an item equals every other current version of it.
open class NSFileVersion: NSObject {
    /// `NSFileVersion.ReplacingOptions`: how `replaceItem(at:options:)` puts the version in place.
    public struct ReplacingOptions: OptionSet, Sendable {
        /// The options' bits (Apple's `NSFileVersionReplacingByMoving` is 1 << 0).
        public let rawValue: UInt
        /// Makes options from their bits.
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// Moves the version into place rather than copying it: the copy is gone afterwards and the version resolved.
        public static let byMoving = ReplacingOptions(rawValue: 1 << 0)
    }

    /// The version, as ConflictVersions found it.
    public let documentVersion: DocumentVersion
    private let discardable = Mutex(false)

    /// The `NSFileVersion` of `documentVersion`. Reads nothing.
    public init(_ documentVersion: DocumentVersion) {
        self.documentVersion = documentVersion
        super.init()
    }

    // MARK: Finding versions

    /// The item at `url` as it is now; nil when there is none (or `url` is not a `file:` URL). Costs one `lstat`.
    open class func currentVersionOfItem(at url: URL) -> NSFileVersion? {
        (try? DocumentVersion.currentVersionOfItem(at: url)).map(NSFileVersion.init)
    }

    /// Every version of the item at `url` but the current one — its conflict
    /// versions, resolved or not — oldest first; nil when there is no item
    /// there or its versions cannot be listed (`DocumentVersion.otherVersionsOfItem(at:)`
    /// throws the reason). Costs a listing of the item's folder (and of a
    /// package's folders) and one `lstat` per candidate; no file is read.
    open class func otherVersionsOfItem(at url: URL) -> [NSFileVersion]? {
        (try? DocumentVersion.otherVersionsOfItem(at: url))?.map(NSFileVersion.init)
    }

    /// The conflict versions of the item at `url` not resolved: neither
    /// removed nor marked resolved in this process (`isResolved`); nil as
    /// `otherVersionsOfItem(at:)`. Costs as `otherVersionsOfItem(at:)`.
    open class func unresolvedConflictVersionsOfItem(at url: URL) -> [NSFileVersion]? {
        otherVersionsOfItem(at: url)?.filter { $0.isConflict && !$0.isResolved }
    }

    /// Removes every version of the item at `url` but the current one —
    /// every conflict copy beside it and inside it, resolved or not — with
    /// the item locked; the item itself is not touched.
    ///
    /// - Throws: `CocoaError` `.fileNoSuchFile` when there is no item,
    ///   `.fileWriteInvalidFileName` when it is a link or special file,
    ///   `.fileWriteUnknown` or `.fileReadCorruptFile` when a removal fails
    ///   (the path and entry in the underlying `DocumentVersionError`).
    open class func removeOtherVersionsOfItem(at url: URL) throws {
        do throws(DocumentVersionError) {
            let itemPath = try DocumentVersion.currentVersionOfItem(at: url).itemPathText
            try DocumentVersion.removeOtherVersionsOfItem(at: url)
            ResolvedMarks.forget(item: itemPath)
        } catch {
            throw cocoaError(error)
        }
    }

    // MARK: What a version is

    /// Where the version is: the conflict copy, or the document itself for
    /// the current version and for a version made of entry copies inside a package.
    open var url: URL { documentVersion.url }

    /// The name to show the version by: the copy's file name (the document's
    /// for the current version and for entry copies).
    open var localizedName: String? { documentVersion.localizedName }

    /// The device that saved the conflict version: its name in the engine's
    /// device list where the engine keeping the item's container knows it
    /// (Syncthing's `config.xml` names each peer), else the device text of
    /// the conflict copy's name (Syncthing's short device ID, Dropbox's
    /// computer name, the Nextcloud user); nil for the current version and
    /// where the name gives none. Reads the containers' configuration and the
    /// engine's on each call.
    open var localizedNameOfSavingComputer: String? {
        guard let device = documentVersion.localizedNameOfSavingComputer else { return nil }
        return UbiquityContainers.current.deviceName(ofConflictDevice: device, itemAt: documentVersion.itemPathText) ?? device
    }

    /// When the version was last modified on disk (for entry copies, the newest of them), as it was listed.
    open var modificationDate: Date? { documentVersion.modificationDate }

    /// Whether this is a conflict version (every version but the current one).
    open var isConflict: Bool { documentVersion.isConflict }

    /// Whether the conflict is resolved: the version was removed or moved in
    /// by this object, or marked resolved in this process. Setting true marks
    /// a conflict version resolved in this process (see the class's
    /// discussion: nothing on disk changes until it is removed); false takes
    /// the mark away. Setting it on the current version does nothing (it is
    /// never in conflict). Takes a lock; reads nothing.
    open var isResolved: Bool {
        get { documentVersion.isResolved || (isConflict && ResolvedMarks.contains(documentVersion)) }
        set {
            guard isConflict else { return }
            ResolvedMarks.set(newValue, documentVersion)
        }
    }

    /// Whether the version may be thrown away by the system (macOS's
    /// `isDiscardable`): recorded on this object only, as nothing here throws
    /// versions away by itself; `removeOtherVersionsOfItem(at:)` removes every
    /// conflict version. Setting true on the current version is a programmer's
    /// error (a precondition; Apple raises an exception).
    open var isDiscardable: Bool {
        get { discardable.withLock { $0 } }
        set {
            precondition(!newValue || isConflict, "isDiscardable set on the current version of \(documentVersion.itemPathText)")
            discardable.withLock { $0 = newValue }
        }
    }

    /// Whether the version's contents are on this device: always, as a
    /// folder sync keeps every version whole on every device.
    open var hasLocalContents: Bool { true }

    // MARK: Resolving

    /// Makes this version the contents of the item at `url` in one step (a
    /// package saved safely, a file written beside it and renamed over it),
    /// the item locked meanwhile; with `.byMoving` the version is moved in
    /// and is resolved afterwards. Returns `url`. The current version
    /// changes nothing. Reads the version and writes the item.
    ///
    /// - Throws: `CocoaError` `.fileNoSuchFile` when there is no item at
    ///   `url` (Apple's creates one; a sync engine's conflict is always of an
    ///   item that exists), `.fileWriteInvalidFileName` when the version or
    ///   the item is a link, FIFO, device or socket, `.fileWriteUnknown` when
    ///   the version is of the other kind (a file for a package) or a write
    ///   fails, `.fileReadCorruptFile` when a package cannot be read. The item
    ///   is left as it was.
    @discardableResult
    open func replaceItem(at url: URL, options: ReplacingOptions = []) throws -> URL {
        let documentOptions: DocumentVersion.ReplacingOptions = options.contains(.byMoving) ? .byMoving : []
        do throws(DocumentVersionError) {
            try documentVersion.replaceItem(at: url, options: documentOptions)
        } catch {
            throw Self.cocoaError(error)
        }
        if options.contains(.byMoving) { ResolvedMarks.set(false, documentVersion) }
        return url
    }

    /// Removes this conflict version (the copy, or the entry copies inside
    /// the package, saved safely); the item itself is never touched.
    ///
    /// - Throws: `CocoaError` `.fileWriteNoPermission` for the current
    ///   version (which cannot be removed), otherwise as `removeOtherVersionsOfItem(at:)`.
    open func remove() throws {
        guard isConflict else {
            throw CocoaError(
                .fileWriteNoPermission,
                userInfo: [
                    NSFilePathErrorKey: documentVersion.itemPathText,
                    NSLocalizedFailureReasonErrorKey: "\(documentVersion.itemPathText): the current version is the document; it cannot be removed",
                ])
        }
        do throws(DocumentVersionError) {
            try documentVersion.remove()
        } catch {
            throw Self.cocoaError(error)
        }
        ResolvedMarks.set(false, documentVersion)
    }

    // MARK: Equality

    /// Whether `object` is an `NSFileVersion` of the same version: the same
    /// item, the same place, the same conflict name and entry copies.
    override open func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSFileVersion else { return false }
        return VersionIdentity(documentVersion) == VersionIdentity(other.documentVersion)
    }

    /// A hash agreeing with `isEqual(_:)`.
    override open var hash: Int { VersionIdentity(documentVersion).hashValue }

    /// The version's place, `Note.sync-conflict-…icfnote of /folder/Note.icfnote`.
    override open var description: String {
        isConflict ? "\(documentVersion.pathText) (a conflict version of \(documentVersion.itemPathText))" : "\(documentVersion.itemPathText) (current)"
    }

    /// Foundation's error for a version error.
    static func cocoaError(_ error: DocumentVersionError) -> CocoaError {
        let code: CocoaError.Code =
            switch error.code {
            case .notFound: .fileNoSuchFile
            case .symbolicLink, .specialFile: .fileWriteInvalidFileName
            case .package: .fileReadCorruptFile
            default: .fileWriteUnknown
            }
        return CocoaError(
            code,
            userInfo: [NSFilePathErrorKey: error.pathText, NSUnderlyingErrorKey: error, NSLocalizedFailureReasonErrorKey: error.description])
    }
}

/// What makes two version objects the same version.
private struct VersionIdentity: Hashable {
    var itemPath: String
    var path: String
    var conflictName: ConflictName?
    var entryCopies: [String]

    init(_ version: DocumentVersion) {
        itemPath = version.itemPathText
        path = version.pathText
        conflictName = version.conflictName
        entryCopies = version.entrySwaps.map(\.conflictEntryPathText)
    }
}

/// The conflict versions this process has marked resolved and not yet
/// removed, each as it was when marked (its modification date too: a copy
/// changed since is a new conflict).
private enum ResolvedMarks {
    private struct Mark: Hashable {
        var identity: VersionIdentity
        var modificationDate: Date?
    }

    private static let marks = Mutex(Set<Mark>())

    static func contains(_ version: DocumentVersion) -> Bool {
        marks.withLock { $0.contains(Mark(identity: VersionIdentity(version), modificationDate: version.modificationDate)) }
    }

    static func set(_ resolved: Bool, _ version: DocumentVersion) {
        let mark = Mark(identity: VersionIdentity(version), modificationDate: version.modificationDate)
        marks.withLock { if resolved { $0.insert(mark) } else { $0.remove(mark) } }
    }

    /// Drops the marks of the versions of the item at `path`, once they are removed.
    static func forget(item path: String) {
        marks.withLock { $0 = $0.filter { $0.identity.itemPath != path } }
    }
}
#endif
