import SystemPackage
import SystemSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// `URL` and `FilePath` forms of the operations that take a `String` path.
// A URL must be a `file:` URL: as Foundation's `FileManager` does for other
// schemes (`CocoaError.fileReadUnsupportedScheme` naming the URL), any other
// URL is refused with a thrown `.io` error whose `fileSystemPath` is the URL,
// never fetched. A `FilePath` names its item byte for byte, valid UTF-8 or
// not; errors name it as text, each byte that is not UTF-8 carried as
// U+10FF00 + byte. (The `String` forms are `package`: the kit's own callers
// hold names as text.)

extension PackageWrapper {
    /// Reads the package directory at the file URL `url`, as `init(readingFrom:mode:limits:)`.
    ///
    /// With `.lazy`, no file's bytes are read until asked for; the listing is.
    ///
    /// - Throws: `DocumentPackageError` `.io` naming `url` when it is not a
    ///   `file:` URL; otherwise as the `String` form (`.notFound` or
    ///   `.notADirectory` for the path, `.io`, `.invalidName`,
    ///   `.duplicateName`, `.unsupportedFileType`, `.limitExceeded`).
    public convenience init(
        readingFrom url: URL, mode: PackageReadingMode = .lazy,
        limits: DocumentPackageLimits = .default
    ) throws(DocumentPackageError) {
        try self.init(readingFrom: try FileURL.fileSystemPath(of: url, else: DocumentPackageError.notAFileURL), mode: mode, limits: limits)
    }

    /// Reads the package directory at `filePath` and everything in it:
    /// directories, regular files and symbolic links, with names,
    /// permissions and modification times.
    ///
    /// Symbolic links are read as links and never followed (only `filePath`
    /// itself may be reached through one). With `.lazy`, no file's bytes are
    /// read until asked for; the listing is.
    ///
    /// - Throws: `DocumentPackageError` `.notADirectory` or `.notFound` for
    ///   `filePath`; `.io` naming the directory or file that cannot be read;
    ///   `.invalidName` for a name that is not UTF-8; `.duplicateName` for
    ///   names that differ only by case; `.unsupportedFileType` for a device,
    ///   FIFO or socket; `.limitExceeded` when the package is over a limit.
    public convenience init(
        readingFrom filePath: FilePath, mode: PackageReadingMode = .lazy,
        limits: DocumentPackageLimits = .default
    ) throws(DocumentPackageError) {
        try self.init(readingFrom: RawFileName.text(filePath), mode: mode, limits: limits)
    }

    /// Reads a package made of some entries of the package at `filePath`,
    /// each under another name: `sources` maps each entry of the result
    /// (`a/b`) to the entry of the package on disk that holds it (itself, or
    /// a conflict copy of it). Files are read lazily; nothing else of the
    /// package is read.
    ///
    /// - Throws: `DocumentPackageError` `.notFound` naming an entry whose
    ///   source is gone, `.unsupportedFileType` for a source that is a
    ///   device, FIFO or socket, `.invalidName` or `.duplicateName` for an
    ///   entry path that cannot be one, and what `init(readingFrom:mode:limits:)`
    ///   throws for the root.
    public convenience init(readingEntries sources: [String: String], fromPackageAt filePath: FilePath)
        throws(DocumentPackageError)
    {
        try self.init(readingEntries: sources, fromPackageAt: RawFileName.text(filePath))
    }

    /// The entry at a path inside this directory, `Contents/Resources/x.nib`;
    /// nil when a step is missing or not a directory. Costs one lookup per
    /// component; nothing is read from disk.
    public func descendant(at pathInPackage: FilePath) -> PackageWrapper? {
        var current = self
        for component in pathInPackage.components {
            let name = component.withPlatformString(RawFileName.decoding(cString:))
            guard current.kind == .directory, let next = current.child(named: name) else { return nil }
            current = next
        }
        return current
    }

    /// Saves this directory wrapper as a package at the file URL `url`, as `save(to:options:)`.
    ///
    /// Writes the whole package beside `url` and swaps it in; unchanged files
    /// are linked or cloned, not copied byte by byte.
    ///
    /// - Throws: `DocumentPackageError` `.io` naming `url` when it is not a
    ///   `file:` URL (nothing is written); otherwise as the `String` form.
    public func save(to url: URL, options: PackageSaveOptions = PackageSaveOptions()) throws(DocumentPackageError) {
        try save(to: try FileURL.fileSystemPath(of: url, else: DocumentPackageError.notAFileURL), options: options)
    }

    /// Saves this directory wrapper as the package at `filePath`, safely.
    ///
    /// The new package is written beside the old one under a temporary name,
    /// flushed, and swapped in with one exchange of names; at no moment is a
    /// half-written package at `filePath`. Regular files unchanged since they
    /// were read are hard-linked (from the package replaced or
    /// `options.originalContentsPath`) or cloned, not copied byte by byte.
    /// The save takes no lock and tells no one: `FileCoordination`'s
    /// `coordinatedSave(to:options:)` does.
    ///
    /// - Throws: `DocumentPackageError` `.io` naming the path that failed
    ///   (the temporary is removed; the old package stays), `.changedOnDisk`
    ///   when an unchanged file that was never loaded is gone or modified,
    ///   `.notADirectory` when `filePath` is something other than a directory
    ///   (a symbolic link there is neither replaced nor followed),
    ///   `.alreadyExists` when `options` forbids replacing.
    public func save(to filePath: FilePath, options: PackageSaveOptions = PackageSaveOptions()) throws(DocumentPackageError) {
        try save(to: RawFileName.text(filePath), options: options)
    }
}

extension PackageZipArchive {
    /// Writes `package` as a zip at the file URL `url`, as `write(_:to:rootName:limits:)`.
    ///
    /// Time and memory grow linearly with the entries.
    ///
    /// - Throws: `DocumentPackageError` `.io` naming `url` when it is not a
    ///   `file:` URL (nothing is written); otherwise as the `String` form.
    public static func write(
        _ package: PackageWrapper, to url: URL, rootName: String,
        limits: DocumentPackageLimits = .default
    ) throws(DocumentPackageError) {
        try write(package, to: try FileURL.fileSystemPath(of: url, else: DocumentPackageError.notAFileURL), rootName: rootName, limits: limits)
    }

    /// Writes `package` as a zip at `filePath`, its entries under the folder
    /// `rootName`, safely (beside it, then renamed in).
    ///
    /// Time and memory grow linearly with the entries. `progress`, when
    /// given, is called on this thread after each entry is written, with the
    /// entries written and the package's entry count.
    ///
    /// - Throws: `DocumentPackageError` `.limitExceeded` naming the entry
    ///   when the package is over `limits`, `.unsafePath` naming a symbolic
    ///   link that leaves the package or a symbolic link at `filePath` (both
    ///   checked before anything is written), `.io` when the zip cannot be
    ///   written, `.changedOnDisk` when a lazily read file changed since reading.
    public static func write(
        _ package: PackageWrapper, to filePath: FilePath, rootName: String,
        limits: DocumentPackageLimits = .default, progress: ((_ done: Int, _ total: Int) -> Void)? = nil
    ) throws(DocumentPackageError) {
        let path = RawFileName.text(filePath)
        try write(package, to: path, rootName: rootName, limits: limits, progress: progress)
    }

    /// Reads the zip at the file URL `url` as a package, as `read(at:limits:)`.
    ///
    /// Reads the central directory; file bytes are read when asked for.
    ///
    /// - Throws: `DocumentPackageError` `.io` naming `url` when it is not a
    ///   `file:` URL; otherwise as the `String` form.
    public static func read(at url: URL, limits: DocumentPackageLimits = .default) throws(DocumentPackageError)
        -> PackageWrapper
    {
        try read(at: try FileURL.fileSystemPath(of: url, else: DocumentPackageError.notAFileURL), limits: limits)
    }

    /// Reads the zip at `filePath` as a package.
    ///
    /// Reads the central directory; file bytes are read when asked for.
    /// `progress`, when given, is called on the thread that reads or saves
    /// the files, after each file's bytes are read whole and checked, with
    /// the files read so far and the zip's file count.
    ///
    /// - Throws: `DocumentPackageError` `.io` when the zip cannot be opened
    ///   or read, `.invalidName` / `.duplicateName` for names a package
    ///   cannot hold, `.limitExceeded` over a limit, `.invalidArchive` for a
    ///   zip that cannot be read.
    public static func read(
        at filePath: FilePath, limits: DocumentPackageLimits = .default,
        progress: ((_ done: Int, _ total: Int) -> Void)? = nil
    ) throws(DocumentPackageError) -> PackageWrapper {
        try read(at: RawFileName.text(filePath), limits: limits, progress: progress)
    }
}

extension PackageManifest {
    /// The manifest of the package at `filePath`; nil when it has none.
    ///
    /// - Throws: `DocumentPackageError` naming the manifest's entry:
    ///   `.invalidManifest` when it is not one, `.limitExceeded` over a
    ///   limit, `.wrongKind` when it is not a regular file (never followed or
    ///   read), `.io` when it cannot be read. Costs one read of the manifest.
    public static func read(fromPackageAt filePath: FilePath, limits: DocumentPackageLimits = .default)
        throws(DocumentPackageError) -> PackageManifest?
    {
        try read(fromPackageAt: RawFileName.text(filePath), limits: limits)
    }

    /// The manifest in the file `pathInPackage` of the package at
    /// `filePath` — the manifest, or a conflict copy of it.
    ///
    /// - Throws: as `read(fromPackageAt:limits:)`.
    public static func read(
        fromPackageAt filePath: FilePath, pathInPackage: String, limits: DocumentPackageLimits = .default
    ) throws(DocumentPackageError) -> PackageManifest? {
        let path = RawFileName.text(filePath)
        return try read(fromPackageAt: path, pathInPackage: pathInPackage, limits: limits)
    }

    /// The entry at `filePath` on disk as a manifest would list it, or nil
    /// when nothing is there. A file's digest is computed only `digesting`
    /// (one read of the file, a piece at a time); a symbolic link is read as
    /// a link, never followed; a device, FIFO or socket is `.special` and
    /// never opened for reading.
    ///
    /// - Throws: `DocumentPackageError` `.io` naming `pathInPackage` when it
    ///   cannot be read, `.changedOnDisk` when it changes while read.
    public static func entryOnDisk(_ filePath: FilePath, pathInPackage: String, digesting: Bool)
        throws(DocumentPackageError) -> Entry?
    {
        let path = RawFileName.text(filePath)
        return try entryOnDisk(path, pathInPackage: pathInPackage, digesting: digesting)
    }
}

extension PackageSaveOptions {
    /// `originalContentsPath` as a directory's file URL; nil when none.
    ///
    /// Setting a URL that is not a `file:` URL is a programmer's error (a
    /// precondition failure naming it): a setter cannot throw, and no other
    /// scheme can name a package to link files from.
    public var originalContentsURL: URL? {
        get { originalContentsPath.map { URL(filePath: $0.string, directoryHint: .isDirectory) } }
        set {
            if let newValue {
                guard let path = FileURL.path(of: newValue) else {
                    preconditionFailure("originalContentsURL \(newValue.absoluteString) is not a file URL")
                }
                originalContentsPath = FilePath(path)
            } else {
                originalContentsPath = nil
            }
        }
    }
}

extension DocumentPackageError {
    /// `.io` naming `url`, which is not a `file:` URL: what the `URL` forms
    /// throw for any other scheme (through `FileURL.fileSystemPath(of:else:)`).
    static func notAFileURL(_ url: URL) -> Self { DocumentPackageError(.io, fileSystemPathText: url.absoluteString, "not a file URL") }
}
