import PackageFormat
import SystemPackage
import SystemSupport

extension PackageWrapper {
    /// Saves this directory wrapper as the package at `path` as
    /// `save(to:options:)` does, taking turns with ICTKit's other writers of
    /// the package and telling its presenters in other processes: how every
    /// ICTKit writer saves a package.
    ///
    /// After the checks the save makes first (the package's name, its
    /// folder), takes the package's exclusive item lock — the lock
    /// `FileCoordinator` takes — and holds it to the end of the save, so
    /// that another thread or process saving or coordinating the package
    /// waits; once the new version is in place, its presenters in other
    /// processes are told of the change (also of one deep inside, which
    /// their watch of the folder does not see) before the lock goes. Inside
    /// a coordinated write of the package on this thread, the lock is the
    /// write's, and the write's end tells the presenters. Presenters are not
    /// asked to save first: coordinate the write for that.
    ///
    /// - Throws: `DocumentPackageError` as `save(to:options:)` does, and
    ///   `.io` ("cannot lock the package for saving") when the lock cannot
    ///   be taken within `ItemLock`'s wait (120 seconds). Waits for other
    ///   holders of the lock.
    package func coordinatedSave(to path: String, options: PackageSaveOptions = PackageSaveOptions()) throws(DocumentPackageError) {
        precondition(kind == .directory, "save(to:) of a \(kind) wrapper: a package is a directory")
        let destination = try PackageSaveDestination(checking: path)
        let lock: ItemLock
        do throws(ItemLock.Failure) {
            lock = try ItemLock.acquire(destination.absolutePath, .exclusive)
        } catch {
            throw destination.ioError("cannot lock the package for saving: \(error.description)")
        }
        var replaced = false
        defer {
            // A save inside a coordinated write (the lock taken again) leaves the telling to the write's end.
            if replaced, !lock.isReentered { PresenterChannel.postChange(ofItemAt: destination.absolutePath) }
            lock.release()
        }
        try save(to: destination, options: options, replaced: &replaced)
    }

    /// Saves this directory wrapper as the package at `filePath` (byte for
    /// byte, valid UTF-8 or not) as `save(to:options:)` does, taking turns
    /// with ICTKit's other writers of the package and telling its presenters
    /// in other processes: how every ICTKit writer saves a package. Holds
    /// the package's exclusive item lock, the one `FileCoordinator` takes,
    /// to the end of the save.
    ///
    /// - Throws: `DocumentPackageError` as `save(to:options:)` does, and
    ///   `.io` ("cannot lock the package for saving") when the lock cannot
    ///   be taken within `ItemLock`'s wait (120 seconds). Waits for other
    ///   holders of the lock.
    public func coordinatedSave(to filePath: FilePath, options: PackageSaveOptions = PackageSaveOptions())
        throws(DocumentPackageError)
    {
        try coordinatedSave(to: RawFileName.text(filePath), options: options)
    }
}
