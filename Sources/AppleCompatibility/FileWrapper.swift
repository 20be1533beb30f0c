#if !canImport(Darwin)
import PackageFormat
import Foundation

/// A representation of a node (a file, directory, or symbolic link) in the
/// file system: Foundation's `FileWrapper`, which swift-corelibs-foundation
/// lacks, built on PackageFormat's `PackageWrapper`.
///
/// A regular file read from disk without `.immediate` reads its bytes on the
/// first `regularFileContents`; writing a directory saves it as a package,
/// safely, hard-linking unchanged files of `originalContentsURL`.
open class FileWrapper: NSObject {
    /// Reading options for `init(url:options:)` and `read(from:options:)`.
    public struct ReadingOptions: OptionSet, Sendable {
        /// The options' bits, as Foundation's `NSFileWrapperReadingOptions`.
        public let rawValue: UInt

        /// Makes a set of options from its bits.
        public init(rawValue: UInt) { self.rawValue = rawValue }

        /// Every regular file's bytes are read while reading, so later
        /// access cannot fail because the files changed.
        public static let immediate = ReadingOptions(rawValue: 1 << 0)
        /// A regular file read at the top level is read into memory rather
        /// than mapped.
        public static let withoutMapping = ReadingOptions(rawValue: 1 << 1)
    }

    /// Writing options for `write(to:options:originalContentsURL:)`.
    public struct WritingOptions: OptionSet, Sendable {
        /// The options' bits, as Foundation's `NSFileWrapperWritingOptions`.
        public let rawValue: UInt

        /// Makes a set of options from its bits.
        public init(rawValue: UInt) { self.rawValue = rawValue }

        /// The node is written under a temporary name and moved into place.
        public static let atomic = WritingOptions(rawValue: 1 << 0)
        /// Descendants' `filename` properties are set to the names written.
        public static let withNameUpdating = WritingOptions(rawValue: 1 << 1)
    }

    /// What the wrapper holds.
    enum Contents {
        /// Children by dictionary key.
        case directory(DirectoryChildren)
        /// A regular file; the node holds or lazily reads the bytes, and
        /// remembers the file it was read from for hard-linking.
        case regularFile(PackageWrapper)
        /// A symbolic link's destination, as stored in the link.
        case symbolicLink(String)
    }

    var contents: Contents
    /// The directory this wrapper was last added to, to re-add it under a new
    /// preferred filename.
    weak var parent: FileWrapper?

    /// The name of the file-system node the wrapper was read from or last
    /// written to (with `.withNameUpdating`); nil when it has none.
    open var filename: String?

    /// The name to use as the dictionary key when the wrapper is added to a
    /// directory wrapper. Setting it removes the wrapper from the directory it
    /// belongs to and adds it again, under a key derived from the new name.
    open var preferredFilename: String? {
        didSet {
            guard let parent, oldValue != preferredFilename, parent.keyForChildFileWrapper(self) != nil else { return }
            parent.removeFileWrapper(self)
            parent.addFileWrapper(self)
        }
    }

    /// The node's attributes, keyed by `FileAttributeKey` raw values:
    /// `NSFilePosixPermissions` and `NSFileModificationDate` (applied when
    /// writing), `NSFileType` and, for regular files, `NSFileSize`.
    open var fileAttributes: [String: Any]

    init(contents: Contents, fileAttributes: [String: Any]) {
        self.contents = contents
        self.fileAttributes = fileAttributes
        super.init()
    }

    /// Makes a directory wrapper holding `childrenByPreferredName`, keyed by
    /// the dictionary's keys.
    public init(directoryWithFileWrappers childrenByPreferredName: [String: FileWrapper]) {
        contents = .directory(DirectoryChildren(childrenByPreferredName))
        fileAttributes = [:]
        super.init()
        for child in childrenByPreferredName.values { child.parent = self }
    }

    /// Makes a regular-file wrapper holding `contents`.
    public init(regularFileWithContents contents: Data) {
        self.contents = .regularFile(PackageWrapper(regularFileWithContents: contents))
        fileAttributes = [:]
        super.init()
    }

    /// Makes a symbolic-link wrapper whose destination is `url`'s path as
    /// given: relative when the URL was made from a relative path.
    public init(symbolicLinkWithDestinationURL url: URL) {
        contents = .symbolicLink(url.relativePath)
        fileAttributes = [:]
        super.init()
    }

    /// Reads the file-system node at `url` (a symbolic link is read as a
    /// link, never followed): a directory as a tree of wrappers, a regular
    /// file's bytes (mapped unless `.withoutMapping`), or a link's
    /// destination. Files inside a directory are read on first access unless
    /// `options` holds `.immediate`.
    ///
    /// - Throws: `CocoaError` `.fileReadNoSuchFile`, `.fileReadNoPermission`,
    ///   `.fileReadInvalidFileName` (a name that is not UTF-8) or
    ///   `.fileReadUnknown`, with the `DocumentPackageError` saying where
    ///   under `NSUnderlyingErrorKey`.
    public init(url: URL, options: ReadingOptions = []) throws {
        (contents, fileAttributes) = try FileWrapper.readNode(at: url, options: options)
        super.init()
        adoptChildren()
        filename = url.lastPathComponent
        preferredFilename = url.lastPathComponent
    }

    /// Reads the node at `url` again, replacing this wrapper's contents,
    /// children and attributes (its kind may change).
    ///
    /// - Throws: as `init(url:options:)`; the wrapper is unchanged then.
    open func read(from url: URL, options: ReadingOptions = []) throws {
        (contents, fileAttributes) = try Self.readNode(at: url, options: options)
        adoptChildren()
        filename = url.lastPathComponent
    }

    /// Writes the wrapper to `url`, replacing what is there.
    ///
    /// A directory is saved as a package, always safely (written beside
    /// `url`, flushed, and swapped in); regular files unchanged since they
    /// were read from `originalContentsURL` (or from `url` itself) are
    /// hard-linked, not copied. A regular file is written with `Data`'s
    /// `.atomic` when `options` holds `.atomic`. Permissions and modification
    /// dates in `fileAttributes` are applied. With `.withNameUpdating`, this
    /// wrapper's and its descendants' `filename` become the names written.
    ///
    /// - Throws: `CocoaError` `.fileWriteNoPermission`,
    ///   `.fileWriteOutOfSpace`, `.fileWriteInvalidFileName`,
    ///   `.fileNoSuchFile` or `.fileWriteUnknown`, with the
    ///   `DocumentPackageError` under `NSUnderlyingErrorKey`; `.fileReadUnknown`
    ///   when a file read lazily changed on disk and its bytes are gone.
    open func write(to url: URL, options: WritingOptions = [], originalContentsURL: URL?) throws {
        try writeNode(to: url, options: options, originalContentsURL: originalContentsURL)
    }

    /// Whether the node at `url` is what this wrapper was read as: the same
    /// kind; for a regular file the same modification date (bytes are not
    /// compared); for a link the same destination; for a directory the same
    /// names, each matching, recursively. Costs one `lstat` per node.
    open func matchesContents(of url: URL) -> Bool {
        matchesNode(atPath: url.path, comparingPermissions: false)
    }

    /// Whether the wrapper differs from the node at `path` and so needs
    /// reading again: a regular file's modification date or permissions
    /// differ, a link's destination, or a directory's members, recursively.
    open func needsToBeUpdated(fromPath path: String) -> Bool {
        !matchesNode(atPath: path, comparingPermissions: true)
    }

    /// Whether this is a directory wrapper.
    open var isDirectory: Bool {
        if case .directory = contents { return true }
        return false
    }

    /// Whether this is a regular-file wrapper.
    open var isRegularFile: Bool {
        if case .regularFile = contents { return true }
        return false
    }

    /// Whether this is a symbolic-link wrapper.
    open var isSymbolicLink: Bool {
        if case .symbolicLink = contents { return true }
        return false
    }

    /// A directory wrapper's children by dictionary key; nil for the other kinds.
    open var fileWrappers: [String: FileWrapper]? {
        guard case .directory(let children) = contents else { return nil }
        return children.byKey
    }

    /// A regular file's bytes; nil for the other kinds, and when a file read
    /// lazily was changed or removed on disk before its bytes were read.
    /// Reads the file on the first access unless read with `.immediate`.
    open var regularFileContents: Data? {
        guard case .regularFile(let node) = contents else { return nil }
        return try? node.contents()
    }

    /// A symbolic link's destination as a file URL; nil for the other kinds.
    open var symbolicLinkDestinationURL: URL? {
        guard case .symbolicLink(let destination) = contents else { return nil }
        return URL(fileURLWithPath: destination)
    }

    // MARK: Children

    /// Adds `child` to this directory wrapper under its preferred filename
    /// (else its filename), made unique with a `N__#$!@%!#__` prefix as
    /// Foundation does when the name is taken, and returns the key used.
    ///
    /// A programmer's error (a precondition) for a wrapper that is not a
    /// directory, or a child with neither name.
    @discardableResult
    open func addFileWrapper(_ child: FileWrapper) -> String {
        guard case .directory(var children) = contents else {
            preconditionFailure("addFileWrapper(_:) sent to a file wrapper that is not a directory")
        }
        guard let name = child.preferredFilename ?? child.filename else {
            preconditionFailure("addFileWrapper(_:) of a file wrapper with neither a preferred filename nor a filename")
        }
        contents = .directory(DirectoryChildren())  // so that `children` is mutated in place, not copied
        let key = children.insert(child, preferredName: name)
        contents = .directory(children)
        child.parent = self
        return key
    }

    /// Makes a regular-file wrapper holding `data`, adds it under
    /// `fileName` as `addFileWrapper(_:)` does, and returns the key used.
    @discardableResult
    open func addRegularFile(withContents data: Data, preferredFilename fileName: String) -> String {
        let child = FileWrapper(regularFileWithContents: data)
        child.preferredFilename = fileName
        return addFileWrapper(child)
    }

    /// Removes `child` from this directory wrapper; nothing happens when it
    /// is not a child.
    open func removeFileWrapper(_ child: FileWrapper) {
        guard case .directory(var children) = contents, let key = children.key(of: child) else { return }
        contents = .directory(DirectoryChildren())  // so that `children` is mutated in place, not copied
        children.remove(key)
        contents = .directory(children)
        if child.parent === self { child.parent = nil }
    }

    /// The dictionary key under which this directory wrapper holds `child`,
    /// or nil when it does not hold it.
    open func keyForChildFileWrapper(_ child: FileWrapper) -> String? {
        guard case .directory(let children) = contents else { return nil }
        return children.key(of: child)
    }
}

/// A directory wrapper's children by key, with the indexes that make adding,
/// finding and removing a child cost O(1).
struct DirectoryChildren {
    private(set) var byKey: [String: FileWrapper] = [:]
    /// How many keys fold to each lower-cased key.
    private var foldedKeyCounts: [String: Int] = [:]
    /// Each child's keys, oldest first: one, unless it was added twice.
    private var keysByChild: [ObjectIdentifier: [String]] = [:]

    init() {}

    init(_ byKey: [String: FileWrapper]) {
        for (key, child) in byKey { add(child, as: key) }
    }

    /// Adds `child` under `name`, made unique when a key equals it ignoring
    /// case (names that differ only by case collide on disk) with
    /// Foundation's prefix: the first free `N__#$!@%!#__name`. Returns the key.
    mutating func insert(_ child: FileWrapper, preferredName name: String) -> String {
        var key = name
        var number = 1
        while foldedKeyCounts[key.lowercased()] != nil {
            key = "\(number)__#$!@%!#__\(name)"
            number += 1
        }
        add(child, as: key)
        return key
    }

    private mutating func add(_ child: FileWrapper, as key: String) {
        byKey[key] = child
        foldedKeyCounts[key.lowercased(), default: 0] += 1
        keysByChild[ObjectIdentifier(child), default: []].append(key)
    }

    /// Removes the child under `key`, if any.
    mutating func remove(_ key: String) {
        guard let child = byKey.removeValue(forKey: key) else { return }
        let folded = key.lowercased()
        foldedKeyCounts[folded] = foldedKeyCounts[folded].flatMap { $0 > 1 ? $0 - 1 : nil }
        let keys = keysByChild[ObjectIdentifier(child)]?.filter { $0 != key } ?? []
        keysByChild[ObjectIdentifier(child)] = keys.isEmpty ? nil : keys
    }

    /// The key `child` was last added under, or nil.
    func key(of child: FileWrapper) -> String? { keysByChild[ObjectIdentifier(child)]?.last }
}
#endif
